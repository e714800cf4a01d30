#!/usr/bin/env bash
# The training loop under SIGKILL: a tiny run (the tests' tiny config, GENERATIONS generations)
# is killed at KILLS random moments (self-play, training, evaluation, checkpoint writes) and
# resumed after each. After every kill, what was complete before it must still be there (at
# most the generation in progress is lost) and every checkpoint and shard must verify
# (`damas train --check`); at the end the run must have as many generations and checkpoints as
# an uninterrupted run of the same config.
#
# Kills that land after the run has finished do not count: the script goes on until KILLS kills
# have hit a live run (at most 4 x KILLS attempts), and prints the phase each one hit.
#
# Usage: scripts/kill-soak.sh [KILLS] [GENERATIONS]   (defaults 20 and 4; minutes on two cores)
#        scripts/kill-soak.sh --distributed [KILLS] [GENERATIONS]: a learner and workers on an
#        S3 server, with store faults on a second pass (scripts/kill-soak-distributed.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = --distributed ]; then
  shift
  exec scripts/kill-soak-distributed.sh "$@"
fi
. scripts/tiny-run.sh
kills=${1:-20}
generations=${2:-4}
cargo test --workspace --no-run --quiet 2>/dev/null || cargo test --workspace --no-run
damas=$PWD/target/debug/damas
work=$(mktemp -d /tmp/damas-kill-soak.XXXXXX)
trap 'rm -rf "$work"' EXIT
write_tiny_config "$work/soak.toml" soak $generations

state() { run_state "$1" soak; }

echo "== uninterrupted run"
start=$(date +%s.%N)
"$damas" train --config "$work/soak.toml" --runs "$work/reference" --quiet > "$work/reference.log"
reference_seconds=$(echo "$(date +%s.%N) - $start" | bc)
read -r ref_checkpoints ref_generations <<< "$(state "$work/reference")"
echo "reference: $ref_checkpoints checkpoints, $ref_generations generations played, ${reference_seconds%.*} s"
"$damas" train --config "$work/soak.toml" --runs "$work/reference" --check

# The phase a killed run was in, read from its files: a checkpoint being written (its temporary
# directory is there), training (the generation's self-play is done, its checkpoint is not),
# evaluation (the newest checkpoint has no eval.json yet) or else self-play.
phase() {
  local root=$1/soak c g
  read -r c g <<< "$(state "$1")"
  if compgen -G "$root/checkpoints/.*.tmp" > /dev/null; then echo checkpoint-write
  elif [ "$g" -ge "$c" ] && [ "$c" -gt 0 ]; then echo training
  elif [ "$c" -gt 1 ] && [ ! -f "$root/checkpoints/$(printf %06d $((c - 1)))/eval.json" ]; then echo evaluation
  else echo self-play
  fi
}

echo "== $kills kills"
runs=$work/soak-runs
survived=0
attempts=0
declare -A phases=()
k=0
while [ "$survived" -lt "$kills" ] && [ "$attempts" -lt $((kills * 4)) ]; do
  attempts=$((attempts + 1))
  k=$attempts
  # A random moment within the whole run's length.
  delay=$(awk -v max="$reference_seconds" -v seed="$RANDOM$k" 'BEGIN { srand(seed); printf "%.2f", rand() * max }')
  "$damas" train --config "$work/soak.toml" --runs "$runs" --quiet >> "$work/soak.log" 2>&1 &
  pid=$!
  sleep "$delay"
  read -r c_before g_before <<< "$(state "$runs")"
  if kill -0 "$pid" 2>/dev/null; then
    kill -KILL "$pid"
    wait "$pid" 2>/dev/null || true
    read -r c_after g_after <<< "$(state "$runs")"
    if [ "$c_after" -lt "$c_before" ] || [ "$g_after" -lt "$g_before" ]; then
      echo "kill $k: completed work lost ($c_before/$g_before -> $c_after/$g_after)"; exit 1
    fi
    # Resume check: every file already complete verifies.
    if ! "$damas" train --config "$work/soak.toml" --runs "$runs" --check > "$work/check.txt" 2>&1; then
      echo "kill $k after ${delay}s: the run does not verify:"; cat "$work/check.txt"; exit 1
    fi
    survived=$((survived + 1))
    killed_in=$(phase "$runs")
    phases[$killed_in]=$(( ${phases[$killed_in]:-0} + 1 ))
    echo "kill $k at ${delay}s, in $killed_in: $c_after checkpoints, $g_after generations played; verifies"
  else
    wait "$pid" || { echo "kill $k: the run failed on its own"; tail "$work/soak.log"; exit 1; }
    echo "kill $k at ${delay}s: the run had already finished"
  fi
  # A resumed run redoes at most the generation in progress: it must get past where it was.
  read -r c_mid g_mid <<< "$(state "$runs")"
  if [ "$c_mid" -ge $((ref_checkpoints)) ]; then
    # Finished: start over so the next kill lands in a live run again.
    mv "$runs" "$work/finished-$k"
    "$damas" train --config "$work/soak.toml" --runs "$work/finished-$k" --check > /dev/null
  fi
done

echo "== final resume"
"$damas" train --config "$work/soak.toml" --runs "$runs" --quiet >> "$work/soak.log" 2>&1
read -r final_checkpoints final_generations <<< "$(state "$runs")"
"$damas" train --config "$work/soak.toml" --runs "$runs" --check
echo "kills survived: $survived of $kills asked, in $attempts attempts (the others landed after the run had finished)"
for p in self-play training evaluation checkpoint-write; do echo "  killed in $p: ${phases[$p]:-0}"; done
echo "final: $final_checkpoints checkpoints, $final_generations generations played; uninterrupted: $ref_checkpoints, $ref_generations"
if [ "$final_checkpoints" != "$ref_checkpoints" ] || [ "$final_generations" != "$ref_generations" ]; then
  echo "FAIL: the killed run's structure differs from the uninterrupted run's"; exit 1
fi
for d in "$work"/finished-*; do
  [ -d "$d" ] || continue
  read -r c g <<< "$(state "$d")"
  if [ "$c" != "$ref_checkpoints" ] || [ "$g" != "$ref_generations" ]; then
    echo "FAIL: $d has $c checkpoints, $g generations"; exit 1
  fi
done
echo "OK"
