//! `damas bench engine|selfplay|train|learning`: speed measurements, printed as tables, and
//! strength against training time.

use crate::args::{DeviceArgs, SizeArgs};
use crate::out::{out, outln};
use crate::train::Bars;
use damas_rules::Variant;
use damas_train::ConfigFile;
use damas_train::StepPath;
use damas_train::bench::{SelfPlayBenchOptions, TrainBenchOptions, selfplay_bench, train_bench};
use damas_train::learning::{LearningOptions, TimeAxis, learning_curve};

/// Arguments of `damas bench`.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    what: What,
}

#[derive(clap::Subcommand)]
enum What {
    /// Nodes per second of the alpha-beta search, one variant per board family.
    Engine(EngineArgs),
    /// Network evaluations per second, GFLOP/s against peak, self-play speed.
    Selfplay(SelfPlayArgs),
    /// Training samples per second.
    Train(TrainArgs),
    /// Strength against training time: train for a budget, rate checkpoints on an
    /// alpha-beta ladder, print the table and draw the curve.
    Learning(LearningArgs),
}

#[derive(clap::Args)]
struct LearningArgs {
    /// The run's config (TOML); its generation count is ignored (the budget ends the run).
    #[arg(long)]
    config: std::path::PathBuf,
    /// Training budget in minutes (wall clock of the run's loop).
    #[arg(long, value_parser = crate::args::parse_minutes)]
    minutes: std::time::Duration,
    /// One checkpoint per this many minutes is rated (default: a fifth of the budget).
    #[arg(long, value_parser = crate::args::parse_minutes)]
    every: Option<std::time::Duration>,
    /// Directory of the run, tournament and curve (default: runs/learning/<config name>).
    #[arg(long)]
    out: Option<std::path::PathBuf>,
    /// Simulations per move of the networks when rated.
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..))]
    sims: u32,
    /// Also rate each checkpoint searching this many seconds per move (the equal-time scale;
    /// best with a ladder holding `alphabeta:time=` rungs).
    #[arg(long, value_parser = crate::args::positive_seconds)]
    time: Option<f64>,
    /// A stored ladder (`damas ladder build`, e.g. ladders/russian.json); default: a ladder of
    /// alpha-beta at depths 1 to --depths, played here first.
    #[arg(long)]
    ladder: Option<std::path::PathBuf>,
    /// Without --ladder: the ladder played here is alpha-beta at depths 1 to this.
    #[arg(long, default_value_t = 6, value_parser = clap::value_parser!(u32).range(2..=20))]
    depths: u32,
    /// Rungs each checkpoint meets, each chosen nearest its rating so far.
    #[arg(long, default_value_t = 3, value_parser = crate::args::at_least_one::<usize>)]
    rungs: usize,
    /// Games of a checkpoint against each rung it meets (and of each pair of a ladder played
    /// here).
    #[arg(long, default_value_t = 20, value_parser = crate::args::at_least_one::<u32>)]
    games: u32,
    /// Games played at once (one at a time when a player thinks by the clock).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u64).range(1..))]
    concurrency: u64,
    /// Other benchmark directories whose curves share the picture.
    #[arg(long, num_args = 1..)]
    compare: Vec<std::path::PathBuf>,
    /// The curve's name in the table, curve.json and the legend (default: the config's name),
    /// so that two runs of one config tell apart in a `--compare` picture.
    #[arg(long)]
    label: Option<String>,
    /// Training time on a logarithmic axis in curve.png (for runs of hours; the untrained
    /// network stands at the left end).
    #[arg(long)]
    log_time: bool,
    /// No progress bars.
    #[arg(long)]
    quiet: bool,
    /// Where networks run, in place of the config's `device` key: cpu, wgpu, cuda or cuda:N.
    #[arg(long, value_parser = crate::args::parse_device)]
    device: Option<damas_nn::DeviceChoice>,
}

#[derive(clap::Args)]
struct EngineArgs {
    /// Search depth per position (default: 11 on 10x10 and larger, 13 on 8x8 diagonal boards,
    /// 8 on all-square boards, about a second per family).
    #[arg(long, value_parser = crate::args::at_least_one::<u32>)]
    depth: Option<u32>,
    /// Positions per variant.
    #[arg(long, default_value_t = 6, value_parser = crate::args::at_least_one::<u32>)]
    positions: u32,
    /// Only this variant (default: one per board family).
    #[arg(long, value_parser = crate::args::parse_variant)]
    variant: Option<Variant>,
}

