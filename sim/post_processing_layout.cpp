// The post-processing unit's data-movement kernel (Transpose, Slice, Gather): one block, one stage streaming the
// output in row-major order, each output element read from the input element contracts::source_indices names (an
// SDM address generator; no arithmetic), `lanes` outputs per beat. docs/cosim.md, "Post-processing unit".
#include "sim/post_processing_kernel.hpp"

namespace maeri::sim {

namespace {

class DataMovementKernel : public PostProcessingUnit::Kernel {
 public:
  using Kernel::Kernel;
  void check() {
    sources_ = contracts::source_indices(checked_one_input_operator("attributes"), job_.inputs[0].shape);
  }
  std::size_t blocks() const override { return 1; }
  std::size_t stages() const override { return 1; }
  std::int64_t beats(std::size_t, std::size_t) const override { return beats_of(elements(job_.output_shape)); }
  void beat(std::size_t, std::size_t, std::int64_t beat) override {
    const auto [first, last] = lanes_of(beat, elements(job_.output_shape));
    for (std::int64_t o = first; o < last; ++o) write(o, read(0, sources_[std::size_t(o)]));
  }

 private:
  std::vector<std::int64_t> sources_;  // the input element of each output element
};

}  // namespace

std::unique_ptr<PostProcessingUnit::Kernel> layout_kernel(PostProcessingJob job, std::int64_t lanes) {
  if (!contracts::moves_data_only(job.op)) return nullptr;
  auto kernel = std::make_unique<DataMovementKernel>(std::move(job), lanes);
  kernel->check();
  return kernel;
}

}  // namespace maeri::sim
