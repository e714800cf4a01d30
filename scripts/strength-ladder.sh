#!/usr/bin/env bash
# Strength ladder of the alpha-beta baseline: depth d against d-1 for d = 2..6 and depth 6 against
# depth 4, 100 games each from varied openings; fails unless depth 6 scores above 60% against 4.
#
# Usage: scripts/strength-ladder.sh [variant]   (default: international)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo run --release --quiet -p damas-engine --example ladder -- "${1:-international}"
