//! `damas bench selfplay`: the network's speed at the batch sizes self-play uses, its achieved
//! GFLOP/s against this CPU's peak, and self-play's own speed with the share of time spent
//! outside the network (tree, move generation, encoding). The same network exported to ONNX is
//! timed in tract beside burn, as the speed an exported model plays at.

use damas_mcts::Search;
use damas_nn::{BoardShape, NetEvaluator, NetworkConfig, encoding::encode};
use damas_rules::{Game, Rules, Variant, VariantVisitor};
use damas_selfplay::{SelfPlayConfig, Stats, TimedEvaluator, play_games};
use std::time::{Duration, Instant};

/// Arguments of `damas bench selfplay`.
#[derive(clap::Args)]
pub struct Args {
    /// Variant to play.
    #[arg(long, value_parser = crate::parse_variant, default_value = "russian")]
    variant: Variant,
    /// Residual blocks of the (untrained) network.
    #[arg(long, default_value_t = 6)]
    blocks: usize,
    /// Channels of the network.
    #[arg(long, default_value_t = 64)]
    channels: usize,
    /// Batch sizes to time the network at.
    #[arg(long, value_delimiter = ',', default_value = "1,16,64,128")]
    batches: Vec<usize>,
    /// Self-play games to time.
    #[arg(long, default_value_t = 8)]
    games: u32,
    /// Simulations per move in the self-play part.
    #[arg(long, default_value_t = 64)]
    simulations: u32,
    /// Game threads in the self-play part.
    #[arg(long, default_value_t = 1)]
    workers: usize,
    /// Games in flight per worker (sets the batch size self-play reaches).
    #[arg(long, default_value_t = 16)]
    games_per_worker: usize,
    /// Threads of burn's CPU kernels.
    #[arg(long, default_value_t = 2)]
    inference_threads: usize,
    /// Seconds per network measurement.
    #[arg(long, default_value_t = 2.0)]
    seconds: f64,
}

/// This machine's peak single-precision rate: cores x 2 FMA units x 8 lanes (AVX2) x 2 flops
/// x clock, with the clock read from /proc/cpuinfo.
fn peak_gflops(cores: usize) -> (f64, f64) {
    let ghz = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|text| {
            text.lines()
                .find(|line| line.starts_with("cpu MHz"))
                .and_then(|line| line.split(':').nth(1))
                .and_then(|mhz| mhz.trim().parse::<f64>().ok())
        })
        .map_or(2.0, |mhz| mhz / 1000.0);
    (cores as f64 * 32.0 * ghz, ghz)
}

/// Positions per second of `run`, which evaluates `batch` positions (after one warm-up call).
fn evals_per_second(batch: usize, seconds: Duration, mut run: impl FnMut()) -> f64 {
    run();
    let (mut runs, start) = (0u64, Instant::now());
    while start.elapsed() < seconds || runs < 3 {
        run();
        runs += 1;
    }
    (runs * batch as u64) as f64 / start.elapsed().as_secs_f64()
}

struct Run<'a>(&'a Args);

impl VariantVisitor for Run<'_> {
    type Output = anyhow::Result<()>;
    fn visit<V: Rules>(self) -> anyhow::Result<()> {
        let args = self.0;
        let threads = damas_nn::set_inference_threads(args.inference_threads);
        let device = damas_nn::cpu();
        let config = NetworkConfig::new(BoardShape::of::<V>())
            .with_blocks(args.blocks)
            .with_channels(args.channels);
        let network = config.init(&device);
        let evaluator = NetEvaluator::<V>::new(&network, &device);
        let flops = config.flops_per_position() as f64;
        let (peak, ghz) = peak_gflops(threads);
        println!(
            "network {}x{} on {} ({:.1} MFLOP per position); CPU peak {:.0} GFLOP/s \
             ({threads} threads x 32 flop/cycle x {ghz:.2} GHz)",
            args.blocks,
            args.channels,
            V::NAME,
            flops / 1e6,
            peak
        );
        // The same network as an exported ONNX model, run by tract.
        let onnx_path =
            std::env::temp_dir().join(format!("damas-bench-{}.onnx", std::process::id()));
        std::fs::write(
            &onnx_path,
            damas_onnx::onnx_bytes(
                &network,
                &damas_nn::CheckpointMeta::new::<V>(config.clone()),
            )?,
        )?;
        let onnx = damas_onnx::OnnxModel::open::<V>(&onnx_path);
        let _ = std::fs::remove_file(&onnx_path);
        let onnx = onnx?;
        println!(
            "{:>6} {:>12} {:>10} {:>8} {:>14} {:>11}",
            "batch", "evals/s", "GFLOP/s", "of peak", "tract evals/s", "tract/burn"
        );
        let shape = BoardShape::of::<V>();
        let seconds = Duration::from_secs_f64(args.seconds);
        for &batch in &args.batches {
            let mut inputs = vec![0.0; batch * shape.input_len()];
            for (i, chunk) in inputs.chunks_mut(shape.input_len()).enumerate() {
                let mut game = Game::<V>::new();
                game.play_random(i as u64, 10 + (i % 20) as u32);
                encode(&game, chunk);
            }
            let per_second = evals_per_second(batch, seconds, || {
                evaluator.run(inputs.clone(), batch);
            });
            let tract = evals_per_second(batch, seconds, || {
                onnx.run(&inputs, batch).expect("checked when opened");
            });
            let gflops = per_second * flops / 1e9;
            println!(
                "{batch:>6} {per_second:>12.0} {gflops:>10.2} {:>7.1}% {tract:>14.0} {:>11.2}",
                100.0 * gflops / peak,
                tract / per_second
            );
        }

        let mut selfplay = SelfPlayConfig {
            workers: args.workers,
            games_per_worker: args.games_per_worker,
            inference_threads: args.inference_threads,
            resign_check_fraction: 0.0,
            ..SelfPlayConfig::default()
        };
        selfplay.search.simulations = args.simulations;
        let timed = TimedEvaluator::new(evaluator);
        let mut stats = Stats::default();
        let start = Instant::now();
        play_games::<V, _>(&selfplay, &timed, args.games, 1, "bench", &[], |record| {
            stats.add(&record)
        });
        let wall = start.elapsed().as_secs_f64();
        let network = timed.time().as_secs_f64() / args.workers.max(1) as f64;
        println!(
            "selfplay: {} games, {} plies, {} samples in {wall:.1}s: {:.1} positions/s, \
             {:.0} evals/s, mean batch {:.1}",
            stats.games,
            stats.plies,
            stats.samples,
            stats.samples as f64 / wall,
            timed.positions() as f64 / wall,
            timed.positions() as f64 / timed.batches().max(1) as f64
        );
        println!(
            "selfplay: time in the network {:.1}%, outside it (tree, moves, encoding) {:.1}% \
             (goal: at most 15%)",
            100.0 * network / wall,
            100.0 * (1.0 - network / wall)
        );
        let mut search = Search::new(Game::<V>::new(), selfplay.search.clone(), 0);
        search.start(800, false);
        search.run(&damas_mcts::UniformEvaluator);
        let tree = search.tree();
        println!(
            "tree: {} bytes per edge, {} per node; 800 simulations from the start: {} edges, \
             {} nodes, {} KiB",
            size_of::<damas_mcts::tree::Edge<V::Geometry>>(),
            size_of::<damas_mcts::tree::Node>(),
            tree.edges.len(),
            tree.nodes.len(),
            tree.memory_bytes() / 1024
        );
        Ok(())
    }
}

/// Runs `damas bench selfplay`.
pub fn run(args: Args) -> anyhow::Result<()> {
    args.variant.visit(Run(&args))
}
