# Sourced by the scripts that run the tool (reproduce-mrna.sh, measure-search.sh): find_maeri SCRIPT REPO sets
# `maeri` to $MAERI, else REPO/build/cli/maeri, else `maeri` on PATH (an installed package); exit 2 naming SCRIPT
# when there is none.
find_maeri() {
  local script=$1 repo=$2
  maeri=${MAERI:-}
  [[ -n $maeri ]] && return 0
  if [[ -x $repo/build/cli/maeri ]]; then maeri=$repo/build/cli/maeri
  elif command -v maeri >/dev/null; then maeri=$(command -v maeri)
  else echo "$script: no maeri tool: build it (bash scripts/setup.sh) or set MAERI" >&2; exit 2
  fi
}
