//! Self-play and training: shards, a kill -9 during training and the resume.

use crate::{damas, fresh_dir, stderr, stdout};
use std::process::{Command, Stdio};

#[test]
fn selfplay_with_a_tiny_network_writes_shards_and_games() {
    let dir = fresh_dir("selfplay");
    let model = dir.join("model");
    let model = model.to_str().unwrap();
    let out = damas(
        &[
            "model",
            "init",
            "--variant",
            "russian",
            "--blocks",
            "1",
            "--channels",
            "8",
            "--out",
            model,
        ],
        "",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let config = dir.join("selfplay.toml");
    std::fs::write(
        &config,
        "games_per_shard = 2\nfast_simulations = 4\nfull_search_fraction = 0.5\n[search]\nsimulations = 12\n",
    )
    .unwrap();
    let out_dir = dir.join("out");
    let args = [
        "selfplay",
        "--variant",
        "russian",
        "--model",
        model,
        "--games",
        "3",
        "--quiet",
        "--out",
        out_dir.to_str().unwrap(),
        "--config",
        config.to_str().unwrap(),
    ];
    let out = damas(&args, "");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("3 games"), "{}", stdout(&out));
    let mut shards: Vec<_> = std::fs::read_dir(out_dir.join("shards"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    shards.sort();
    assert_eq!(shards, ["selfplay-000000.shard", "selfplay-000001.shard"]);
    let pdn = std::fs::read_to_string(out_dir.join("games/selfplay-000000.pdn")).unwrap();
    assert_eq!(pdn.matches("[GameType \"25\"]").count(), 2, "{pdn}");

    // A second run numbers its files after the first one's.
    let out = damas(&args, "");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(out_dir.join("shards/selfplay-000003.shard").exists());

    // A run config serves too: its [selfplay] table, and its variant when --variant is left
    // out; a --variant that contradicts it is refused.
    let run_config = tiny_train_config(&dir, "tiny-selfplay", 1);
    let run_out = dir.join("from-run-config");
    let from_run = [
        "selfplay",
        "--model",
        model,
        "--games",
        "2",
        "--quiet",
        "--out",
        run_out.to_str().unwrap(),
        "--config",
        run_config.to_str().unwrap(),
    ];
    let out = damas(&from_run, "");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("2 games"), "{}", stdout(&out));
    assert!(run_out.join("shards/selfplay-000000.shard").exists());
    let mut contradicting = from_run.to_vec();
    contradicting.extend(["--variant", "english"]);
    let out = damas(&contradicting, "");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("differs from the config's variant russian"),
        "{}",
        stderr(&out)
    );

    // Bad input: a checkpoint for another variant, a config with a typo.
    let mut wrong = args.to_vec();
    wrong[2] = "english";
    let out = damas(&wrong, "");
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("checkpoint is for variant `russian`"),
        "{}",
        stderr(&out)
    );
    std::fs::write(&config, "[search]\nsimulatoins = 12\n").unwrap();
    let out = damas(&args, "");
    assert!(!out.status.success());
    assert!(stderr(&out).contains("simulatoins"), "{}", stderr(&out));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Reads every checkpoint and shard of a run: nothing may be half written.
fn assert_run_intact(root: &std::path::Path) {
    // A run killed while taking its lease has a directory and nothing else yet.
    let Ok(checkpoints) = std::fs::read_dir(root.join("checkpoints")) else {
        return;
    };
    for entry in checkpoints {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue; // a temporary directory of an interrupted write, never read
        }
        let meta = std::fs::read(path.join("meta.json")).expect("complete checkpoint");
        serde_json::from_slice::<serde_json::Value>(&meta).expect("meta.json parses");
        assert!(path.join("model.bpk").exists() && path.join("optimizer.bpk").exists());
    }
    for shard in damas_selfplay::list_shards(&root.join("shards")).unwrap() {
        damas_selfplay::Shard::read_for::<damas_rules::variants::Russian>(&shard)
            .expect("every shard reads");
    }
}