#[derive(clap::Args)]
struct SelfPlayArgs {
    /// Variant to play.
    #[arg(long, value_parser = crate::args::parse_variant, default_value = "russian")]
    variant: Variant,
    #[command(flatten)]
    size: SizeArgs,
    /// Batch sizes to time the network at.
    #[arg(long, value_delimiter = ',', default_value = "1,16,64,128")]
    batches: Vec<usize>,
    /// Self-play games to time.
    #[arg(long, default_value_t = 8, value_parser = crate::args::at_least_one::<u32>)]
    games: u32,
    /// Simulations per move in the self-play part.
    #[arg(long, default_value_t = 64, value_parser = crate::args::at_least_one::<u32>)]
    simulations: u32,
    /// Game threads in the self-play part.
    #[arg(long, default_value_t = 1, value_parser = crate::args::at_least_one::<usize>)]
    workers: usize,
    /// Games in flight per worker (sets the batch size self-play reaches); the device's
    /// self-play default if omitted.
    #[arg(long, value_parser = crate::args::at_least_one::<usize>)]
    games_per_worker: Option<usize>,
    /// Threads of burn's CPU kernels.
    #[arg(long, default_value_t = 2, value_parser = crate::args::at_least_one::<usize>)]
    inference_threads: usize,
    /// Seconds per network measurement.
    #[arg(long, default_value_t = 2.0, value_parser = crate::args::positive_seconds)]
    seconds: f64,
    #[command(flatten)]
    device: DeviceArgs,
}

#[derive(clap::Args)]
struct TrainArgs {
    /// Variant.
    #[arg(long, value_parser = crate::args::parse_variant, default_value = "russian")]
    variant: Variant,
    #[command(flatten)]
    size: SizeArgs,
    /// Batch size.
    #[arg(long, default_value_t = 256, value_parser = crate::args::at_least_one::<usize>)]
    batch: usize,
    /// Steps to time (after one warm-up step).
    #[arg(long, default_value_t = 10, value_parser = crate::args::at_least_one::<u64>)]
    steps: u64,
    /// Threads of the kernels.
    #[arg(long, default_value_t = 2, value_parser = crate::args::at_least_one::<usize>)]
    threads: usize,
    #[command(flatten)]
    device: DeviceArgs,
    /// Which training step to time: `native` (the CPU step runs use), `burn` (burn's
    /// autodiff, the GPU path and the reference) or `both`, side by side.
    #[arg(long, value_enum, default_value_t = PathArg::Both)]
    path: PathArg,
}

/// `damas bench train --path`.
#[derive(Clone, Copy, clap::ValueEnum)]
enum PathArg {
    Native,
    Burn,
    Both,
}

impl PathArg {
    fn paths(self) -> Vec<StepPath> {
        match self {
            PathArg::Native => vec![StepPath::Native],
            PathArg::Burn => vec![StepPath::Burn],
            PathArg::Both => vec![StepPath::Native, StepPath::Burn],
        }
    }
}

fn engine(args: EngineArgs) {
    let variants = match args.variant {
        Some(v) => vec![v],
        None => damas_engine::bench::families(),
    };
    outln!(
        "{:<14} {:>6} {:>10} {:>12} {:>9} {:>12}",
        "variant",
        "depth",
        "positions",
        "nodes",
        "seconds",
        "nodes/s"
    );
    for variant in variants {
        let bench = damas_engine::bench::bench(variant, args.depth, args.positions);
        outln!(
            "{:<14} {:>6} {:>10} {:>12} {:>9.3} {:>12.0}",
            variant.name(),
            bench.depth,
            bench.positions,
            bench.nodes,
            bench.time.as_secs_f64(),
            bench.nodes_per_second()
        );
    }
}

