//! A tiny run end to end: two generations, a resume that adds a third, and the files and
//! TensorBoard tags that must be there.

mod events;

use damas_rules::variants::Russian;
use damas_selfplay::{Shard, list_shards};
use damas_train::{ConfigChanges, ConfigFile, Run, RunHome, Silent, TrainConfig};
use events::read_dir;
use std::path::Path;

const TINY: &str = r#"
name = "tiny"
variant = "russian"
generations = 2
games_per_generation = 4

[network]
blocks = 1
channels = 8

[selfplay]
fast_simulations = 4
full_search_fraction = 0.5
max_plies = 80
games_per_worker = 4
games_per_shard = 2
[selfplay.search]
simulations = 12

[training]
batch_size = 16
window_min = 50
learning_rate = [[0, 0.002], [5, 0.001]]

[evaluation]
baseline_games = 2
previous_games = 2
simulations = 6
"#;

fn run(text: &str, runs: &Path) {
    let config = TrainConfig::parse(text).expect("valid config");
    let mut silent = Silent;
    let mut run = Run::<Russian>::open(
        &config,
        text,
        RunHome::local(&runs.join("tiny")),
        ConfigChanges::Refuse,
        &mut silent,
    )
    .expect("run opens");
    run.run().expect("run completes");
}

#[test]
fn two_generations_then_a_resume() {
    let runs = std::env::temp_dir().join(format!("damas-train-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&runs);
    run(TINY, &runs);
    let root = runs.join("tiny");
    let checkpoints = |root: &Path| {
        let mut names: Vec<String> = std::fs::read_dir(root.join("checkpoints"))
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        names
    };
    assert_eq!(checkpoints(&root), ["000000", "000001", "000002"]);
    assert_eq!(
        list_shards(&root.join("shards")).unwrap().len(),
        4,
        "2 shards x 2 generations"
    );
    for dir in ["000001", "000002"] {
        let checkpoint = root.join("checkpoints").join(dir);
        for file in [
            "model.bpk",
            "optimizer.bpk",
            "meta.json",
            "config.toml",
            "eval.json",
            "eval.pdn",
        ] {
            assert!(checkpoint.join(file).exists(), "{dir}/{file}");
        }
        // The evaluation's games are kept: 2 against the baseline, 2 against the previous.
        let pdn = std::fs::read_to_string(checkpoint.join("eval.pdn")).unwrap();
        let games = damas_rules::read_games::<damas_rules::variants::Russian>(&pdn).unwrap();
        assert_eq!(games.len(), 4, "{dir}/eval.pdn");
        assert!(
            games
                .iter()
                .all(|g| g.result.is_some() && g.tag("Event").is_some())
        );
    }
    let meta: serde_json::Value =
        serde_json::from_slice(&std::fs::read(root.join("checkpoints/000002/meta.json")).unwrap())
            .unwrap();
    assert_eq!(meta["generation"], 2);
    assert_eq!(meta["variant"], "russian");
    assert!(meta["step"].as_u64().unwrap() > 0);
    let first_step = meta["step"].as_u64().unwrap();

    // Resume with one more generation: only generation 3 is made.
    run(&TINY.replace("generations = 2", "generations = 3"), &runs);
    assert_eq!(checkpoints(&root), ["000000", "000001", "000002", "000003"]);
    assert_eq!(list_shards(&root.join("shards")).unwrap().len(), 6);
    for shard in list_shards(&root.join("shards")).unwrap() {
        Shard::read_for::<Russian>(&shard).expect("every shard reads");
    }
    let meta: serde_json::Value =
        serde_json::from_slice(&std::fs::read(root.join("checkpoints/000003/meta.json")).unwrap())
            .unwrap();
    assert!(
        meta["step"].as_u64().unwrap() > first_step,
        "training continued its step count"
    );
    let log = std::fs::read_to_string(root.join("log.txt")).unwrap();
    assert_eq!(log.matches("generation 1:").count(), 1, "{log}");
    assert!(log.contains("resuming after generation 2"), "{log}");
    assert!(log.contains("generation 3:"), "{log}");
    // Games played here say how long they were and how full the network's batches were.
    assert!(
        log.contains("  self-play: ") && log.contains(" plies a game, mean batch "),
        "{log}"
    );
    assert!(
        log.contains("resumed with a changed config: generations 2 -> 3"),
        "a budget change is told, not refused: {log}"
    );

    // A config that changes the recipe is refused with its keys, and the run is untouched;
    // accepted, the run goes on with it and keeps the new config.
    let sgd = TINY
        .replace("generations = 2", "generations = 3")
        .replace("batch_size = 16", "batch_size = 16\noptimizer = \"sgd\"");
    let config = TrainConfig::parse(&sgd).unwrap();
    let open = |changes| {
        Run::<Russian>::open(
            &config,
            &sgd,
            RunHome::local(&runs.join("tiny")),
            changes,
            &mut Silent,
        )
        .map(|_| ())
    };
    let error = open(ConfigChanges::Refuse).expect_err("a changed recipe is refused");
    let message = error.to_string();
    assert!(
        message.contains("training.optimizer \"adam\" -> \"sgd\"")
            && message.contains("--config-changed=accept"),
        "{message}"
    );
    let kept = std::fs::read_to_string(root.join("config.toml")).unwrap();
    assert!(
        !kept.contains("sgd"),
        "the refused config was not copied in"
    );
    open(ConfigChanges::Accept).expect("an accepted change resumes");
    let kept = std::fs::read_to_string(root.join("config.toml")).unwrap();
    assert!(kept.contains("optimizer = \"sgd\""), "{kept}");

    // TensorBoard: the tags, read back from the event files.
    let logged = read_dir(&root.join("tensorboard")).unwrap();
    for tag in [
        "loss/policy",
        "loss/value",
        "loss/material",
        "loss/moves_left",
        "train/policy_entropy",
        "train/value_accuracy",
        "train/learning_rate",
        "selfplay/positions_per_second",
        "selfplay/game_length",
        "selfplay/draws",
        "eval/score_vs_baseline",
        "eval/elo_vs_baseline",
        "eval/score_vs_previous",
        "time/selfplay_to_training_ratio",
    ] {
        assert!(logged.iter().any(|l| l.tag == tag), "tag {tag} missing");
    }
    let rates: Vec<_> = logged
        .iter()
        .filter(|l| l.tag == "train/learning_rate")
        .collect();
    assert!(
        (rates[0].value - 0.002).abs() < 1e-6,
        "first steps at 0.002"
    );
    assert!(
        rates.iter().any(|l| (l.value - 0.001).abs() < 1e-6),
        "schedule drops to 0.001"
    );
    let histogram = logged
        .iter()
        .find(|l| l.tag == "selfplay/game_lengths")
        .expect("histogram");
    assert!(histogram.histogram);
    assert_eq!(histogram.value, 4.0, "one length per game");
    for score in logged.iter().filter(|l| l.tag == "eval/score_vs_baseline") {
        assert!((0.0..=1.0).contains(&score.value));
    }
    let _ = std::fs::remove_dir_all(&runs);
}

#[test]
fn configs_name_unknown_keys_and_bad_values() {
    let typo = TINY.replace("batch_size", "batch_sise");
    let error = TrainConfig::parse(&typo).unwrap_err().to_string();
    assert!(error.contains("batch_sise"), "{error}");
    let error = TrainConfig::parse(&TINY.replace("\"russian\"", "\"klingon\""))
        .unwrap_err()
        .to_string();
    assert!(error.contains("klingon"), "{error}");
    let error = TrainConfig::parse(&TINY.replace("batch_size = 16", "batch_size = 0"))
        .unwrap_err()
        .to_string();
    assert!(error.contains("batch_size"), "{error}");
    let error = TrainConfig::parse(&TINY.replace("simulations = 12", "simulations = -3"))
        .unwrap_err()
        .to_string();
    assert!(error.contains("simulations"), "{error}");
    // A budget too large for a Duration used to panic when the run started.
    let huge = TINY.replace("generations = 2", "generations = 2\nminutes = 1e300");
    let error = TrainConfig::parse(&huge).unwrap_err().to_string();
    assert!(error.contains("minutes"), "{error}");
}

#[test]
fn a_run_directory_refuses_another_network() {
    let runs = std::env::temp_dir().join(format!("damas-train-mismatch-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&runs);
    let text = TINY.replace("generations = 2", "generations = 0");
    run(&text, &runs);
    let other = text.replace("channels = 8", "channels = 16");
    let config = TrainConfig::parse(&other).unwrap();
    let mut silent = Silent;
    let error = Run::<Russian>::open(
        &config,
        &other,
        RunHome::local(&runs.join("tiny")),
        ConfigChanges::Refuse,
        &mut silent,
    )
    .err()
    .expect("refused");
    assert!(error.to_string().contains("1x8"), "{error}");
    let _ = std::fs::remove_dir_all(&runs);
}

/// An error and every source under it, one per line.
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(inner) = source {
        text = format!("{text}\n{inner}");
        source = inner.source();
    }
    text
}

#[test]
fn a_config_with_a_base_is_the_base_with_its_own_keys_laid_over() {
    let dir = std::env::temp_dir().join(format!("damas-config-base-{}", std::process::id()));
    let variations = dir.join("variations");
    std::fs::create_dir_all(&variations).unwrap();
    std::fs::write(dir.join("tiny.toml"), TINY).unwrap();
    let write = |name: &str, text: &str| {
        let path = variations.join(name);
        std::fs::write(&path, text).unwrap();
        path
    };
    let more = write(
        "more.toml",
        "base = \"../tiny.toml\"\nname = \"more\"\n[selfplay]\nadjudicate_material = 3\n\
         [selfplay.search]\nsimulations = 10\n",
    );
    let file = ConfigFile::read(&more).unwrap_or_else(|e| panic!("{}", error_chain(&e)));
    let mut expected = TrainConfig::parse(TINY).unwrap();
    expected.name = "more".into();
    expected.selfplay.adjudicate_material = 3;
    expected.selfplay.search.simulations = 10;
    assert_eq!(file.config, expected, "only the keys the file gives change");
    // The text a run keeps (and a worker receives) stands without the base.
    assert_eq!(TrainConfig::parse(&file.text).unwrap(), expected);
    // A base of a base.
    let most = write("most.toml", "base = \"more.toml\"\ngenerations = 7\n");
    expected.generations = 7;
    assert_eq!(TrainConfig::read(&most).unwrap(), expected);

    let refused = |name: &str, text: &str| {
        let path = write(name, text);
        error_chain(&ConfigFile::read(&path).expect_err("refused"))
    };
    let lost = refused("lost.toml", "base = \"nowhere.toml\"\n");
    assert!(
        lost.contains("lost.toml: its base") && lost.contains("nowhere.toml"),
        "{lost}"
    );
    let typo = refused(
        "typo.toml",
        "base = \"../tiny.toml\"\n[selfplay]\nmax_pliez = 9\n",
    );
    // Reported at its line in its own file, not at a line of the merged text.
    assert!(
        typo.contains("max_pliez") && typo.contains("line 3,"),
        "{typo}"
    );
    write(
        "wrong.toml",
        "base = \"../tiny.toml\"\n\n[training]\nbatch_size = \"many\"\n",
    );
    let wrong = refused("over-wrong.toml", "base = \"wrong.toml\"\nname = \"x\"\n");
    assert!(
        wrong.contains("over-wrong.toml: its base")
            && wrong.contains("/wrong.toml: TOML parse error at line 4,"),
        "{wrong}"
    );
    // A value out of its range names the file that set it.
    write(
        "zero.toml",
        "base = \"../tiny.toml\"\n[training]\nbatch_size = 0\n",
    );
    let zero = refused("over-zero.toml", "base = \"zero.toml\"\n");
    assert!(
        zero.contains("over-zero.toml: its base")
            && zero.contains("/zero.toml: invalid value: `training.batch_size` = 0"),
        "{zero}"
    );
    let number = refused("number.toml", "base = 3\n");
    assert!(number.contains("`base` must be the path"), "{number}");
    let itself = refused("itself.toml", "base = \"itself.toml\"\n");
    assert!(itself.contains("in a circle"), "{itself}");
    write("ping.toml", "base = \"pong.toml\"\n");
    let pong = refused("pong.toml", "base = \"ping.toml\"\n");
    assert!(
        pong.contains("in a circle")
            && pong.contains("ping.toml -> ")
            && !pong.contains("its base"),
        "{pong}"
    );
    std::fs::write(dir.join("broken.toml"), "name = [\n").unwrap();
    let broken = refused("over-broken.toml", "base = \"../broken.toml\"\n");
    assert!(
        broken.contains("over-broken.toml: its base") && broken.contains("line 1"),
        "{broken}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The run names of the configs in `configs/<folder>`, sorted, each checked to parse and to
/// name its run after its file (so that `runs/<name>` and the file's command line agree).
fn config_names(folder: &str) -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../configs")
        .join(folder);
    let mut names = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "toml") {
            let config = TrainConfig::read(&path).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(
                path.file_stem().unwrap().to_str().unwrap(),
                config.name,
                "{}: runs/<name> matches the file",
                path.display()
            );
            names.push(config.name);
        }
    }
    names.sort();
    names
}

#[test]
fn every_shipped_config_is_valid() {
    assert_eq!(
        config_names(""),
        [
            "brazilian",
            "english",
            "international",
            "quick",
            "russian",
            "spanish"
        ]
    );
}

#[test]
fn every_curve_and_ablation_config_is_valid() {
    // The configs the measured curves of docs/notebook/ ran with must still parse, so that
    // their command lines still reproduce the runs.
    for folder in ["curves", "ablation"] {
        assert!(
            !config_names(folder).is_empty(),
            "no configs in configs/{folder}"
        );
    }
}

#[test]
fn gating_keeps_the_old_network_until_a_new_one_passes() {
    let runs = std::env::temp_dir().join(format!("damas-train-gating-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&runs);
    // A gate only a clean sweep passes: unless generation 1 won every game against the
    // untrained generation 0, self-play stays with generation 0.
    let text = TINY.replace(
        "simulations = 6\n",
        "simulations = 6\ngating = true\ngate_score = 1.0\n",
    );
    run(&text, &runs);
    let root = runs.join("tiny");
    let eval_of = |generation: u32| -> serde_json::Value {
        let path = root.join(format!("checkpoints/{generation:06}/eval.json"));
        serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
    };
    let swept = |eval: &serde_json::Value| {
        let previous = &eval["previous"];
        previous["losses"] == 0 && previous["draws"] == 0
    };
    let (first, second) = (eval_of(1), eval_of(2));
    assert_eq!(first["promoted"], swept(&first), "{first}");
    assert_eq!(second["promoted"], swept(&second), "{second}");
    if first["promoted"] == false && second["promoted"] == false {
        assert_eq!(
            std::fs::read_to_string(root.join("best")).unwrap().trim(),
            "0"
        );
        for shard in list_shards(&root.join("shards")).unwrap() {
            let header = Shard::read(&shard).unwrap().header;
            assert_eq!(header.model, "tiny/000000", "{}", shard.display());
        }
    }
    // A gate every network passes: generation 2's games come from generation 1.
    let _ = std::fs::remove_dir_all(&runs);
    run(&text.replace("gate_score = 1.0", "gate_score = 0.0"), &runs);
    assert_eq!(
        std::fs::read_to_string(root.join("best")).unwrap().trim(),
        "2"
    );
    let models: Vec<String> = list_shards(&root.join("shards"))
        .unwrap()
        .iter()
        .map(|s| Shard::read(s).unwrap().header.model)
        .collect();
    assert!(models.contains(&"tiny/000001".to_string()), "{models:?}");
    let _ = std::fs::remove_dir_all(&runs);
}

#[test]
fn a_warm_start_trains_generation_1_on_the_engines_games() {
    let runs = std::env::temp_dir().join(format!("damas-train-warm-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&runs);
    let text = format!("{TINY}\n[warm_start]\ngames = 6\ndepth = 2\n");
    run(&text, &runs);
    let root = runs.join("tiny");
    let header = |generation: u32| {
        let shards = list_shards(&root.join("shards")).unwrap();
        let prefix = format!("gen{generation:06}");
        let headers: Vec<_> = shards
            .iter()
            .filter(|s| {
                s.file_name()
                    .unwrap()
                    .to_string_lossy()
                    .starts_with(&prefix)
            })
            .map(|s| Shard::read(s).unwrap())
            .collect();
        (
            headers.iter().map(|s| s.header.games).sum::<u32>(),
            headers[0].header.model.clone(),
            headers
                .iter()
                .flat_map(|s| &s.samples)
                .all(|sample| sample.policy.len() == 1),
        )
    };
    // Generation 1: the engine's six games, each sample's target its one chosen move.
    assert_eq!(header(1), (6, "alphabeta:depth=2".to_string(), true));
    // Generation 2: self-play by the network generation 1 trained, four games.
    let (games, model, _) = header(2);
    assert_eq!((games, model.as_str()), (4, "tiny/000001"));
    let _ = std::fs::remove_dir_all(&runs);
}

#[test]
fn the_mixed_value_target_is_the_result_blended_with_the_search_value() {
    use damas_nn::PackedPosition;
    use damas_rules::Game;
    use damas_selfplay::Sample;
    use damas_train::value_target;
    let game = Game::<Russian>::new();
    let sample = |result: i8, search_value: f32| Sample {
        position: PackedPosition::of(&game),
        policy: vec![],
        result,
        search_value,
        ply: 0,
        aux: None,
    };
    let close = |a: [f32; 3], b: [f32; 3]| a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-6);
    // Weight 0: the result alone.
    assert_eq!(value_target(&sample(1, -0.4), 0.0), [1.0, 0.0, 0.0]);
    assert_eq!(value_target(&sample(0, 0.9), 0.0), [0.0, 1.0, 0.0]);
    // Weight 1: q as (max(q,0), 1-|q|, max(-q,0)).
    assert!(close(value_target(&sample(1, -0.4), 1.0), [0.0, 0.6, 0.4]));
    // Weight 0.25, a won game the search thought half lost: 0.75 z + 0.25 q.
    assert!(close(
        value_target(&sample(1, -0.5), 0.25),
        [0.75, 0.125, 0.125]
    ));
    assert!(close(value_target(&sample(-1, 0.2), 0.5), [0.1, 0.4, 0.5]));
    for (result, q) in [(1, 0.3), (0, -1.0), (-1, 1.0)] {
        let sum: f32 = value_target(&sample(result, q), 0.7).iter().sum();
        assert!((sum - 1.0).abs() < 1e-6);
    }
}

#[test]
fn the_auxiliary_targets_are_scaled_from_the_game_end() {
    use damas_nn::PackedPosition;
    use damas_rules::Game;
    use damas_selfplay::{AuxTargets, Sample};
    use damas_train::trainer::aux_targets;
    let game = Game::<Russian>::new();
    let sample = |aux| Sample {
        position: PackedPosition::of(&game),
        policy: vec![],
        result: 0,
        search_value: 0.0,
        ply: 0,
        aux,
    };
    let aux = |plies_left, material| {
        Some(AuxTargets {
            plies_left,
            material,
        })
    };
    // Material / 10 and plies left / 100: [-0.4, 0.5].
    assert_eq!(aux_targets(&sample(aux(50, -4))), Some([-0.4, 0.5]));
    // Clamped to the material's [-1, 1] and to three hundred plies.
    assert_eq!(aux_targets(&sample(aux(1000, 30))), Some([1.0, 3.0]));
    assert_eq!(aux_targets(&sample(None)), None);
}

/// The auxiliary head learns its two targets when they are weighted; a network made before
/// the head existed (no `aux_head` in its meta.json) still loads and trains without it.
#[test]
fn the_auxiliary_head_learns_and_older_networks_train_without_it() {
    use damas_nn::{BoardShape, CheckpointMeta, Device, NetworkConfig, NetworkSize, load_network};
    use damas_train::Trainer;
    use damas_train::config::TrainingSection;

    let samples = quick_samples("aux");
    let batch: Vec<_> = samples.iter().take(32).collect();
    let device = Device::flex();
    let size = NetworkSize {
        blocks: 1,
        channels: 8,
    };
    let training = TrainingSection {
        material_weight: 1.0,
        moves_left_weight: 1.0,
        learning_rate: vec![(0, 0.01)],
        ..TrainingSection::default()
    };
    let with_head = NetworkConfig::sized(BoardShape::of::<Russian>(), size);
    assert!(with_head.has_aux_head());
    let mut trainer = Trainer::<Russian>::new(&with_head, &training, 1, &device);
    let first = trainer.train_step(&batch);
    for _ in 0..40 {
        trainer.train_step(&batch);
    }
    let last = trainer.train_step(&batch);
    assert!(
        first.material_loss > 0.0 && first.moves_left_loss > 0.0,
        "{first:?}"
    );
    assert!(
        last.material_loss < first.material_loss / 2.0
            && last.moves_left_loss < first.moves_left_loss / 2.0,
        "first {first:?}, last {last:?}"
    );

    // An older network: no auxiliary head, and no `aux_head` key in its meta.json.
    let dir = std::env::temp_dir().join(format!("damas-train-aux-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let old = NetworkConfig::new(BoardShape::of::<Russian>())
        .with_blocks(1)
        .with_channels(8);
    assert!(!old.has_aux_head());
    let trainer = Trainer::<Russian>::new(&old, &training, 1, &device);
    trainer
        .save(&dir, &CheckpointMeta::new::<Russian>(old), vec![])
        .unwrap();
    let meta_path = dir.join("meta.json");
    let mut meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&meta_path).unwrap()).unwrap();
    meta["network"].as_object_mut().unwrap().remove("aux_head");
    std::fs::write(&meta_path, meta.to_string()).unwrap();
    load_network::<Russian>(&dir, &device).expect("an older checkpoint loads");
    let (mut resumed, _) = Trainer::<Russian>::resume(&dir, &training, &device).unwrap();
    let metrics = resumed.train_step(&batch);
    assert!(metrics.policy_loss > 0.0);
    assert_eq!((metrics.material_loss, metrics.moves_left_loss), (0.0, 0.0));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_brainking_variants_and_the_site_rules_train_two_generations() {
    // Each new board (5x5 lines, all 64 squares), piece kind (parachutists) and move kind
    // (removals, linear moves, drops) through self-play, shards, the encoding, training and the
    // evaluation matches. (The older variants share their boards with Russian's and
    // international's runs, tested elsewhere.)
    let runs = std::env::temp_dir().join(format!("damas-train-new-{}", std::process::id()));
    let new = [
        "corner",
        "oneway",
        "parachute",
        "gothic",
        "alquerque",
        "hawaiian",
        "dameo",
        "international-site",
    ];
    for name in new {
        let variant: damas_rules::Variant = name.parse().unwrap();
        let started = std::time::Instant::now();
        let _ = std::fs::remove_dir_all(&runs);
        let text = TINY
            .replace("variant = \"russian\"", &format!("variant = \"{variant}\""))
            .replace("name = \"tiny\"", &format!("name = \"tiny-{variant}\""));
        let config = TrainConfig::parse(&text).expect("valid config");
        let file = damas_train::ConfigFile { config, text };
        let summary = damas_train::train(&file, &runs, &mut Silent)
            .unwrap_or_else(|e| panic!("{variant}: {e:?}"));
        assert_eq!(summary.generation, 2, "{variant}");
        let root = runs.join(format!("tiny-{variant}"));
        assert!(
            root.join("checkpoints/000002/eval.json").exists(),
            "{variant}"
        );
        assert!(
            !list_shards(&root.join("shards")).unwrap().is_empty(),
            "{variant}"
        );
        eprintln!("{variant}: {:.1}s", started.elapsed().as_secs_f64());
    }
    let _ = std::fs::remove_dir_all(&runs);
}

#[test]
fn shipped_configs_are_valid_and_named_after_their_files() {
    let configs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs");
    let mut checked = 0;
    for dir in [
        configs.clone(),
        configs.join("ablation"),
        configs.join("curves"),
    ] {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "toml") {
                let config =
                    TrainConfig::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                assert_eq!(path.file_stem().unwrap().to_str().unwrap(), config.name);
                checked += 1;
            }
        }
    }
    assert!(checked >= 10, "{checked} configs");
}

/// Every file under `dir` with its bytes.
fn files_under(dir: &Path) -> std::collections::BTreeMap<std::path::PathBuf, Vec<u8>> {
    let mut files = std::collections::BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(files_under(&path));
        } else {
            files.insert(path.clone(), std::fs::read(&path).unwrap());
        }
    }
    files
}

/// Makes `dir` and every directory under it read-only, or writable again.
fn set_read_only(dir: &Path, read_only: bool) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            set_read_only(&path, read_only);
        }
    }
    let mut permissions = std::fs::metadata(dir).unwrap().permissions();
    permissions.set_readonly(read_only);
    std::fs::set_permissions(dir, permissions).unwrap();
}

