#!/usr/bin/env bash
# Self-play and training speed with peak memory: `damas bench selfplay` (network evaluations
# per second per batch size, GFLOP/s against this CPU's peak, self-play positions per second,
# share of time outside the network, tree bytes per edge) and `damas bench train` (samples per
# second), each under /usr/bin/time -v for its peak resident memory.
#
# Usage: scripts/bench-selfplay.sh [blocks] [channels]   (defaults: 4 32, the default network, which configs/quick.toml trains)
set -euo pipefail
cd "$(dirname "$0")/.."
blocks="${1:-4}"
channels="${2:-32}"
cargo build --release --quiet -p damas-cli
damas=target/release/damas
peak() { grep "Maximum resident" "$1" | awk '{print $NF " KiB"}'; }
/usr/bin/time -v -o /tmp/damas-bench-selfplay.time \
  "$damas" bench selfplay --blocks "$blocks" --channels "$channels"
echo "bench selfplay peak memory: $(peak /tmp/damas-bench-selfplay.time)"
/usr/bin/time -v -o /tmp/damas-bench-train.time \
  "$damas" bench train --blocks "$blocks" --channels "$channels" --batch 256
echo "bench train peak memory: $(peak /tmp/damas-bench-train.time)"
