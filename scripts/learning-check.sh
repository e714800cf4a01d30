#!/usr/bin/env bash
# Runs configs/quick.toml from scratch, then matches its last checkpoint against its first
# (untrained) one and against the alpha-beta baseline at depth 2, 40 games each on balanced
# openings with colours swapped. Learning is real when the first score is clearly above 50%.
#
# Usage: scripts/learning-check.sh   (about 10-15 minutes on two cores)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet -p damas-cli
damas=target/release/damas
rm -rf runs/quick
/usr/bin/time -f "training: %e s wall, %M KiB peak memory" "$damas" train --config configs/quick.toml --quiet
last=$(ls runs/quick/checkpoints | grep -E '^[0-9]+$' | sort | tail -1)
net="net:runs/quick/checkpoints/$last,sims=32"
echo "== last checkpoint ($last) against the first (000000), 40 games"
"$damas" match --variant russian "$net" "net:runs/quick/checkpoints/000000,sims=32" \
  --games 40 --quiet --out runs/quick/learning-check/vs-first
echo "== last checkpoint ($last) against alphabeta:depth=2, 40 games"
"$damas" match --variant russian "$net" alphabeta:depth=2 \
  --games 40 --quiet --out runs/quick/learning-check/vs-baseline
