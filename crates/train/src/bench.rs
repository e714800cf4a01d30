//! Speed benchmarks of the learning machinery (`damas bench selfplay|train`): the network at the
//! batch sizes self-play uses, against this CPU's peak and against the same network exported to
//! ONNX and run by tract; self-play with the share of time outside the network; training samples
//! per second.

use crate::config::TrainingSection;
use crate::trainer::{StepPath, Trainer};
use damas_mcts::{RootNoise, Search, UniformEvaluator};
use damas_nn::encoding::encode;
use damas_nn::{
    BoardShape, BurnModel, CheckpointMeta, DeviceChoice, DeviceError, NetEvaluator, NetModel,
    NetworkConfig, NetworkSize, Predictor,
};
use damas_onnx::{OnnxError, OnnxModel};
use damas_rules::{Game, Rules, Variant, VariantVisitor};
use damas_selfplay::{GameRecord, SelfPlayConfig, Stats, TimedEvaluator, play_games};
use std::time::{Duration, Instant};

/// Why a benchmark could not run.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// The network could not be exported to ONNX and read back.
    #[error("the ONNX comparison failed")]
    Onnx(#[from] OnnxError),
    /// The temporary ONNX file could not be written.
    #[error("cannot write a temporary file")]
    Io(#[from] std::io::Error),
    /// Self-play made no samples to train on.
    #[error("no samples to train on")]
    NoSamples,
    /// The device asked for cannot be used.
    #[error(transparent)]
    Device(#[from] DeviceError),
    /// The network size asked for is out of its range.
    #[error("no network of that size")]
    Size(#[from] damas_mcts::InvalidValue),
}

/// What `damas bench selfplay` measures.
#[derive(Clone, Debug)]
pub struct SelfPlayBenchOptions {
    /// The variant played.
    pub variant: Variant,
    /// The (untrained) network's size.
    pub size: NetworkSize,
    /// Batch sizes to time the network at.
    pub batches: Vec<usize>,
    /// Self-play games to time.
    pub games: u32,
    /// Simulations per move in the self-play part.
    pub simulations: u32,
    /// Game threads.
    pub workers: usize,
    /// Games in flight per worker (sets the batch size self-play reaches); the device's
    /// self-play default if `None`.
    pub games_per_worker: Option<usize>,
    /// Threads of burn's CPU kernels.
    pub inference_threads: usize,
    /// Seconds per network measurement.
    pub seconds: f64,
    /// Where the network runs.
    pub device: DeviceChoice,
}

/// The network's speed at one batch size.
#[derive(Clone, Debug)]
pub struct BatchSpeed {
    /// Positions per batch.
    pub batch: usize,
    /// Evaluations per second of the path self-play takes ([`NetModel`]: folded on the CPU).
    pub evals_per_second: f64,
    /// The same network run by burn.
    pub burn_evals_per_second: f64,
    /// The same network exported to ONNX, run by tract.
    pub tract_evals_per_second: f64,
}

/// What `damas bench selfplay` found.
#[derive(Clone, Debug)]
pub struct SelfPlayBench {
    /// Floating-point operations of one forward pass for one position.
    pub flops_per_position: f64,
    /// Threads of burn's kernels.
    pub threads: usize,
    /// One core's peak (the CPU pass runs on one core).
    pub peak: Peak,
    /// The network's speed per batch size.
    pub batches: Vec<BatchSpeed>,
    /// Self-play's totals.
    pub stats: Stats,
    /// Self-play's wall-clock seconds.
    pub seconds: f64,
    /// Positions evaluated during self-play.
    pub evaluations: u64,
    /// Batches they came in.
    pub network_batches: u64,
    /// Seconds inside the network, per game thread.
    pub network_seconds: f64,
    /// Bytes of a tree edge and of a node.
    pub edge_bytes: usize,
    /// Bytes of a tree node.
    pub node_bytes: usize,
    /// Edges, nodes and bytes of the tree after 800 simulations from the start.
    pub tree: (usize, usize, usize),
}

/// One core's single-precision peak: measured, and as the processor's flags suggest.
#[derive(Clone, Copy, Debug)]
pub struct Peak {
    /// The best rate of the `gemm` kernels on one core, GFLOP/s (what "of peak" divides by).
    pub measured_gflops: f64,
    /// 2 FMA units x 16 lanes (AVX-512) or 8 (AVX2) x 2 flops x the clock, GFLOP/s: what the
    /// flags suggest, twice the real rate on processors that split 512-bit FMAs (Zen 4).
    pub nominal_gflops: f64,
    /// Flops per cycle assumed for the nominal peak.
    pub flops_per_cycle: f64,
    /// The clock read from /proc/cpuinfo, GHz.
    pub ghz: f64,
}

impl Peak {
    /// Measures this core's peak (about half a second) and reads its nominal one.
    pub fn measure() -> Self {
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let ghz = cpuinfo
            .lines()
            .find(|line| line.starts_with("cpu MHz"))
            .and_then(|line| line.split(':').nth(1))
            .and_then(|mhz| mhz.trim().parse::<f64>().ok())
            .map_or(2.0, |mhz| mhz / 1000.0);
        let avx512 = cpuinfo
            .lines()
            .find(|line| line.starts_with("flags"))
            .is_some_and(|flags| flags.split_whitespace().any(|flag| flag == "avx512f"));
        let flops_per_cycle = if avx512 { 64.0 } else { 32.0 };
        Peak {
            measured_gflops: damas_nn::measured_peak_gflops(0.5),
            nominal_gflops: flops_per_cycle * ghz,
            flops_per_cycle,
            ghz,
        }
    }
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

/// Runs `damas bench selfplay`.
pub fn selfplay_bench(options: &SelfPlayBenchOptions) -> Result<SelfPlayBench, BenchError> {
    options.size.validate("")?;
    struct Visit<'a>(&'a SelfPlayBenchOptions);
    impl VariantVisitor for Visit<'_> {
        type Output = Result<SelfPlayBench, BenchError>;
        fn visit<V: Rules>(self) -> Self::Output {
            let options = self.0;
            let threads = damas_nn::set_inference_threads(options.inference_threads);
            let device = options.device.open()?;
            let config = NetworkConfig::sized(BoardShape::of::<V>(), options.size);
            let network = config.init(&device);
            let burn = BurnModel::new(&network, BoardShape::of::<V>(), &device);
            let model = NetModel::new(&network, BoardShape::of::<V>(), &device);
            let flops = config.flops_per_position() as f64;
            let peak = Peak::measure();
            // The same network as an exported ONNX model, run by tract.
            let onnx_path =
                std::env::temp_dir().join(format!("damas-bench-{}.onnx", std::process::id()));
            std::fs::write(
                &onnx_path,
                damas_onnx::onnx_bytes(&network, &CheckpointMeta::new::<V>(config.clone()))?,
            )?;
            let onnx = OnnxModel::open::<V>(&onnx_path);
            let _ = std::fs::remove_file(&onnx_path);
            let onnx = onnx?;
            let shape = BoardShape::of::<V>();
            let seconds = Duration::from_secs_f64(options.seconds);
            let mut batches = Vec::new();
            for &batch in &options.batches {
                let mut inputs = vec![0.0; batch * shape.input_len()];
                for (i, chunk) in inputs.chunks_mut(shape.input_len()).enumerate() {
                    let mut game = Game::<V>::new();
                    game.play_random(i as u64, 10 + (i % 20) as u32);
                    encode(&game, chunk);
                }
                let evals = evals_per_second(batch, seconds, || {
                    model
                        .predict(inputs.clone(), batch)
                        .expect("the network runs");
                });
                let burn_evals = evals_per_second(batch, seconds, || {
                    burn.predict(inputs.clone(), batch)
                        .expect("the network runs");
                });
                let tract = evals_per_second(batch, seconds, || {
                    onnx.run(&inputs, batch).expect("checked when opened");
                });
                batches.push(BatchSpeed {
                    batch,
                    evals_per_second: evals,
                    burn_evals_per_second: burn_evals,
                    tract_evals_per_second: tract,
                });
            }

            let defaults = SelfPlayConfig::defaults_for(options.device);
            let mut selfplay = SelfPlayConfig {
                workers: options.workers,
                games_per_worker: options
                    .games_per_worker
                    .unwrap_or(defaults.games_per_worker),
                inference_threads: options.inference_threads,
                resign_check_fraction: 0.0,
                ..defaults
            };
            selfplay.search.simulations = options.simulations;
            let timed = TimedEvaluator::new(NetEvaluator::<V>::new(&network, &device));
            let mut stats = Stats::default();
            let start = Instant::now();
            play_games::<V, _>(
                &selfplay,
                &timed,
                options.games,
                1,
                "bench",
                &[],
                None,
                |record| stats.add(&record),
            );
            let wall = start.elapsed().as_secs_f64();
            let mut search = Search::new(Game::<V>::new(), selfplay.search.clone(), 0);
            search.start_with_budget(800, RootNoise::Off);
            search.run(&UniformEvaluator);
            let tree = search.tree();
            Ok(SelfPlayBench {
                flops_per_position: flops,
                threads,
                peak,
                batches,
                stats,
                seconds: wall,
                evaluations: timed.positions(),
                network_batches: timed.batches(),
                network_seconds: timed.time().as_secs_f64() / options.workers.max(1) as f64,
                edge_bytes: size_of::<damas_mcts::tree::Edge<V::Geometry>>(),
                node_bytes: size_of::<damas_mcts::tree::Node>(),
                tree: (tree.edges.len(), tree.nodes.len(), tree.memory_bytes()),
            })
        }
    }
    options.variant.visit(Visit(options))
}

/// What `damas bench train` measures.
#[derive(Clone, Debug)]
pub struct TrainBenchOptions {
    /// The variant.
    pub variant: Variant,
    /// The network's size.
    pub size: NetworkSize,
    /// Positions per step.
    pub batch: usize,
    /// Steps timed per path (after one warm-up step).
    pub steps: u64,
    /// Threads of the kernels.
    pub threads: usize,
    /// Where the network trains.
    pub device: DeviceChoice,
    /// The paths to time, in this order (on a GPU only burn's runs).
    pub paths: Vec<StepPath>,
}

/// One path's speed in `damas bench train`.
#[derive(Clone, Debug)]
pub struct PathSpeed {
    /// The path.
    pub path: StepPath,
    /// Samples trained on per second.
    pub samples_per_second: f64,
    /// Seconds per step.
    pub seconds_per_step: f64,
    /// Forward and backward GFLOP/s (three forward passes' worth per sample).
    pub gflops: f64,
}

/// What `damas bench train` found.
#[derive(Clone, Debug)]
pub struct TrainBench {
    /// Threads of the kernels.
    pub threads: usize,
    /// One core's peak.
    pub peak: Peak,
    /// Each path's speed, in the order asked.
    pub paths: Vec<PathSpeed>,
}

/// Runs `damas bench train` on samples from real self-play positions: the same network, from
/// the same weights, trained by each path in turn.
pub fn train_bench(options: &TrainBenchOptions) -> Result<TrainBench, BenchError> {
    options.size.validate("")?;
    struct Visit<'a>(&'a TrainBenchOptions);
    impl VariantVisitor for Visit<'_> {
        type Output = Result<TrainBench, BenchError>;
        fn visit<V: Rules>(self) -> Self::Output {
            let options = self.0;
            let threads = damas_nn::set_inference_threads(options.threads);
            let device = options.device.open()?;
            let peak = Peak::measure();
            // Real positions and targets: a few quick self-play games with the stand-in
            // evaluator.
            let mut config = SelfPlayConfig::default();
            config.search.simulations = 8;
            let mut records: Vec<GameRecord> = Vec::new();
            play_games::<V, _>(
                &config,
                &damas_mcts::StaticEvaluator::<V>::default(),
                16,
                0,
                "bench",
                &[],
                None,
                |r| records.push(r),
            );
            let samples: Vec<_> = records.iter().flat_map(|r| r.samples.iter()).collect();
            if samples.is_empty() {
                return Err(BenchError::NoSamples);
            }
            let batch: Vec<_> = (0..options.batch)
                .map(|i| samples[i % samples.len()])
                .collect();
            let network = NetworkConfig::sized(BoardShape::of::<V>(), options.size);
            let flops = 3.0 * network.flops_per_position() as f64;
            let mut paths = Vec::new();
            for &path in &options.paths {
                let training = TrainingSection::default();
                let mut trainer = Trainer::<V>::new(&network, &training, 0, &device);
                trainer.set_path(path);
                if trainer.path() != path {
                    continue;
                }
                trainer.train_step(&batch);
                let start = Instant::now();
                for _ in 0..options.steps {
                    trainer.train_step(&batch);
                }
                let seconds = start.elapsed().as_secs_f64();
                let per_second = (options.steps as usize * options.batch) as f64 / seconds;
                paths.push(PathSpeed {
                    path,
                    samples_per_second: per_second,
                    seconds_per_step: seconds / options.steps.max(1) as f64,
                    gflops: per_second * flops / 1e9,
                });
            }
            Ok(TrainBench {
                threads,
                peak,
                paths,
            })
        }
    }
    options.variant.visit(Visit(options))
}
