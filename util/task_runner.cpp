// The assignment of tasks to ranks (see task_runner.hpp).
#include "util/task_runner.hpp"

#include <algorithm>
#include <chrono>
#include <exception>

namespace maeri::util {

void TaskRunner::run(const std::vector<int>& tasks, const TaskWork& work, const TaskDone& on_done) {
  if (!single_process()) {
    run_in_processes(tasks, work, on_done);
    return;
  }
  for (const int task : tasks) {
    const auto start = std::chrono::steady_clock::now();
    TaskOutcome outcome;
    try {
      outcome.bytes = work(task);
      outcome.ok = true;
    } catch (const std::exception& error) {
      outcome.error = error.what();
    }
    outcome.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    on_done(task, std::move(outcome));
  }
}

std::vector<int> assign_longest_first(const std::vector<double>& costs, int ranks) {
  std::vector<int> order(costs.size()), owner(costs.size(), 0);
  for (std::size_t t = 0; t < costs.size(); ++t) order[t] = int(t);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return costs[size_t(a)] > costs[size_t(b)]; });
  std::vector<double> load(size_t(std::max(ranks, 1)), 0);
  for (const int t : order) {
    const int rank = int(std::min_element(load.begin(), load.end()) - load.begin());
    owner[size_t(t)] = rank;
    load[size_t(rank)] += costs[size_t(t)];
  }
  return owner;
}

}  // namespace maeri::util
