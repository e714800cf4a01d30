#!/usr/bin/env bash
# The deep perft rows left out of the default test run: every published count up to
# DAMAS_PERFT_MAX leaves (default 250 million: International to depth 9, the 8x8 variants to
# depth 10 and beyond, and the named positions to the depths that finish in minutes).
#
# Usage: scripts/perft-deep.sh [max-leaves]
set -euo pipefail
cd "$(dirname "$0")/.."
export DAMAS_PERFT_MAX="${1:-${DAMAS_PERFT_MAX:-250000000}}"
cargo test --release -p damas-rules --test main -- --ignored --nocapture published_tables_deep_rows
