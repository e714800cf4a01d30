//! A learner with external self-play and two workers sharing a run directory (the local form
//! of a run store): the workers' shards are what the learner trains on, every sample is
//! accounted for, a half-written upload and a damaged shard are never trained on, and the
//! workers stop when the run is finished. `scripts/distributed-loopback.sh` does the same over
//! S3 with Ray and a `kill -9`.

use damas_selfplay::shard::SHARD_FORMAT;
use damas_selfplay::{Shard, ShardHeader, list_shards};
use damas_store::{Location, RunStore};
use damas_train::{
    ConfigChanges, ConfigFile, RunError, RunHome, Silent, TrainConfig, WorkerOptions, check_run_at,
    run_worker, train_in,
};
use std::path::Path;

const TINY: &str = r#"
name = "dist"
variant = "russian"
generations = 2
games_per_generation = 4

[network]
blocks = 1
channels = 8

[selfplay]
fast_simulations = 4
full_search_fraction = 0.5
max_plies = 60
games_per_worker = 2
games_per_shard = 2
inference_threads = 1
[selfplay.search]
simulations = 8

[training]
batch_size = 16
window_min = 50
threads = 1

[evaluation]
baseline_games = 0
previous_games = 0

[distributed]
external_selfplay = true
max_staleness = 0
poll_seconds = 0.05
"#;

fn done(root: &Path, generation: u32) -> serde_json::Value {
    let text = std::fs::read_to_string(root.join(format!("shards/gen{generation:06}.done")))
        .expect("marker");
    serde_json::from_str(&text).unwrap()
}

