#!/usr/bin/env bash
# The scale-out path end to end on this machine, over loopback only: an S3-compatible server,
# a local Ray cluster, one learner (`damas train --external-selfplay`) and three workers
# (`damas worker`) launched by deploy/ray/damas_ray.py, for three generations of the tiny
# config. One worker's process is killed with SIGKILL in the middle of a shard; Ray restarts it.
# Then it checks that the run completed, that no partial or damaged shard was ever read (the
# learner decodes every shard it takes and logs any it drops), that every checkpoint loads and
# every kept shard decodes (`damas train --check` on the store), and that the sample counts of
# the generation markers equal those of the shards kept. Last, a learner with an empty local
# copy and no config resumes the run from the store alone.
#
# The S3 server is moto (`moto[server]` from PyPI): it installs into the same virtual
# environment as Ray in seconds, where a Rust server (s3s-fs) would add a second cold build, and
# it speaks the S3 REST API object_store's client uses (PUT, GET, LIST v2, DELETE).
#
# Everything it starts (moto, Ray, the learner and workers) is stopped at the end, on failure
# too; the whole run is bounded by LIMIT seconds (default 1200). Needs python3 with venv and
# network access to PyPI the first time (the venv is kept in .venv-ray).
# Usage: scripts/distributed-loopback.sh [WORKERS]
set -euo pipefail
cd "$(dirname "$0")/.."
WORKERS=${1:-3}
LIMIT=${LIMIT:-1200}
VENV=${VENV:-.venv-ray}
WORK=$(mktemp -d /tmp/damas-loopback.XXXXXX)
DAMAS=$PWD/target/release/damas
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

echo "== damas with object stores (cargo build --release --features object-store)"
cargo build --release -q -p damas-cli --features object-store

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

# Wait for the first uploaded shard, then kill a worker that is playing its next one.
killed=""
restarted=0
for _ in $(seq $((LIMIT * 2))); do
  kill -0 $DRIVER 2>/dev/null || break
  if [ -z "$killed" ] && [ "$(s3 count "$BUCKET" runs/tiny/incoming/ runs/tiny/shards/)" -ge 1 ]; then
    sleep 1
    killed=$(pgrep -f "$DAMAS worker" | head -1 || true)
    if [ -n "$killed" ]; then
      kill -KILL "$killed"
      echo "killed worker process $killed (SIGKILL) while it played a shard"
    fi
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

echo "== the learner resumes from the store alone (no config, an empty local copy)"
resume=$("$DAMAS" train --run "$RUN" --runs "$WORK/resume" --quiet)
echo "$resume" | tail -2
echo "$resume" | grep -q "resuming after generation 3" || { echo "FAIL: no resume"; exit 1; }
[ "$(ls "$WORK/resume/tiny/checkpoints" | wc -l)" = 4 ] || { echo "FAIL: the local copy lacks checkpoints"; exit 1; }
echo "PASS"
