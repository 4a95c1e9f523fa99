// MPI job membership and the gather of task outcomes on rank 0 (see mpi_ranks.hpp). Without MAERI_HAVE_MPI every
// process is a job of one rank.
#include "util/mpi_ranks.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>

#ifdef MAERI_HAVE_MPI
#include <mpi.h>
#endif

namespace maeri::util {
namespace {

#ifdef MAERI_HAVE_MPI
constexpr int kTagOutcome = 1, kTagDone = 2, kTagBroadcast = 3;

// Launched by an MPI launcher: Open MPI's mpirun sets OMPI_COMM_WORLD_SIZE, PMIx-based launchers (srun with
// --mpi=pmix) set PMIX_RANK, PMI-1/2 ones PMI_SIZE. A plain `maeri verify` does not join (no singleton MPI_Init).
bool launched_by_mpi() {
  for (const char* variable : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE"})
    if (std::getenv(variable)) return true;
  return false;
}

// Outcome message: task index (8 bytes), ok (1), seconds (8), then the result bytes or the error text.
std::string encode_outcome(int task, const TaskOutcome& outcome) {
  std::string message(17, '\0');
  const std::int64_t index = task;
  std::memcpy(&message[0], &index, 8);
  message[8] = outcome.ok ? 1 : 0;
  std::memcpy(&message[9], &outcome.seconds, 8);
  return message + (outcome.ok ? outcome.bytes : outcome.error);
}
#endif

}  // namespace

Ranks::Ranks() {
#ifdef MAERI_HAVE_MPI
  if (!launched_by_mpi()) return;
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) MPI_Init(nullptr, nullptr);
  joined_ = true;
  // Errors are returned, not fatal: rank 0 reports a rank that fails instead of aborting the whole job.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
#endif
}

Ranks::~Ranks() {
#ifdef MAERI_HAVE_MPI
  if (joined_) MPI_Finalize();
#endif
}

// Point to point from rank 0 rather than MPI_Bcast: a message's size is not limited to an int of elements (it goes in
// pieces), and a rank that died leaves an error at the send instead of a collective that never completes.
std::string Ranks::broadcast(const std::string& bytes) {
  if (size_ == 1) return bytes;
#ifdef MAERI_HAVE_MPI
  constexpr std::size_t kPiece = std::size_t(1) << 30;
  if (rank_ == 0) {
    for (int rank = 1; rank < size_; ++rank) {
      const std::uint64_t size = bytes.size();
      MPI_Send(&size, 8, MPI_BYTE, rank, kTagBroadcast, MPI_COMM_WORLD);
      for (std::size_t at = 0; at < bytes.size(); at += kPiece)
        MPI_Send(bytes.data() + at, int(std::min(kPiece, bytes.size() - at)), MPI_BYTE, rank, kTagBroadcast,
                 MPI_COMM_WORLD);
    }
    return bytes;
  }
  std::uint64_t size = 0;
  if (MPI_Recv(&size, 8, MPI_BYTE, 0, kTagBroadcast, MPI_COMM_WORLD, MPI_STATUS_IGNORE) != MPI_SUCCESS)
    throw std::runtime_error("rank " + std::to_string(rank_) + ": rank 0's broadcast did not arrive");
  std::string received(size, '\0');
  for (std::size_t at = 0; at < received.size(); at += kPiece)
    if (MPI_Recv(received.data() + at, int(std::min(kPiece, received.size() - at)), MPI_BYTE, 0, kTagBroadcast,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE) != MPI_SUCCESS)
      throw std::runtime_error("rank " + std::to_string(rank_) + ": rank 0's broadcast broke off");
  return received;
#else
  return bytes;
#endif
}

void Ranks::gather([[maybe_unused]] const std::vector<int>& my_tasks,
                   [[maybe_unused]] const std::vector<TaskOutcome>& mine,
                   [[maybe_unused]] const std::vector<int>& owner, [[maybe_unused]] double timeout_seconds,
                   [[maybe_unused]] const TaskDone& on_outcome) {
  if (size_ == 1) return;
#ifdef MAERI_HAVE_MPI
  if (rank_ != 0) {
    for (std::size_t i = 0; i < my_tasks.size(); ++i) {
      const std::string message = encode_outcome(my_tasks[i], mine[i]);
      if (message.size() > std::size_t(std::numeric_limits<int>::max()))
        throw std::runtime_error("a shard result of " + std::to_string(message.size()) + " bytes is too large for MPI");
      MPI_Send(message.data(), int(message.size()), MPI_BYTE, 0, kTagOutcome, MPI_COMM_WORLD);
    }
    MPI_Send(nullptr, 0, MPI_BYTE, 0, kTagDone, MPI_COMM_WORLD);
    return;
  }
  std::vector<bool> received(owner.size(), false);
  for (const int task : my_tasks) received[size_t(task)] = true;
  int ranks_done = 1;
  const auto start = std::chrono::steady_clock::now();
  while (ranks_done < size_) {
    int waiting = 0;
    MPI_Status status;
    if (MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &waiting, &status) != MPI_SUCCESS) break;
    if (!waiting) {
      if (timeout_seconds > 0 &&
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > timeout_seconds)
        break;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      continue;
    }
    int size = 0;
    MPI_Get_count(&status, MPI_BYTE, &size);
    std::string message(size_t(size), '\0');
    if (MPI_Recv(message.data(), size, MPI_BYTE, status.MPI_SOURCE, status.MPI_TAG, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE) != MPI_SUCCESS)
      break;
    if (status.MPI_TAG == kTagDone) {
      ++ranks_done;
      continue;
    }
    if (message.size() < 17) continue;
    std::int64_t task = 0;
    std::memcpy(&task, &message[0], 8);
    if (task < 0 || task >= std::int64_t(owner.size()) || owner[size_t(task)] != status.MPI_SOURCE) continue;
    if (received[size_t(task)]) continue;
    TaskOutcome outcome;
    outcome.ok = message[8] != 0;
    std::memcpy(&outcome.seconds, &message[9], 8);
    (outcome.ok ? outcome.bytes : outcome.error) = message.substr(17);
    message.clear();
    received[size_t(task)] = true;
    on_outcome(int(task), std::move(outcome));
  }
  for (std::size_t task = 0; task < owner.size(); ++task)
    if (!received[task]) {
      TaskOutcome outcome;
      outcome.error = "rank " + std::to_string(owner[task]) + " did not report this task (the rank died, or ran " +
                      "past --rank-timeout)";
      on_outcome(int(task), std::move(outcome));
    }
#endif
}

int Ranks::finish(int status) {
#ifdef MAERI_HAVE_MPI
  // mpirun hands its --mca settings to the ranks as OMPI_MCA_<name> environment variables.
  const char* abort_on_failure = std::getenv("OMPI_MCA_orte_abort_on_non_zero_status");
  if (joined_ && rank_ == 0 && status != 0 && abort_on_failure && std::string(abort_on_failure) == "0") {
    std::printf("rank 0: ending the MPI job with MPI_Abort(%d), so that mpirun exits with this status\n", status);
    std::fflush(stdout);
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, status);
  }
#endif
  return status;
}

}  // namespace maeri::util
