#!/usr/bin/env bash
# Fuzzes every parser and protocol handler long: INPUTS inputs (default 10,000,000) spread over
# the targets by weight (the Hub and DXP servers, which play real games, get fewer), plus
# INPUTS/10,000 ONNX files counted apart. Prints inputs, share accepted, panics and hangs per
# target, peak heap and max RSS; exits 1 if any input panicked, hung (2 s) or asked for more
# than 256 MiB at once. Replay one input: target/debug/damas-fuzz --replay TARGET INDEX.
#
# The binary is the one `cargo test` builds (optimised, overflow checks on, panics unwind):
# the release profile aborts on panic, which would end the run at the first crash instead of
# reporting it with its input. The short run of the same targets is `cargo test` (crates/fuzz).
#
# Usage: scripts/fuzz.sh [INPUTS] [damas-fuzz options: --threads N --seed S --only a,b]
#        (10 million inputs: about an hour on two cores)
set -euo pipefail
cd "$(dirname "$0")/.."
inputs=${1:-10000000}
shift || true
cargo test --workspace --no-run --quiet 2>/dev/null || cargo test --workspace --no-run
/usr/bin/time -f "fuzz: %e s wall, %M KiB max RSS" target/debug/damas-fuzz "$inputs" "$@"
