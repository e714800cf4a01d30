//! `damas train --config FILE`: the training loop in `runs/<name>/`, `name` being the config's
//! `name` key (or in the store `--run` names), resumable; progress bars per phase, or plain
//! log lines with `--quiet`.

use crate::out::outln;
use anyhow::Context;
use damas_store::{Location, RunStore};
use damas_train::{
    ConfigChanges, ConfigFile, Progress, RunHome, TrainConfig, check_run_at, train_in,
};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;

/// Arguments of `damas train`.
#[derive(clap::Args)]
pub struct Args {
    /// The run's config (TOML); see configs/. With `--run`, it may be left out to resume the
    /// run with the config it holds.
    #[arg(long, required_unless_present = "run")]
    config: Option<PathBuf>,
    /// Directory holding the runs (`<runs>/<name>`; with an object-store `--run`, the local
    /// copy of the run).
    #[arg(long, default_value = "runs")]
    runs: PathBuf,
    /// Where the run lives instead of `<runs>/<name>`: a directory (shared with workers, say)
    /// or an object store, `s3://bucket/prefix`, `gs://...`, `az://...` (a build with
    /// `--features object-store`; credentials and endpoint from AWS_*, GOOGLE_*, AZURE_*).
    #[arg(long)]
    run: Option<String>,
    /// Play no games here: train on the shards `damas worker` processes upload (the config's
    /// `distributed.external_selfplay`).
    #[arg(long)]
    external_selfplay: bool,
    /// Take the run over from a learner whose lease has gone unrenewed for 3 minutes (a
    /// learner that died on another machine; one that died on this machine is taken over
    /// without it); a live learner's lease is never taken.
    #[arg(long)]
    take_over: bool,
    /// No progress bars: only the per-generation summary lines.
    #[arg(long)]
    quiet: bool,
    /// Train nothing: load every checkpoint and read every shard of the run, print the counts.
    #[arg(long)]
    check: bool,
    /// What to do when the run was started with a config that differs from this one in
    /// anything but `device`, `generations`, `minutes` and `[store]`: refuse (listing the keys), or
    /// accept and go on with the new values.
    #[arg(long, value_enum, default_value = "refuse")]
    config_changed: ConfigChangedArg,
    /// Where the networks train and play, in place of the config's `device` key: cpu, wgpu,
    /// cuda or cuda:N (a run may change device between resumes).
    #[arg(long, value_parser = crate::args::parse_device)]
    device: Option<damas_nn::DeviceChoice>,
}

/// `--config-changed`.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum ConfigChangedArg {
    /// Refuse to resume a run with a config that changes its recipe.
    Refuse,
    /// Resume with the new values (the changes are written to the run's log).
    Accept,
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
            None => outln!("{text}"),
        }
    }
}

/// The environment's object-store settings (AWS_*, GOOGLE_*, AZURE_*), as object_store's
/// builder keys.
pub fn store_options() -> Vec<(String, String)> {
    std::env::vars()
        .filter(|(key, _)| {
            ["AWS_", "GOOGLE_", "AZURE_"]
                .iter()
                .any(|p| key.starts_with(p))
        })
        .map(|(key, value)| (key.to_ascii_lowercase(), value))
        .collect()
}

/// Opens the store of a `--run` location.
pub fn open_store(location: &str) -> anyhow::Result<RunStore> {
    Ok(RunStore::open(
        &Location::parse(location),
        &store_options(),
    )?)
}

/// Runs `damas train`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let store = args.run.as_deref().map(open_store).transpose()?;
    let mut file = match (&args.config, &store) {
        (Some(path), _) => ConfigFile::read_on(path, args.device)?,
        (None, Some(store)) => {
            let text = store.get("config.toml")?.with_context(|| {
                format!(
                    "{} holds no run (no config.toml): give --config",
                    store.location()
                )
            })?;
            let text = String::from_utf8_lossy(&text).into_owned();
            let config = TrainConfig::parse_on(&text, args.device)
                .with_context(|| format!("{}/config.toml", store.location()))?;
            ConfigFile { config, text }
        }
        (None, None) => unreachable!("clap requires --config or --run"),
    };
    if args.external_selfplay {
        file = file.with_external_selfplay();
    }
    let cache = args.runs.join(&file.config.name);
    let home = match store {
        Some(store) => RunHome::new(store, &cache),
        None => RunHome::local(&cache),
    }
    .with_take_over(args.take_over);
    if args.check {
        let fetched = home.pull()?;
        if fetched > 0 {
            outln!(
                "fetched {fetched} files of {} into {}",
                home.store.location(),
                home.root.display()
            );
        }
        let c = check_run_at(&file.config, &home.root)?;
        outln!(
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
    let changes = match args.config_changed {
        ConfigChangedArg::Refuse => ConfigChanges::Refuse,
        ConfigChangedArg::Accept => ConfigChanges::Accept,
    };
    train_in(&file, home, changes, &mut bars).map_err(crate::run_error)?;
    Ok(())
}
