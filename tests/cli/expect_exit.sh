#!/bin/bash
# Runs a command and succeeds only if it exits with the expected code (first argument; `nonzero` accepts any
# failure, for launchers such as mpirun whose code depends on which process failed first) and, when given
# with --stderr-contains TEXT / --stdout-contains TEXT (each repeatable), prints that text. Used by the CLI ctest
# entries.
set -u
expected=$1; shift
stderr_texts=(); stdout_texts=()
while [[ $# -gt 0 && $1 == --*-contains ]]; do
  case $1 in
    --stderr-contains) stderr_texts+=("$2") ;;
    --stdout-contains) stdout_texts+=("$2") ;;
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
for text in "${stderr_texts[@]}"; do
  if ! grep -qF -- "$text" "$err"; then echo "stderr lacks: $text"; cat "$err"; exit 1; fi
done
for text in "${stdout_texts[@]}"; do
  if ! grep -qF -- "$text" "$out"; then echo "stdout lacks: $text"; cat "$out"; exit 1; fi
done
exit 0
