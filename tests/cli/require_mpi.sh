#!/bin/bash
# Sourced by the CLI test scripts that run `mpirun`: require_mpi MPIEXEC skips the case (exit 77, ctest's
# SKIP_RETURN_CODE) when the build found no MPI, or fails it when MAERI_REQUIRE_MPI=1 (scripts/test.sh sets it, so
# CI, which installs Open MPI, must run the MPI path).
require_mpi() {
  [[ -n $1 ]] && return 0
  echo "MPI was not found when this build was configured (install libopenmpi-dev openmpi-bin and reconfigure)"
  if [[ ${MAERI_REQUIRE_MPI:-0} == 1 ]]; then
    echo "FAILED: MAERI_REQUIRE_MPI=1: the MPI path must run"
    exit 1
  fi
  echo "skipped"
  exit 77
}
