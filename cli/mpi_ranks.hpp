// The MPI job a `maeri verify` process belongs to, when it was launched by mpirun or srun and the build found MPI
// (MAERI_HAVE_MPI); otherwise a job of one rank. Every rank computes the same task list from the same command line;
// each runs its share and rank 0 gathers the outcomes (docs/scale-out.md).
#pragma once

#include <functional>
#include <vector>

#include "cli/process_pool.hpp"

namespace maeri::cli {

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
  void gather(const std::vector<int>& my_tasks, const std::vector<TaskOutcome>& mine, const std::vector<int>& owner,
              double timeout_seconds, const std::function<void(int task, TaskOutcome&& outcome)>& on_outcome);

  // Rank 0's exit status, made mpirun's. A job that must outlive a dying rank runs with Open MPI's
  // `--mca orte_abort_on_non_zero_status 0` (docs/scale-out.md), and mpirun then ignores non-zero exit statuses;
  // so in such a job rank 0 ends a failed run with MPI_Abort(status), which mpirun passes on. Otherwise (and on
  // other ranks) returns `status`.
  int finish(int status);

 private:
  int rank_ = 0, size_ = 1;
  bool joined_ = false;
};

// Owner rank of every task: longest task first, each to the least loaded rank (`costs[t]` is task t's estimated
// cost). Deterministic, so every rank computes the same assignment from the same inputs.
std::vector<int> assign_longest_first(const std::vector<double>& costs, int ranks);

// Whether this build can join MPI jobs.
bool built_with_mpi();

}  // namespace maeri::cli
