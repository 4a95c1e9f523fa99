// Planning of a layer's configurations, weight phases and steps (loop nest in layer_program.hpp).
#include "codegen/layer_program.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

namespace maeri::codegen {

LayerProgram plan_layer(const spec::Layer& layer, const spec::Hardware& hardware, const spec::Tile& tile,
                        PlanDetail detail) {
  if (const auto violation = spec::tile_violation(layer, hardware, tile)) throw std::invalid_argument(*violation);
  // The analytical model costs mappings with an SDM level (docs/model.md, "SDM level"); the control program does
  // not express the SDM loops yet, so such a mapping cannot become an image.
  if (tile.sdm.blocked)
    throw std::invalid_argument("images do not carry an SDM level yet (SDM tile " + spec::blocks_text(tile.sdm) +
                                ", order " + spec::order_text(tile.sdm.order) +
                                "): map without --sdm for codegen, sim and verify");
  using namespace spec;
  LayerProgram program;
  program.layer = layer;
  program.tile = tile;
  program.num_ms = int(hardware.num_ms);
  program.forwarding = uses_mn_forwarding(layer, tile);

  const int R = int(layer.R), S = int(layer.S), C = int(layer.C), K = int(layer.K);
  const int N = int(layer.N), XO = int(layer.output_x()), YO = int(layer.output_y());
  const int TR = int(tile[kDimR]), TS = int(tile[kDimS]), TC = int(tile[kDimC]), TK = int(tile[kDimK]);
  const int TN = int(tile[kDimN]), TX = int(tile[kDimX]), TY = int(tile[kDimY]);

  std::map<PhaseShape, int> configuration_of;
  for (int r0 = 0; r0 < R; r0 += TR)
    for (int s0 = 0; s0 < S; s0 += TS)
      for (int c0 = 0; c0 < C; c0 += TC)
        for (int k0 = 0; k0 < K; k0 += TK) {
          PhaseShape shape;
          shape.t_r = std::min(TR, R - r0);
          shape.t_s = std::min(TS, S - s0);
          shape.t_c = std::min(TC, C - c0);
          shape.t_k = std::min(TK, K - k0);
          shape.t_n = TN;
          shape.t_x = TX;
          shape.t_y = TY;
          auto found = configuration_of.find(shape);
          if (found == configuration_of.end()) {
            PhaseConfiguration configuration;
            const bool forwarding = phase_forwards(layer, tile, shape);
            configuration.placement = place_tile(program.num_ms, shape, forwarding);
            configuration.reduction =
                compile_fabric(configuration.placement.layout, configuration.placement.take_forward);
            found = configuration_of.emplace(shape, int(program.configurations.size())).first;
            program.configurations.push_back(std::move(configuration));
          }
          WeightPhase phase;
          phase.configuration = found->second;
          phase.r0 = r0;
          phase.s0 = s0;
          phase.c0 = c0;
          phase.k0 = k0;
          phase.accumulate = r0 > 0 || s0 > 0 || c0 > 0;
          const bool forwarding = phase_forwards(layer, tile, shape);
          if (detail == PlanDetail::Steps) {
            for (int n0 = 0; n0 < N; n0 += TN)
              for (int x0 = 0; x0 < XO; x0 += TX)
                for (int y0 = 0; y0 < YO; y0 += TY) phase.steps.push_back({n0, x0, y0, forwarding && y0 > 0});
          }
          program.phases.push_back(std::move(phase));
        }
  return program;
}

}  // namespace maeri::codegen
