//! `damas train --config configs/<name>.toml`: the training loop in `runs/<name>/`, resumable;
//! progress bars per phase, or plain log lines with `--quiet`.

use damas_train::{ConfigFile, Progress, check_run, train};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;

/// Arguments of `damas train`.
#[derive(clap::Args)]
pub struct Args {
    /// The run's config (TOML); see configs/.
    #[arg(long)]
    config: PathBuf,
    /// Directory holding the runs.
    #[arg(long, default_value = "runs")]
    runs: PathBuf,
    /// No progress bars: only the per-generation summary lines.
    #[arg(long)]
    quiet: bool,
    /// Train nothing: load every checkpoint and read every shard of the run, print the counts.
    #[arg(long)]
    check: bool,
    /// Where the networks train and play, in place of the config's `device` key: cpu, wgpu,
    /// cuda or cuda:N (a run may change device between resumes).
    #[arg(long, value_parser = crate::args::parse_device)]
    device: Option<damas_nn::DeviceChoice>,
}

/// Progress bars with indicatif, or nothing but lines.
pub struct Bars {
    bar: Option<ProgressBar>,
    quiet: bool,
}

impl Bars {
    /// Bars, or (`quiet`) only lines.
    pub fn new(quiet: bool) -> Self {
        Bars { bar: None, quiet }
    }
}

impl Progress for Bars {
    fn start(&mut self, phase: &str, total: u64) {
        if self.quiet {
            return;
        }
        let bar = ProgressBar::new(total);
        bar.set_style(
            ProgressStyle::with_template("{prefix:>28} {bar:30} {pos}/{len} {elapsed} {msg}")
                .expect("valid template"),
        );
        bar.set_prefix(phase.to_string());
        self.bar = Some(bar);
    }

    fn update(&mut self, done: u64, message: &str) {
        if let Some(bar) = &self.bar {
            bar.set_position(done);
            bar.set_message(message.to_string());
        }
    }

    fn finish(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }

    fn line(&mut self, text: &str) {
        match &self.bar {
            Some(bar) => bar.println(text),
            None => println!("{text}"),
        }
    }
}

/// Runs `damas train`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let file = ConfigFile::read_on(&args.config, args.device)?;
    if args.check {
        let c = check_run(&file.config, &args.runs)?;
        println!(
            "checkpoints {} (last generation {}), generations played {}, shards {}, samples {}: all verify",
            c.checkpoints,
            c.last_generation.map_or("none".into(), |g| g.to_string()),
            c.generations_played,
            c.shards,
            c.samples
        );
        return Ok(());
    }
    let mut bars = Bars::new(args.quiet);
    train(&file, &args.runs, &mut bars)?;
    Ok(())
}
