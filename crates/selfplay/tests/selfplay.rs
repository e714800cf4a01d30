//! Shards round-trip and reject damage; configs reject unknown keys; games from the loop are
//! legal, complete and consistent with their samples.

use damas_mcts::{StaticEvaluator, UniformEvaluator};
use damas_nn::DeviceChoice;
use damas_rules::variants::{English, Russian};
use damas_rules::{Outcome, read_games};
use damas_selfplay::{
    GameRecord, Sample, SelfPlayConfig, Shard, ShardError, ShardHeader, ShardWriter,
    material_balance, play_games,
};
use std::path::PathBuf;

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("damas-selfplay-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn quick_config() -> SelfPlayConfig {
    let mut config = SelfPlayConfig {
        games_per_worker: 3,
        workers: 2,
        max_plies: 120,
        resign_check_fraction: 0.5,
        fast_simulations: 4,
        full_search_fraction: 0.5,
        ..SelfPlayConfig::default()
    };
    config.search.simulations = 16;
    config
}

fn some_games(count: u32) -> Vec<GameRecord> {
    let mut records = Vec::new();
    play_games::<Russian, _>(
        &quick_config(),
        &UniformEvaluator,
        count,
        5,
        "uniform",
        &[],
        None,
        |record| records.push(record),
    );
    records
}

#[test]
fn games_are_legal_and_samples_match_their_results() {
    let records = some_games(6);
    assert_eq!(records.len(), 6);
    let mut indices: Vec<u32> = records.iter().map(|r| r.index).collect();
    indices.sort_unstable();
    assert_eq!(indices, (0..6).collect::<Vec<_>>());
    for record in &records {
        // The PDN replays (every move checked by the reader) to the same length.
        let games = read_games::<Russian>(&record.pdn).expect("valid PDN");
        assert_eq!(games.len(), 1);
        assert_eq!(games[0].game.ply(), record.plies);
        assert_eq!(
            games[0].result.as_deref(),
            Some(
                record
                    .outcome
                    .pdn_result::<<Russian as damas_rules::Rules>::Geometry>()
            )
        );
        let end = games[0].game.position();
        for sample in &record.samples {
            // The auxiliary targets are read off the game's last position.
            let aux = sample.aux.expect("new samples carry auxiliary targets");
            assert_eq!(
                u32::from(sample.ply) + u32::from(aux.plies_left),
                record.plies
            );
            let side = if sample.ply % 2 == 0 {
                damas_rules::Color::White
            } else {
                damas_rules::Color::Black
            };
            assert_eq!(i32::from(aux.material), material_balance(end, side));
            let total: f32 = sample.policy.iter().map(|p| p.1).sum();
            assert!((total - 1.0).abs() < 1e-4, "policy sums to {total}");
            assert!(sample.policy.len() > 1, "forced moves are not recorded");
            assert!(sample.search_value.abs() <= 1.0);
            match record.outcome {
                Outcome::Draw(_) => assert_eq!(sample.result, 0),
                Outcome::Win { .. } => assert_eq!(sample.result.abs(), 1),
            }
        }
        // Consecutive samples from different sides have opposite results in a decisive game.
        if let Outcome::Win { .. } = record.outcome {
            for pair in record.samples.windows(2) {
                if (pair[1].ply - pair[0].ply) % 2 == 1 {
                    assert_eq!(pair[0].result, -pair[1].result);
                }
            }
        }
    }
}

