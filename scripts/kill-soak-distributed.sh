#!/usr/bin/env bash
# The distributed loop under SIGKILL and store faults (`scripts/kill-soak.sh --distributed`):
# moto's S3 server on 127.0.0.1, one learner (`damas train --external-selfplay`) and WORKERS
# workers (`damas worker`) on a tiny config of GENERATIONS generations. Three passes, each in
# its own bucket:
#
# 1. reference: no kills, no faults (what an uninterrupted run stores);
# 2. kills: KILLS SIGKILLs at random moments, every other one on the learner (so at least 8 of
#    20), aimed at collection, training, evaluation and publication in turn, the others on a
#    random worker; each killed process is started again at once, as a launcher would. The
#    requests pass scripts/fault_proxy.py, which holds each checkpoint's `meta.json` upload
#    for 1.5 s, so that publication lasts long enough to be hit;
# 3. kills and faults: the same, with every request passing scripts/fault_proxy.py, which gives
#    FAULT_RATE of them (5%) a fault: a 503 before the store, a 500 after it, a delay or a
#    reset connection. The run's `[store]` retries absorb them.
#
# After each pass: the learner and every worker ended by themselves with status 0; every
# checkpoint and shard in the bucket verifies (`damas train --check`); there is one checkpoint
# per generation and one marker per generation, each with the games a generation needs, played
# by a network within `max_staleness`; no shard is counted twice (the markers' keys against the
# kept shards); `incoming/` is empty; and the counts equal the reference's. Processes that
# ended on their own (not killed) are counted: none is allowed.
#
# Everything it starts is stopped at the end; the whole script is bounded by LIMIT seconds.
# Needs python3 with venv and PyPI the first time (kept in .venv-ray). DAMAS names a binary
# built with `--features object-store` (default: this checkout's, built here).
# Usage: scripts/kill-soak.sh --distributed [KILLS] [GENERATIONS]   (defaults 20 and 40)
set -euo pipefail
cd "$(dirname "$0")/.."
KILLS=${1:-20}
GENERATIONS=${2:-40}
GAMES=12
WORKERS=${WORKERS:-3}
FAULT_RATE=${FAULT_RATE:-0.05}
LIMIT=${LIMIT:-3600}
VENV=${VENV:-.venv-ray}
WORK=$(mktemp -d /tmp/damas-dsoak.XXXXXX)
SERVICES=()
started=$(date +%s)

cleanup() {
  local code=$?
  pkill -KILL -f "$WORK/" 2>/dev/null || true
  for pid in "${SERVICES[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  sleep 0.5
  for pid in "${SERVICES[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
  if [ $code -eq 0 ]; then rm -rf "$WORK"; else echo "kept $WORK for inspection"; fi
  exit $code
}
trap cleanup EXIT INT TERM
over_time() { [ $(($(date +%s) - started)) -ge "$LIMIT" ]; }

echo "== python environment ($VENV): moto[server], boto3"
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
"$VENV/bin/pip" install -q --disable-pip-version-check "moto[server]>=5.1.4,<6" boto3
if [ -z "${DAMAS:-}" ]; then
  echo "== damas with object stores (cargo build --release --features object-store)"
  cargo build --release -q -p damas-cli --features object-store
  DAMAS=$PWD/target/release/damas
