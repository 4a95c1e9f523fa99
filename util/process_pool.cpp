// Child processes for independent tasks (see process_pool.hpp). Protocol on the pipe: one byte 'R' and the result
// bytes, or 'E' and the error text; the task is ok only when the child also exits with status 0.
#include "util/process_pool.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace maeri::util {
namespace {

using Clock = std::chrono::steady_clock;

struct Running {
  int slot;  // index into tasks
  pid_t pid;
  int pipe_fd;
  Clock::time_point start;
  std::string received;
  bool timed_out = false;
};

void write_all(int fd, const std::string& bytes) {
  std::size_t sent = 0;
  while (sent < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + sent, bytes.size() - sent);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    sent += std::size_t(n);
  }
}

// In the child: run the task, send its result, and leave without running the parent's atexit handlers or
// flushing its copied stdio buffers.
[[noreturn]] void run_child(int fd, int task, const std::function<std::string(int)>& work) {
  int status = 0;
  try {
    write_all(fd, "R" + work(task));
  } catch (const std::exception& error) {
    write_all(fd, std::string("E") + error.what());
    status = 3;
  } catch (...) {
    write_all(fd, "Eunknown exception");
    status = 3;
  }
  ::close(fd);
  std::fflush(stderr);
  ::_exit(status);
}

std::string exit_reason(int status) {
  if (WIFSIGNALED(status))
    return "killed by signal " + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")";
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  return "ended abnormally";
}

}  // namespace

void run_in_processes(const std::vector<int>& tasks, const PoolOptions& options, const TaskWork& work,
                      const TaskDone& on_done) {
  if (options.jobs < 1) throw std::invalid_argument("run_in_processes: jobs must be at least 1");
  std::vector<Running> running;
  std::size_t next = 0;
  while (next < tasks.size() || !running.empty()) {
    while (next < tasks.size() && int(running.size()) < options.jobs) {
      int fds[2];
      if (::pipe(fds) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
      std::fflush(stdout);
      std::fflush(stderr);
      const pid_t pid = ::fork();
      if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
      if (pid == 0) {
        ::close(fds[0]);
        for (const Running& other : running) ::close(other.pipe_fd);
        run_child(fds[1], tasks[next], work);
      }
      ::close(fds[1]);
      running.push_back({int(next), pid, fds[0], Clock::now(), {}, false});
      ++next;
    }
    std::vector<pollfd> polls;
    for (const Running& r : running) polls.push_back({r.pipe_fd, POLLIN, 0});
    const int ready = ::poll(polls.data(), polls.size(), 200);
    if (ready < 0 && errno != EINTR) throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
    for (std::size_t i = running.size(); i-- > 0;) {
      Running& r = running[i];
      bool ended = false;
      if (polls[i].revents & (POLLIN | POLLHUP | POLLERR)) {
        char buffer[1 << 16];
        const ssize_t n = ::read(r.pipe_fd, buffer, sizeof buffer);
        if (n > 0) r.received.append(buffer, std::size_t(n));
        else if (n == 0 || errno != EINTR) ended = true;
      }
      const double elapsed = std::chrono::duration<double>(Clock::now() - r.start).count();
      if (!ended && options.timeout_seconds > 0 && elapsed > options.timeout_seconds) {
        ::kill(r.pid, SIGKILL);
        r.timed_out = true;
        ended = true;
      }
      if (!ended) continue;
      ::close(r.pipe_fd);
      int status = 0;
      while (::waitpid(r.pid, &status, 0) < 0 && errno == EINTR) {
      }
      TaskOutcome outcome;
      outcome.seconds = elapsed;
      if (r.timed_out) {
        char limit[32];
        std::snprintf(limit, sizeof limit, "%g", options.timeout_seconds);
        outcome.error = std::string("timed out after ") + limit + " s (killed)";
      } else if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && !r.received.empty() && r.received[0] == 'R') {
        outcome.ok = true;
        outcome.bytes = r.received.substr(1);
      } else if (!r.received.empty() && r.received[0] == 'E') {
        outcome.error = r.received.substr(1);
      } else {
        outcome.error = "the task's process " + exit_reason(status) + " before returning a result";
      }
      const int task = tasks[size_t(r.slot)];
      running.erase(running.begin() + std::ptrdiff_t(i));
      on_done(task, std::move(outcome));
    }
  }
}

}  // namespace maeri::util
