// The post-processing unit's lookup kernel (a constant table's entries at run-time indices: a token embedding): one
// block, one stage streaming the output in row-major order; per output element the index is read from its stream and
// checked against both ends of the table's axis (two comparisons), the table entry it names is read from the table
// (a parameter the unit holds, like an activation table: one lookup) and written. docs/cosim.md, "Post-processing
// unit"; the index map is contracts/table_lookup.hpp's.
#include "sim/post_processing_kernel.hpp"

#include "contracts/table_lookup.hpp"

namespace maeri::sim {

namespace {

class LookupKernel : public PostProcessingUnit::Kernel {
 public:
  using Kernel::Kernel;
  void check() {
    const contracts::QuantizedOperator& p = job_.parameters;
    require(job_.inputs.size() == 1, "expected one input (the indices)");
    require(!p.constant_shape.empty() && std::int64_t(p.constant.size()) == elements(p.constant_shape),
            "the table holds another number of values than its shape");
    const std::int64_t axis = job_.op.axis, rank = std::int64_t(p.constant_shape.size());
    require(axis >= 0 && axis < rank, "the axis is outside the table's rank");
    Shape expected(p.constant_shape.begin(), p.constant_shape.begin() + axis);
    expected.insert(expected.end(), job_.inputs[0].shape.begin(), job_.inputs[0].shape.end());
    expected.insert(expected.end(), p.constant_shape.begin() + axis + 1, p.constant_shape.end());
    require(expected == job_.output_shape, "the output's shape is not the one the table and the indices give");
    // Every index checked before the first beat: an index outside the table is an error naming it, not a read.
    sources_ = contracts::lookup_sources(job_.op, p.constant_shape, job_.inputs[0].values, "");
    for (std::int64_t d = axis + 1; d < rank; ++d) inner_ *= p.constant_shape[std::size_t(d)];
  }
  std::size_t blocks() const override { return 1; }
  std::size_t stages() const override { return 1; }
  std::int64_t beats(std::size_t, std::size_t) const override { return beats_of(elements(job_.output_shape)); }
  void beat(std::size_t, std::size_t, std::int64_t beat) override {
    const auto [first, last] = lanes_of(beat, elements(job_.output_shape));
    const std::int64_t count = elements(job_.inputs[0].shape);
    for (std::int64_t o = first; o < last; ++o) {
      read(0, (o / inner_) % count);  // the index of this output element
      counts_.comparisons += 2;        // 0 ≤ entry < extent (negative indices wrapped)
      ++counts_.lookups;
      write(o, job_.parameters.constant[std::size_t(sources_[std::size_t(o)])]);
    }
  }

 private:
  using Shape = std::vector<std::int64_t>;
  std::vector<std::int64_t> sources_;  // the table element of each output element
  std::int64_t inner_ = 1;             // table elements after the axis: one index serves that many outputs
};

}  // namespace

std::unique_ptr<PostProcessingUnit::Kernel> lookup_kernel(PostProcessingJob job, std::int64_t lanes) {
  auto kernel = std::make_unique<LookupKernel>(std::move(job), lanes);
  kernel->check();
  return kernel;
}

}  // namespace maeri::sim
