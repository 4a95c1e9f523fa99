// The child-process pools behind `maeri verify --jobs` and `maeri sweep --verify` (util/process_pool.hpp): a task that
// crashes, exits early, throws or runs past its time limit is reported with its reason, and the other tasks still
// return their results — what keeps one dying shard from taking a whole network's verification down.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <csignal>
#include <cstdlib>
#include <map>
#include <set>
#include <stdexcept>
#include <string>

#include "util/process_pool.hpp"

using maeri::util::PoolOptions;
using maeri::util::TaskOutcome;

TEST_CASE("process pool: crashing, exiting, throwing and late tasks are reported, the others return", "[cli][pool]") {
  std::map<int, TaskOutcome> outcomes;
  const auto work = [](int task) -> std::string {
    switch (task) {
      case 1: std::abort();                         // a crash: killed by SIGABRT
      case 2: ::_exit(7);                           // leaves without a result
      case 3: throw std::runtime_error("bad shard");  // an error the task reports itself
      case 4: ::sleep(30); return "too late";       // past the time limit
      default: return "result " + std::to_string(task) + std::string(100000, 'x');  // larger than a pipe buffer
    }
  };
  maeri::util::run_in_processes({0, 1, 2, 3, 4, 5}, PoolOptions{3, 2.0}, work,
                               [&](int task, TaskOutcome&& outcome) { outcomes[task] = std::move(outcome); });
  REQUIRE(outcomes.size() == 6);
  for (const int ok : {0, 5}) {
    INFO(ok);
    CHECK(outcomes[ok].ok);
    CHECK(outcomes[ok].bytes == "result " + std::to_string(ok) + std::string(100000, 'x'));
  }
  CHECK_FALSE(outcomes[1].ok);
  CHECK_THAT(outcomes[1].error, Catch::Contains("killed by signal " + std::to_string(SIGABRT)));
  CHECK_FALSE(outcomes[2].ok);
  CHECK_THAT(outcomes[2].error, Catch::Contains("exited with status 7 before returning a result"));
  CHECK_FALSE(outcomes[3].ok);
  CHECK(outcomes[3].error == "bad shard");
  CHECK_FALSE(outcomes[4].ok);
  CHECK(outcomes[4].error == "timed out after 2 s (killed)");
}

TEST_CASE("process pool: refuses zero jobs", "[cli][pool]") {
  CHECK_THROWS_AS(maeri::util::run_in_processes({0}, PoolOptions{0, 0}, [](int) { return std::string(); },
                                               [](int, TaskOutcome&&) {}),
                  std::invalid_argument);
}

// The worker pool behind a chained run's layers at once (testbench/layer_pipeline.cpp): each worker keeps its state
// from one request to the next (here a count of the requests it served), answers larger than a socket buffer arrive
// whole, and a worker that crashes, throws or runs late is reported with its reason while the others go on.
TEST_CASE("worker pool: workers keep their state; crashing, throwing and late requests are reported", "[cli][pool]") {
  int served = 0;  // in each worker: the requests it served before this one
  const auto serve = [&](const std::string& request) -> std::string {
    ++served;
    if (request == "crash") std::abort();
    if (request == "throw") throw std::runtime_error("bad share");
    if (request == "late") ::sleep(30);
    return request + " " + std::to_string(served) + std::string(200000, 'x');
  };
  maeri::util::WorkerPool workers(PoolOptions{2, 2.0}, serve);
  REQUIRE(workers.size() == 2);
  std::map<int, TaskOutcome> outcomes;
  const auto collect = [&](int task, TaskOutcome&& outcome) { outcomes[task] = std::move(outcome); };
  const auto run = [&](int task, const std::string& request) {
    while (!workers.has_idle()) workers.wait(collect);
    workers.start(task, request);
  };
  for (int task = 0; task < 4; ++task) run(task, "r" + std::to_string(task));
  while (workers.running() > 0) workers.wait(collect);
  // Two workers served four requests: each its first (count 1), and at least one a later one (its count kept).
  std::multiset<char> counts;
  for (int task = 0; task < 4; ++task) {
    INFO(task);
    REQUIRE(outcomes[task].ok);
    CHECK(outcomes[task].bytes.size() == 200000 + 4);
    counts.insert(outcomes[task].bytes[3]);
  }
  CHECK(counts.count('1') == 2);
  CHECK(*counts.rbegin() >= '2');
  run(4, "throw");
  run(5, "late");
  while (workers.running() > 0) workers.wait(collect);
  CHECK(outcomes[4].error == "bad share");
  CHECK(outcomes[5].error == "timed out after 2 s (killed)");
  run(6, "crash");  // the worker that threw is alive; the late one was killed
  while (workers.running() > 0) workers.wait(collect);
  CHECK_THAT(outcomes[6].error, Catch::Contains("killed by signal " + std::to_string(SIGABRT)));
  CHECK_FALSE(workers.has_idle());
}
