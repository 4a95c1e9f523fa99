// Child processes for independent tasks (see process_pool.hpp). Protocol on the pipe: one byte 'R' and the result
// bytes, or 'E' and the error text; the task is ok only when the child also exits with status 0.
#include "util/process_pool.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <cstdint>
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

// A worker's channel: one stream socket each way, every message its 8-byte length and its bytes. send() with
// MSG_NOSIGNAL: a peer that died is an error, not a SIGPIPE.
bool send_frame(int fd, const std::string& bytes) {
  const std::uint64_t size = bytes.size();
  std::string frame(reinterpret_cast<const char*>(&size), 8);
  frame += bytes;
  std::size_t sent = 0;
  while (sent < frame.size()) {
    const ssize_t n = ::send(fd, frame.data() + sent, frame.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    sent += std::size_t(n);
  }
  return true;
}

bool read_exactly(int fd, char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = ::read(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= std::size_t(n);
  }
  return true;
}

// In a worker: serve requests until the parent closes the channel.
[[noreturn]] void serve_requests(int fd, const WorkerPool::Serve& serve) {
  for (;;) {
    std::uint64_t size = 0;
    std::string request;
    if (!read_exactly(fd, reinterpret_cast<char*>(&size), 8)) break;
    request.resize(size);
    if (!read_exactly(fd, request.data(), size)) break;
    std::string answer;
    try {
      answer = "R" + serve(request);
    } catch (const std::exception& error) {
      answer = std::string("E") + error.what();
    } catch (...) {
      answer = "Eunknown exception";
    }
    if (!send_frame(fd, answer)) break;
  }
  std::fflush(stderr);
  ::_exit(0);
}

std::string exit_reason(int status) {
  if (WIFSIGNALED(status))
    return "killed by signal " + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")";
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  return "ended abnormally";
}

// Forks a child that keeps its end of the channel `fds` (fds[1]) and closes the parent's end and `siblings` (the
// parent's ends of the channels to earlier children, so that no child holds a sibling's channel open); the child
// runs `body` on its end and never returns. Returns the child's pid to the parent, which closes fds[1].
template <class ChildBody>
pid_t fork_with_channel(const int (&fds)[2], const std::vector<int>& siblings, const ChildBody& body) {
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    ::close(fds[0]);
    for (int fd : siblings) ::close(fd);
    body(fds[1]);
  }
  ::close(fds[1]);
  return pid;
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
      std::vector<int> siblings;
      for (const Running& other : running) siblings.push_back(other.pipe_fd);
      const pid_t pid = fork_with_channel(fds, siblings, [&](int fd) { run_child(fd, tasks[next], work); });
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

WorkerPool::WorkerPool(PoolOptions options, const Serve& serve) : options_(options) {
  if (options_.jobs < 1) throw std::invalid_argument("WorkerPool: jobs must be at least 1");
  for (int i = 0; i < options_.jobs; ++i) {
    int fds[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0)
      throw std::runtime_error(std::string("socketpair: ") + std::strerror(errno));
    std::vector<int> siblings;
    for (const Worker& other : workers_) siblings.push_back(other.fd);
    const pid_t pid = fork_with_channel(fds, siblings, [&](int fd) { serve_requests(fd, serve); });
    Worker worker;
    worker.pid = pid;
    worker.fd = fds[0];
    workers_.push_back(worker);
  }
}

WorkerPool::~WorkerPool() {
  for (Worker& worker : workers_) {
    if (worker.dead) continue;
    if (worker.task >= 0) ::kill(worker.pid, SIGKILL);
    ::close(worker.fd);  // an idle worker reads the end and leaves
    while (::waitpid(worker.pid, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
}

bool WorkerPool::has_idle() const {
  for (const Worker& worker : workers_)
    if (!worker.dead && worker.task < 0) return true;
  return false;
}

std::size_t WorkerPool::running() const {
  std::size_t busy = 0;
  for (const Worker& worker : workers_) busy += !worker.dead && worker.task >= 0;
  return busy;
}

void WorkerPool::start(int task, const std::string& request) {
  for (Worker& worker : workers_) {
    if (worker.dead || worker.task >= 0) continue;
    worker.task = task;
    worker.start = Clock::now();
    worker.received.clear();
    worker.unsent = !send_frame(worker.fd, request);
    return;
  }
  throw std::logic_error("WorkerPool::start: no idle worker");
}

// A busy worker after a poll: true when its task ended (its answer, or it died or ran out of time), with `outcome`.
bool WorkerPool::answered(Worker& worker, short events, TaskOutcome& outcome) {
  outcome.seconds = std::chrono::duration<double>(Clock::now() - worker.start).count();
  bool gone = worker.unsent;
  if (!gone && (events & (POLLIN | POLLHUP | POLLERR))) {
    char buffer[1 << 16];
    const ssize_t n = ::read(worker.fd, buffer, sizeof buffer);
    if (n > 0) worker.received.append(buffer, std::size_t(n));
    else if (n == 0 || errno != EINTR) gone = true;
  }
  std::uint64_t size = 0;
  if (worker.received.size() >= 8) std::memcpy(&size, worker.received.data(), 8);
  if (!gone && worker.received.size() >= 8 && worker.received.size() - 8 >= size) {
    const std::string answer = worker.received.substr(8, size);
    outcome.ok = !answer.empty() && answer[0] == 'R';
    (outcome.ok ? outcome.bytes : outcome.error) = answer.empty() ? "an empty answer" : answer.substr(1);
    worker.received.clear();
    worker.task = -1;
    return true;
  }
  const bool late = options_.timeout_seconds > 0 && outcome.seconds > options_.timeout_seconds;
  if (!gone && !late) return false;
  if (late) ::kill(worker.pid, SIGKILL);
  ::close(worker.fd);
  int status = 0;
  while (::waitpid(worker.pid, &status, 0) < 0 && errno == EINTR) {
  }
  char limit[32];
  std::snprintf(limit, sizeof limit, "%g", options_.timeout_seconds);
  outcome.error = late ? std::string("timed out after ") + limit + " s (killed)"
                       : "the worker process " + exit_reason(status) + " before returning a result";
  worker.dead = true;
  return true;
}

void WorkerPool::wait(const TaskDone& on_done) {
  bool any = false;
  while (!any && running() > 0) {
    std::vector<pollfd> polls;
    std::vector<Worker*> busy;
    for (Worker& worker : workers_)
      if (!worker.dead && worker.task >= 0) {
        polls.push_back({worker.fd, POLLIN, 0});
        busy.push_back(&worker);
      }
    const int ready = ::poll(polls.data(), polls.size(), 200);
    if (ready < 0 && errno != EINTR) throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
    for (std::size_t i = 0; i < busy.size(); ++i) {
      TaskOutcome outcome;
      const int task = busy[i]->task;
      if (!answered(*busy[i], polls[i].revents, outcome)) continue;
      any = true;
      on_done(task, std::move(outcome));
    }
  }
}

}  // namespace maeri::util
