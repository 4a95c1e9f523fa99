# Sourced by the bad-input CLI scripts: `quickly ARGS…` runs expect_exit.sh ARGS (the caller's $expect) and fails
# (the caller's `fail`) unless it ended within 10 s of CPU time — for inputs that used to read without end. The limit
# is on CPU time (ulimit -t: the kernel stops the process with SIGXCPU), not wall time, so a busy machine does not
# fail it; a run that blocks without using the CPU is caught by the test's ctest TIMEOUT.
quickly() {
  (ulimit -t 10 && exec "$expect" "$@") || fail "failed as shown above, or used more than 10 s of CPU time (SIGXCPU)"
}
