// The MPI job a process belongs to (`maeri verify`, `maeri sweep --verify`), when it was launched by mpirun or srun
// and the build found MPI (target maeri_mpi_ranks compiled with MAERI_HAVE_MPI); otherwise a job of one rank. Every
// rank computes the same task list from the same command line; each runs its share and rank 0 gathers the outcomes
// (docs/scale-out.md). RankRunner is the TaskRunner a program hands to the libraries: MPI ranks, and child
// processes on each.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "util/process_pool.hpp"
#include "util/task_runner.hpp"

namespace maeri::util {

class Ranks {
 public:
  Ranks();   // joins the MPI job (MPI_Init) when launched by an MPI launcher
  ~Ranks();  // leaves it (MPI_Finalize)
  Ranks(const Ranks&) = delete;
  Ranks& operator=(const Ranks&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }

  // After every rank has run its own tasks: ranks other than 0 send their outcomes (`mine[i]` is the outcome of
  // task `my_tasks[i]`) to rank 0, which calls on_outcome(task, outcome) for every task of the other ranks as it
  // arrives. A rank that has not reported all its tasks within `timeout_seconds` of rank 0 starting to wait
  // (0 = wait for ever) gets, for each missing task, an outcome naming the rank. `owner[t]` is the rank that runs
  // task t.
  void gather(const std::vector<int>& my_tasks, const std::vector<TaskOutcome>& mine,
              const std::vector<int>& owner, double timeout_seconds, const TaskDone& on_outcome);

  // Rank 0's `bytes`, on every rank (TaskRunner::broadcast).
  std::string broadcast(const std::string& bytes);

  // Rank 0's exit status, made mpirun's. A job that must outlive a dying rank runs with Open MPI's
  // `--mca orte_abort_on_non_zero_status 0` (docs/scale-out.md), and mpirun then ignores non-zero exit statuses;
  // so in such a job rank 0 ends a failed run with MPI_Abort(status), which mpirun passes on. Otherwise (and on
  // other ranks) returns `status`.
  int finish(int status);

 private:
  int rank_ = 0, size_ = 1;
  bool joined_ = false;
};

// Where `maeri verify` and `maeri sweep --verify` run their tasks: this process's rank of the MPI job, a fresh child
// process per task (`pool.jobs` at a time, each with `pool.timeout_seconds`), and rank 0 waiting up to
// `rank_timeout_seconds` (0 = for ever) for the other ranks once its own tasks are done.
class RankRunner final : public TaskRunner {
 public:
  RankRunner(PoolOptions pool, double rank_timeout_seconds) : pool_(pool), rank_timeout_(rank_timeout_seconds) {}

  int rank() const override { return ranks_.rank(); }
  int ranks() const override { return ranks_.size(); }
  int jobs() const override { return pool_.jobs; }
  bool single_process() const override { return pool_.jobs * ranks_.size() == 1 && pool_.timeout_seconds == 0; }
  PoolOptions pool_options() const override { return pool_; }
  void run_in_processes(const std::vector<int>& tasks, const TaskWork& work,
                        const TaskDone& on_done) override {
    util::run_in_processes(tasks, pool_, work, on_done);  // the pool's, not this member
  }
  void gather(const std::vector<int>& my_tasks, const std::vector<TaskOutcome>& mine,
              const std::vector<int>& owner, const TaskDone& on_outcome) override {
    ranks_.gather(my_tasks, mine, owner, rank_timeout_, on_outcome);
  }
  std::string broadcast(const std::string& bytes) override { return ranks_.broadcast(bytes); }
  int finish(int status) override { return ranks_.finish(status); }

 private:
  Ranks ranks_;
  PoolOptions pool_;
  double rank_timeout_ = 0;
};

}  // namespace maeri::util