fn selfplay(args: SelfPlayArgs) -> anyhow::Result<()> {
    let options = SelfPlayBenchOptions {
        variant: args.variant,
        size: args.size.size(),
        batches: args.batches,
        games: args.games,
        simulations: args.simulations,
        workers: args.workers,
        games_per_worker: args.games_per_worker,
        inference_threads: args.inference_threads,
        seconds: args.seconds,
        device: args.device.device,
    };
    let bench = selfplay_bench(&options)?;
    outln!(
        "network {}x{} on {}, device {} ({:.1} MFLOP per position); one core's peak {:.0} \
         GFLOP/s measured (gemm; the flags suggest {:.0}: {} flop/cycle x {:.2} GHz)",
        options.size.blocks,
        options.size.channels,
        options.variant,
        options.device,
        bench.flops_per_position / 1e6,
        bench.peak.measured_gflops,
        bench.peak.nominal_gflops,
        bench.peak.flops_per_cycle,
        bench.peak.ghz
    );
    outln!(
        "evals/s: the path self-play takes (on the CPU the folded pass, on one core; add \
         workers to use more); burn ({} threads) and tract (the exported ONNX model) run the \
         same network",
        bench.threads
    );
    outln!(
        "{:>6} {:>10} {:>9} {:>8} {:>13} {:>13} {:>10} {:>11}",
        "batch",
        "evals/s",
        "GFLOP/s",
        "of peak",
        "burn evals/s",
        "tract evals/s",
        "vs burn",
        "vs tract"
    );
    for row in &bench.batches {
        let gflops = row.evals_per_second * bench.flops_per_position / 1e9;
        outln!(
            "{:>6} {:>10.0} {gflops:>9.2} {:>7.1}% {:>13.0} {:>13.0} {:>9.2}x {:>10.2}x",
            row.batch,
            row.evals_per_second,
            100.0 * gflops / bench.peak.measured_gflops,
            row.burn_evals_per_second,
            row.tract_evals_per_second,
            row.evals_per_second / row.burn_evals_per_second,
            row.evals_per_second / row.tract_evals_per_second
        );
    }
    let stats = &bench.stats;
    outln!(
        "selfplay: {} games, {} plies, {} samples in {:.1}s: {:.1} positions/s, \
         {:.0} evals/s, mean batch {:.1}",
        stats.games,
        stats.plies,
        stats.samples,
        bench.seconds,
        stats.samples as f64 / bench.seconds,
        bench.evaluations as f64 / bench.seconds,
        bench.evaluations as f64 / bench.network_batches.max(1) as f64
    );
    let inside = bench.network_seconds / bench.seconds;
    outln!(
        "selfplay: time in the network {:.1}%, outside it (tree, moves, encoding) {:.1}% \
         (goal: at most 15%)",
        100.0 * inside,
        100.0 * (1.0 - inside)
    );
    let (edges, nodes, bytes) = bench.tree;
    outln!(
        "tree: {} bytes per edge, {} per node; 800 simulations from the start: {edges} edges, \
         {nodes} nodes, {} KiB",
        bench.edge_bytes,
        bench.node_bytes,
        bytes / 1024
    );
    Ok(())
}

fn learning(args: LearningArgs) -> anyhow::Result<()> {
    let config = ConfigFile::read_on(&args.config, args.device)?;
    let out = args
        .out
        .unwrap_or_else(|| std::path::Path::new("runs/learning").join(&config.config.name));
    let options = LearningOptions {
        config,
        minutes: args.minutes.as_secs_f64() / 60.0,
        every: args.every.unwrap_or(args.minutes / 5),
        out: out.clone(),
        simulations: args.sims,
        move_time: args.time.map(std::time::Duration::from_secs_f64),
        ladder: args.ladder,
        depths: args.depths,
        rungs: args.rungs,
        games: args.games,
        concurrency: args.concurrency as usize,
        compare: args.compare,
        label: args.label,
        time_axis: if args.log_time {
            TimeAxis::Log
        } else {
            TimeAxis::Linear
        },
    };
    let mut bars = Bars::new(args.quiet);
    let curve = learning_curve(&options, &mut bars)?;
    out!("{}", curve.table());
    outln!(
        "curve: {} and {}",
        out.join("curve.json").display(),
        out.join("curve.png").display()
    );
    Ok(())
}

fn train(args: TrainArgs) -> anyhow::Result<()> {
    let options = TrainBenchOptions {
        variant: args.variant,
        size: args.size.size(),
        batch: args.batch,
        steps: args.steps,
        threads: args.threads,
        device: args.device.device,
        paths: args.path.paths(),
    };
    let bench = train_bench(&options)?;
    let peak = bench.peak.measured_gflops * bench.threads as f64;
    outln!(
        "train {} {}x{} batch {} on {}, {} threads; peak {:.0} GFLOP/s ({} x {:.1} measured on \
         one core; the flags suggest {:.1})",
        options.variant,
        options.size.blocks,
        options.size.channels,
        options.batch,
        options.device,
        bench.threads,
        peak,
        bench.threads,
        bench.peak.measured_gflops,
        bench.peak.nominal_gflops,
    );
    outln!(
        "{:<16} {:>10} {:>8} {:>9} {:>8}",
        "step",
        "samples/s",
        "s/step",
        "GFLOP/s",
        "of peak"
    );
    for row in &bench.paths {
        outln!(
            "{:<16} {:>10.0} {:>8.3} {:>9.1} {:>7.1}%",
            row.path.name(),
            row.samples_per_second,
            row.seconds_per_step,
            row.gflops,
            100.0 * row.gflops / peak
        );
    }
    if let [native, burn] = &bench.paths[..] {
        outln!(
            "native / burn: {:.2}x",
            native.samples_per_second / burn.samples_per_second
        );
    }
    Ok(())
}

/// Runs `damas bench`.
pub fn run(args: Args) -> anyhow::Result<()> {
    match args.what {
        What::Engine(args) => {
            engine(args);
            Ok(())
        }
        What::Selfplay(args) => selfplay(args),
        What::Train(args) => train(args),
        What::Learning(args) => learning(args),
    }
}
