#!/usr/bin/env bash
# Self-play throughput of `damas worker` processes with 1 and with 2 workers on this machine,
# and the learner's training throughput, for the arithmetic of docs/distributed.md.
#
# The run is configs/quick.toml (Russian, 4x32 network) in a local run directory, without the
# static-evaluation bootstrap so workers play with the network. The learner is started with
# external self-play and a generation too large to fill, so it only polls while the workers are
# timed. Each phase's peak memory comes from /usr/bin/time -v. Every process started here is
# stopped at the end.
# Usage: scripts/bench-distributed.sh [SHARDS_PER_WORKER]   (default 2 shards of 32 games)
set -euo pipefail
cd "$(dirname "$0")/.."
SHARDS=${1:-2}
DAMAS=${DAMAS:-$PWD/target/release/damas}
[ -x "$DAMAS" ] || cargo build --release -q -p damas-cli
WORK=$(mktemp -d /tmp/damas-bench-dist.XXXXXX)
LEARNER=""
cleanup() {
  [ -n "$LEARNER" ] && kill "$LEARNER" 2>/dev/null || true
  pkill -f "$DAMAS worker --run $WORK" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT INT TERM

sed -e 's/^name = .*/name = "bench-dist"/' \
    -e 's/^games_per_generation = .*/games_per_generation = 1000000/' \
    -e 's/^bootstrap_with_static_eval = .*/bootstrap_with_static_eval = false/' \
    configs/quick.toml > "$WORK/config.toml"
RUN=$WORK/run
"$DAMAS" train --config "$WORK/config.toml" --run "$RUN" --external-selfplay --quiet \
  > "$WORK/learner.log" 2>&1 &
LEARNER=$!
for _ in $(seq 600); do [ -f "$RUN/checkpoints/000000/meta.json" ] && break; sleep 0.1; done

# worker ID: runs one worker for SHARDS shards; prints "samples seconds peak_kib".
worker() {
  /usr/bin/time -v "$DAMAS" worker --run "$RUN" --id "$1" --shards "$SHARDS" --quiet \
    --cache "$WORK/cache" > "$WORK/$1.out" 2> "$WORK/$1.time"
  local samples peak
  samples=$(grep -o '[0-9]* samples in' "$WORK/$1.out" | grep -o '^[0-9]*')
  peak=$(grep 'Maximum resident' "$WORK/$1.time" | grep -o '[0-9]*$')
  echo "$samples $peak"
}

echo "== one worker, $SHARDS shards"
start=$(date +%s.%N)
read -r s1 p1 < <(worker one)
t1=$(echo "$(date +%s.%N) - $start" | bc)
echo "== two workers at once, $SHARDS shards each"
start=$(date +%s.%N)
worker two_a > "$WORK/a.res" &
first=$!
worker two_b > "$WORK/b.res" &
second=$!
wait "$first" "$second"
t2=$(echo "$(date +%s.%N) - $start" | bc)
read -r sa pa < "$WORK/a.res"
read -r sb pb < "$WORK/b.res"
kill "$LEARNER"; LEARNER=""

echo "== the learner's training (damas bench train, the quick config's network and batch)"
/usr/bin/time -v "$DAMAS" bench train --variant russian --blocks 4 --channels 32 --batch 128 \
  --steps 30 --threads 2 > "$WORK/train.out" 2> "$WORK/train.time"
train=$(grep -oE '[0-9.]+ samples/s' "$WORK/train.out" | head -1 | grep -oE '^[0-9.]+')
ptrain=$(grep 'Maximum resident' "$WORK/train.time" | grep -o '[0-9]*$')
spn=$(grep '^samples_per_new_sample' configs/quick.toml | grep -oE '[0-9.]+' | head -1)

awk -v s1="$s1" -v t1="$t1" -v sa="$sa" -v sb="$sb" -v t2="$t2" -v train="$train" \
    -v spn="$spn" -v p1="$p1" -v pa="$pa" -v pb="$pb" -v ptrain="$ptrain" 'BEGIN {
  one = s1 / t1; two = (sa + sb) / t2; need = train / spn;
  printf "self-play, 1 worker:  %d samples in %.1fs = %.1f samples/s (peak %d MiB)\n", s1, t1, one, p1 / 1024;
  printf "self-play, 2 workers: %d samples in %.1fs = %.1f samples/s, %.2fx one worker (peak %d and %d MiB)\n", sa + sb, t2, two, two / one, pa / 1024, pb / 1024;
  printf "learner training: %.1f samples/s (peak %d MiB); at %s samples per new sample it consumes %.1f new samples/s\n", train, ptrain / 1024, spn, need;
  printf "workers like the 1-worker run one CPU learner keeps busy: %.1f\n", need / one;
}'
