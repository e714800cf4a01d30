#!/usr/bin/env bash
# The scale-out path end to end on this machine, over loopback only: an S3-compatible server,
# a local Ray cluster, one learner (`damas train --external-selfplay`) and three workers
# (`damas worker`) launched by deploy/ray/damas_ray.py, for three generations of the tiny
# config. One worker's process is killed with SIGKILL in the middle of a shard; Ray restarts it.
# Then it checks that the run completed, that no partial or damaged shard was ever read (the
# learner decodes every shard it takes and logs any it drops), that every checkpoint loads and
# every kept shard decodes (`damas train --check` on the store), and that the sample counts of
# the generation markers equal those of the shards kept. Last, with the run's budget raised to
# four generations in the store, a learner with an empty local copy and no config resumes it
# from the store alone and trains the fourth with one new worker.
#
# The S3 server is moto (`moto[server]` from PyPI): it installs into the same virtual
# environment as Ray in seconds, where a Rust server (s3s-fs) would add a second cold build, and
# it speaks the S3 REST API object_store's client uses (PUT, GET, LIST v2, DELETE).
#
# Everything it starts (moto, Ray, the learner and workers) is stopped at the end, on failure
# too; the whole run is bounded by LIMIT seconds (default 1200). Needs python3 with venv and
# network access to PyPI the first time (the venv is kept in .venv-ray). DAMAS names a binary
# built with `--features object-store` (default: this checkout's, built here).
# Usage: scripts/distributed-loopback.sh [WORKERS]
set -euo pipefail
cd "$(dirname "$0")/.."
WORKERS=${1:-3}
LIMIT=${LIMIT:-1200}
VENV=${VENV:-.venv-ray}
WORK=$(mktemp -d /tmp/damas-loopback.XXXXXX)
DAMAS_GIVEN=${DAMAS:-}
DAMAS=${DAMAS:-$PWD/target/release/damas}
PIDS=()

cleanup() {
  local code=$?
  for pid in "${PIDS[@]}"; do
    kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
  done
  sleep 1
  for pid in "${PIDS[@]}"; do
    kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
  done
  pkill -KILL -f "$DAMAS (worker|train)" 2>/dev/null || true
  [ -x "$VENV/bin/ray" ] && RAY_TMPDIR=$WORK/ray "$VENV/bin/ray" stop --force >/dev/null 2>&1 || true
  if [ $code -eq 0 ]; then rm -rf "$WORK"; else echo "kept $WORK for inspection"; fi
  exit $code
}
trap cleanup EXIT INT TERM

echo "== python environment ($VENV): ray, moto[server], boto3"
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
"$VENV/bin/pip" install -q --disable-pip-version-check "ray>=2.40,<3" "moto[server]>=5.1.4,<6" boto3

if [ -z "$DAMAS_GIVEN" ]; then
  echo "== damas with object stores (cargo build --release --features object-store)"
  cargo build --release -q -p damas-cli --features object-store
fi

PORT=$("$VENV/bin/python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
setsid "$VENV/bin/moto_server" -H 127.0.0.1 -p "$PORT" >"$WORK/moto.log" 2>&1 &
PIDS+=($!)
export AWS_ACCESS_KEY_ID=loopback AWS_SECRET_ACCESS_KEY=loopback AWS_REGION=us-east-1
export AWS_ENDPOINT=http://127.0.0.1:$PORT AWS_ALLOW_HTTP=true
BUCKET=damas-loopback
RUN=s3://$BUCKET/runs/tiny
s3() { "$VENV/bin/python" scripts/s3_probe.py "$@"; }
for _ in $(seq 50); do s3 create-bucket "$BUCKET" 2>/dev/null && break; sleep 0.2; done
echo "== moto S3 on 127.0.0.1:$PORT, run at $RUN"

cat >"$WORK/tiny.toml" <<TOML
name = "tiny"
variant = "russian"
generations = 3
games_per_generation = 8
[network]
blocks = 1
channels = 8
[selfplay]
fast_simulations = 4
full_search_fraction = 0.5
max_plies = 80
games_per_worker = 2
games_per_shard = 2
inference_threads = 1
[selfplay.search]
simulations = 32
[training]
batch_size = 16
window_min = 50
threads = 1
[evaluation]
baseline_games = 2
previous_games = 0
simulations = 6
[distributed]
max_staleness = 1
poll_seconds = 0.5
TOML

echo "== Ray: 1 learner, $WORKERS workers (local cluster)"
RAY_TMPDIR=$WORK/ray setsid timeout "$LIMIT" "$VENV/bin/python" deploy/ray/damas_ray.py \
  --run "$RUN" --workers "$WORKERS" --config "$WORK/tiny.toml" --damas "$DAMAS" \
  --runs "$WORK/runs" --num-cpus $((WORKERS + 1)) >"$WORK/driver.log" 2>&1 &
DRIVER=$!
PIDS+=($DRIVER)

# CPU ticks process $1 has used (user + system).
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }

