#!/usr/bin/env bash
# The page of `damas serve` in a real browser: headless Chromium (Debian's package) driven by
# Playwright (playwright-core from the npm registry, no browser download). It trains a tiny run,
# and a tiny `bench learning` curve, starts the server on 127.0.0.1 with them, plays a whole
# Russian game by clicks against alpha-beta at depth 1 (the result shown must be the server's),
# checks that every start piece of International and Dameo is drawn where the FEN says, draws
# Turkish, Parachute, Alquerque and Canadian boards, opens the benched run (its curve must have
# a point per rated checkpoint) and replays one of its games with the network's policy, and
# fails on any error the page shows or logs. Screenshots go to the output directory; look at them.
#
# Installs what it needs: `chromium` with apt (as root), playwright-core into
# ${XDG_CACHE_HOME:-~/.cache}/damas-browser. Every process it starts is stopped at the end.
#
# Usage: scripts/browser-check.sh [output dir]   (default: /tmp/damas-browser)
# Takes about a minute after the build and the installs.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-/tmp/damas-browser}"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/damas-browser"
mkdir -p "$out" "$cache"
out="$(cd "$out" && pwd)"
if ! command -v chromium >/dev/null; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
if [ ! -d "$cache/node_modules/playwright-core" ]; then
  (cd "$cache" && npm install --silent --no-audit --no-fund playwright-core@1 >/dev/null)
fi
cargo build --release --quiet -p damas-cli
damas="$PWD/target/release/damas"
work=$(mktemp -d)
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# A run of three generations of a tiny network: checkpoints, games and figures to show.
cat > "$work/tiny.toml" <<'TOML'
name = "tiny"
variant = "russian"
generations = 3
games_per_generation = 6
[network]
blocks = 1
channels = 8
[selfplay]
fast_simulations = 4
full_search_fraction = 0.5
max_plies = 80
games_per_worker = 2
games_per_shard = 2
[selfplay.search]
simulations = 12
[training]
batch_size = 16
window_min = 50
[evaluation]
baseline_games = 2
previous_games = 2
simulations = 6
TOML
"$damas" train --config "$work/tiny.toml" --runs "$work/runs" >"$work/train.log" 2>&1
# The same config under `damas bench learning`, for a run with a rating curve (a few seconds).
"$damas" bench learning --config "$work/tiny.toml" --minutes 0.05 --every 0.02 --depths 2 \
  --games 2 --sims 4 --out "$work/runs/bench" >"$work/bench.log" 2>&1

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
timeout 600 "$damas" serve --listen "127.0.0.1:$port" --runs "$work/runs" \
  --players alphabeta:depth=1 >"$work/serve.log" 2>&1 &
server_pid=$!
for _ in $(seq 100); do
  grep -q "open http" "$work/serve.log" 2>/dev/null && break
  sleep 0.1
done
grep -q "open http" "$work/serve.log" || { cat "$work/serve.log"; exit 1; }

NODE_PATH="$cache/node_modules" timeout 300 node scripts/browser/check.js "http://127.0.0.1:$port/" "$out"
echo "screenshots in $out"
