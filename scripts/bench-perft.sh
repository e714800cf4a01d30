#!/usr/bin/env bash
# Measures `damas perft` against dame-rs (an international draughts move generator written in Rust,
# used from Python) on International depth 9 from the start, one thread each, in the same run, and
# prints the ratio of nodes per second. Goal: at least 3x.
#
# Usage: scripts/bench-perft.sh [depth]   (needs python3 with venv and pip access to PyPI)
set -euo pipefail
cd "$(dirname "$0")/.."
depth="${1:-9}"
venv=.venv-bench
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet dame-rs
fi
cargo build --release --quiet -p damas-cli

ours=$(target/release/damas perft --variant international --depth "$depth" --json)
peer=$("$venv/bin/python" - "$depth" <<'PY'
import json, sys, time
import dame
depth = int(sys.argv[1])
board = dame.Board()
start = time.perf_counter()
nodes = dame.perft(board, depth)
seconds = time.perf_counter() - start
print(json.dumps({"nodes": nodes, "seconds": seconds, "version": dame.__version__}))
PY
)
python3 - "$ours" "$peer" <<'PY'
import json, sys
ours = json.loads(sys.argv[1])["depths"][-1]
peer = json.loads(sys.argv[2])
assert ours["nodes"] == peer["nodes"], f"node counts differ: {ours['nodes']} vs {peer['nodes']}"
ours_nps = ours["nodes"] / ours["seconds"]
peer_nps = peer["nodes"] / peer["seconds"]
print(f"international perft depth {ours['depth']}: {ours['nodes']} leaves")
print(f"  damas      {ours['seconds']:8.3f} s  {ours_nps / 1e6:8.2f} Mnodes/s")
print(f"  dame-rs {peer['version']:<6} {peer['seconds']:6.3f} s  {peer_nps / 1e6:8.2f} Mnodes/s")
print(f"  ratio damas / dame-rs: {ours_nps / peer_nps:.2f}x (goal: 3x)")
PY