#[test]
fn a_learner_trains_on_what_two_workers_upload() {
    let root = std::env::temp_dir().join(format!("damas-distributed-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let config = TrainConfig::parse(TINY).expect("valid config");
    let file = ConfigFile {
        config,
        text: TINY.to_string(),
    };
    let store = || RunStore::open(&Location::Local(root.clone()), &[]).unwrap();

    // What a worker killed mid-upload leaves (a temporary name) and a damaged shard: neither
    // may be trained on, and neither may stop the run.
    std::fs::create_dir_all(root.join("incoming")).unwrap();
    std::fs::write(
        root.join("incoming/.g000000-dead-000000.shard.tmp"),
        b"DAMASHRD",
    )
    .unwrap();
    std::fs::write(
        root.join("incoming/g000000-bad-000000.shard"),
        b"DAMASHRD\0\0\0\0truncated",
    )
    .unwrap();

    let summaries = std::thread::scope(|scope| {
        let workers: Vec<_> = ["w1", "w2"]
            .into_iter()
            .map(|id| {
                let store = store();
                let cache = root.with_extension(format!("cache-{id}"));
                scope.spawn(move || {
                    let options = WorkerOptions {
                        id: id.to_string(),
                        cache,
                        shards: None,
                        device: None,
                    };
                    run_worker(&store, &options, &mut Silent).expect("worker runs")
                })
            })
            .collect();
        let summary = train_in(
            &file,
            RunHome::local(&root),
            ConfigChanges::Refuse,
            &mut Silent,
        )
        .expect("learner runs");
        assert_eq!(summary.generation, 2);
        // The workers see `finished` and stop by themselves.
        workers
            .into_iter()
            .map(|w| w.join().unwrap())
            .collect::<Vec<_>>()
    });

    let mut consumed = Vec::new();
    let mut marked_samples = 0;
    for generation in 1..=2 {
        let marker = done(&root, generation);
        assert!(marker["games"].as_u64().unwrap() >= 4, "{marker}");
        marked_samples += marker["samples"].as_u64().unwrap();
        for key in marker["consumed"].as_array().unwrap() {
            let key = key.as_str().unwrap().to_string();
            assert!(!key.contains("bad") && !key.contains("dead"), "{key}");
            // Taken from `incoming/`, the copy there is gone.
            assert!(!root.join(&key).exists(), "{key}");
            consumed.push(key);
        }
    }
    // The samples the markers count are exactly those of the shards the learner kept, every
    // one played by a worker with the network of the generation before (staleness 0).
    let mut kept_samples = 0;
    for path in list_shards(&root.join("shards")).unwrap() {
        let shard = Shard::read(&path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let generation: u32 = name[3..9].parse().unwrap();
        assert_eq!(shard.header.generation, Some(generation - 1), "{name}");
        assert!(name.contains("-w1-") || name.contains("-w2-"), "{name}");
        kept_samples += shard.samples.len() as u64;
    }
    assert_eq!(kept_samples, marked_samples);
    // Each worker's uploads are its own, numbered from 0; together they made at least what
    // the learner took.
    let uploaded: u64 = summaries.iter().map(|s| s.samples).sum();
    assert!(uploaded >= marked_samples, "{uploaded} < {marked_samples}");
    assert!(summaries.iter().all(|s| s.shards >= 1), "{summaries:?}");
    // The damaged shard was moved aside, whole; the temporary file never touched.
    assert!(!root.join("incoming/g000000-bad-000000.shard").exists());
    assert_eq!(
        std::fs::read(root.join("rejected/g000000-bad-000000.shard")).unwrap(),
        b"DAMASHRD\0\0\0\0truncated"
    );
    assert!(
        root.join("incoming/.g000000-dead-000000.shard.tmp")
            .exists()
    );
    assert!(root.join("finished").exists());
    let log = std::fs::read_to_string(root.join("log.txt")).unwrap();
    assert!(log.contains(" worker shards ("), "{log}");
    assert!(
        log.contains("corrupted (checksum mismatch): moved to rejected/"),
        "the damaged shard is not in the log: {log}"
    );
    let contents = check_run_at(&file.config, &root).expect("every file verifies");
    assert_eq!(contents.checkpoints, 3);
    for id in ["w1", "w2"] {
        let _ = std::fs::remove_dir_all(root.with_extension(format!("cache-{id}")));
    }
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn an_old_finished_does_not_stop_the_workers_of_an_extended_run() {
    let root = std::env::temp_dir().join(format!("damas-extended-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let store = || RunStore::open(&Location::Local(root.clone()), &[]).unwrap();
    let file = |generations: u32| {
        // Polls of 0.2 s: a worker believes `finished` after 2 s, ample for a learner to take
        // it back even on a loaded machine.
        let text = TINY
            .replace("generations = 2", &format!("generations = {generations}"))
            .replace("poll_seconds = 0.05", "poll_seconds = 0.2");
        ConfigFile {
            config: TrainConfig::parse(&text).unwrap(),
            text,
        }
    };
    // One generation, then the run says it is finished; then the same run asked for two, its
    // learner and a worker started together, as a launcher does.
    for (generations, id) in [(1, "first"), (2, "second")] {
        if generations == 2 {
            assert!(root.join("finished").exists());
        }
        let worker_store = store();
        let cache = root.with_extension(format!("cache-{id}"));
        let worker = std::thread::spawn(move || {
            let options = WorkerOptions {
                id: id.to_string(),
                cache,
                shards: None,
                device: None,
            };
            run_worker(&worker_store, &options, &mut Silent).expect("worker runs")
        });
        let learner = std::thread::spawn({
            let file = file(generations);
            let root = root.clone();
            move || {
                train_in(
                    &file,
                    RunHome::local(&root),
                    ConfigChanges::Refuse,
                    &mut Silent,
                )
            }
        });
        // A learner left waiting for games (its only worker gone) would never end: bounded.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while !learner.is_finished() && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        assert!(
            learner.is_finished(),
            "the learner waited for games: the worker stopped at the old `finished`"
        );
        assert_eq!(
            learner.join().unwrap().expect("learner runs").generation,
            generations
        );
        let summary = worker.join().unwrap();
        assert!(summary.shards >= 2, "worker {id}: {summary:?}");
    }
    let _ = std::fs::remove_dir_all(&root);
}

/// A learner's local copy belongs to one store: a copy of another store's run, or a local run
/// of the same name, is refused rather than taken for the store's files.
#[cfg(feature = "object-store")]
#[test]
fn a_local_copy_belongs_to_one_store() {
    let base = std::env::temp_dir().join(format!("damas-copy-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    let memory = |path: &str| RunStore::open(&Location::parse(path), &[]).unwrap();
    let cache = base.join("copy");
    let first = RunHome::new(memory("memory:///runs/a"), &cache);
    assert_eq!(first.pull().expect("a new copy"), 0);
    assert_eq!(first.pull().expect("the same store again"), 0);
    let other = RunHome::new(memory("memory:///runs/b"), &cache);
    let error = other.pull().expect_err("another store's copy");
    let text = error.to_string();
    assert!(
        text.contains("a copy of memory:///runs/a") && text.contains("memory:///runs/b"),
        "{text}"
    );

    let leftover = base.join("local");
    std::fs::create_dir_all(leftover.join("checkpoints")).unwrap();
    std::fs::write(leftover.join("config.toml"), TINY).unwrap();
    let adopted = RunHome::new(memory("memory:///runs/a"), &leftover);
    let text = adopted.pull().expect_err("a local run").to_string();
    assert!(text.contains("no store's copy"), "{text}");
    let _ = std::fs::remove_dir_all(&base);
}

/// Workers of a newer release upload shards this learner cannot read: they are moved aside
/// (not deleted), and the learner stops with the reason instead of waiting forever.
#[test]
fn a_learner_stops_on_shards_of_another_version() {
    let root = std::env::temp_dir().join(format!("damas-skew-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let file = ConfigFile {
        config: TrainConfig::parse(TINY).expect("valid config"),
        text: TINY.to_string(),
    };
    let future = Shard {
        header: ShardHeader {
            format: SHARD_FORMAT + 1,
            variant: "russian".into(),
            encoding_version: damas_nn::ENCODING_VERSION,
            model: "a newer worker".into(),
            games: 2,
            generation: Some(0),
            plies: 40,
            results: [1, 0, 1],
        },
        samples: Vec::new(),
    };
    std::fs::create_dir_all(root.join("incoming")).unwrap();
    for seq in 0..3 {
        std::fs::write(
            root.join(format!("incoming/g000000-new-{seq:06}.shard")),
            future.to_bytes(),
        )
        .unwrap();
    }
    let error = train_in(
        &file,
        RunHome::local(&root),
        ConfigChanges::Refuse,
        &mut Silent,
    )
    .expect_err("the learner stops");
    let text = error.to_string();
    assert!(
        matches!(error, RunError::VersionSkew { count: 3, .. }),
        "{text}"
    );
    assert!(text.contains("one release"), "{text}");
    for seq in 0..3 {
        let name = format!("g000000-new-{seq:06}.shard");
        assert!(!root.join("incoming").join(&name).exists());
        assert!(root.join("rejected").join(&name).exists(), "{name} kept");
    }
    let _ = std::fs::remove_dir_all(&root);
}

/// Records a worker's lines and, once its first shard is uploaded, changes the run's config
/// in the store the way a resumed learner with a new config would.
struct ChangeAfterFirstShard {
    store: RunStore,
    lines: Vec<String>,
}

impl damas_train::Progress for ChangeAfterFirstShard {
    fn start(&mut self, _: &str, _: u64) {}
    fn update(&mut self, _: u64, _: &str) {}
    fn finish(&mut self) {}
    fn line(&mut self, text: &str) {
        if text.starts_with("shard 0:") {
            let text = String::from_utf8(self.store.get("config.toml").unwrap().unwrap()).unwrap();
            let changed = text.replace("games_per_shard = 2", "games_per_shard = 1");
            assert_ne!(text, changed);
            self.store.put("config.toml", changed.as_bytes()).unwrap();
        }
        self.lines.push(text.to_string());
    }
}

/// A worker reads the run's config again between shards: a change the learner publishes
/// takes effect at its next shard, without a restart.
#[test]
fn a_worker_plays_its_next_shard_with_the_changed_config() {
    use damas_nn::{BoardShape, CheckpointMeta, NetworkConfig};
    use damas_rules::variants::Russian;
    let root = std::env::temp_dir().join(format!("damas-reread-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let config = TrainConfig::parse(TINY).expect("valid config");
    // The run as a learner leaves it after its start: the config and the untrained network.
    let network = NetworkConfig::sized(BoardShape::of::<Russian>(), config.network);
    let device = config.device.open().unwrap();
    damas_train::Trainer::<Russian>::new(&network, &config.training, config.seed, &device)
        .save(
            &root.join("checkpoints/000000"),
            &CheckpointMeta::new::<Russian>(network.clone()),
            vec![],
        )
        .unwrap();
    std::fs::write(root.join("config.toml"), TINY).unwrap();
    let store = || RunStore::open(&Location::Local(root.clone()), &[]).unwrap();
    let mut progress = ChangeAfterFirstShard {
        store: store(),
        lines: Vec::new(),
    };
    let options = WorkerOptions {
        id: "w".into(),
        cache: root.with_extension("cache"),
        shards: Some(2),
        device: None,
    };
    let summary = run_worker(&store(), &options, &mut progress).expect("worker runs");
    assert_eq!(summary.shards, 2);
    let games = |seq: u32| {
        Shard::read(&root.join(format!("incoming/g000000-w-{seq:06}.shard")))
            .unwrap()
            .header
            .games
    };
    assert_eq!((games(0), games(1)), (2, 1), "{:?}", progress.lines);
    assert!(
        progress.lines.iter().any(|l| l.contains("config changed")),
        "{:?}",
        progress.lines
    );
    let _ = std::fs::remove_dir_all(&root);
    let _ = std::fs::remove_dir_all(root.with_extension("cache"));
}
