#!/bin/bash
# Runs a command and succeeds only if it exits with the expected code (first argument; `nonzero` accepts any
# failure, for launchers such as mpirun whose code depends on which process failed first) and, when given
# with --stderr-contains TEXT / --stdout-contains TEXT, prints that text. Used by the CLI ctest entries.
set -u
expected=$1; shift
stderr_text=""; stdout_text=""
while [[ $# -gt 0 && $1 == --*-contains ]]; do
  case $1 in
    --stderr-contains) stderr_text=$2 ;;
    --stdout-contains) stdout_text=$2 ;;
  esac
  shift 2
done
out=$(mktemp); err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
"$@" >"$out" 2>"$err"
actual=$?
if [[ $expected == nonzero && $actual -ne 0 ]]; then
  :
elif [[ $expected == nonzero || $actual -ne $expected ]]; then
  echo "expected exit code $expected, got $actual from: $*"; cat "$out" "$err"; exit 1
fi
if [[ -n $stderr_text ]] && ! grep -qF -- "$stderr_text" "$err"; then
  echo "stderr lacks: $stderr_text"; cat "$err"; exit 1
fi
if [[ -n $stdout_text ]] && ! grep -qF -- "$stdout_text" "$out"; then
  echo "stdout lacks: $stdout_text"; cat "$out"; exit 1
fi
exit 0
