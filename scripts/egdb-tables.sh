#!/usr/bin/env bash
# Builds every variant's endgame tables (up to 4 pieces; up to 5 on 8x8 diagonal boards when
# asked) and prints one markdown row per variant: positions, build time, size on disk and peak
# memory (from /usr/bin/time -v). Resumable: a variant's tables already built are read back, so
# a second run reports only what it still had to solve; use a fresh DIR for timings.
#
# Usage: scripts/egdb-tables.sh DIR [pieces=4] [pieces-on-8x8=pieces] [variant...]
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${1:?usage: scripts/egdb-tables.sh DIR [pieces] [pieces-on-8x8] [variant...]}"
pieces="${2:-4}"
pieces_8x8="${3:-$pieces}"
shift $(( $# < 3 ? $# : 3 ))
cargo build --release --quiet -p damas-cli
damas=target/release/damas
variants=("$@")
if [ ${#variants[@]} -eq 0 ]; then
  mapfile -t variants < <("$damas" variants | awk '{print $1}')
fi
mkdir -p "$dir/logs"
echo "| variant | pieces | positions | wins / draws / losses (side to move) | longest win (plies) | build (s) | on disk | peak memory |"
echo "|---|---|---|---|---|---|---|---|"
for variant in "${variants[@]}"; do
  n="$pieces"
  if "$damas" variants | grep -E "^$variant +8x8, " | grep -qv "all squares\|mirrored"; then
    n="$pieces_8x8"
  fi
  log="$dir/logs/$variant-$n"
  if ! /usr/bin/time -v -o "$log.time" "$damas" egdb build --variant "$variant" --pieces "$n" \
      --out "$dir" --json >"$log.json" 2>"$log.err"; then
    echo "| $variant | $n | failed: $(tail -1 "$log.err") | | | | | |"
    continue
  fi
  python3 - "$log.json" "$log.time" "$variant" "$n" <<'PY'
import json, re, sys
report = json.load(open(sys.argv[1]))
time = open(sys.argv[2]).read()
peak_kb = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", time).group(1))
pieces = report["pieces"]
counts = [sum(p["counts"][k] for p in pieces) for k in ("wins", "draws", "losses")]
positions = sum(counts)
longest = max(p["max_plies"] for p in pieces)
size = sum(p["bytes"] for p in pieces)
def human(n):
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1000:
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return f"{n:.1f} TB"
print(f"| {sys.argv[3]} | {sys.argv[4]} | {positions:,} | {counts[0]:,} / {counts[1]:,} / {counts[2]:,} "
      f"| {longest} | {report['seconds']:.1f} | {human(size)} | {peak_kb / 1024:.0f} MiB |")
PY
done
