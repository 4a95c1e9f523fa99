// libFuzzer harness: graph workloads with extreme extents. The input's bytes choose a network input's shape and up
// to eight operators (conv, pad, max and average pools, ReLU, flatten, FC) whose every extent, stride, padding,
// dilation and group count is drawn from the edges of the limits (0, 1, 2^24 − 1, 2^24, 2^24 + 1, 2^31, 2^40, 2^62,
// −1, …); the workload text is read by the loader (contracts::load_workload_text). Bad input must end in
// maeri::util::InputError; an accepted network must be well formed, its tensors' element counts exact (no int64
// wrap) and its chained run's memory refused up front under a 1 MiB budget rather than allocated (issue 43, item 2).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include <fmt/format.h>

#include "contracts/spec_loader.hpp"
#include "testbench/run_memory.hpp"
#include "util/memory_budget.hpp"

namespace {

// Reads the fuzzer's bytes one at a time (0 once they run out).
class Bytes {
 public:
  Bytes(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  unsigned next() { return at_ < size_ ? data_[at_++] : 0; }
  bool done() const { return at_ >= size_; }
  // An extent from the limits' edges, or a small one.
  std::int64_t extent() {
    static const std::int64_t kEdges[] = {0, 1, 2, 3, 4, 7, 64, 4096, 4097, (1 << 24) - 1, 1 << 24, (1 << 24) + 1,
                                          std::int64_t{1} << 31, std::int64_t{1} << 40, std::int64_t{1} << 62, -1};
    const unsigned byte = next();
    return byte & 0x80 ? kEdges[byte & 0x0F] : std::int64_t(byte & 0x0F) + 1;
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_, at_ = 0;
};

// One operator reading `input`, named `name`: the kind from one byte, its fields from the following ones.
std::string operator_line(Bytes& bytes, const std::string& name, const std::string& input) {
  switch (bytes.next() % 7) {
    case 0:
      return fmt::format("  - {{name: {}, type: conv, input: {}, K: {}, C: {}, R: {}, S: {}, X: {}, Y: {}, stride: {}, "
                         "padding: {}, dilation: {}, groups: {}}}",
                         name, input, bytes.extent(), bytes.extent(), bytes.extent(), bytes.extent(), bytes.extent(),
                         bytes.extent(), bytes.extent(), bytes.extent() - 1, bytes.extent(), bytes.extent());
    case 1:
      return fmt::format("  - {{name: {}, type: pad, input: {}, pads: [{}, {}, {}, {}]}}", name, input,
                         bytes.extent() - 1, bytes.extent() - 1, bytes.extent() - 1, bytes.extent() - 1);
    case 2:
    case 3:
      return fmt::format("  - {{name: {}, type: {}, input: {}, size: {}, stride: {}, padding: {}}}", name,
                         bytes.next() % 2 ? "max_pool" : "average_pool", input, bytes.extent(), bytes.extent(),
                         bytes.extent() - 1);
    case 4:
      return fmt::format("  - {{name: {}, type: relu, input: {}}}", name, input);
    case 5:
      return fmt::format("  - {{name: {}, type: flatten, input: {}}}", name, input);
    default:
      return fmt::format("  - {{name: {}, type: fc, input: {}, K: {}, C: {}}}", name, input, bytes.extent(),
                         bytes.extent());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Bytes bytes(data, size);
  std::string yaml = fmt::format("kind: workload\nname: extents\ninputs:\n  - {{name: x, shape: [{}, {}, {}, {}]}}\n"
                                 "operators:\n",
                                 bytes.extent(), bytes.extent(), bytes.extent(), bytes.extent());
  std::string previous = "x";
  for (int i = 0; i < 8 && !bytes.done(); ++i) {
    const std::string name = "op" + std::to_string(i);
    yaml += operator_line(bytes, name, previous) + "\n";
    previous = name;
  }
  try {
    const maeri::contracts::Network network = maeri::contracts::load_workload_text(yaml, "extents.yaml");
    if (maeri::contracts::network_violation(network)) __builtin_trap();  // the loader builds only well-formed graphs
    for (const maeri::contracts::Tensor& tensor : network.tensors) {
      long double exact = 1;
      for (const std::int64_t extent : tensor.shape) exact *= static_cast<long double>(extent);
      if (exact < 1 || exact > 1e18L || static_cast<long double>(tensor.elements()) != exact) __builtin_trap();
    }
    maeri::util::set_memory_budget(1 << 20);
    try {
      maeri::testbench::require_chained_run_memory(network, "extents.yaml");
      if (maeri::testbench::chained_run_bytes(network) > (1 << 20)) __builtin_trap();  // passed, yet over the budget
    } catch (const maeri::util::InputError&) {
      if (maeri::testbench::chained_run_bytes(network) <= (1 << 20)) __builtin_trap();  // refused within the budget
    }
  } catch (const maeri::util::InputError&) {
  }
  return 0;
}