/// Writes a training config for a tiny Russian run named `name` into `dir`.
pub fn tiny_train_config(
    dir: &std::path::Path,
    name: &str,
    generations: u32,
) -> std::path::PathBuf {
    let config = dir.join(format!("{name}.toml"));
    std::fs::write(
        &config,
        format!(
            r#"name = "{name}"
variant = "russian"
generations = {generations}
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
"#
        ),
    )
    .unwrap();
    config
}

#[test]
fn train_survives_kill_9_at_any_moment_and_resumes() {
    let dir = fresh_dir("kill");
    let config = tiny_train_config(&dir, "killed", 3);
    let runs = dir.join("runs");
    let args = [
        "train",
        "--config",
        config.to_str().unwrap(),
        "--runs",
        runs.to_str().unwrap(),
        "--quiet",
    ];
    let root = runs.join("killed");
    // Kill the run at several moments: as soon as a file appears, and after fixed delays.
    for delay_ms in [0u64, 150, 400, 900] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_damas"))
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        if root.exists() {
            assert_run_intact(&root);
        }
    }
    let out = damas(&args, "");
    assert!(out.status.success(), "{}", stderr(&out));
    assert_run_intact(&root);
    for generation in ["000000", "000001", "000002", "000003"] {
        assert!(
            root.join("checkpoints")
                .join(generation)
                .join("meta.json")
                .exists()
        );
    }
    assert!(root.join("checkpoints/000003/eval.json").exists());
    // Running again finds nothing to do.
    let out = damas(&args, "");
    assert!(out.status.success());
    assert!(!stdout(&out).contains("generation 4"), "{}", stdout(&out));

    // A copy of the config under another file name keeps the `name` key, so it names this
    // run: changing its optimizer is refused with the key, and the run's config is kept.
    let copy = dir.join("experiment-sgd.toml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(
        &copy,
        text.replace("[training]", "[training]\noptimizer = \"sgd\""),
    )
    .unwrap();
    let copied = |extra: &[&str]| {
        let mut args = args.to_vec();
        args[2] = copy.to_str().unwrap();
        args.extend_from_slice(extra);
        damas(&args, "")
    };
    let out = copied(&[]);
    // Refused for good: starting again will not help (3, which launchers do not restart).
    assert_eq!(out.status.code(), Some(3), "{}", stdout(&out));
    let error = stderr(&out);
    assert!(
        error.contains("training.optimizer \"adam\" -> \"sgd\"")
            && error.contains("--config-changed=accept"),
        "{error}"
    );
    let kept = std::fs::read_to_string(root.join("config.toml")).unwrap();
    assert!(!kept.contains("sgd"), "{kept}");
    let out = copied(&["--config-changed", "accept"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("resumed with a changed config: training.optimizer"),
        "{}",
        stdout(&out)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bench_learning_trains_for_a_budget_and_rates_checkpoints_on_the_ladder() {
    let dir = fresh_dir("learning");
    // The bench lifts the config's generation count: the six-second budget ends the run.
    let config = tiny_train_config(&dir, "tiny", 1);
    let out_dir = dir.join("bench");
    let args = [
        "bench",
        "learning",
        "--config",
        config.to_str().unwrap(),
        "--minutes",
        "0.1",
        "--every",
        "0.05",
        "--sims",
        "4",
        "--depths",
        "2",
        "--games",
        "2",
        "--time",
        "0.002",
        "--quiet",
        "--out",
        out_dir.to_str().unwrap(),
        "--label",
        "tiny, first try",
    ];
    let out = damas(&args, "");
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("minutes"), "{text}");
    assert!(text.contains("tiny, first try (russian)"), "{text}");
    assert!(text.contains("wall clock over"), "{text}");
    let curve: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("curve.json")).unwrap())
            .unwrap();
    assert_eq!(curve["label"], "tiny, first try");
    let points = curve["points"].as_array().unwrap();
    // Generation 0 and at least one trained checkpoint, each having met both rungs of the
    // ladder played here (three asked for, two exist) on both scales.
    assert!(points.len() >= 2, "{curve}");
    assert_eq!(points[0]["generation"], 0);
    for point in points {
        assert_eq!(point["against"].as_array().unwrap().len(), 2, "{point}");
        assert_eq!(
            point["timed"]["against"].as_array().unwrap().len(),
            2,
            "{point}"
        );
    }
    assert_eq!(curve["move_time"], 0.002);
    assert!(text.contains("Elo at 0.002 s"), "{text}");
    let ladder = curve["ladder"].as_array().unwrap();
    assert_eq!(ladder[0][0], "alphabeta:depth=1");
    assert_eq!(ladder[0][1]["elo"], 0.0, "depth 1 is the anchor");
    assert!(out_dir.join("ladder.json").is_file());
    // Each generation's wall clock is accounted for, and the run's clock only grows.
    let clocks: Vec<f64> = curve["time"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| entry[1]["elapsed"].as_f64().unwrap())
        .collect();
    assert!(!clocks.is_empty() && clocks[0] > 0.0, "{curve}");
    assert!(clocks.windows(2).all(|w| w[0] < w[1]), "{clocks:?}");
    let png = std::fs::read(out_dir.join("curve.png")).unwrap();
    assert_eq!(&png[1..4], b"PNG");
    // Run again, it resumes everything: no training, no new game, the same curve.
    let again = damas(&args, "");
    assert!(again.status.success(), "{}", stderr(&again));
    let resumed: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("curve.json")).unwrap())
            .unwrap();
    assert_eq!(resumed["points"], curve["points"]);
    // Stopped mid-rating: the curve not written yet and one of the newest checkpoint's timed
    // matches one game short (a stop between two games leaves exactly that; every file of a
    // match is rewritten atomically after each game). The rerun plays only that game.
    std::fs::remove_file(out_dir.join("curve.json")).unwrap();
    let newest = points.last().unwrap()["generation"].as_u64().unwrap();
    let timed = out_dir
        .join("rated")
        .join("time0.002")
        .join(format!("{newest:06}"));
    let cut = std::fs::read_dir(&timed)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .max()
        .unwrap();
    let results_path = cut.join("results.json");
    let mut results: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&results_path).unwrap()).unwrap();
    let games = results["games"].as_array_mut().unwrap();
    assert_eq!(games.len(), 2, "{results}");
    games.pop();
    std::fs::write(&results_path, results.to_string()).unwrap();
    let pdn = std::fs::read_to_string(cut.join("games.pdn")).unwrap();
    let last_game = pdn.rfind("[Event ").unwrap();
    std::fs::write(cut.join("games.pdn"), &pdn[..last_game]).unwrap();
    let again = damas(&args, "");
    assert!(again.status.success(), "{}", stderr(&again));
    let finished: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&results_path).unwrap()).unwrap();
    assert_eq!(finished["games"].as_array().unwrap().len(), 2, "{finished}");
    let pdn = std::fs::read_to_string(cut.join("games.pdn")).unwrap();
    assert_eq!(pdn.matches("[Event ").count(), 2, "{pdn}");
    let rerated: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("curve.json")).unwrap())
            .unwrap();
    let rerated = rerated["points"].as_array().unwrap();
    assert_eq!(rerated.len(), points.len());
    for point in rerated {
        for scale in [&point["against"], &point["timed"]["against"]] {
            for rung in scale.as_array().unwrap() {
                let wdl = &rung[1];
                let games = wdl["wins"].as_u64().unwrap()
                    + wdl["draws"].as_u64().unwrap()
                    + wdl["losses"].as_u64().unwrap();
                assert_eq!(games, 2, "{point}");
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_device_the_build_lacks_is_an_error_at_start_that_says_how_to_get_it() {
    if cfg!(feature = "cuda") {
        return;
    }
    let dir = fresh_dir("device");
    let out_dir = dir.join("match");
    let out = damas(
        &[
            "match",
            "--variant",
            "russian",
            "random",
            "random",
            "--games",
            "2",
            "--device",
            "cuda:1",
            "--out",
            out_dir.to_str().unwrap(),
        ],
        "",
    );
    assert!(!out.status.success());
    let error = stderr(&out);
    assert!(
        error.contains("`cuda:1`") && error.contains("--features cuda"),
        "{error}"
    );
    assert!(!out_dir.exists(), "the match started");

    let config = dir.join("run.toml");
    let text = "name = \"dev\"\nvariant = \"russian\"\ngenerations = 1\ngames_per_generation = 2\n";
    std::fs::write(&config, format!("{text}device = \"tpu\"\n")).unwrap();
    let runs = dir.join("runs");
    let train = |extra: &[&str]| {
        let mut args = vec![
            "train",
            "--config",
            config.to_str().unwrap(),
            "--runs",
            runs.to_str().unwrap(),
            "--quiet",
        ];
        args.extend_from_slice(extra);
        damas(&args, "")
    };
    let out = train(&[]);
    assert!(!out.status.success());
    let error = stderr(&out);
    assert!(
        error.contains("`tpu` is not a device") && error.contains("run.toml"),
        "{error}"
    );

    std::fs::write(&config, text).unwrap();
    let out = train(&["--device", "cuda"]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("--features cuda"), "{}", stderr(&out));
    assert!(!runs.join("dev").exists(), "the run directory was made");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_learner_and_a_worker_process_share_a_run_directory() {
    let dir = fresh_dir("distributed");
    let config = tiny_train_config(&dir, "shared", 1);
    let run = dir.join("shared-run");
    let run_arg = run.to_str().unwrap();
    // The worker may start first: it waits for the learner to create the run.
    let mut worker = std::process::Command::new(env!("CARGO_BIN_EXE_damas"))
        .args(["worker", "--run", run_arg, "--id", "cli_1", "--quiet"])
        .arg("--cache")
        .arg(dir.join("cache"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("damas worker starts");
    let out = damas(
        &[
            "train",
            "--config",
            config.to_str().unwrap(),
            "--run",
            run_arg,
            "--external-selfplay",
            "--quiet",
        ],
        "",
    );
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while worker.try_wait().unwrap().is_none() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let _ = worker.kill();
    let worker = worker.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(worker.status.success(), "{}", stderr(&worker));
    let summary = stdout(&worker);
    assert!(summary.contains("worker cli_1:"), "{summary}");
    let marker = std::fs::read_to_string(run.join("shards/gen000001.done")).unwrap();
    assert!(marker.contains("incoming/g000000-cli_1-"), "{marker}");
    assert!(run.join("finished").exists());
    // The run's copy of its config says where its games come from: a learner resumed from the
    // store alone collects workers' games too.
    let stored = std::fs::read_to_string(run.join("config.toml")).unwrap();
    assert!(stored.contains("external_selfplay = true"), "{stored}");
    // The run's config is in the store: the learner resumes without --config.
    let again = damas(&["train", "--run", run_arg, "--check"], "");
    assert!(
        stdout(&again).contains("checkpoints 2"),
        "{}",
        stdout(&again)
    );
}

#[test]
fn bad_run_locations_and_worker_ids_are_named() {
    let dir = fresh_dir("locations");
    let empty = dir.join("nothing");
    let out = damas(&["train", "--run", empty.to_str().unwrap()], "");
    assert!(!out.status.success());
    assert!(stderr(&out).contains("holds no run"), "{}", stderr(&out));
    let out = damas(
        &["worker", "--run", dir.to_str().unwrap(), "--id", "a b"],
        "",
    );
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("worker id \"a b\""),
        "{}",
        stderr(&out)
    );
    if !cfg!(feature = "object-store") {
        let out = damas(&["worker", "--run", "s3://bucket/run"], "");
        assert!(!out.status.success());
        assert!(
            stderr(&out).contains("--features object-store"),
            "{}",
            stderr(&out)
        );
    }
}

#[test]
fn bench_learning_checks_its_ladder_before_training() {
    let dir = fresh_dir("learning-ladder");
    let config = tiny_train_config(&dir, "tiny", 1);
    let russian = concat!(env!("CARGO_MANIFEST_DIR"), "/../../ladders/russian.json");
    let english = dir.join("english.json");
    let text = std::fs::read_to_string(russian).unwrap().replacen(
        "\"variant\": \"russian\"",
        "\"variant\": \"english\"",
        1,
    );
    std::fs::write(&english, text).unwrap();
    let out_dir = dir.join("bench");
    for (ladder, expected) in [
        (english.clone(), "is for english, but the run plays russian"),
        (dir.join("missing.json"), "missing.json"),
    ] {
        let out = damas(
            &[
                "bench",
                "learning",
                "--config",
                config.to_str().unwrap(),
                "--minutes",
                "5",
                "--ladder",
                ladder.to_str().unwrap(),
                "--quiet",
                "--out",
                out_dir.to_str().unwrap(),
            ],
            "",
        );
        assert!(!out.status.success());
        assert!(stderr(&out).contains(expected), "{}", stderr(&out));
        assert!(!out_dir.join("tiny").exists(), "nothing was trained");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_second_learner_on_a_run_is_refused_and_a_dead_ones_run_is_taken_over() {
    let dir = fresh_dir("lease");
    let config = tiny_train_config(&dir, "leased", 1000);
    let runs = dir.join("runs");
    let args = [
        "train",
        "--config",
        config.to_str().unwrap(),
        "--runs",
        runs.to_str().unwrap(),
        "--quiet",
    ];
    let lease = runs.join("leased/lease.json");
    let holder_pid = || -> Option<u64> {
        let text = std::fs::read(&lease).ok()?;
        serde_json::from_slice::<serde_json::Value>(&text).ok()?["pid"].as_u64()
    };
    let start = || {
        Command::new(env!("CARGO_BIN_EXE_damas"))
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap()
    };
    let wait_for_holder = |pid: u32| {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while holder_pid() != Some(u64::from(pid)) {
            assert!(std::time::Instant::now() < deadline, "no lease for {pid}");
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    };
    let mut first = start();
    wait_for_holder(first.id());
    let out = damas(&args, "");
    assert!(!out.status.success(), "a second learner ran");
    let error = stderr(&out);
    assert!(
        error.contains("is training this run") && error.contains(&format!("pid {}", first.id())),
        "{error}"
    );
    // The holder dies with SIGKILL: its lease stays, its lock goes, and the next learner takes
    // the run over without being asked.
    first.kill().unwrap();
    first.wait().unwrap();
    assert!(holder_pid().is_some(), "a killed learner leaves its lease");
    let mut next = start();
    wait_for_holder(next.id());
    next.kill().unwrap();
    next.wait().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_worker_of_another_release_refuses_to_play_and_says_so_with_status_3() {
    let dir = fresh_dir("worker-version");
    let config = tiny_train_config(&dir, "versions", 1);
    let run = dir.join("run");
    std::fs::create_dir_all(&run).unwrap();
    std::fs::copy(&config, run.join("config.toml")).unwrap();
    std::fs::write(
        run.join("versions.json"),
        r#"{"shard_format": 999, "encoding_version": 999}"#,
    )
    .unwrap();
    let cache = dir.join("cache");
    let out = damas(
        &[
            "worker",
            "--run",
            run.to_str().unwrap(),
            "--cache",
            cache.to_str().unwrap(),
            "--shards",
            "1",
            "--quiet",
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let error = stderr(&out);
    assert!(
        error.contains("shard format 999") && error.contains("learner's release"),
        "{error}"
    );
    assert!(!run.join("incoming").exists(), "nothing was played");
    let _ = std::fs::remove_dir_all(&dir);
}
