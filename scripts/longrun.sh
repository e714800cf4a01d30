#!/usr/bin/env bash
# A learning curve of hours on machines that keep only the repository between sessions
# (issue 35): the run trains outside the work tree, is stopped while the machine compiles or
# tests (so that no generation shares the cores; a stop costs at most the generation in
# progress, which the run clock does not count), and its resumable state is packed into the
# repository (longruns/NAME/) before a session ends and unpacked when the next one resumes it.
#
# Usage:
#   scripts/longrun.sh start NAME BENCH-LEARNING-ARGS...   first start; the arguments are kept
#                                                           in longruns/NAME/args
#   scripts/longrun.sh resume NAME    unpacks longruns/NAME/state.tar.zst if the run is not
#                                     here, then runs the kept arguments again
#   scripts/longrun.sh stop NAME      stops it (SIGKILL; resume with `resume`)
#   scripts/longrun.sh status NAME    running or not, the run clock and the log's last line
#   scripts/longrun.sh pace NAME      generations at each 10 minutes of run clock, a minute's
#                                     generations in each hour, and where the clock went
#   scripts/longrun.sh pack NAME      writes longruns/NAME/state.tar.zst: everything but the
#                                     checkpoints between KEEP_MINUTES marks (20 unless given),
#                                     the optimizer state of all but the newest, the games
#                                     and the shards older than the replay window
#   scripts/longrun.sh autopack NAME [MINUTES]   every MINUTES (30 unless given) while the run
#                                     runs: stop, pack, resume; a last pack when it has ended.
#                                     A session cut off without warning then loses at most
#                                     MINUTES of run clock: the pack is a file of the work tree,
#                                     which survives as an uncommitted change where a machine
#                                     outside it (/work/longruns) does not
#
#   e.g. scripts/longrun.sh start russian-240 --config configs/russian.toml --minutes 240 \
#          --every 20 --ladder ladders/russian.json --time 0.1
#
# The run lives in ${LONGRUNS:-/work/longruns}/NAME/ (out/ is bench learning's --out, damas the
# binary it runs, log its output); longruns/NAME/segments.log records each start: date, commit of
# the binary, run clock.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
command=${1:?usage: scripts/longrun.sh start|resume|stop|status|pace|pack|autopack NAME [ARGS...]}
name=${2:?the run needs a name}
shift 2
home=${LONGRUNS:-/work/longruns}/$name
kept=$repo/longruns/$name
pidfile=$home/pid

# Running: the pid file names a live process of this run's binary (a pid file left by a run
# that ended with the machine may name another process by now).
running() { [[ -f $pidfile && /proc/$(cat "$pidfile")/exe -ef $home/damas ]]; }

# The run clock: the newest checkpoint's time.json `trained_at`, in minutes.
clock() { python3 scripts/longrun-state.py clock "$home"; }

launch() {
  running && { echo "$name is already running (pid $(cat "$pidfile"))"; return; }
  cargo build --release --quiet -p damas-cli
  cp target/release/damas "$home/damas"
  mapfile -t args < "$kept/args"
  echo "$(date -u +%FT%TZ) $(git rev-parse --short HEAD)$([[ -z $(git status --porcelain -- crates Cargo.toml Cargo.lock) ]] || echo +changes) $(clock 2>/dev/null || echo 'generation 0')" >> "$kept/segments.log"
  nohup "$home/damas" bench learning "${args[@]}" --out "$home/out" --quiet >> "$home/log" 2>&1 &
  echo $! > "$pidfile"
  echo "$name started (pid $(cat "$pidfile")); log: $home/log"
}

# Stops the run (SIGKILL: a stop costs at most the generation or game in progress).
stop_run() {
  kill -KILL "$(cat "$pidfile")"
  rm -f "$pidfile"
}

pack_run() {
  list=$(mktemp)
  trap 'rm -f "$list"' EXIT
  python3 scripts/longrun-state.py pack "$home" "${KEEP_MINUTES:-20}" "${WINDOW:-50000}" > "$list"
  # Never replace a pack with less: no run here (a fresh machine before `resume`), or a run
  # here that is behind the one packed.
  [[ -s $list ]] || { echo "no run in $home to pack" >&2; exit 1; }
  if [[ -f $kept/state.tar.zst ]]; then
    packed_home=$(mktemp -d)
    tar --zstd -xf "$kept/state.tar.zst" -C "$packed_home" --wildcards '*/time.json'
    packed=$(python3 scripts/longrun-state.py seconds "$packed_home")
    rm -rf "$packed_home"
    here=$(python3 scripts/longrun-state.py seconds "$home")
    if awk -v here="$here" -v packed="$packed" 'BEGIN { exit !(here < packed) }'; then
      echo "the run here ($here s of run clock) is behind the one packed ($packed s): not packed" >&2
      exit 1
    fi
  fi
  tar --zstd -cf "$kept/state.tar.zst.tmp" -C "$home" -T "$list"
  mv "$kept/state.tar.zst.tmp" "$kept/state.tar.zst"
  echo "packed $(wc -l < "$list") files, $(du -h "$kept/state.tar.zst" | cut -f1): $(clock)"
  rm -f "$list"
}

case $command in
  start)
    [[ -e $kept/args ]] && { echo "longruns/$name exists: use resume" >&2; exit 1; }
    mkdir -p "$home" "$kept"
    printf '%s\n' "$@" > "$kept/args"
    launch
    ;;
  resume)
    [[ -f $kept/args ]] || { echo "no longruns/$name/args: start it first" >&2; exit 1; }
    if [[ ! -d $home/out ]]; then
      [[ -f $kept/state.tar.zst ]] || { echo "no run in $home and no longruns/$name/state.tar.zst" >&2; exit 1; }
      mkdir -p "$home"
      tar --zstd -xf "$kept/state.tar.zst" -C "$home"
      echo "unpacked $(clock)"
    fi
    launch
    ;;
  stop)
    if running; then
      stop_run
      echo "$name stopped at $(clock)"
    else
      echo "$name is not running"
    fi
    ;;
  status)
    if running; then echo "$name running (pid $(cat "$pidfile"))"; else echo "$name stopped"; fi
    clock
    tail -n 1 "$home/log" 2>/dev/null || true
    ;;
  pace)
    python3 scripts/longrun-state.py pace "$home" "$@"
    ;;
  pack)
    running && { echo "stop $name before packing it" >&2; exit 1; }
    pack_run
    ;;
  autopack)
    every=${1:-30}
    while running; do
      # wakes each minute so that a run that ended is packed soon after
      waited=0
      while ((waited < every)) && running; do
        sleep 60
        waited=$((waited + 1))
      done
      if running; then
        stop_run
        pack_run
        launch
      fi
    done
    pack_run
    ;;
  *)
    echo "unknown command $command" >&2
    exit 1
    ;;
esac
