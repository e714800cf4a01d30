//! `damas bench train`: training samples per second at a batch size, on samples from real
//! self-play positions.

use damas_nn::{BoardShape, NetworkConfig};
use damas_rules::{Rules, Variant, VariantVisitor};
use damas_selfplay::{GameRecord, SelfPlayConfig, play_games};
use damas_train::Trainer;
use damas_train::config::TrainingSection;
use std::time::Instant;

/// Arguments of `damas bench train`.
#[derive(clap::Args)]
pub struct Args {
    /// Variant.
    #[arg(long, value_parser = crate::parse_variant, default_value = "russian")]
    variant: Variant,
    /// Residual blocks.
    #[arg(long, default_value_t = 6)]
    blocks: usize,
    /// Channels.
    #[arg(long, default_value_t = 64)]
    channels: usize,
    /// Batch size.
    #[arg(long, default_value_t = 256)]
    batch: usize,
    /// Steps to time (after one warm-up step).
    #[arg(long, default_value_t = 10)]
    steps: u64,
    /// Threads of burn's kernels.
    #[arg(long, default_value_t = 2)]
    threads: usize,
}

struct Run<'a>(&'a Args);

impl VariantVisitor for Run<'_> {
    type Output = anyhow::Result<()>;
    fn visit<V: Rules>(self) -> anyhow::Result<()> {
        let args = self.0;
        let threads = damas_nn::set_inference_threads(args.threads);
        // Real positions and targets: a few quick self-play games with the stand-in evaluator.
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
            |r| records.push(r),
        );
        let samples: Vec<_> = records.iter().flat_map(|r| r.samples.iter()).collect();
        anyhow::ensure!(!samples.is_empty(), "no samples to train on");
        let batch: Vec<_> = (0..args.batch)
            .map(|i| samples[i % samples.len()])
            .collect();
        let network = NetworkConfig::new(BoardShape::of::<V>())
            .with_blocks(args.blocks)
            .with_channels(args.channels);
        let mut trainer = Trainer::<V>::new(&network, &TrainingSection::default(), 0);
        trainer.train_step(&batch);
        let start = Instant::now();
        for _ in 0..args.steps {
            trainer.train_step(&batch);
        }
        let seconds = start.elapsed().as_secs_f64();
        let per_second = (args.steps as usize * args.batch) as f64 / seconds;
        // Forward and backward cost about three forward passes.
        let gflops = per_second * 3.0 * network.flops_per_position() as f64 / 1e9;
        println!(
            "train {} {}x{} batch {} on {threads} threads: {:.0} samples/s ({:.3} s/step), \
             about {gflops:.1} GFLOP/s",
            V::NAME,
            args.blocks,
            args.channels,
            args.batch,
            per_second,
            seconds / args.steps as f64,
        );
        Ok(())
    }
}

/// Runs `damas bench train`.
pub fn run(args: Args) -> anyhow::Result<()> {
    args.variant.visit(Run(&args))
}
