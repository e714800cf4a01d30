//! `damas worker`: a stateless self-play worker of a run kept in a store (a shared directory or
//! an object store), for a learner started with external self-play.
//!
//! The worker reads the run's `config.toml` from the store, plays with the newest published
//! checkpoint (or the gated `best`), and uploads each shard whole to
//! `incoming/gNNNNNN-<worker>-<seq>.shard`: the generation of the network that played, the
//! worker's id and its own sequence number, so no two workers ever write the same name. An
//! upload is one atomic write, so a worker killed mid-shard leaves nothing a learner could read.
//! Between shards it picks up a newer network; it stops when the learner marks the run
//! `finished`, or after the number of shards it was asked for. Any number of workers can run,
//! start or die at any time: a worker holds nothing the run needs.

use crate::config::TrainConfig;
use crate::run::{FINISHED, INCOMING, Progress, RunError, RunVersions, VERSIONS};
use damas_mcts::{Evaluator, StaticEvaluator};
use damas_models::Model;
use damas_nn::DeviceChoice;
use damas_rules::Rules;
use damas_selfplay::{ConfigError, ShardWriter, play_into_shards};
use damas_store::RunStore;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Polls for which `finished` must stay in the store before a worker believes it.
const FINISHED_POLLS: u32 = 10;

/// How a worker runs.
#[derive(Clone, Debug)]
pub struct WorkerOptions {
    /// The worker's name in its shards' names (letters, digits, `_`; at most 32), unique among
    /// the run's workers. A worker restarted under the same id continues its numbering.
    pub id: String,
    /// A local folder for the networks it fetches and the shard it is writing (the worker uses
    /// its `<id>/` subfolder).
    pub cache: PathBuf,
    /// Stop after this many shards (none: until the run is finished).
    pub shards: Option<u64>,
    /// Where the network plays, in place of the run config's `device`.
    pub device: Option<DeviceChoice>,
}

/// What a worker did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WorkerSummary {
    /// Shards uploaded.
    pub shards: u64,
    /// Games in them.
    pub games: u64,
    /// Samples in them.
    pub samples: u64,
    /// Seconds spent playing (waiting for the learner excluded).
    pub playing_seconds: f64,
    /// The generation of the last network it played with.
    pub last_generation: Option<u32>,
}

impl WorkerSummary {
    /// Samples per second of play.
    pub fn samples_per_second(&self) -> f64 {
        self.samples as f64 / self.playing_seconds.max(1e-9)
    }
}

/// Whether `id` can name a worker.
pub fn valid_worker_id(id: &str) -> bool {
    !id.is_empty() && id.len() <= 32 && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A fresh random worker id (8 hex digits).
pub fn random_worker_id() -> String {
    format!("{:08x}", rand::random::<u32>())
}

/// Runs a worker for the run in `store`; see the module documentation.
pub fn run_worker(
    store: &RunStore,
    options: &WorkerOptions,
    progress: &mut dyn Progress,
) -> Result<WorkerSummary, RunError> {
    if !valid_worker_id(&options.id) {
        return Err(RunError::Config(ConfigError::Invalid {
            path: PathBuf::from("--id"),
            problem: damas_selfplay::ConfigProblem::Syntax(format!(
                "worker id {:?}: use 1 to 32 letters, digits or `_`",
                options.id
            )),
        }));
    }
    let text = wait_for(store, "config.toml", progress, || {
        format!(
            "waiting for the learner to create the run at {}",
            store.location()
        )
    })?;
    let config = parse_config(store, &text, options.device)?;
    check_versions(store)?;
    struct Visit<'a>(
        &'a RunStore,
        &'a WorkerOptions,
        (TrainConfig, Vec<u8>),
        &'a mut dyn Progress,
    );
    impl damas_rules::VariantVisitor for Visit<'_> {
        type Output = Result<WorkerSummary, RunError>;
        fn visit<V: Rules>(self) -> Self::Output {
            let Visit(store, options, (config, text), progress) = self;
            work::<V>(store, options, config, text, progress)
        }
    }
    let variant = config.variant;
    variant.visit(Visit(store, options, (config, text), progress))
}

/// The run's config from the bytes of its `config.toml`, with `device` in place of its own.
fn parse_config(
    store: &RunStore,
    text: &[u8],
    device: Option<DeviceChoice>,
) -> Result<TrainConfig, RunError> {
    let text = String::from_utf8_lossy(text);
    TrainConfig::parse_on(&text, device).map_err(|problem| {
        RunError::Config(ConfigError::Invalid {
            path: PathBuf::from(format!("{}/config.toml", store.location())),
            problem,
        })
    })
}

/// Refuses to play for a learner that reads another shard format or encoding than this
/// worker writes (a learner too old to say is trusted).
fn check_versions(store: &RunStore) -> Result<(), RunError> {
    let Some(bytes) = store.get(VERSIONS)? else {
        return Ok(());
    };
    let ours = RunVersions::ours();
    let Ok(run) = serde_json::from_slice::<RunVersions>(&bytes) else {
        return Ok(());
    };
    if run != ours {
        return Err(RunError::WorkerVersion {
            run_format: run.shard_format,
            run_encoding: run.encoding_version,
            format: ours.shard_format,
            encoding: ours.encoding_version,
        });
    }
    Ok(())
}