#[test]
fn an_unwritable_run_directory_is_named_and_leaves_its_files_intact() {
    let runs = std::env::temp_dir().join(format!("damas-train-readonly-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&runs);
    run(&TINY.replace("generations = 2", "generations = 0"), &runs);
    let root = runs.join("tiny");
    let before = files_under(&root);
    set_read_only(&root, true);
    // Root ignores permissions: then there is nothing to test.
    let probe = root.join("probe");
    if std::fs::write(&probe, b"").is_ok() {
        let _ = std::fs::remove_file(&probe);
        set_read_only(&root, false);
        let _ = std::fs::remove_dir_all(&runs);
        eprintln!("skipped: permissions are not enforced for this user");
        return;
    }
    let text = TINY.replace("generations = 2", "generations = 1");
    let config = TrainConfig::parse(&text).unwrap();
    let mut silent = Silent;
    let result = Run::<Russian>::open(
        &config,
        &text,
        RunHome::local(&runs.join("tiny")),
        ConfigChanges::Refuse,
        &mut silent,
    )
    .and_then(|mut run| run.run());
    set_read_only(&root, false);
    let Err(error) = result else {
        panic!("an unwritable run directory is accepted");
    };
    let mut message = error.to_string();
    let mut source = std::error::Error::source(&error);
    while let Some(cause) = source {
        message += &format!(": {cause}");
        source = cause.source();
    }
    assert!(
        message.contains(&root.display().to_string()),
        "the error names no path of the run: {message}"
    );
    assert!(message.contains("ermission denied"), "{message}");
    assert_eq!(files_under(&root), before, "files already written changed");
    let _ = std::fs::remove_dir_all(&runs);
}

/// What a trainer's network answers is what its checkpoint answers once loaded: the weights and
/// the batch-norm statistics both reach the file.
#[test]
fn a_saved_checkpoint_answers_like_the_trained_network() {
    use damas_nn::{
        BoardShape, BurnModel, CheckpointMeta, Device, NetworkConfig, NetworkSize, Predictor,
        encoding::encode, load_network,
    };
    use damas_rules::Game;
    use damas_train::Trainer;
    use damas_train::config::TrainingSection;

    let dir = std::env::temp_dir().join(format!("damas-train-reload-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let config = NetworkConfig::sized(
        BoardShape::of::<Russian>(),
        NetworkSize {
            blocks: 1,
            channels: 8,
        },
    );
    let samples = quick_samples("reload");
    let device = Device::flex();
    let mut trainer = Trainer::<Russian>::new(&config, &TrainingSection::default(), 1, &device);
    let batch: Vec<_> = samples.iter().take(32).collect();
    for _ in 0..5 {
        trainer.train_step(&batch);
    }
    trainer
        .save(&dir, &CheckpointMeta::new::<Russian>(config), vec![])
        .unwrap();
    let (loaded, _) = load_network::<Russian>(&dir, &device).unwrap();
    let shape = BoardShape::of::<Russian>();
    let count = 8;
    let mut inputs = vec![0.0; count * shape.input_len()];
    for (i, chunk) in inputs.chunks_mut(shape.input_len()).enumerate() {
        let mut game = Game::<Russian>::new();
        game.play_random(i as u64, 6 + i as u32);
        encode(&game, chunk);
    }
    let before = BurnModel::new(trainer.network(), shape, &device)
        .predict(inputs.clone(), count)
        .unwrap();
    let after = BurnModel::new(&loaded, shape, &device)
        .predict(inputs, count)
        .unwrap();
    let difference = before
        .policy_logits
        .iter()
        .zip(&after.policy_logits)
        .chain(before.wdl.iter().zip(&after.wdl))
        .map(|(a, b)| (a - b).abs())
        .fold(0.0f32, f32::max);
    assert!(difference < 1e-5, "largest difference {difference}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_network_grows_when_its_stage_is_due_and_the_grown_one_plays() {
    let runs = std::env::temp_dir().join(format!("damas-train-grow-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&runs);
    let text = TINY.replace("generations = 2", "generations = 3")
        + "\n[growth]\nstages = [{ generation = 2, blocks = 2, channels = 12 }]\nsteps = 4\ngate_games = 2\ngate_score = 0.0\n";
    run(&text, &runs);
    let root = runs.join("tiny");
    let size = |generation: u32| {
        let meta =
            damas_nn::read_any_meta(&root.join(format!("checkpoints/{generation:06}"))).unwrap();
        (meta.network.blocks, meta.network.channels)
    };
    assert_eq!(size(1), (1, 8), "before the stage: [network]'s size");
    assert_eq!(size(2), (2, 12), "the stage is due at generation 2");
    assert_eq!(size(3), (2, 12), "and the grown network trains on");
    assert!(root.join("candidates/2x12/model.bpk").is_file());
    // Generation 3's games were played by the grown network, and it loads and plays.
    let shards = list_shards(&root.join("shards")).unwrap();
    let third: Vec<_> = shards
        .iter()
        .filter(|s| {
            s.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("gen000003")
        })
        .map(|s| Shard::read(s).unwrap().header.model)
        .collect();
    assert!(
        !third.is_empty() && third.iter().all(|m| m == "tiny/000002"),
        "{third:?}"
    );
    damas_models::Model::<Russian>::open_path(&root.join("checkpoints/000003"), &damas_nn::cpu())
        .expect("the grown network's checkpoints open");
    let log = std::fs::read_to_string(root.join("log.txt")).unwrap();
    assert!(log.contains("the 2x12 network after 4 steps"), "{log}");
    assert!(log.contains("takes over"), "{log}");
    let _ = std::fs::remove_dir_all(&runs);
}

#[test]
fn growth_stages_say_when_in_one_way_and_in_order() {
    let parse = |growth: &str| TrainConfig::parse(&format!("{TINY}\n[growth]\n{growth}\n"));
    assert!(parse("stages = [{ minute = 30, blocks = 6, channels = 64 }]").is_ok());
    let mixed = parse(
        "stages = [{ generation = 5, blocks = 2, channels = 8 }, { minute = 9, blocks = 3, channels = 8 }]",
    )
    .unwrap_err()
    .to_string();
    assert!(mixed.contains("growth.stages[1]"), "{mixed}");
    let both = parse("stages = [{ generation = 5, minute = 2, blocks = 2, channels = 8 }]")
        .unwrap_err()
        .to_string();
    assert!(both.contains("growth.stages[0]"), "{both}");
    let backwards = parse(
        "stages = [{ generation = 5, blocks = 2, channels = 8 }, { generation = 3, blocks = 3, channels = 8 }]",
    )
    .unwrap_err()
    .to_string();
    assert!(
        backwards.contains("later than the stage before"),
        "{backwards}"
    );
    let zero = parse("stages = [{ generation = 5, blocks = 2, channels = 0 }]")
        .unwrap_err()
        .to_string();
    assert!(zero.contains("growth.stages[0].channels"), "{zero}");
}

#[test]
fn external_selfplay_is_written_into_the_config_text() {
    let text = format!("# the tiny run\n{TINY}");
    let file = ConfigFile {
        config: TrainConfig::parse(&text).unwrap(),
        text,
    }
    .with_external_selfplay();
    assert!(file.config.distributed.external_selfplay);
    assert!(file.text.starts_with("# the tiny run"), "comments are kept");
    let stored = TrainConfig::parse(&file.text).unwrap();
    assert!(stored.distributed.external_selfplay, "{}", file.text);
    // Set twice, or over a [distributed] table that exists, it stays one valid key.
    let again = file.with_external_selfplay();
    assert!(
        TrainConfig::parse(&again.text)
            .unwrap()
            .distributed
            .external_selfplay
    );
}

#[test]
fn the_native_and_burn_steps_train_the_same_network_and_hand_over_at_any_step() {
    use damas_nn::{BoardShape, CheckpointMeta, Device, NetworkConfig, NetworkSize};
    use damas_train::config::TrainingSection;
    use damas_train::{StepPath, Trainer};

    let config = NetworkConfig::sized(
        BoardShape::of::<Russian>(),
        NetworkSize {
            blocks: 1,
            channels: 8,
        },
    );
    let samples = quick_samples("paths");
    let device = Device::flex();
    let training = TrainingSection::default();
    let mut native = Trainer::<Russian>::new(&config, &training, 1, &device);
    assert_eq!(
        native.path(),
        StepPath::Native,
        "the CPU takes the native step"
    );
    // The second trainer loads the first one's weights: burn's seeded initialisation draws
    // from one RNG for the whole process, which the tests running beside this one also draw
    // from, so two `Trainer::new` calls with one seed need not give one network.
    let dir = std::env::temp_dir().join(format!("damas-train-paths-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    native
        .save(&dir, &CheckpointMeta::new::<Russian>(config), vec![])
        .unwrap();
    let (mut burn, _) = Trainer::<Russian>::resume(&dir, &training, &device).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    burn.set_path(StepPath::Burn);
    assert_eq!(burn.path(), StepPath::Burn);
    let batches: Vec<Vec<_>> = samples
        .chunks(16)
        .take(4)
        .map(|c| c.iter().collect())
        .collect();
    assert_eq!(batches.len(), 4, "enough samples for four batches");
    for (i, batch) in batches.iter().enumerate() {
        if i == 2 {
            // Hand each over to the other path mid-run: weights and Adam's moments move.
            native.set_path(StepPath::Burn);
            burn.set_path(StepPath::Native);
        }
        let (a, b) = (native.train_step(batch), burn.train_step(batch));
        for (x, y) in [
            (a.policy_loss, b.policy_loss),
            (a.value_loss, b.value_loss),
            (a.policy_entropy, b.policy_entropy),
        ] {
            assert!(
                (x - y).abs() < 1e-3 * y.abs().max(1.0),
                "step {i}: {x} vs {y}"
            );
        }
    }
    assert_eq!((native.step(), burn.step()), (4, 4));
}

/// The samples of two quick Russian self-play games (8 simulations, the stand-in evaluator),
/// recorded as played by `model`.
fn quick_samples(model: &str) -> Vec<damas_selfplay::Sample> {
    let mut selfplay = damas_selfplay::SelfPlayConfig::default();
    selfplay.search.simulations = 8;
    let mut samples = Vec::new();
    damas_selfplay::play_games::<Russian, _>(
        &selfplay,
        &damas_mcts::StaticEvaluator::<Russian>::default(),
        2,
        0,
        model,
        &[],
        None,
        |r| samples.extend(r.samples),
    );
    samples
}
