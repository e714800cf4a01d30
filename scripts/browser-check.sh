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
# Takes about 20 seconds after the build; a first run adds the installs (about a minute).
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
source scripts/serve-run.sh
source scripts/tiny-run.sh
serve_setup

# A run of three generations of a tiny network: checkpoints, games and figures to show.
write_tiny_config "$work/tiny.toml" tiny 3
"$damas" train --config "$work/tiny.toml" --runs "$work/runs" >"$work/train.log" 2>&1
# The same config under `damas bench learning`, for a run with a rating curve (a few seconds).
"$damas" bench learning --config "$work/tiny.toml" --minutes 0.05 --every 0.02 --depths 2 \
  --games 2 --sims 4 --out "$work/runs/bench" >"$work/bench.log" 2>&1

serve_start --runs "$work/runs" --players alphabeta:depth=1

NODE_PATH="$cache/node_modules" timeout 300 node scripts/browser/check.js "http://127.0.0.1:$port/" "$out"
echo "screenshots in $out"
