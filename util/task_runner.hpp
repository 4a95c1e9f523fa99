// Where independent tasks run: a library says what a task is (a function from its index to result bytes), its
// caller says where tasks run — this process, child processes, the ranks of an MPI job — by passing a TaskRunner.
// Every rank computes the same task list, runs its own share (owner_of) and rank 0 gathers the outcomes and reports.
#pragma once

#include <string>
#include <vector>

#include "util/process_pool.hpp"

namespace maeri::util {

class TaskRunner {
 public:
  virtual ~TaskRunner() = default;

  virtual int rank() const = 0;   // this process's place in the job; rank 0 gathers and reports
  virtual int ranks() const = 0;  // processes in the job (1 without MPI)
  virtual int jobs() const = 0;   // child processes at once on each rank
  // One rank, one job and no time limit: tasks may run in the calling process (which may then hold a simulation
  // of its own, e.g. to trace it).
  virtual bool single_process() const = 0;
  // The child processes' limits on this rank (jobs at once, each task's time limit): for a caller that runs its own
  // util::ProcessPool (a chained run's layers at once, testbench/layer_pipeline.cpp).
  virtual PoolOptions pool_options() const = 0;

  // Runs work(task) for every task of `tasks`, each in a fresh child process, and calls on_done(task, outcome) in
  // this process as each one finishes (util/process_pool.hpp).
  virtual void run_in_processes(const std::vector<int>& tasks, const TaskWork& work, const TaskDone& on_done) = 0;

  // Runs work(task) for every task of `tasks` where this runner runs them: one after another in this process when
  // single_process() (an exception is the task's error), else in child processes. on_done(task, outcome) in this
  // process as each one finishes, the outcome with its wall time.
  void run(const std::vector<int>& tasks, const TaskWork& work, const TaskDone& on_done);

  // After every rank has run its own tasks: the other ranks send their outcomes (`mine[i]` is that of
  // `my_tasks[i]`) to rank 0, which calls on_outcome for each as it arrives, and for each task of a rank that died
  // or ran out of time, an outcome that says so. `owner[t]` is the rank that runs task t.
  virtual void gather(const std::vector<int>& my_tasks, const std::vector<TaskOutcome>& mine,
                      const std::vector<int>& owner, const TaskDone& on_outcome) = 0;

  // Rank 0's `bytes` on every rank (other ranks pass anything and get rank 0's): what a later round of tasks needs
  // that only rank 0 has, e.g. a chained run's next input. Every rank must call it at the same point.
  virtual std::string broadcast(const std::string& bytes) = 0;

  // Rank 0's exit status, made the whole job's (a failed MPI job may need MPI_Abort to pass it on).
  virtual int finish(int status) = 0;

  bool root() const { return rank() == 0; }
};

// A job of one process that runs its tasks itself (run()), e.g. inside a child process that already has its own
// task: `maeri sweep --verify` co-simulating one point's chained run. Tasks that must have a process of their own
// still get one child process at a time.
class InProcessRunner final : public TaskRunner {
 public:
  int rank() const override { return 0; }
  int ranks() const override { return 1; }
  int jobs() const override { return 1; }
  bool single_process() const override { return true; }
  PoolOptions pool_options() const override { return {}; }
  void run_in_processes(const std::vector<int>& tasks, const TaskWork& work, const TaskDone& on_done) override {
    util::run_in_processes(tasks, PoolOptions{}, work, on_done);
  }
  void gather(const std::vector<int>&, const std::vector<TaskOutcome>&, const std::vector<int>&,
              const TaskDone&) override {}
  std::string broadcast(const std::string& bytes) override { return bytes; }
  int finish(int status) override { return status; }
};

// Owner rank of every task: longest task first, each to the least loaded rank (`costs[t]` is task t's estimated
// cost). Deterministic, so every rank computes the same assignment from the same inputs.
std::vector<int> assign_longest_first(const std::vector<double>& costs, int ranks);

}  // namespace maeri::util
