// Sharded co-simulation, the shard result's byte form, and the merge (see shard_run.hpp).
#include "testbench/shard_run.hpp"

#include <chrono>
#include <cstring>
#include <stdexcept>

#include "codegen/functional_model.hpp"
#include "codegen/image_program.hpp"
#include "contracts/activity_counts.hpp"
#include "util/sha256.hpp"

namespace maeri::testbench {
namespace {

// The byte form: a tag, then 64-bit little-endian words (doubles by their bit pattern).
constexpr std::uint64_t kShardRunTag = 0x3130'6472'6168'536dULL;  // "mShard01"

class Writer {
 public:
  void word(std::uint64_t value) {
    for (int i = 0; i < 8; ++i) bytes_ += char((value >> (8 * i)) & 0xff);
  }
  void real(double value) {
    std::uint64_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    word(bits);
  }
  std::string bytes_;
};

class Reader {
 public:
  explicit Reader(const std::string& bytes) : bytes_(bytes) {}
  std::uint64_t word() {
    if (next_ + 8 > bytes_.size()) throw std::runtime_error("shard result: truncated after " +
                                                            std::to_string(next_) + " bytes");
    std::uint64_t value = 0;
    for (int i = 0; i < 8; ++i) value |= std::uint64_t(static_cast<unsigned char>(bytes_[next_ + size_t(i)])) << (8 * i);
    next_ += 8;
    return value;
  }
  double real() {
    const std::uint64_t bits = word();
    double value;
    std::memcpy(&value, &bits, sizeof value);
    return value;
  }
  std::size_t remaining() const { return bytes_.size() - next_; }

