#!/bin/bash
# One rank of an MPI `maeri verify` job (argument list after the script's name), as launched by mpirun: rank 1 dies
# (SIGKILL) as soon as it starts its first shard — after MPI_Init, before it can report — and every other rank runs
# the command. What tests/cli/network_runs.sh `mpi_rank_dies` uses to check that rank 0 names the lost shards and
# still writes its report.
if [[ ${OMPI_COMM_WORLD_RANK:-} != 1 ]]; then exec "$@"; fi
"$@" &
rank=$!
# A shard runs in a child process of the rank's (cli/process_pool): its appearance means the rank has joined the job.
# (/proc files report size 0, so read it rather than test its size)
until [[ -n $(cat "/proc/$rank/task/$rank/children" 2>/dev/null) ]]; do
  kill -0 "$rank" 2>/dev/null || exit 1  # ended before starting a shard: the test cannot kill it in time
  sleep 0.02
done
kill -9 $(cat "/proc/$rank/task/$rank/children") "$rank"
wait "$rank"
exit 137
