#!/usr/bin/env bash
# Compares perft speed of the working tree against an earlier revision, in one run on this machine:
# both binaries are built, then each variant's start position is counted alternately by the old and
# the new binary (best of N runs each), and the ratio new/old of nodes per second is printed.
# A change that adds variants must not make the existing ones slower. Wall-clock times on a shared
# machine are noisy, so where valgrind is installed the script also counts instructions executed
# (cachegrind), which repeat exactly for the same binary and input.
#
# Usage: scripts/bench-compare.sh REV [runs]
set -euo pipefail
cd "$(dirname "$0")/.."
rev="${1:?usage: scripts/bench-compare.sh REV [runs]}"
runs="${2:-5}"
old_tree=$(mktemp -d)
trap 'git worktree remove --force "$old_tree" >/dev/null 2>&1 || true' EXIT
git worktree add --detach --force "$old_tree" "$rev" >/dev/null
CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}/bench-compare-old" \
  cargo build --release --quiet -p damas-cli --manifest-path "$old_tree/Cargo.toml"
cargo build --release --quiet -p damas-cli
old="${CARGO_TARGET_DIR:-target}/bench-compare-old/release/damas"
new="target/release/damas"

best_nps() { # binary variant depth -> best nodes/s over $runs runs
  local best=0
  for _ in $(seq "$runs"); do
    nps=$("$1" perft --variant "$2" --depth "$3" --json | python3 -c 'import json,sys; print(int(json.load(sys.stdin)["depths"][-1]["nodes_per_second"]))')
    [ "$nps" -gt "$best" ] && best=$nps
  done
  echo "$best"
}

printf '%-14s %6s %14s %14s %8s\n' variant depth "old Mnodes/s" "new Mnodes/s" "new/old"
for variant in $("$old" variants | awk '{print $1}'); do
  case "$variant" in international|killer|antidraughts) depth=9 ;; frisian|frysk|canadian|turkish) depth=7 ;; thai) depth=9 ;; *) depth=10 ;; esac
  old_nps=$(best_nps "$old" "$variant" "$depth")
  new_nps=$(best_nps "$new" "$variant" "$depth")
  python3 -c "import sys; o,n=map(int,sys.argv[1:]); print(f'%-14s %6d %14.2f %14.2f %7.3fx' % ('$variant', $depth, o/1e6, n/1e6, n/o))" "$old_nps" "$new_nps"
done

if command -v valgrind >/dev/null; then
  echo
  printf '%-14s %6s %16s %16s %8s\n' variant depth "old instructions" "new instructions" "new/old"
  instructions() { # binary variant depth
    valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null "$1" perft --variant "$2" --depth "$3" 2>&1 >/dev/null \
      | awk '/I *refs/ {gsub(",", "", $NF); print $NF}'
  }
  for variant in $("$old" variants | awk '{print $1}'); do
    case "$variant" in international|killer|antidraughts|thai) depth=7 ;; frisian|frysk|canadian|turkish) depth=5 ;; *) depth=8 ;; esac
    old_i=$(instructions "$old" "$variant" "$depth")
    new_i=$(instructions "$new" "$variant" "$depth")
    python3 -c "import sys; o,n=map(int,sys.argv[1:]); print('%-14s %6d %16d %16d %7.3fx' % ('$variant', $depth, o, n, n/o))" "$old_i" "$new_i"
  done
fi
