#!/bin/bash
# Measures the heuristic map-space searches against the exhaustive optimum (docs/search.md, "Measured"): trains the
# surrogate on hardware and layers the measurement does not use, then runs `maeri explore` (random, sa, ga,
# surrogate; cold and warm-started from the most similar layer) on the mRNA Table II layers and VGG16 at 512 and
# 256 multiplier switches, EDP over the joint space. Into OUT_DIR:
#   surrogate.json                      the model (ResNet-50, GoogLeNet, AlexNet on maeri-64, -128, -1024, -2048)
#   surrogate-check-<hw>.txt            its error and rank correlation on the measured layers (unseen) per hardware
#   surrogate-check-training-layers-<hw>.txt   on its training layers on that (unseen) hardware
#   surrogate-check-training-hardware.txt      on the measured layers on its training hardware
#   <workload>-<hw>.{csv,runs.csv,svg}  explore's summary, every run, the plot
#   optima.csv                          the exhaustive optima (reused by a second run: they take most of the time)
# Usage: scripts/measure-search.sh [--runs R] [--budgets B,B,...] [--workloads W,W,...] [--hardware H,H,...]
#                                   [--train-samples N] [OUT_DIR]
#   defaults: 20 runs, budgets 100,300,1000,3000, workloads mrna-table2,vgg16 (configs/workloads/), hardware
#   maeri-512,maeri-256 (configs/hardware/), 400 training samples per layer and hardware, OUT_DIR
#   search-measurements/. The whole default run takes about 50 minutes on two cores, half of it the
#   exhaustive optima of VGG16 at 512 MS (joint spaces of 3-20 G mappings before the capacity rule).
# The tool: $MAERI, else build/cli/maeri, else `maeri` on PATH (an installed package).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
runs=20
budgets=100,300,1000,3000
workloads=mrna-table2,vgg16
hardware=maeri-512,maeri-256
out=search-measurements
train_samples=400
while [[ $# -gt 0 ]]; do
  case $1 in
    --runs) runs=$2; shift 2 ;;
    --budgets) budgets=$2; shift 2 ;;
    --workloads) workloads=$2; shift 2 ;;
    --hardware) hardware=$2; shift 2 ;;
    --train-samples) train_samples=$2; shift 2 ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    -*) echo "measure-search: unknown option '$1' (see --help)" >&2; exit 2 ;;
    *) out=$1; shift ;;
  esac
done
source "$repo/scripts/find-maeri.sh"
find_maeri measure-search "$repo"
mkdir -p "$out"
IFS=, read -r -a workload_list <<<"$workloads"
IFS=, read -r -a hardware_list <<<"$hardware"

# The surrogate never sees the measured layers or hardware: other networks, and hardware points around them.
model=$out/surrogate.json
training_hardware=(--hardware "$repo/configs/hardware/maeri-64.yaml"
                   --hardware "$repo/configs/surrogate-training/maeri-128.yaml"
                   --hardware "$repo/configs/hardware/maeri-1024.yaml"
                   --hardware "$repo/configs/surrogate-training/maeri-2048.yaml")
training_workloads=(--workload "$repo/configs/workloads/resnet50.yaml" --workload "$repo/configs/workloads/googlenet.yaml"
                    --workload "$repo/configs/workloads/alexnet.yaml")
measured_workloads=()
for workload in "${workload_list[@]}"; do measured_workloads+=(--workload "$repo/configs/workloads/$workload.yaml"); done
if [[ ! -f $model ]]; then
  "$maeri" surrogate train "${training_hardware[@]}" "${training_workloads[@]}" --samples "$train_samples" \
    -o "$model" | tee "$out/surrogate-train.txt"
fi
# Its generalisation gaps: each error below minus the training error (surrogate-train.txt).
"$maeri" surrogate check --model "$model" "${training_hardware[@]}" "${measured_workloads[@]}" \
  >"$out/surrogate-check-training-hardware.txt"

for hw in "${hardware_list[@]}"; do
  "$maeri" surrogate check --model "$model" --hardware "$repo/configs/hardware/$hw.yaml" "${measured_workloads[@]}" \
    >"$out/surrogate-check-$hw.txt"
  "$maeri" surrogate check --model "$model" --hardware "$repo/configs/hardware/$hw.yaml" "${training_workloads[@]}" \
    >"$out/surrogate-check-training-layers-$hw.txt"
  for workload in "${workload_list[@]}"; do
    echo "measure-search: $workload on $hw"
    "$maeri" explore --hardware "$repo/configs/hardware/$hw.yaml" --workload "$repo/configs/workloads/$workload.yaml" \
      --methods random,sa,ga,surrogate --model "$model" --budgets "$budgets" --runs "$runs" --warm-start similar \
      --optimum-cache "$out/optima.csv" -o "$out/$workload-$hw"
  done
done
echo "measure-search: results in $out/"
