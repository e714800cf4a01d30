#!/usr/bin/env bash
# Issue 13's goal for the README's main job: configs/quick.toml, trained from scratch for at
# most ten minutes, gives a network that scores at least 50% against alphabeta:depth=2 at 64
# simulations per move (40 games, balanced openings, colours swapped). Also plays the last
# checkpoint against the first (untrained) one, so that learning shows even when the goal is
# missed, and reports the training's wall clock and peak memory.
#
# Usage: scripts/learning-check.sh   (the config's 10-minute budget, then about 5 minutes of games)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet -p damas-cli
damas=target/release/damas
rm -rf runs/quick
/usr/bin/time -f "training: %e s wall, %M KiB peak memory" \
  "$damas" train --config configs/quick.toml --quiet
last=$(ls runs/quick/checkpoints | grep -E '^[0-9]+$' | sort | tail -1)
net="net:runs/quick/checkpoints/$last,sims=64"
echo "== last checkpoint ($last) against the first (000000), 40 games, 64 simulations"
"$damas" match --variant russian "$net" "net:runs/quick/checkpoints/000000,sims=64" \
  --games 40 --quiet --out runs/quick/learning-check/vs-first
echo "== last checkpoint ($last) against alphabeta:depth=2, 40 games, 64 simulations"
"$damas" match --variant russian "$net" alphabeta:depth=2 \
  --games 40 --quiet --out runs/quick/learning-check/vs-depth2
score=$(python3 -c 'import json,sys
r=json.load(open("runs/quick/learning-check/vs-depth2/results.json"))
print(sum(g["white_points"] if g["white"]==0 else 1-g["white_points"] for g in r["games"])/len(r["games"]))')
echo "goal: at least 0.50 against depth 2; measured $score"