fi
# Every process runs a copy under $WORK, so that `pkill -f $WORK/` finds exactly this soak's.
cp "$DAMAS" "$WORK/damas"
DAMAS=$WORK/damas
free_port() { "$VENV/bin/python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
MOTO=$(free_port)
"$VENV/bin/moto_server" -H 127.0.0.1 -p "$MOTO" >"$WORK/moto.log" 2>&1 &
SERVICES+=($!)
disown
# Two proxies that hold each checkpoint's `meta.json` upload for 1.5 s (so that a kill can land
# while the learner publishes), the second also injecting faults.
HOLD='^PUT .*/checkpoints/[0-9]+/meta[.]json'
HOLDING=$(free_port)
"$VENV/bin/python" scripts/fault_proxy.py --listen "$HOLDING" --upstream "http://127.0.0.1:$MOTO" \
  --rate 0 --hold "$HOLD" --flag "$WORK/kills.publishing" >"$WORK/holding.log" 2>&1 &
SERVICES+=($!)
disown
PROXY=$(free_port)
"$VENV/bin/python" scripts/fault_proxy.py --listen "$PROXY" --upstream "http://127.0.0.1:$MOTO" \
  --rate "$FAULT_RATE" --delay 2 --hold "$HOLD" --flag "$WORK/faults.publishing" \
  --stats "$WORK/faults.json" >"$WORK/proxy.log" 2>&1 &
PROXY_PID=$!
SERVICES+=($PROXY_PID)
disown
export AWS_ACCESS_KEY_ID=soak AWS_SECRET_ACCESS_KEY=soak AWS_REGION=us-east-1 AWS_ALLOW_HTTP=true
s3() { AWS_ENDPOINT=http://127.0.0.1:$MOTO "$VENV/bin/python" scripts/s3_probe.py "$@"; }
for _ in $(seq 50); do s3 create-bucket damas-reference 2>/dev/null && break; sleep 0.2; done
s3 create-bucket damas-kills
s3 create-bucket damas-faults

cat >"$WORK/soak.toml" <<TOML
name = "soak"
variant = "russian"
generations = $GENERATIONS
games_per_generation = $GAMES
[network]
blocks = 2
channels = 16
[selfplay]
fast_simulations = 8
full_search_fraction = 0.5
max_plies = 120
games_per_worker = 2
games_per_shard = 2
inference_threads = 1
workers = 1
[selfplay.search]
simulations = 48
[training]
batch_size = 16
window_min = 50
threads = 1
[evaluation]
baseline_games = 8
previous_games = 0
simulations = 24
[distributed]
max_staleness = 1
poll_seconds = 0.5
[store]
retries = 10
backoff_initial_seconds = 0.05
backoff_max_seconds = 2
request_timeout_seconds = 10
TOML

# The learner's phase, read from its local copy and the proxy: publication (a checkpoint is
# being written, its temporary folder is there, or its `meta.json` upload is held), training (the generation's marker is there, its checkpoint is
# not), evaluation (the newest checkpoint has no eval.json yet), else collection.
phase() {
  local root=$1 c=0 g=0
  [ -d "$root/checkpoints" ] && c=$(find "$root/checkpoints" -maxdepth 2 -name meta.json | wc -l)
  [ -d "$root/shards" ] && g=$(find "$root/shards" -maxdepth 1 -name '*.done' | wc -l)
  if [ -e "$WORK/$PASS.publishing" ] || compgen -G "$root/checkpoints/.*.tmp" >/dev/null; then
    echo publication
  elif [ "$g" -ge "$c" ] && [ "$c" -gt 0 ]; then echo training
  elif [ "$c" -gt 1 ] && [ ! -f "$root/checkpoints/$(printf %06d $((c - 1)))/eval.json" ]; then echo evaluation
  else echo collection
  fi
}

TARGETS=(collection training evaluation publication)

# Whether process $1 is running (an ended child stays a zombie until it is waited for).
alive() { local st; st=$(ps -o stat= -p "$1" 2>/dev/null) || return 1; [[ $st != Z* ]]; }

# Peak resident memory (VmHWM, KiB) seen so far per role.
declare -A PEAK=([learner]=0 [worker]=0)
sample_memory() {
  local role=$1 pid=$2 kib
  kib=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)
  [ "${kib:-0}" -gt "${PEAK[$role]}" ] && PEAK[$role]=$kib
  return 0
}

# soak_pass NAME KILLS ENDPOINT: one run in bucket damas-NAME; prints a summary line.
soak_pass() {
  local name=$1 kills=$2 endpoint=$3
  local run=s3://damas-$name/runs/soak dir=$WORK/$name
  PASS=$name
  mkdir -p "$dir"
  export AWS_ENDPOINT=$endpoint
  local -a pid=() role=()
  # Slot 0 is the learner, slots 1..WORKERS the workers.
  start() {
    local slot=$1
    if [ "$slot" = 0 ]; then
      "$DAMAS" train --config "$WORK/soak.toml" --run "$run" --runs "$dir/learner" \
        --external-selfplay --quiet >>"$dir/learner.log" 2>&1 &
    else
      "$DAMAS" worker --run "$run" --id "w$slot" --cache "$dir/cache" --quiet \
        >>"$dir/worker-$slot.log" 2>&1 &
    fi
    pid[$slot]=$!
  }
  for slot in $(seq 0 "$WORKERS"); do start "$slot"; done
  local pass_start done_kills=0 learner_kills=0 unexpected=0 slot delay
  pass_start=$(date +%s)
  declare -A phases=()
  # Kills come every 0.5 s to (the reference's length / KILLS / 1.5) s: all of them in about
  # the first half of the run, which the learner's lost work then stretches.
  local longest next_kill
  longest=$(awk -v t="$REFERENCE_SECONDS" -v k="$kills" 'BEGIN { printf "%.1f", (k > 0 ? t / k / 1.5 : 1) }')
  next_kill=$(awk -v s="$RANDOM" -v m="$longest" 'BEGIN { srand(s); printf "%.1f", 0.5 + rand() * m }')
  local waited=0
  while :; do
    over_time && { echo "FAIL: over the $LIMIT s limit"; exit 1; }
    # Processes that ended: the learner at the end of the run, workers after it; any other
    # end is unexpected (then it is started again, as a launcher would).
    local live=0
    for slot in $(seq 0 "$WORKERS"); do
      [ -n "${pid[$slot]:-}" ] || continue
      if alive "${pid[$slot]}"; then
        live=$((live + 1))
        sample_memory "$([ "$slot" = 0 ] && echo learner || echo worker)" "${pid[$slot]}"
        continue
      fi
      local status=0
      wait "${pid[$slot]}" || status=$?
      if [ "$status" = 0 ]; then
        pid[$slot]=""
      else
        unexpected=$((unexpected + 1))
        echo "  slot $slot ended by itself with status $status; started again"
        start "$slot"
        live=$((live + 1))
      fi
    done
    [ "$live" = 0 ] && break
    if [ "$done_kills" -lt "$kills" ] && [ -n "${pid[0]}" ] \
       && awk -v w="$waited" -v n="$next_kill" 'BEGIN { exit !(w >= n) }'; then
      if [ $((done_kills % 2)) = 0 ]; then slot=0; else slot=$((1 + RANDOM % WORKERS)); fi
      if [ -n "${pid[$slot]:-}" ] && alive "${pid[$slot]}"; then
        local what
        if [ "$slot" = 0 ]; then
          # Learner kills aim at each phase in turn: wait up to 3 s for it, then kill in
          # whatever phase it is.
          local target=${TARGETS[$((learner_kills % 4))]} tries=0
          while [ "$(phase "$dir/learner/soak")" != "$target" ] && [ $tries -lt 60 ] \
                && alive "${pid[0]}"; do
            sleep 0.05
            tries=$((tries + 1))
          done
          what="learner in $(phase "$dir/learner/soak")"
        else
          what="worker w$slot"
        fi
      fi
      if [ -n "${pid[$slot]:-}" ] && alive "${pid[$slot]}"; then
        [ "$slot" = 0 ] && learner_kills=$((learner_kills + 1))
        kill -KILL "${pid[$slot]}"
        wait "${pid[$slot]}" 2>/dev/null || true
        done_kills=$((done_kills + 1))
        phases[$what]=$(( ${phases[$what]:-0} + 1 ))
        echo "  kill $done_kills at $(($(date +%s) - pass_start)) s: $what"
        start "$slot"
      fi
      waited=0
      next_kill=$(awk -v s="$RANDOM$done_kills" -v m="$longest" 'BEGIN { srand(s); printf "%.1f", 0.5 + rand() * m }')
    fi
    sleep 0.5
    waited=$(awk -v w="$waited" 'BEGIN { printf "%.1f", w + 0.5 }')
  done
  local seconds=$(($(date +%s) - pass_start))
  LAST_SECONDS=$seconds
  unset AWS_ENDPOINT
  [ "$unexpected" = 0 ] || { echo "FAIL: $unexpected processes ended by themselves"; tail -5 "$dir"/*.log; exit 1; }
  [ "$done_kills" -ge "$kills" ] || { echo "FAIL: only $done_kills of $kills kills landed before the run ended"; exit 1; }
  local check
  check=$(AWS_ENDPOINT=http://127.0.0.1:$MOTO "$DAMAS" train --run "$run" --runs "$dir/check" --check)
  echo "  $check"
  s3 soak-verify "damas-$name" runs/soak "$check" "$GENERATIONS" "$GAMES" 1 >"$dir/verify.txt" || { cat "$dir/verify.txt"; exit 1; }
  cat "$dir/verify.txt"
  echo "  $name: $done_kills kills ($learner_kills on the learner), $seconds s"
  for what in "${!phases[@]}"; do echo "    killed: $what x${phases[$what]}"; done
}

echo "== pass 1: reference (no kills, no faults)"
REFERENCE_SECONDS=60
soak_pass reference 0 "http://127.0.0.1:$MOTO"
REFERENCE_SECONDS=$LAST_SECONDS
echo "== pass 2: $KILLS kills"
soak_pass kills "$KILLS" "http://127.0.0.1:$HOLDING"
echo "== pass 3: $KILLS kills and a $FAULT_RATE store fault rate"
soak_pass faults "$KILLS" "http://127.0.0.1:$PROXY"
kill -TERM "$PROXY_PID" || true
for _ in $(seq 20); do [ -s "$WORK/faults.json" ] && break; sleep 0.1; done
echo "faults injected: $(cat "$WORK/faults.json" 2>/dev/null || echo '(no stats)')"
for pass in reference kills faults; do
  grep -h "^counts:" "$WORK/$pass/verify.txt" | sed "s/^/$pass /"
done
if [ "$(grep -h '^counts:' "$WORK"/*/verify.txt | sort -u | wc -l)" != 1 ]; then
  echo "FAIL: the passes' counts differ"; exit 1
fi
echo "peak memory: learner $((PEAK[learner] / 1024)) MiB, worker $((PEAK[worker] / 1024)) MiB"
echo "wall time: $(($(date +%s) - started)) s"
echo "PASS"