# Wait for the first uploaded shard, then kill a worker that is playing its next one: one that
# used at least 0.1 s of CPU in the last 0.5 s (a worker waiting for a network, or uploading,
# sleeps). Its shard is only in its memory: nothing of it may reach the store.
killed=""
restarted=0
for _ in $(seq $((LIMIT * 2))); do
  kill -0 $DRIVER 2>/dev/null || break
  if [ -z "$killed" ] && [ "$(s3 count "$BUCKET" runs/tiny/incoming/ runs/tiny/shards/)" -ge 1 ]; then
    for pid in $(pgrep -f "$DAMAS worker" || true); do
      before=$(ticks "$pid"); sleep 0.5; after=$(ticks "$pid")
      if [ $((after - before)) -ge $(( $(getconf CLK_TCK) / 10 )) ]; then
        if kill -KILL "$pid" 2>/dev/null; then
          killed=$pid
          echo "killed worker process $pid (SIGKILL) while it played a shard ($((after - before)) CPU ticks in 0.5 s)"
          break
        fi
      fi
    done
  fi
  if [ -n "$killed" ] && [ "$restarted" = 0 ]; then
    live=$( (pgrep -f "$DAMAS worker" || true) | (grep -vx "$killed" || true) | wc -l)
    if [ "$live" -ge "$WORKERS" ]; then
      restarted=1
      echo "Ray restarted it: $live worker processes again"
    fi
  fi
  sleep 0.5
done
status=0
wait $DRIVER || status=$?
tail -3 "$WORK/driver.log"
[ "$status" = 0 ] || { echo "FAIL: the driver exited with $status"; cat "$WORK/driver.log" | tail -30; exit 1; }
[ -n "$killed" ] || { echo "FAIL: no worker was killed"; exit 1; }
[ "$restarted" = 1 ] || { echo "FAIL: Ray did not restart the killed worker"; exit 1; }

echo "== checks on the store"
check=$("$DAMAS" train --run "$RUN" --runs "$WORK/check" --check)
echo "$check"
s3 verify "$BUCKET" runs/tiny "$check"

echo "== a learner resumes from the store alone (no config, an empty local copy) and trains on"
# The run's budget raised by one generation in the store (a budget key: a resume accepts it),
# and one worker, as on a new machine.
s3 set-generations "$BUCKET" runs/tiny/config.toml 4
timeout 600 "$DAMAS" train --run "$RUN" --runs "$WORK/resume" --quiet >"$WORK/resume.log" 2>&1 &
LEARNER=$!
PIDS+=($LEARNER)
# The worker starts once the learner has taken `finished` back (it would stop on seeing it).
for _ in $(seq 600); do s3 exists "$BUCKET" runs/tiny/finished || break; sleep 0.1; done
"$DAMAS" worker --run "$RUN" --id resume --cache "$WORK/resume-cache" --quiet >"$WORK/resume-worker.log" 2>&1 &
PIDS+=($!)
wait $LEARNER || { echo "FAIL: the resumed learner failed"; tail "$WORK/resume.log"; exit 1; }
resume=$(cat "$WORK/resume.log")
echo "$resume" | tail -3
echo "$resume" | grep -q "resuming after generation 3" || { echo "FAIL: no resume"; exit 1; }
echo "$resume" | grep -q "^generation 4:" || { echo "FAIL: the resumed learner trained no generation"; exit 1; }
[ "$(ls "$WORK/resume/tiny/checkpoints" | wc -l)" = 5 ] || { echo "FAIL: the local copy lacks checkpoints"; exit 1; }
echo "PASS"
