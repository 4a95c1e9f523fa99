// A chained run's layers at once (`--jobs N` on one rank, no --shards): the run is cut into shares, each a fabric
// layer with its epilogue and the unit's operators up to the next fabric layer (the first share: the operators
// before the first layer). Every share needs only tensors made before it, and those are the integer reference's
// while the run is bit-exact — which the run checks, stopping at the first tensor that differs. So this process
// computes the integer reference operator by operator (holding only the live tensors, tensor_lifetimes.hpp) and
// hands each share, with the reference's tensors it reads, to one of N worker processes (util::WorkerPool, forked
// once: each keeps its fabric session from share to share, as the one-process run keeps its own) as soon as its
// inputs are known. A worker plays its share as the one-process run would (each layer whole, every tensor compared)
// and sends back what it reported; this process reports the shares in graph order, so the console, the JSON and the
// files are those of a run in one process. A share after the first failure is not reported.
#include <algorithm>
#include <cstring>
#include <map>
#include <stdexcept>

#include "testbench/chained_run.hpp"
#include "util/process_pool.hpp"

namespace maeri::testbench {
namespace {

using contracts::OperatorKind;

// What a share sends back, as bytes: 64-bit words, strings and word lists with their length first.
class ShareWriter {
 public:
  void word(std::int64_t value) { append(&value, 8); }
  void real(double value) { append(&value, 8); }
  void text(const std::string& value) {
    word(std::int64_t(value.size()));
    bytes_ += value;
  }
  void words(const std::vector<std::int64_t>& values) {
    word(std::int64_t(values.size()));
    append(values.data(), values.size() * 8);
  }
  std::string take() { return std::move(bytes_); }

 private:
  void append(const void* data, std::size_t size) { bytes_.append(static_cast<const char*>(data), size); }
  std::string bytes_;
};

class ShareReader {
 public:
  explicit ShareReader(const std::string& bytes) : bytes_(bytes) {}
  std::int64_t word() {
    std::int64_t value = 0;
    take(&value, 8);
    return value;
  }
  double real() {
    double value = 0;
    take(&value, 8);
    return value;
  }
  std::string text() {
    const auto size = std::size_t(word());
    need(size);
    std::string value = bytes_.substr(at_, size);
    at_ += size;
    return value;
  }
  std::vector<std::int64_t> words() {
    const auto count = std::size_t(word());
    if (count > (bytes_.size() - at_) / 8) need(bytes_.size());  // throws: not that many words left
    std::vector<std::int64_t> values(count);
    take(values.data(), count * 8);
    return values;
  }

