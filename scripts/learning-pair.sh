#!/usr/bin/env bash
# Learning curves of several configs trained at the same time, so that each gets the same share
# of the machine (issue 13's ablations): one `damas bench learning` per config, started
# together, each with its log, its /usr/bin/time figures and its curve under runs/learning/.
#
# Usage: [EVERY=K] scripts/learning-pair.sh MINUTES LABEL:CONFIG [LABEL:CONFIG ...]
#   (one checkpoint rated per K minutes, 2 unless given)
#   e.g. scripts/learning-pair.sh 10 quick-control:configs/quick.toml quick-aux:configs/ablation/quick-aux.toml
set -euo pipefail
cd "$(dirname "$0")/.."
minutes=$1
shift
cargo build --release --quiet -p damas-cli
mkdir -p runs/learning
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true' EXIT
for spec in "$@"; do
  label=${spec%%:*}
  config=${spec#*:}
  rm -rf "runs/learning/$label"
  /usr/bin/time -v -o "runs/learning/$label.time" target/release/damas bench learning \
    --config "$config" --minutes "$minutes" --every "${EVERY:-2}" --out "runs/learning/$label" --quiet \
    > "runs/learning/$label.log" 2>&1 &
  pids+=($!)
done
status=0
for pid in "${pids[@]}"; do
  wait "$pid" || status=1
done
trap - EXIT
for spec in "$@"; do
  label=${spec%%:*}
  grep -v '^generation' "runs/learning/$label.log" | tail -n 16
  grep -E 'Maximum resident|Elapsed' "runs/learning/$label.time"
done
exit $status