#[test]
fn shards_round_trip_and_damage_is_detected() {
    let dir = temp_dir("shards");
    let mut writer =
        ShardWriter::new::<Russian>(&dir.join("shards"), &dir.join("games"), "gen", "uniform", 2)
            .with_generation(7);
    let records = some_games(4);
    let samples: usize = records.iter().map(|r| r.samples.len()).sum();
    let plies: u64 = records.iter().map(|r| u64::from(r.plies)).sum();
    for record in records {
        writer.add(record).unwrap();
    }
    writer.flush().unwrap();
    let written = writer.written().to_vec();
    assert_eq!(written.len(), 2);
    let read: Vec<Shard> = written
        .iter()
        .map(|p| Shard::read_for::<Russian>(p).unwrap())
        .collect();
    assert_eq!(read.iter().map(|s| s.samples.len()).sum::<usize>(), samples);
    assert_eq!(read[0].header.games, 2);
    // Each shard's header carries its own games' plies and results, and the generation.
    assert_eq!(read.iter().map(|s| s.header.plies).sum::<u64>(), plies);
    for shard in &read {
        assert_eq!(shard.header.results.iter().sum::<u32>(), 2);
        assert_eq!(shard.header.generation, Some(7));
    }

    let bytes = std::fs::read(&written[0]).unwrap();
    let path = dir.join("damaged.shard");
    std::fs::write(&path, &bytes[..bytes.len() - 7]).unwrap();
    assert!(matches!(
        Shard::read(&path),
        Err(ShardError::Corrupt { .. })
    ));
    let mut flipped = bytes.clone();
    let middle = flipped.len() / 2;
    flipped[middle] ^= 0x40;
    std::fs::write(&path, &flipped).unwrap();
    assert!(matches!(
        Shard::read(&path),
        Err(ShardError::Corrupt { .. })
    ));
    std::fs::write(&path, b"DAMA").unwrap();
    let error = Shard::read(&path).unwrap_err();
    assert!(matches!(error, ShardError::NotAShard { .. }));
    assert!(error.to_string().contains("damaged.shard"));
    let wrong = Shard::read_for::<English>(&written[0]).unwrap_err();
    assert!(wrong.to_string().contains("russian"), "{wrong}");

    let mut other = read[0].clone();
    other.header = ShardHeader {
        encoding_version: 99,
        ..other.header
    };
    std::fs::write(&path, other.to_bytes()).unwrap();
    let version = Shard::read(&path).unwrap_err();
    assert!(
        version.to_string().contains("encoding version 99"),
        "{version}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn configs_reject_unknown_keys_and_fill_defaults() {
    let dir = temp_dir("config");
    let path = dir.join("selfplay.toml");
    std::fs::write(&path, "fast_simulations = 8\n[search]\nsimulations = 50\n").unwrap();
    let config = SelfPlayConfig::read(&path, DeviceChoice::Cpu).unwrap();
    assert_eq!(config.fast_simulations, 8);
    assert_eq!(config.search.simulations, 50);
    assert_eq!(config.max_plies, SelfPlayConfig::default().max_plies);

    std::fs::write(&path, "fast_simulations = 8\n[search]\nsimulatons = 50\n").unwrap();
    let error = SelfPlayConfig::read(&path, DeviceChoice::Cpu)
        .unwrap_err()
        .to_string();
    assert!(error.contains("simulatons"), "{error}");
    assert!(error.contains("selfplay.toml"), "{error}");
    std::fs::write(&path, "fast_simulations = \"many\"\n").unwrap();
    let error = SelfPlayConfig::read(&path, DeviceChoice::Cpu)
        .unwrap_err()
        .to_string();
    assert!(error.contains("fast_simulations"), "{error}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn batch_sizes_follow_the_device_unless_the_file_sets_them() {
    let cpu = SelfPlayConfig::parse("", DeviceChoice::Cpu).unwrap();
    assert_eq!(cpu, SelfPlayConfig::default());
    let gpu = SelfPlayConfig::parse("", DeviceChoice::Wgpu).unwrap();
    assert!(gpu.games_per_worker > cpu.games_per_worker);
    assert!(gpu.search.leaves_per_batch > cpu.search.leaves_per_batch);
    assert_eq!(gpu, SelfPlayConfig::defaults_for(DeviceChoice::Cuda(1)));
    let text = "games_per_worker = 3\n[search]\nleaves_per_batch = 2\n";
    let given = SelfPlayConfig::parse(text, DeviceChoice::Wgpu).unwrap();
    assert_eq!(
        (given.games_per_worker, given.search.leaves_per_batch),
        (3, 2)
    );
}

#[test]
fn material_adjudication_ends_decided_games_early() {
    // White has eight men against Black's two, too far apart to meet within four plies:
    // decided, but a know-nothing search sees values of 0 and never resigns.
    let start = damas_rules::parse_fen::<Russian>("W:W21,22,23,24,25,26,27,28:B1,2").unwrap();
    let play = |margin: u32| {
        let config = SelfPlayConfig {
            adjudicate_material: margin,
            resign_check_fraction: 0.0,
            resign_moves: 2,
            opening_plies: 0,
            ..quick_config()
        };
        let mut records = Vec::new();
        play_games::<Russian, _>(
            &config,
            &UniformEvaluator,
            4,
            9,
            "uniform",
            &[start],
            None,
            |record| records.push(record),
        );
        records
    };
    for record in play(4) {
        assert!(
            matches!(
                record.outcome,
                Outcome::Win {
                    winner: damas_rules::Color::White,
                    reason: damas_rules::WinReason::Resignation
                }
            ),
            "{:?}",
            record.outcome
        );
        // Black resigns at its second move behind: by ply 4.
        assert!(record.plies <= 4, "{} plies", record.plies);
    }
    for record in play(0) {
        assert!(
            record.plies > 4,
            "{} plies without adjudication",
            record.plies
        );
    }
}

/// Found by the fuzzer: a header whose variant name claims 4 GB, with a checksum that matches,
/// aborted the process (bincode allocated the string before reading it). It is a decode error.
#[test]
fn a_shard_claiming_a_huge_length_is_refused_before_allocating() {
    let mut body = vec![1u8, 252];
    body.extend_from_slice(&4_000_000_000u32.to_le_bytes());
    body.extend_from_slice(b"russian");
    let mut bytes = damas_selfplay::shard::MAGIC.to_vec();
    bytes.extend_from_slice(&crc32fast::hash(&body).to_le_bytes());
    bytes.extend_from_slice(&body);
    let error = Shard::from_bytes(&bytes, std::path::Path::new("huge.shard")).unwrap_err();
    let text = error.to_string();
    assert!(text.contains("huge.shard"), "{text}");
}

/// A sample as versions 1 and 2 wrote it: no auxiliary targets.
#[derive(serde::Serialize)]
struct SampleV2 {
    position: damas_nn::PackedPosition,
    policy: Vec<(u16, f32)>,
    result: i8,
    search_value: f32,
    ply: u16,
}

/// The samples of one game as a version 1 or 2 shard holds them, and as they read back.
fn old_samples() -> (Vec<SampleV2>, Vec<Sample>) {
    let samples: Vec<Sample> = some_games(1).remove(0).samples;
    assert!(samples.iter().all(|s| s.aux.is_some()));
    let old = samples
        .iter()
        .map(|s| SampleV2 {
            position: s.position,
            policy: s.policy.clone(),
            result: s.result,
            search_value: s.search_value,
            ply: s.ply,
        })
        .collect();
    let read = samples
        .into_iter()
        .map(|s| Sample { aux: None, ..s })
        .collect();
    (old, read)
}

fn shard_bytes(body: &impl serde::Serialize) -> Vec<u8> {
    let body = bincode::serde::encode_to_vec(body, bincode::config::standard()).unwrap();
    let mut bytes = b"DAMASHRD".to_vec();
    bytes.extend_from_slice(&crc32fast::hash(&body).to_le_bytes());
    bytes.extend_from_slice(&body);
    bytes
}

#[test]
fn a_version_1_shard_still_reads() {
    // Version 1's layout, as the program wrote it before shards carried the generation.
    #[derive(serde::Serialize)]
    struct HeaderV1 {
        format: u32,
        variant: String,
        encoding_version: u32,
        model: String,
        games: u32,
    }
    #[derive(serde::Serialize)]
    struct ShardV1 {
        header: HeaderV1,
        samples: Vec<SampleV2>,
    }
    let (samples, expected) = old_samples();
    let old = ShardV1 {
        header: HeaderV1 {
            format: 1,
            variant: "russian".into(),
            encoding_version: damas_nn::ENCODING_VERSION,
            model: "uniform".into(),
            games: 1,
        },
        samples,
    };
    let shard = Shard::from_bytes(&shard_bytes(&old), std::path::Path::new("old.shard")).unwrap();
    assert_eq!(shard.header.format, 1);
    assert_eq!(shard.header.generation, None);
    assert_eq!(shard.samples, expected);
}

#[test]
fn a_version_2_shard_still_reads() {
    // Version 2's layout, as the program wrote it before samples carried auxiliary targets.
    #[derive(serde::Serialize)]
    struct ShardV2 {
        header: ShardHeader,
        samples: Vec<SampleV2>,
    }
    let (samples, expected) = old_samples();
    let header = ShardHeader {
        format: 2,
        variant: "russian".into(),
        encoding_version: damas_nn::ENCODING_VERSION,
        model: "uniform".into(),
        games: 1,
        generation: Some(4),
        plies: 80,
        results: [0, 1, 0],
    };
    let old = ShardV2 {
        header: header.clone(),
        samples,
    };
    let shard = Shard::from_bytes(&shard_bytes(&old), std::path::Path::new("old.shard")).unwrap();
    assert_eq!(shard.header, header);
    assert_eq!(shard.samples, expected);
}

#[test]
fn engine_games_record_the_engines_moves_and_the_results() {
    use damas_selfplay::engine_games::score_to_value;
    use damas_selfplay::{EngineGames, play_engine_games};
    let settings = EngineGames {
        depth: 2,
        opening_plies: 6,
        max_plies: 150,
        workers: 2,
    };
    let mut records = Vec::new();
    play_engine_games::<Russian>(&settings, 4, 3, "alphabeta:depth=2", &[], |r| {
        records.push(r)
    });
    assert_eq!(records.len(), 4);
    let mut pdns: Vec<&str> = records.iter().map(|r| r.pdn.as_str()).collect();
    pdns.sort_unstable();
    pdns.dedup();
    assert_eq!(
        pdns.len(),
        4,
        "the random openings make four different games"
    );
    for record in &records {
        let games = read_games::<Russian>(&record.pdn).expect("valid PDN");
        assert_eq!(games[0].game.ply(), record.plies);
        assert!(!record.samples.is_empty());
        for sample in &record.samples {
            // The policy target is the engine's one move.
            assert_eq!(sample.policy.len(), 1, "{:?}", sample.policy);
            assert_eq!(sample.policy[0].1, 1.0);
            assert!(sample.search_value.abs() <= 1.0);
            assert!(u32::from(sample.ply) >= settings.opening_plies);
            let aux = sample.aux.expect("auxiliary targets");
            assert_eq!(
                u32::from(sample.ply) + u32::from(aux.plies_left),
                record.plies
            );
            match record.outcome {
                Outcome::Draw(_) => assert_eq!(sample.result, 0),
                Outcome::Win { .. } => assert_eq!(sample.result.abs(), 1),
            }
        }
    }
    assert_eq!(score_to_value(0), 0.0);
    assert_eq!(score_to_value(damas_engine::MATE - 3), 1.0);
    assert_eq!(score_to_value(-(damas_engine::MATE - 3)), -1.0);
    assert!((score_to_value(300) - 0.7616).abs() < 1e-3);
}

/// Gumbel self-play's cheap searches draw their moves (Gumbel noise, no Dirichlet), so games
/// differ beyond the first move. Without the draw every cheap search was the argmax of the
/// priors and the 16 games below had at most as many openings as Russian has first moves (7).
#[test]
fn gumbel_self_play_varies_its_games_in_cheap_searches() {
    let mut config = SelfPlayConfig {
        games_per_worker: 4,
        workers: 2,
        max_plies: 12,
        opening_plies: 0,
        fast_simulations: 8,
        full_search_fraction: 0.0,
        resign_check_fraction: 0.0,
        ..SelfPlayConfig::default()
    };
    config.search.simulations = 16;
    config.search.gumbel = true;
    let mut openings = std::collections::BTreeSet::new();
    play_games::<Russian, _>(
        &config,
        &StaticEvaluator::<Russian>::default(),
        16,
        7,
        "static",
        &[],
        None,
        |record| {
            let plies: Vec<String> = record
                .pdn
                .lines()
                .filter(|line| !line.starts_with('['))
                .flat_map(str::split_whitespace)
                .filter(|token| !token.ends_with('.'))
                .take(8)
                .map(String::from)
                .collect();
            openings.insert(plies);
        },
    );
    assert!(
        openings.len() >= 12,
        "{} distinct 8-ply openings of 16",
        openings.len()
    );
}

/// The temperature applies to the first `temperature_plies` searched plies, after the random
/// opening ones (which were counted before, leaving 12 sampled plies of the shipped 16).
#[test]
fn the_temperature_counts_searched_plies() {
    let config = SelfPlayConfig {
        temperature: 0.8,
        temperature_plies: 16,
        opening_plies: 4,
        ..SelfPlayConfig::default()
    };
    assert_eq!(config.move_temperature(0), 0.8);
    assert_eq!(config.move_temperature(15), 0.8);
    assert_eq!(config.move_temperature(16), 0.0);
}

/// A newer program's shard is reported as a version it cannot read, whatever its layout after
/// the format number, not as damage.
#[test]
fn a_shard_of_a_newer_format_is_a_version_error() {
    let future = damas_selfplay::shard::SHARD_FORMAT + 1;
    let bytes = shard_bytes(&(future, "a layout this program does not know", [1u8, 2, 3]));
    let error = Shard::from_bytes(&bytes, std::path::Path::new("new.shard")).unwrap_err();
    assert!(
        matches!(error, ShardError::WrongVersion { found, .. } if found == future),
        "{error}"
    );
}
