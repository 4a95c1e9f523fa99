// How a fabric layer's output stream passes each operator of the post-processing unit on its way to a layer of the
// same fused group (docs/mapping.md, "Fused groups"; the cost of what the SDM holds: docs/model.md, "Fused groups").
// A group runs in row stripes (along X) or in one stripe, every shared tensor then held whole. An operator that
// reads each row of a stripe where it is (element-wise, or normalising rows along other axes) keeps the stripes; a
// windowed pool reads a window of rows per output row, as a convolution does (its halo held, not recomputed); one
// that needs its whole input (softmax or layer normalisation along X, a global pool, a reduction, a transpose, a
// reshape) passes a stream only in a group of one stripe; the rest end the stream (their input goes to DRAM).
// A group in token stripes (along N, axis 0 of a rank-4 tensor: a transformer GEMM's tokens) passes every operator
// that works on each token alone: element-wise ones, pools, softmax and layer normalisation along any axis but N.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "contracts/network.hpp"

namespace maeri::mapper {

// A window along X: output row r reads input rows r·stride − padding … r·stride − padding + size − 1 (clipped).
struct RowWindow {
  std::int64_t size = 1, stride = 1, padding = 0;
  std::int64_t input_rows = 1;  // X of the window's input
};

enum class StreamPassage {
  Ends,    // the stream ends here: the operator's inputs go to DRAM
  Rows,    // each row of a stripe is read where it is: stripes pass
  Window,  // a stripe of output rows reads a window of input rows (a max or average pool)
  Whole,   // the operator needs its whole input: only a group of one stripe passes it
};

struct StreamStep {
  StreamPassage passage = StreamPassage::Ends;
  // The unit writes the output beside its input (a new tensor the SDM holds too), not in its place.
  bool new_tensor = false;
  RowWindow window;  // Window only
  // Token stripes pass it: a rank-4 input whose every N index the operator reads and writes alone.
  bool tokens_pass = false;
};

// How `op` passes the stream it reads as input `stream` (an index into op.inputs), the other activation inputs of a
// binary operator being side operands (`side_from_graph`: some of them are made by a fabric layer, not network
// inputs or constants).
StreamStep stream_step(const contracts::Network& network, const contracts::Operator& op, std::size_t stream,
                       bool side_from_graph);

// A tensor a stream's operators make beside their input on the way to a consumer (new_tensor), which a group
// holds in the SDM with the producer's output: its rows are those of the window stage it follows.
struct MadeTensor {
  std::string tensor;
  std::int64_t elements = 0;
  std::int64_t rows = 1;    // its X (1 when not of rank 4)
  std::int64_t tokens = 1;  // its N (1 when not of rank 4)
  std::size_t stage = 0;    // how many windows of the path it comes after
};

// The operators between a producer's output and the tensor a consumer reads.
struct StreamPath {
  std::vector<RowWindow> windows;  // the pools' windows, producer first
  std::vector<MadeTensor> made;
  std::string whole_operator;      // the first operator that needs its whole input ("" if none)
  std::string whole_for_tokens;    // the first operator token stripes do not pass ("" if none)
};

// The path after one more operator, whose output is `output`.
StreamPath extended_path(StreamPath path, const StreamStep& step, const contracts::Operator& op,
                         const contracts::Tensor& output);

// The last row of the producer's output a consumer needs when it needs rows up to `last` of the tensor it reads.
std::int64_t last_producer_row(const StreamPath& path, std::int64_t last);
// The rows of each stage a consumer's span of `span` rows of the tensor it reads keeps: index 0 the producer's
// output, index windows.size() the tensor it reads.
std::vector<std::int64_t> stage_spans(const StreamPath& path, std::int64_t span);

}  // namespace maeri::mapper
