// A util::TaskRunner for RTL tests: one rank, tasks in two child processes at a time. The test process itself never
// elaborates a fabric (SystemC elaborates once per process), so one test case may run many co-simulations.
#pragma once

#include <string>
#include <vector>

#include "util/process_pool.hpp"
#include "util/task_runner.hpp"

namespace maeri::test {

class ChildProcesses final : public util::TaskRunner {
 public:
  int rank() const override { return 0; }
  int ranks() const override { return 1; }
  int jobs() const override { return 2; }
  bool single_process() const override { return false; }
  util::PoolOptions pool_options() const override { return {2, 0}; }
  void run_in_processes(const std::vector<int>& tasks, const util::TaskWork& work,
                        const util::TaskDone& on_done) override {
    util::run_in_processes(tasks, pool_options(), work, on_done);
  }
  void gather(const std::vector<int>&, const std::vector<util::TaskOutcome>&, const std::vector<int>&,
              const util::TaskDone&) override {}
  std::string broadcast(const std::string& bytes) override { return bytes; }
  int finish(int status) override { return status; }
};

}  // namespace maeri::test
