#!/usr/bin/env bash
# The training loop on a full disk: a tiny run (the kill soak's config) in a small tmpfs that
# fills up at SIZES fractions of what the whole run needs. Each time the run must stop with an
# error that names the file and says the device is full (no panic, no hang), every checkpoint and
# shard already written must verify (`damas train --check`), and after the tmpfs is made larger
# the resumed run must end with as many generations and checkpoints as an uninterrupted run.
#
# Needs root (it mounts tmpfs file systems under a temporary directory and unmounts them at the
# end). Usage: scripts/full-disk.sh [PERCENT...]   (default 5 15 30 50 70 90)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/tiny-run.sh
[ "$(id -u)" -eq 0 ] || { echo "full-disk.sh mounts tmpfs: run it as root" >&2; exit 2; }
percents=("$@")
[ ${#percents[@]} -gt 0 ] || percents=(5 15 30 50 70 90)
cargo test --workspace --no-run --quiet 2>/dev/null || cargo test --workspace --no-run
damas=$PWD/target/debug/damas
work=$(mktemp -d /tmp/damas-full-disk.XXXXXX)
mounted=()
cleanup() {
  for m in "${mounted[@]}"; do umount "$m" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
write_tiny_config "$work/disk.toml" disk 3

state() { run_state "$1" disk; }

"$damas" train --config "$work/disk.toml" --runs "$work/reference" --quiet > /dev/null
read -r ref_c ref_g <<< "$(state "$work/reference")"
need=$(du -sk "$work/reference" | cut -f1)
echo "uninterrupted run: $ref_c checkpoints, $ref_g generations, ${need} KiB on disk"

failures=0
for p in "${percents[@]}"; do
  size=$(( need * p / 100 ))
  [ "$size" -ge 64 ] || size=64
  mnt=$work/disk-$p
  mkdir -p "$mnt"
  mount -t tmpfs -o size=${size}k tmpfs "$mnt"
  mounted+=("$mnt")
  set +e
  timeout 300 "$damas" train --config "$work/disk.toml" --runs "$mnt" --quiet > "$work/out-$p.txt" 2> "$work/err-$p.txt"
  code=$?
  set -e
  read -r c g <<< "$(state "$mnt")"
  verdict=ok
  if [ "$code" -eq 0 ]; then
    verdict="finished within ${size} KiB (no full disk hit)"
  elif [ "$code" -eq 124 ]; then
    verdict="FAIL: hung"; failures=$((failures + 1))
  elif grep -q "panicked" "$work/err-$p.txt"; then
    verdict="FAIL: panicked"; failures=$((failures + 1))
  elif ! grep -qi "no space left" "$work/err-$p.txt"; then
    verdict="FAIL: the error does not say the disk is full"; failures=$((failures + 1))
  fi
  if ! "$damas" train --config "$work/disk.toml" --runs "$mnt" --check > "$work/check-$p.txt" 2>&1; then
    if [ -d "$mnt/disk/checkpoints" ]; then
      verdict="FAIL: what was written does not verify: $(tail -1 "$work/check-$p.txt")"; failures=$((failures + 1))
    fi
  fi
  echo "tmpfs of ${size} KiB (${p}%): exit $code, $c checkpoints, $g generations kept; $verdict"
  echo "    error: $(head -c 300 "$work/err-$p.txt" | tr '\n' ' ')"
  # Room again: the resumed run must finish like the uninterrupted one.
  mount -o remount,size=$(( need * 4 ))k "$mnt"
  "$damas" train --config "$work/disk.toml" --runs "$mnt" --quiet > /dev/null 2>> "$work/err-$p.txt"
  "$damas" train --config "$work/disk.toml" --runs "$mnt" --check > /dev/null
  read -r c g <<< "$(state "$mnt")"
  if [ "$c" != "$ref_c" ] || [ "$g" != "$ref_g" ]; then
    echo "    FAIL: resumed with room, it has $c checkpoints and $g generations"; failures=$((failures + 1))
  else
    echo "    resumed with room: $c checkpoints, $g generations, all verify"
  fi
done
[ "$failures" -eq 0 ] && echo "OK" || { echo "$failures failures"; exit 1; }