 private:
  const std::string& bytes_;
  std::size_t next_ = 0;
};

void write_memory(Writer& out, const timing::MemoryRun& m) {
  for (const std::uint64_t v : {m.dram.bytes_read, m.dram.bytes_written, m.dram.read_requests, m.dram.write_requests,
                                m.dram.busy_cycles, m.sdm.fill_writes, m.sdm.input_reads, m.sdm.weight_reads,
                                m.sdm.psum_reads, m.sdm.output_writes, std::uint64_t(m.sdm.peak_stream_bytes),
                                std::uint64_t(m.sdm.peak_output_bytes), m.stall_cycles, m.data_stall_cycles,
                                m.output_stall_cycles, m.drain_cycles, std::uint64_t(m.resident),
                                std::uint64_t(m.stream_buffer_bytes), std::uint64_t(m.output_buffer_bytes),
                                m.dram.row_misses, m.dram.refreshes})
    out.word(v);
}

timing::MemoryRun read_memory(Reader& in) {
  timing::MemoryRun m;
  for (std::uint64_t* v : {&m.dram.bytes_read, &m.dram.bytes_written, &m.dram.read_requests, &m.dram.write_requests,
                           &m.dram.busy_cycles, &m.sdm.fill_writes, &m.sdm.input_reads, &m.sdm.weight_reads,
                           &m.sdm.psum_reads, &m.sdm.output_writes})
    *v = in.word();
  m.sdm.peak_stream_bytes = std::int64_t(in.word());
  m.sdm.peak_output_bytes = std::int64_t(in.word());
  m.stall_cycles = in.word();
  m.data_stall_cycles = in.word();
  m.output_stall_cycles = in.word();
  m.drain_cycles = in.word();
  m.resident = in.word() != 0;
  m.stream_buffer_bytes = std::int64_t(in.word());
  m.output_buffer_bytes = std::int64_t(in.word());
  m.dram.row_misses = in.word();
  m.dram.refreshes = in.word();
  return m;
}

void write_run(Writer& out, const std::optional<sim::RtlLayerRun>& run) {
  out.word(run.has_value());
  if (!run) return;
  out.word(run->cycles);
  for (const auto& counter : sim::kActivityCounters) out.word(run->counters.*counter.field);
  out.word(run->memory.has_value());
  if (run->memory) write_memory(out, *run->memory);
  out.word(run->output.size());
  for (const std::int64_t value : run->output) out.word(std::uint64_t(value));
}

std::optional<sim::RtlLayerRun> read_run(Reader& in) {
  if (in.word() == 0) return std::nullopt;
  sim::RtlLayerRun run;
  run.cycles = in.word();
  for (const auto& counter : sim::kActivityCounters) run.counters.*counter.field = in.word();
  if (in.word() != 0) run.memory = read_memory(in);
  const std::uint64_t size = in.word();
  if (size > in.remaining() / 8) throw std::runtime_error("shard result: output size exceeds the bytes sent");
  run.output.resize(size_t(size));
  for (std::int64_t& value : run.output) value = std::int64_t(in.word());
  return run;
}

}  // namespace

namespace {

// The shards' runs of one kind (ideal or with memory) as one run over the whole layer; nullopt when the shards
// did not make that kind of run.
std::optional<sim::RtlLayerRun> merge_runs(const contracts::Layer& layer, const std::vector<ShardRun>& runs,
                                           std::optional<sim::RtlLayerRun> ShardRun::*kind) {
  if (!(runs.front().*kind)) return std::nullopt;
  sim::RtlLayerRun merged;
  merged.output.assign(size_t(layer.output_elements()), 0);
  bool first = true;
  for (const ShardRun& shard : runs) {
    const auto& run = shard.*kind;
    if (!run) throw std::invalid_argument("merge_shard_runs: shard " + std::to_string(shard.shard.index) +
                                          " lacks a run the others made");
    codegen::merge_shard_outputs(layer, shard.shard, run->output, merged.output);
    merged.cycles += run->cycles;
    merged.counters = sum_counters(merged.counters, run->counters);
    if (run->memory) merged.memory = first ? *run->memory : timing::sum_memory(*merged.memory, *run->memory);
    first = false;
  }
  return merged;
}

}  // namespace

ShardRun co_simulate_shard(sim::FabricSession& fabric, const codegen::LayerProgram& part,
                           const codegen::ProgramShard& shard, const codegen::LayerTensors& tensors,
                           const contracts::Hardware& hardware, MemoryRuns runs) {
  const auto start = std::chrono::steady_clock::now();
  for (const codegen::WeightPhase& phase : part.phases) {
    const int filter = codegen::shard_filter(part.layer, part.mapping, phase);
    if (filter < shard.k_begin || filter >= shard.k_end)
      throw std::invalid_argument("co_simulate_shard: a phase at filter " + std::to_string(filter) +
                                  " lies outside the shard's filters");
  }
  ShardRun result;
  result.shard = shard;
  const auto keep_part = [&](sim::RtlLayerRun run) {
    run.output = codegen::shard_outputs(part.layer, shard, run.output);
    return run;
  };
  if (runs != MemoryRuns::Dram) result.ideal = keep_part(fabric.run(part, tensors));
  if (runs != MemoryRuns::Ideal) result.with_memory = keep_part(fabric.run_with_memory(part, tensors, hardware));
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

codegen::LayerProgram expand_image_shard(const codegen::ConfigImage& image, const std::string& source,
                                         const codegen::ProgramShard& shard) {
  return codegen::expand_image(image, source, codegen::PlanDetail::Steps, [&](const codegen::WeightPhase& phase) {
    const int filter = codegen::shard_filter(image.layer, image.mapping, phase);
    return filter >= shard.k_begin && filter < shard.k_end;
  });
}

std::string encode_shard_run(const ShardRun& run) {
  Writer out;
  out.word(kShardRunTag);
  for (const int v : {run.shard.index, run.shard.count, run.shard.k_begin, run.shard.k_end}) out.word(std::uint64_t(v));
  out.real(run.seconds);
  write_run(out, run.ideal);
  write_run(out, run.with_memory);
  return out.bytes_;
}

ShardRun decode_shard_run(const std::string& bytes) {
  Reader in(bytes);
  if (in.word() != kShardRunTag) throw std::runtime_error("shard result: not an encoded shard run");
  ShardRun run;
  run.shard.index = int(in.word());
  run.shard.count = int(in.word());
  run.shard.k_begin = int(in.word());
  run.shard.k_end = int(in.word());
  run.seconds = in.real();
  run.ideal = read_run(in);
  run.with_memory = read_run(in);
  if (in.remaining() != 0) throw std::runtime_error("shard result: trailing bytes");
  return run;
}

sim::Counters sum_counters(const sim::Counters& a, const sim::Counters& b) {
  sim::Counters sum = a;
  for (const auto& counter : sim::kActivityCounters) sum.*counter.field += b.*counter.field;
  return sum;
}

bool exact_after_merge(const std::string& metric) {
#define MAERI_FABRIC_LABEL(name, label, meaning) label,
  for (const char* exact : {MAERI_FABRIC_COUNTS(MAERI_FABRIC_LABEL)})
    if (metric == exact) return true;
#undef MAERI_FABRIC_LABEL
  using Counts = contracts::ActivityCounts;
  for (const auto sdm_count : {&Counts::sdm_input_reads, &Counts::sdm_weight_reads, &Counts::sdm_psum_reads,
                               &Counts::sdm_output_writes})
    if (metric == contracts::activity_count(sdm_count).label) return true;
  return false;
}

std::string output_sha256(const std::vector<std::int64_t>& output) {
  util::Sha256 hash;
  for (const std::int64_t value : output) {
    std::uint8_t word[8];
    for (int i = 0; i < 8; ++i) word[i] = std::uint8_t(std::uint64_t(value) >> (8 * i));
    hash.update(word, 8);
  }
  return hash.hex_digest();
}

MergedRun merge_shard_runs(const contracts::Layer& layer, const contracts::Mapping& tile, const contracts::Hardware& hardware,
                           const codegen::LayerTensors& tensors, std::size_t image_bytes,
                           const std::vector<ShardRun>& runs, const std::vector<std::int64_t>* reference) {
  if (runs.empty()) throw std::invalid_argument("merge_shard_runs: no shards");
  std::vector<bool> seen(size_t(runs.front().shard.count), false);
  for (const ShardRun& run : runs) {
    if (run.shard.count != runs.front().shard.count || run.shard.index < 0 || run.shard.index >= run.shard.count ||
        seen[size_t(run.shard.index)])
      throw std::invalid_argument("merge_shard_runs: the shards of layer " + layer.name + " are not one cut");
    seen[size_t(run.shard.index)] = true;
  }
  if (runs.size() != seen.size())
    throw std::invalid_argument("merge_shard_runs: " + std::to_string(runs.size()) + " of " +
                                std::to_string(seen.size()) + " shards of layer " + layer.name);
  MergedRun merged;
  merged.shards = int(runs.size());
  for (const ShardRun& run : runs) merged.shard_seconds += run.seconds;
  CoSimulation& result = merged.result;
  result.image_bytes = image_bytes;
  result.ideal = merge_runs(layer, runs, &ShardRun::ideal);
  result.with_memory = merge_runs(layer, runs, &ShardRun::with_memory);
  if (reference) {
    if (reference->size() != std::size_t(layer.output_elements()))
      throw std::invalid_argument("merge_shard_runs: the reference of layer " + layer.name + " has " +
                                  std::to_string(reference->size()) + " values, the layer " +
                                  std::to_string(layer.output_elements()) + " outputs");
    score_and_cross_check(result, layer, tile, hardware, tensors, *reference);
  } else {
    score_and_cross_check(result, layer, tile, hardware, tensors,
                          codegen::reference_convolution(layer, tensors, hardware.acc_width));
  }
  merged.output_sha256 = output_sha256(merged_output(merged));
  return merged;
}

const std::vector<std::int64_t>& merged_output(const MergedRun& merged) {
  return merged.result.ideal ? merged.result.ideal->output : merged.result.with_memory->output;
}

}  // namespace maeri::testbench
