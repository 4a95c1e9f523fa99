# Sourced by the bad-input CLI scripts: `quickly ARGS…` runs expect_exit.sh ARGS (the caller's $expect) and fails
# (the caller's `fail`) unless it ended within 10 s — for inputs that used to read without end or hang.
quickly() {
  local start=$EPOCHREALTIME
  "$expect" "$@" || exit 1
  local took
  took=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')
  echo "took $took s"
  awk -v t="$took" 'BEGIN { exit !(t < 10) }' || fail "took $took s (limit 10 s)"
}
