// Runs independent tasks in child processes, up to `jobs` at a time, one fresh process per task: SystemC
// elaborates one simulation per process, so parallel co-simulation is parallel processes (docs/scale-out.md).
// A task's result comes back as bytes over a pipe; a task that throws, crashes or runs past its time limit is
// reported with the reason and the others carry on. The calling process must not have elaborated SystemC models
// itself (a forked child would inherit them).
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace maeri::util {

struct TaskOutcome {
  bool ok = false;
  std::string bytes;  // the task's result when ok
  std::string error;  // why not, e.g. "timed out after 60 s", "killed by signal 11 (Segmentation fault)"
  double seconds = 0;
};

using TaskWork = std::function<std::string(int task)>;
using TaskDone = std::function<void(int task, TaskOutcome&& outcome)>;

struct PoolOptions {
  int jobs = 1;
  double timeout_seconds = 0;  // per task; 0 = none
};

// Runs work(task) for every task of `tasks`, and calls on_done(task, outcome) in the parent as each one finishes
// (in the order they finish), so that results can be used and dropped at once rather than held to the end.
void run_in_processes(const std::vector<int>& tasks, const PoolOptions& options, const TaskWork& work,
                      const TaskDone& on_done);

}  // namespace maeri::util
