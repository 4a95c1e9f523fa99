// How a mapping uses the SDM (prefetch buffer): whether the layer's data stays resident, and how the capacity is
// split between the stream buffer (prefetched inputs, weights, partial sums read back) and the output buffer
// (results waiting for DRAM, or the whole partial-sum array). One rule shared by the analytical model (DRAM
// bytes) and the co-simulation's SDM model (what it keeps and when it stalls); docs/model.md, "Memory".
#pragma once

#include <cstdint>

#include "spec/hardware.hpp"
#include "spec/layer.hpp"
#include "spec/tile.hpp"

namespace maeri::mapper {

struct SdmBudget {
  bool resident = false;             // inputs and weights are fetched from DRAM exactly once
  bool psums_in_sdm = false;         // resident with several reduction folds: partial sums never leave the SDM
  std::int64_t output_buffer_bytes = 0;
  std::int64_t stream_buffer_bytes = 0;  // capacity minus the output buffer (never negative)
  std::int64_t resident_bytes = 0;       // what residency needs: output buffer + one channel slice + one phase
  std::int64_t touched_inputs = 0;       // padded input elements some window reads (each fetched once if resident)
};

std::int64_t data_bytes(const spec::Hardware& hardware);         // ⌈data_width / 8⌉
std::int64_t accumulator_bytes(const spec::Hardware& hardware);  // ⌈acc_width / 8⌉

// Distinct input rows (or columns) touched by `outputs` consecutive outputs of a filter slice of `filter` taps
// `dilation` apart: the size of {o·stride + t·dilation : o < outputs, t < filter} (docs/model.md, "Window span").
// With g = gcd(stride, dilation), stride' = stride/g and dilation' = dilation/g, two pairs (o, t) and (o', t')
// land on the same row exactly when o − o' = j·dilation' and t' − t = j·stride'; counting each row at its pair
// of smallest o leaves outputs·filter − max(0, outputs − dilation')·max(0, filter − stride'). For dilation 1
// this is the overlap rule (outputs − 1)·stride + filter when stride ≤ filter, outputs·filter otherwise.
std::int64_t window_span(std::int64_t outputs, std::int64_t filter, std::int64_t stride, std::int64_t dilation);

SdmBudget sdm_budget(const spec::Layer& layer, const spec::Hardware& hardware, const spec::Tile& tile);

}  // namespace maeri::mapper