/// Polls `key` until it exists; says `why` once if it has to wait.
fn wait_for(
    store: &RunStore,
    key: &str,
    progress: &mut dyn Progress,
    why: impl Fn() -> String,
) -> Result<Vec<u8>, RunError> {
    let mut said = false;
    loop {
        if let Some(bytes) = store.get(key)? {
            return Ok(bytes);
        }
        if !said {
            progress.line(&why());
            said = true;
        }
        std::thread::sleep(Duration::from_secs(1));
    }
}

/// The generation workers play with now: the gated `best` when gating is on, else the newest
/// published checkpoint (one whose `meta.json` is in the store). `newest` is the newest seen
/// before: the listing starts after it, so it costs what is new, not the whole run.
fn current_generation(
    store: &RunStore,
    config: &TrainConfig,
    newest: &mut Option<u32>,
) -> Result<Option<u32>, RunError> {
    let keys = match *newest {
        Some(seen) => {
            store.list_after("checkpoints", &format!("checkpoints/{seen:06}/meta.json"))?
        }
        None => store.list("checkpoints")?,
    };
    let published = keys
        .iter()
        .filter_map(|key| {
            key.strip_prefix("checkpoints/")?
                .strip_suffix("/meta.json")?
                .parse::<u32>()
                .ok()
        })
        .max();
    *newest = (*newest).max(published);
    if !config.evaluation.gating {
        return Ok(*newest);
    }
    let best = store
        .get("best")?
        .and_then(|bytes| String::from_utf8_lossy(&bytes).trim().parse::<u32>().ok());
    Ok(newest.map(|newest| best.filter(|&b| b <= newest).unwrap_or(0)))
}

/// The next sequence number of worker `id`: after every shard of its already in the store
/// (waiting in `incoming/`, or taken into `shards/` by the learner).
fn next_sequence(store: &RunStore, id: &str) -> Result<u64, RunError> {
    let marker = format!("-{id}-");
    let mut next = 0;
    for folder in [INCOMING, "shards"] {
        for key in store.list(folder)? {
            let Some(stem) = key.strip_suffix(".shard") else {
                continue;
            };
            if let Some(at) = stem.rfind(&marker)
                && let Ok(seq) = stem[at + marker.len()..].parse::<u64>()
            {
                next = next.max(seq + 1);
            }
        }
    }
    Ok(next)
}

/// Copies checkpoint `generation` from the store into `cache` (`meta.json` last, the
/// optimiser's state left out) unless the same checkpoint is there; the local directory, or
/// the store's own when the store is local.
fn fetch_checkpoint(store: &RunStore, generation: u32, cache: &Path) -> Result<PathBuf, RunError> {
    let folder = format!("checkpoints/{generation:06}");
    if let Some(root) = store.local_root() {
        return Ok(root.join(&folder));
    }
    let dir = cache.join(&folder);
    // A copy from an earlier run at the same location (or under a reused id) is not this one.
    let meta = dir.join("meta.json");
    if meta.exists() {
        if std::fs::read(&meta).ok() == store.get(&format!("{folder}/meta.json"))? {
            return Ok(dir);
        }
        std::fs::remove_dir_all(&dir).map_err(|source| RunError::Io {
            path: dir.clone(),
            source,
        })?;
    }
    // The optimiser's state is the learner's alone.
    store.fetch_missing(&folder, cache, |key| key.ends_with("/optimizer.bpk"))?;
    Ok(dir)
}

