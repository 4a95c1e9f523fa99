// The post-processing unit's resize kernel: one block, one stage streaming the taps of the outputs in row-major
// order (contracts::resize_taps: an SDM address generator and the weight of each tap), `lanes` taps per beat. A
// nearest resize copies each output's one source; a linear one multiplies each tap by its fixed-point weight,
// accumulates an output's taps, then rounds, shifts and saturates (docs/quantization.md, "Resize").
#include "sim/post_processing_kernel.hpp"

#include "contracts/resize.hpp"

namespace maeri::sim {

namespace {

class ResizeKernel : public PostProcessingUnit::Kernel {
 public:
  using Kernel::Kernel;
  void check() {
    require(job_.inputs.size() == 1, "expected one input");
    const std::string label = "the operator";
    if (const auto violation = contracts::resize_violation(job_.op.resize, job_.inputs[0].shape, label))
      fail(*violation);
    require(contracts::resized_shape(job_.op.resize, job_.inputs[0].shape) == job_.output_shape,
            "the output's shape is not the one its input and scales or sizes give");
    taps_ = contracts::resize_taps(job_.op.resize, job_.inputs[0].shape);
    linear_ = job_.op.resize.mode == contracts::ResizeMode::Linear;
    for (std::int64_t o = 0; o < taps_.outputs(); ++o)
      for (std::int64_t t = taps_.first[std::size_t(o)]; t < taps_.first[std::size_t(o) + 1]; ++t) output_of_.push_back(o);
  }
  std::size_t blocks() const override { return 1; }
  std::size_t stages() const override { return 1; }
  std::int64_t beats(std::size_t, std::size_t) const override { return beats_of(std::int64_t(taps_.sources.size())); }
  void beat(std::size_t, std::size_t, std::int64_t beat) override {
    const auto [first, last] = lanes_of(beat, std::int64_t(taps_.sources.size()));
    for (std::int64_t t = first; t < last; ++t) {
      const std::int64_t o = output_of_[std::size_t(t)];
      const std::int64_t x = read(0, taps_.sources[std::size_t(t)]);
      if (!linear_) {
        write(o, x);
        continue;
      }
      const contracts::WideInt product = scale(x, taps_.fixed[std::size_t(t)]);
      if (t == taps_.first[std::size_t(o)]) {
        sum_ = product;
      } else {
        sum_ += product;
        ++counts_.additions;
      }
      if (t + 1 == taps_.first[std::size_t(o) + 1]) write(o, saturate(round_shift(sum_, taps_.shift)));
    }
  }

 private:
  contracts::ResizeTaps taps_;
  std::vector<std::int64_t> output_of_;  // the output each tap belongs to
  bool linear_ = false;
  contracts::WideInt sum_ = 0;           // the output being accumulated (its taps are consecutive)
};

}  // namespace

std::unique_ptr<PostProcessingUnit::Kernel> resize_kernel(PostProcessingJob job, std::int64_t lanes) {
  auto kernel = std::make_unique<ResizeKernel>(std::move(job), lanes);
  kernel->check();
  return kernel;
}

}  // namespace maeri::sim
