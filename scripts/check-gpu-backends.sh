#!/usr/bin/env bash
# Checks burn's wgpu backend against flex (CPU) without a GPU: on Mesa's lavapipe, a Vulkan
# device on the CPU that runs the same shaders a GPU runs. Not part of `cargo test` (it builds
# burn a second time, with wgpu, which takes long on two cores).
#
#   1. installs Debian's mesa-vulkan-drivers (lavapipe) and the Vulkan loader if missing;
#   2. crates/train/tests/backends.rs: outputs equal within 1e-4 on three board sizes, twenty
#      training steps with the same losses, a checkpoint written on wgpu read on flex;
#   3. `damas train --device wgpu` runs a tiny two-generation run and `damas match --device wgpu`
#      plays its last checkpoint;
#   4. `cargo check -p damas-cli --features cuda` (CUDA is type-checked, never built or run, here).
#
# Usage: scripts/check-gpu-backends.sh [--skip-cuda]
set -euo pipefail
cd "$(dirname "$0")/.."

skip_cuda=0
[[ "${1:-}" == "--skip-cuda" ]] && skip_cuda=1

log() { printf '\n== %s\n' "$*"; }

lavapipe_icd() { ls /usr/share/vulkan/icd.d/lvp_icd*.json 2>/dev/null | head -1; }
if [[ -z "$(lavapipe_icd)" ]] || ! ldconfig -p | grep -q 'libvulkan.so.1'; then
    log "installing lavapipe (mesa-vulkan-drivers) and the Vulkan loader"
    sudo_cmd=""
    [[ "$(id -u)" -ne 0 ]] && sudo_cmd="sudo"
    $sudo_cmd apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq mesa-vulkan-drivers libvulkan1 >/dev/null
fi
icd="$(lavapipe_icd)"
[[ -n "$icd" ]] || { echo "lavapipe is not installed" >&2; exit 1; }
# Only lavapipe, so wgpu cannot pick another adapter.
export VK_ICD_FILENAMES="$icd" VK_DRIVER_FILES="$icd"
echo "Vulkan driver: $icd"

log "wgpu against flex (crates/train/tests/backends.rs)"
cargo test --release -p damas-train --features wgpu --test backends -- --nocapture --test-threads=1

log "building damas with --features wgpu"
cargo build --release -p damas-cli --features wgpu
damas=target/release/damas

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cat >"$work/tiny.toml" <<'EOF'
name = "gpu-tiny"
variant = "russian"
generations = 2
games_per_generation = 8

[network]
blocks = 2
channels = 16

[selfplay]
max_plies = 120
games_per_worker = 8
[selfplay.search]
simulations = 16

[training]
batch_size = 32
window_min = 50

[evaluation]
baseline_games = 2
previous_games = 2
simulations = 8
EOF

log "damas train --device wgpu (tiny run)"
"$damas" train --config "$work/tiny.toml" --runs "$work/runs" --device wgpu --quiet
"$damas" train --config "$work/tiny.toml" --runs "$work/runs" --check
checkpoint="$work/runs/gpu-tiny/checkpoints/000002"
[[ -f "$checkpoint/meta.json" ]] || { echo "no checkpoint 2" >&2; exit 1; }

log "damas match --device wgpu with the run's checkpoint"
"$damas" match --variant russian --games 2 --device wgpu --quiet \
    --out "$work/match" "net:$checkpoint,sims=8" "alphabeta:depth=1"

log "the wgpu checkpoint on the CPU: damas model eval"
"$damas" model eval --model "$checkpoint" --top 3

if [[ "$skip_cuda" -eq 0 ]]; then
    log "cargo check -p damas-cli --features cuda"
    # cubecl-cuda's build downloads an LLVM bundle (tracel-llvm-bundler), which an offline
    # machine cannot; a type check links nothing, so the download is skipped the way docs.rs
    # skips it. A real CUDA build needs that download (or a machine that can make it).
    DOCS_RS=1 cargo check --release -p damas-cli --features cuda
fi

log "all GPU backend checks passed"
