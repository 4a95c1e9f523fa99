// How a fabric layer's output stream passes each operator of the post-processing unit on its way to a layer of the
// same fused group (docs/mapping.md, "Fused groups"; the cost of what the SDM holds: docs/model.md, "Fused groups").
// A group runs in row stripes (along X) or in one stripe, every shared tensor then held whole. An operator that
// reads each row of a stripe where it is (element-wise, or normalising rows along other axes) keeps the stripes; a
// windowed pool reads a window of rows per output row, as a convolution does (its halo held, not recomputed); one
// that needs its whole input (softmax or layer normalisation along X, a global pool, a reduction, a transpose, a
// reshape) passes a stream only in a group of one stripe; the rest end the stream (their input goes to DRAM).
// A group in token stripes (along N, axis 0 of a rank-4 tensor: a transformer GEMM's tokens; a matrix product's
// query rows, axis −2 of its output) follows the tokens' axis through each operator: a stripe is a contiguous range
// of that axis. Element-wise operators, pools (tokens along N), softmax and layer normalisation along other axes and
// concatenation along another axis keep it; a transpose moves it where its permutation puts it; a reshape keeps it
// when only the axes around it regroup (the axes before it hold as many elements before and after, and it keeps its
// extent: attention's head split [S, H] → [S, h, d] and merge), so the head split and merge relabel rows (the unit
// still writes a transpose's output as a new tensor, a stripe of it held). The rest lose it: token stripes end.
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
  std::int64_t tokens = 1;  // its extent along the tokens' axis (1 when it has none)
  std::size_t stage = 0;    // how many windows of the path it comes after
};

// The operators between a producer's output and the tensor a consumer reads.
struct StreamPath {
  std::vector<RowWindow> windows;  // the pools' windows, producer first
  std::vector<MadeTensor> made;
  std::string whole_operator;      // the first operator that needs its whole input ("" if none)
  std::string whole_for_tokens;    // the first operator token stripes do not pass ("" if none)
  int token_axis = -1;             // the tokens' axis of the tensor the path has reached (−1: lost)
};

// The tokens' axis of a fabric layer's output: axis −2 (its query rows) for a matrix product, N (axis 0) otherwise.
int output_token_axis(const contracts::Network& network, const contracts::Operator& layer_op);
// The tokens' axis of op's output when its input `stream` has them along `axis` (−1: token stripes do not pass).
int token_axis_after(const contracts::Network& network, const contracts::Operator& op, std::size_t stream, int axis,
                     bool side_from_graph);

// The path after one more operator (op reads the path's tensor as its input `stream`; its output is op.outputs[0]).
StreamPath extended_path(StreamPath path, const StreamStep& step, const contracts::Network& network,
                         const contracts::Operator& op, std::size_t stream, bool side_from_graph);

// The last row of the producer's output a consumer needs when it needs rows up to `last` of the tensor it reads.
std::int64_t last_producer_row(const StreamPath& path, std::int64_t last);
// The rows of each stage a consumer's span of `span` rows of the tensor it reads keeps: index 0 the producer's
// output, index windows.size() the tensor it reads.
std::vector<std::int64_t> stage_spans(const StreamPath& path, std::int64_t span);

}  // namespace maeri::mapper
