# Sourced by browser-check.sh and bench-serve.sh: `damas serve` started on a free loopback
# port for a script, and stopped with everything the script made when it exits.

# serve_setup: builds the release binary, sets $damas and a scratch directory $work, and arranges
# for the server (once started) to be stopped and $work removed at exit.
serve_setup() {
  cargo build --release --quiet -p damas-cli
  damas="$PWD/target/release/damas"
  work=$(mktemp -d)
  server_pid=""
  trap serve_cleanup EXIT
}

serve_cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}

# serve_start ARGS...: `damas serve ARGS` on 127.0.0.1 and a free port, bounded to 10 minutes;
# returns once it listens, with $port, $server_pid (the bound) and $damas_pid (the server).
serve_start() {
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  timeout 600 "$damas" serve --listen "127.0.0.1:$port" "$@" >"$work/serve.log" 2>&1 &
  server_pid=$!
  for _ in $(seq 100); do
    grep -q "open http" "$work/serve.log" 2>/dev/null && break
    sleep 0.1
  done
  grep -q "open http" "$work/serve.log" || { cat "$work/serve.log"; exit 1; }
  damas_pid=$(pgrep -P "$server_pid" -x damas)
}
