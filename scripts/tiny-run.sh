# Sourced by kill-soak.sh and full-disk.sh: the tiny training run both abuse, and what a run
# directory of it holds.

# write_tiny_config FILE NAME GENERATIONS: the tiny Russian config (a 1x8 network, 6 games a
# generation, two games a shard), the tests' tiny config with the run name and length given.
write_tiny_config() {
  cat > "$1" <<TOML
name = "$2"
variant = "russian"
generations = $3
games_per_generation = 6
[network]
blocks = 1
channels = 8
[selfplay]
fast_simulations = 4
full_search_fraction = 0.5
max_plies = 80
games_per_worker = 2
games_per_shard = 2
[selfplay.search]
simulations = 12
[training]
batch_size = 16
window_min = 50
[evaluation]
baseline_games = 2
previous_games = 2
simulations = 6
TOML
}

# run_state RUNS NAME: "CHECKPOINTS GENERATIONS", the complete checkpoints and the generations
# whose self-play is done in RUNS/NAME.
run_state() {
  local root=$1/$2 c=0 g=0
  [ -d "$root/checkpoints" ] && c=$(find "$root/checkpoints" -maxdepth 2 -name meta.json | wc -l)
  [ -d "$root/shards" ] && g=$(find "$root/shards" -maxdepth 1 -name '*.done' | wc -l)
  echo "$c $g"
}
