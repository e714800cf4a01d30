#!/usr/bin/env bash
# `damas serve` answering: milliseconds to serve the page and to answer a legal-moves request
# (POST /api/state for a game 40 plies in), over one keep-alive connection from Python's
# http.client on 127.0.0.1, 500 requests each after 50 of warm-up; then a search by
# alpha-beta at 1 s a move and one by a small network, and the server's peak resident memory
# (VmHWM) idle and after the searches. The goal of issue 38: page and legal moves under 5 ms.
#
# Usage: scripts/bench-serve.sh   (about 30 seconds after the build)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/serve-run.sh
serve_setup
cat > "$work/small.toml" <<'TOML'
name = "small"
variant = "russian"
generations = 1
games_per_generation = 4
[selfplay]
max_plies = 60
[selfplay.search]
simulations = 8
[evaluation]
baseline_games = 0
previous_games = 0
TOML
"$damas" train --config "$work/small.toml" --runs "$work/runs" >"$work/train.log" 2>&1
serve_start --runs "$work/runs"
echo "damas serve on $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores"
python3 - "$port" "$damas_pid" <<'PY'
import http.client, json, statistics, sys, time
port, pid = int(sys.argv[1]), sys.argv[2]

def hwm():
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmHWM"):
            return int(line.split()[1]) / 1024

conn = http.client.HTTPConnection("127.0.0.1", port)
def request(method, path, body=None):
    data = None if body is None else json.dumps(body)
    conn.request(method, path, body=data, headers={"Content-Type": "application/json"})
    response = conn.getresponse()
    payload = response.read()
    assert response.status == 200, (path, response.status, payload[:200])
    return payload

# A game 40 plies in: each side plays its first legal move.
moves = []
for _ in range(40):
    state = json.loads(request("POST", "/api/state", {"variant": "russian", "moves": moves}))
    if state["outcome"]:
        break
    moves.append(state["legal"][0]["text"])
game = {"variant": "russian", "moves": moves}

def timed(name, method, path, body=None, n=500):
    for _ in range(50):
        request(method, path, body)
    times = []
    for _ in range(n):
        start = time.perf_counter()
        request(method, path, body)
        times.append((time.perf_counter() - start) * 1000)
    times.sort()
    print(f"{name:<44} median {statistics.median(times):6.2f} ms   p99 {times[int(0.99 * n) - 1]:6.2f} ms   ({n} requests)")

timed("GET / (the page)", "GET", "/")
timed("GET /app.js", "GET", "/app.js")
timed(f"POST /api/state, legal moves {len(moves)} plies in", "POST", "/api/state", game)
print(f"peak memory idle, after {1750} requests: {hwm():.0f} MiB")
for player in ["alphabeta:time=1", "run:small"]:
    start = time.perf_counter()
    reply = json.loads(request("POST", "/api/think", {"game": game, "player": player}))
    print(f"search {player:<20} {time.perf_counter() - start:6.2f} s: {reply['text']} ({reply['info']})")
print(f"peak memory after the searches: {hwm():.0f} MiB")
PY
