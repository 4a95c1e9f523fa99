// Output comparison for co-simulation runs (see scoreboard.hpp).
#include "testbench/scoreboard.hpp"

#include <fmt/format.h>

namespace maeri::testbench {

Scoreboard score_outputs(const contracts::Layer& layer, const std::vector<std::int64_t>& expected,
                         const std::vector<std::int64_t>& got, int keep) {
  Scoreboard board;
  const std::int64_t XO = layer.output_x(), YO = layer.output_y();
  if (expected.size() != got.size()) {
    board.compared = std::int64_t(expected.size());
    board.mismatches = board.compared;
    return board;
  }
  for (size_t i = 0; i < expected.size(); ++i) {
    ++board.compared;
    if (expected[i] == got[i]) continue;
    ++board.mismatches;
    if (int(board.first.size()) < keep) {
      const std::int64_t index = std::int64_t(i);
      board.first.push_back({index / (layer.K * XO * YO), index / (XO * YO) % layer.K, index / YO % XO, index % YO,
                             expected[i], got[i]});
    }
  }
  return board;
}

std::string Scoreboard::summary() const {
  if (pass()) return fmt::format("PASS ({} outputs bit-exact)", compared);
  std::string text = fmt::format("FAIL: {} of {} outputs differ", mismatches, compared);
  for (const Mismatch& m : first)
    text += fmt::format("; [n={} k={} x'={} y'={}] expected {} got {}", m.n, m.k, m.x, m.y, m.expected, m.got);
  return text;
}

}  // namespace maeri::testbench