/// Plays shards for the run until it is finished; `config` was read from `config_text`, and is
/// read again between shards when the learner's copy changes (new search or gating settings
/// take effect at the next shard; the device stays the one opened at start).
fn work<V: Rules>(
    store: &RunStore,
    options: &WorkerOptions,
    mut config: TrainConfig,
    mut config_text: Vec<u8>,
    progress: &mut dyn Progress,
) -> Result<WorkerSummary, RunError> {
    // The run's retry settings for every request from here on (and again when they change).
    let mut store = store.with_retry(&config.store.retry())?;
    let device = config.device.open()?;
    damas_nn::set_inference_threads(config.selfplay.inference_threads);
    let mut openings = config.selfplay.read_openings::<V>()?;
    let mut egdb = config.selfplay.read_egdb::<V>()?;
    // Workers on one machine may share a cache folder: each keeps to its own part of it.
    let cache = options.cache.join(&options.id);
    let out = cache.join("out");
    // A shard left half written by a killed worker was never uploaded: drop it.
    let _ = std::fs::remove_dir_all(&out);
    let mut sequence = next_sequence(&store, &options.id)?;
    let mut summary = WorkerSummary::default();
    let mut loaded: Option<(u32, Arc<dyn Evaluator<V>>, String)> = None;
    let mut poll = Duration::from_secs_f64(config.distributed.poll_seconds);
    let mut finished_since: Option<Instant> = None;
    // The newest checkpoint seen: later listings start after it.
    let mut newest: Option<u32> = None;
    // Workers' games differ by their ids (std's hasher has fixed keys: the same id, the same
    // games).
    let id_hash = {
        use std::hash::{Hash, Hasher};
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        options.id.hash(&mut hasher);
        hasher.finish()
    };
    progress.line(&format!(
        "worker {} on {} ({} {}), shards of {} games from sequence {sequence}",
        options.id,
        store.location(),
        V::NAME,
        config.device,
        config.selfplay.games_per_shard
    ));
    loop {
        if options.shards.is_some_and(|n| summary.shards >= n) {
            break;
        }
        // A `finished` left by an earlier end of the run is taken back by a learner resuming
        // it within seconds: only one that stays counts.
        if store.get(FINISHED)?.is_some() {
            let since = *finished_since.get_or_insert_with(Instant::now);
            if since.elapsed() >= poll * FINISHED_POLLS {
                // What it uploaded after the learner's end would stay in `incoming/` forever.
                let ours = format!("-{}-", options.id);
                for key in store.list(INCOMING)? {
                    if key.contains(&ours) {
                        store.delete(&key)?;
                    }
                }
                progress.line("the run is finished");
                break;
            }
            std::thread::sleep(poll);
            continue;
        }
        finished_since = None;
        if let Some(text) = store.get("config.toml")?
            && text != config_text
        {
            let changed = parse_config(&store, &text, options.device)?;
            if changed.store != config.store {
                store = store.with_retry(&changed.store.retry())?;
            }
            config = changed;
            openings = config.selfplay.read_openings::<V>()?;
            egdb = config.selfplay.read_egdb::<V>()?;
            poll = Duration::from_secs_f64(config.distributed.poll_seconds);
            config_text = text;
            progress.line("the run's config changed: the next shard plays with the new one");
        }
        let Some(generation) = current_generation(&store, &config, &mut newest)? else {
            std::thread::sleep(poll);
            continue;
        };
        if loaded.as_ref().is_none_or(|(g, _, _)| *g != generation) {
            let (evaluator, model): (Arc<dyn Evaluator<V>>, String) =
                if generation == 0 && config.bootstrap_with_static_eval {
                    (
                        Arc::new(StaticEvaluator::<V>::default()),
                        "static-eval".into(),
                    )
                } else {
                    let dir = fetch_checkpoint(&store, generation, &cache)?;
                    let model = Model::<V>::open_path(&dir, &device)?;
                    (
                        model.evaluator(),
                        format!("{}/{generation:06}", config.name),
                    )
                };
            // Older networks fetched before are no longer needed.
            let current = format!("{generation:06}");
            for entry in std::fs::read_dir(cache.join("checkpoints"))
                .into_iter()
                .flatten()
                .flatten()
            {
                if entry.file_name().to_string_lossy() != current {
                    let _ = std::fs::remove_dir_all(entry.path());
                }
            }
            progress.line(&format!("playing with {model}"));
            loaded = Some((generation, evaluator, model));
        }
        let (generation, evaluator, model) = loaded.as_ref().expect("loaded above");
        let name = format!("g{generation:06}-{}-{sequence:06}", options.id);
        let mut writer = ShardWriter::new::<V>(
            &out.join("shards"),
            &out.join("games"),
            &name,
            model,
            config.selfplay.games_per_shard,
        )
        .with_generation(*generation);
        let games = config.selfplay.games_per_shard;
        let seed = config.seed ^ id_hash ^ sequence.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        progress.start(&format!("shard {sequence}"), u64::from(games));
        let started = Instant::now();
        let report = play_into_shards::<V, _>(
            &config.selfplay,
            &evaluator.as_ref(),
            games,
            seed,
            &openings,
            egdb.as_ref(),
            &mut writer,
            |stats, _| progress.update(u64::from(stats.games), ""),
        );
        progress.finish();
        let report = report?;
        damas_selfplay::SelfPlayConfig::check_egdb(egdb.as_ref())?;
        summary.playing_seconds += started.elapsed().as_secs_f64();
        // Games first, then the shard: the shard is what the learner waits for.
        for (folder, ext) in [("games", "pdn"), ("shards", "shard")] {
            for entry in std::fs::read_dir(out.join(folder))
                .into_iter()
                .flatten()
                .flatten()
            {
                let path = entry.path();
                let bytes = std::fs::read(&path).map_err(|source| RunError::Io {
                    path: path.clone(),
                    source,
                })?;
                let key = if ext == "shard" {
                    format!("{INCOMING}/{name}.shard")
                } else {
                    format!("games/{name}.pdn")
                };
                store.put(&key, &bytes)?;
                let _ = std::fs::remove_file(&path);
            }
        }
        summary.shards += 1;
        summary.games += u64::from(report.stats.games);
        summary.samples += report.stats.samples;
        summary.last_generation = Some(*generation);
        progress.line(&format!(
            "shard {sequence}: {} games, {} samples with generation {generation} ({:.1} samples/s)",
            report.stats.games,
            report.stats.samples,
            report.samples_per_second()
        ));
        sequence += 1;
    }
    Ok(summary)
}
