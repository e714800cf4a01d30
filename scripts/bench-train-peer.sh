#!/usr/bin/env bash
# The training step against PyTorch's on the CPU: the same network and step
# (scripts/train_peer.py mirrors crates/nn/src/network.rs and the trainer's loss and Adam),
# run alternately with `damas bench train --path native`, three times each, for 4x32 and
# 10x128 on Russian (8x8) and 4x32 on International (10x10), both on the same number of
# threads. Prints samples per second of each run, the medians, their ratio, and each
# side's peak resident memory (/usr/bin/time -v).
#
# PyTorch is installed from PyPI into a virtual environment of its own
# (${XDG_CACHE_HOME:-~/.cache}/damas-torch, about 5 GB with the CUDA wheels PyPI's torch
# depends on; they are not used). First run: a few minutes for the install.
#
# Usage: scripts/bench-train-peer.sh [batch] [threads]   (defaults: 128, the batch every config trains with; 2)
# Takes about 4 minutes on 2 cores after the build (measured 2026-12-06: 3 min 25 s).
set -euo pipefail
cd "$(dirname "$0")/.."
batch="${1:-128}"
threads="${2:-2}"
venv="${XDG_CACHE_HOME:-$HOME/.cache}/damas-torch"
# PyPI's torch warns once per process that NumPy is missing; the step does not use it.
export PYTHONWARNINGS="ignore::UserWarning"
if ! "$venv/bin/python" -c "import torch" 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet torch
fi
cargo build --release --quiet -p damas-cli
damas=target/release/damas
torch_version=$("$venv/bin/python" -c "import torch; print(torch.__version__)")
time_log=$(mktemp)
trap 'rm -f "$time_log"' EXIT
peak_kib() { awk '/Maximum resident/ {print $NF}' "$time_log"; }
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

echo "PyTorch $torch_version vs damas bench train --path native; batch $batch, $threads threads, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
printf '%-26s %-28s %-28s %7s %11s %11s\n' "network" "damas samples/s" "PyTorch samples/s" "ratio" "damas MiB" "torch MiB"
# variant blocks channels height width squares steps
while read -r variant blocks channels height width squares steps; do
  ours=() theirs=() our_peak=0 their_peak=0
  for _ in 1 2 3; do
    /usr/bin/time -v -o "$time_log" "$damas" bench train --variant "$variant" \
      --blocks "$blocks" --channels "$channels" --batch "$batch" --steps "$steps" \
      --threads "$threads" --path native >"$time_log.out"
    ours+=("$(awk '$1 == "native" {print $4}' "$time_log.out")")
    our_peak=$(( $(peak_kib) > our_peak ? $(peak_kib) : our_peak ))
    /usr/bin/time -v -o "$time_log" "$venv/bin/python" scripts/train_peer.py \
      --blocks "$blocks" --channels "$channels" --height "$height" --width "$width" \
      --squares "$squares" --batch "$batch" --steps "$steps" --threads "$threads" >"$time_log.out"
    theirs+=("$(awk '$1 == "samples_per_second" {print $2}' "$time_log.out")")
    their_peak=$(( $(peak_kib) > their_peak ? $(peak_kib) : their_peak ))
  done
  rm -f "$time_log.out"
  a=$(median "${ours[@]}") b=$(median "${theirs[@]}")
  ratio=$(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.2f", a / b}')
  printf '%-26s %-28s %-28s %6sx %11d %11d\n' "$variant ${blocks}x${channels}" \
    "${ours[*]}" "${theirs[*]}" "$ratio" $((our_peak / 1024)) $((their_peak / 1024))
done <<'ROWS'
russian 4 32 8 8 32 60
russian 10 128 8 8 32 8
international 4 32 10 10 50 30
ROWS
echo "ratio: median of damas over median of PyTorch (goal: at least 1.0x each row)"