 private:
  void need(std::size_t size) const {
    if (size > bytes_.size() - at_) throw std::runtime_error("a layer's process sent a result that is too short");
  }
  void take(void* data, std::size_t size) {
    need(size);
    if (size) std::memcpy(data, bytes_.data() + at_, size);
    at_ += size;
  }
  const std::string& bytes_;
  std::size_t at_ = 0;
};

void write_run(ShareWriter& out, const OperatorRun& run) {
  for (const std::string* text : {&run.name, &run.where, &run.tile, &run.verdict, &run.group, &run.role}) out.text(*text);
  for (const std::int64_t word : {std::int64_t(run.pass), run.compared, run.differing, std::int64_t(run.shards)})
    out.word(word);
  out.real(run.seconds);
  out.word(std::int64_t(run.rows.size()));
  for (const CrossCheckRow& row : run.rows) {
    out.text(row.metric);
    out.real(row.model);
    out.real(row.rtl);
    out.word(std::int64_t(row.kind));
  }
}

OperatorRun read_run(ShareReader& in) {
  OperatorRun run;
  for (std::string* text : {&run.name, &run.where, &run.tile, &run.verdict, &run.group, &run.role}) *text = in.text();
  run.pass = in.word() != 0;
  run.compared = in.word();
  run.differing = in.word();
  run.shards = int(in.word());
  run.seconds = in.real();
  run.rows.resize(std::size_t(in.word()));
  for (CrossCheckRow& row : run.rows) {
    row.metric = in.text();
    row.model = in.real();
    row.rtl = in.real();
    row.kind = RowKind(in.word());
  }
  return run;
}

// Where each share begins: operator 0, and every fabric layer after it.
std::vector<std::size_t> share_starts(const contracts::Network& network) {
  std::vector<std::size_t> starts = {0};
  for (std::size_t o = 1; o < network.operators.size(); ++o)
    if (network.operators[o].kind == OperatorKind::FabricLayer) starts.push_back(o);
  return starts;
}

}  // namespace

bool ChainedRun::runs_layers_at_once() const {
  return !share_ && root_ && runner_.ranks() == 1 && runner_.pool_options().jobs > 1 && options_.layers.shards == 0;
}

// In a worker: the share [begin, end) played from `tensors` on the worker's fabric session; what it reported and
// its unit's tensors the parent needs.
std::string ChainedRun::run_share(const PreparedNetwork& prepared, const contracts::NetworkPlan& plan,
                                  const NetworkRunOptions& options, IntegerTensors tensors, std::size_t begin,
                                  std::size_t end, std::unique_ptr<sim::FabricSession>& fabric) {
  util::InProcessRunner runner;
  ChainedRun share(prepared, plan, options, runner, std::move(tensors));
  share.verification_.fabric_session() = std::move(fabric);
  share.run_operators(begin, end);
  fabric = std::move(share.verification_.fabric_session());
  ShareWriter out;
  out.word(share.result_.bad_input);
  out.word(std::int64_t(share.result_.operators.size()));
  for (const OperatorRun& run : share.result_.operators) write_run(out, run);
  out.word(std::int64_t(share.returned_.size()));
  for (const auto& [tensor, values] : share.returned_) {
    out.word(std::int64_t(tensor));
    out.words(values);
  }
  return out.take();
}

// A tensor the unit made in a share goes back to the parent when the parent writes every tensor, keeps it (a
// network output) or the run stops at it.
bool ChainedRun::returns_tensor(std::size_t tensor, bool pass) const {
  if (!pass || (options_.all_tensors && !options_.output_directory.empty())) return true;
  const std::vector<std::size_t> outputs = network().network_outputs();
  return std::find(outputs.begin(), outputs.end(), tensor) != outputs.end();
}

// The parent: a share's reports published as the one-process run would have made them (a fused member's group
// after the member), its tensors kept or written; false when the run stops in it.
bool ChainedRun::publish_share(std::size_t begin, const std::string& bytes) {
  ShareReader in(bytes);
  result_.bad_input |= in.word() != 0;
  const auto runs = std::size_t(in.word());
  for (std::size_t i = 0; i < runs; ++i) {
    OperatorRun run = read_run(in);
    const bool member = run.where == "fabric" && !run.group.empty() && run.pass;
    const std::vector<CrossCheckRow> rows = member ? run.rows : std::vector<CrossCheckRow>();
    failed_ |= !run.pass;
    publish(std::move(run));
    if (member) complete_group_member(begin, rows);
  }
  for (auto tensors = std::size_t(in.word()); tensors-- > 0;) {
    const auto tensor = std::size_t(in.word());
    result_.tensors.at(tensor) = in.words();
    if (files_) files_->write(tensor, result_.tensors[tensor]);
  }
  return !failed_;
}

// A share's request to a worker: its operators, and the reference's tensors they read that were made before it.
std::string ChainedRun::share_request(std::size_t begin, std::size_t end, const IntegerTensors& reference) const {
  std::vector<std::size_t> reads;
  for (std::size_t o = begin; o < end; ++o)
    for (const std::size_t t : network().operators[o].inputs)
      if (!reference[t].empty() && std::find(reads.begin(), reads.end(), t) == reads.end()) reads.push_back(t);
  ShareWriter out;
  out.word(std::int64_t(begin));
  out.word(std::int64_t(end));
  out.word(std::int64_t(reads.size()));
  for (const std::size_t t : reads) {
    out.word(std::int64_t(t));
    out.words(reference[t]);
  }
  return out.take();
}

// What a worker does with a request; its fabric session lasts from one share to the next.
std::string ChainedRun::serve_share(const std::string& request, std::unique_ptr<sim::FabricSession>& fabric) const {
  ShareReader in(request);
  const auto begin = std::size_t(in.word()), end = std::size_t(in.word());
  IntegerTensors tensors(network().tensors.size());
  for (auto reads = std::size_t(in.word()); reads-- > 0;) {
    const auto t = std::size_t(in.word());
    tensors.at(t) = in.words();
  }
  return run_share(prepared_, plan_, options_, std::move(tensors), begin, end, fabric);
}

// The parent's loop: a share to each idle worker (while the reports wait for at most 2N), the reference advanced
// over it; what ended collected; the shares published in order.
void ChainedRun::run_layers_at_once() {
  const std::vector<std::size_t> starts = share_starts(network());
  const std::size_t shares = starts.size(), operators = network().operators.size();
  const auto end_of = [&](std::size_t k) { return k + 1 < shares ? starts[k + 1] : operators; };
  std::unique_ptr<sim::FabricSession> worker_fabric;  // each worker's own (they are forked below, before any opens)
  util::WorkerPool workers(runner_.pool_options(),
                           [&](const std::string& request) { return serve_share(request, worker_fabric); });
  result_.layer_processes = workers.size();
  IntegerTensors reference = result_.tensors;  // the network inputs, then every live tensor of the reference
  std::map<std::size_t, util::TaskOutcome> ended;
  std::size_t started = 0, published = 0;
  while (published < shares && !failed_) {
    while (started < shares && workers.has_idle() && started < published + 2 * std::size_t(workers.size())) {
      const std::size_t begin = starts[started], end = end_of(started);
      workers.start(int(started), share_request(begin, end, reference));
      for (std::size_t o = begin; o < end; ++o) {
        run_integer_operator(prepared_.quantized, o, reference);
        const std::size_t out = network().operators[o].outputs[0];
        if (lifetimes_.unread(out)) IntegerTensors::value_type().swap(reference[out]);
        free_dead_inputs(lifetimes_, o, reference);
      }
      ++started;
    }
    workers.wait([&](int share, util::TaskOutcome&& outcome) { ended.emplace(std::size_t(share), std::move(outcome)); });
    for (auto next = ended.find(published); next != ended.end() && !failed_; next = ended.find(published)) {
      const std::size_t begin = starts[published];
      if (next->second.ok) {
        publish_share(begin, next->second.bytes);
      } else {
        OperatorRun run;
        run.name = network().operators[begin].name;
        run.where = network().operators[begin].kind == OperatorKind::FabricLayer ? "fabric" : "unit";
        run.verdict = "FAIL: its process (operators " + std::to_string(begin) + " to " +
                      std::to_string(end_of(published) - 1) + "): " + next->second.error;
        result_.bad_input = failed_ = true;
        publish(std::move(run));
      }
      for (std::size_t o = begin; o < end_of(published) && !failed_; ++o) release_inputs(o);
      ended.erase(next);
      ++published;
    }
  }
}

}  // namespace maeri::testbench
