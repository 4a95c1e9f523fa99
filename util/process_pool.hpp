// Runs independent tasks in child processes, up to `jobs` at a time, one fresh process per task: SystemC
// elaborates one simulation per process, so parallel co-simulation is parallel processes (docs/scale-out.md).
// A task's result comes back as bytes over a pipe; a task that throws, crashes or runs past its time limit is
// reported with the reason and the others carry on. The calling process must not have elaborated SystemC models
// itself (a forked child would inherit them).
#pragma once

#include <sys/types.h>

#include <chrono>
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

// Long-lived children that serve one request at a time (a chained run's layers with --jobs:
// testbench/layer_pipeline.cpp): each is forked once, when the pool is made, and keeps what it built (a fabric
// session, a warm heap) from one request to the next — a fresh process per task would pay the fork and its
// copy-on-write page faults every time. start() hands a request (bytes) to an idle worker; wait() blocks until at
// least one busy worker answers, dies or runs past options.timeout_seconds (then it is killed), and reports each
// such task as run_in_processes does. A worker that died stays dead. The destructor ends every worker.
class WorkerPool {
 public:
  using Serve = std::function<std::string(const std::string& request)>;
  WorkerPool(PoolOptions options, const Serve& serve);  // forks options.jobs workers
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  bool has_idle() const;
  void start(int task, const std::string& request);  // to an idle worker (std::logic_error when none is)
  std::size_t running() const;
  void wait(const TaskDone& on_done);
  int size() const { return int(workers_.size()); }

 private:
  struct Worker {
    pid_t pid = -1;
    int fd = -1;  // this end of the worker's socket pair
    int task = -1;  // -1: idle
    bool dead = false;
    bool unsent = false;  // start() could not send the request: the worker is gone
    std::chrono::steady_clock::time_point start;
    std::string received;
  };
  bool answered(Worker& worker, short events, TaskOutcome& outcome);

  PoolOptions options_;
  std::vector<Worker> workers_;
};

}  // namespace maeri::util
