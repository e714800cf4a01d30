//! Self-play and the search with an endgame database: games that reach it end with its result,
//! and the search takes its positions as finished instead of asking the network.

use damas_egdb::build::build;
use damas_egdb::{Egdb, Signature, Wdl};
use damas_mcts::{Evaluation, Evaluator, Leaf, RootNoise, Search, SearchConfig, UniformEvaluator};
use damas_rules::variants::Russian;
use damas_rules::{DrawReason, Game, Outcome, WinReason, parse_fen, read_games};
use damas_selfplay::{GameRecord, SelfPlayConfig, play_games};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

/// Russian tables up to three pieces, built once per test process; their root.
fn tables() -> &'static PathBuf {
    static ROOT: OnceLock<PathBuf> = OnceLock::new();
    ROOT.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("damas-selfplay-egdb-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        build::<Russian>(&dir, &Signature::up_to(3), |_, _, _| {}).unwrap();
        dir
    })
}

/// Two men each, a capture or two away from the tables.
const OPENING: &str = "W:Wc3,e3:Bd6,f6";

fn games(adjudicate: bool, search: bool) -> Vec<GameRecord> {
    let mut config = SelfPlayConfig {
        games_per_worker: 4,
        workers: 1,
        opening_plies: 2,
        max_plies: 200,
        egdb: Some(tables().clone()),
        egdb_adjudicate: adjudicate,
        egdb_search: search,
        ..SelfPlayConfig::default()
    };
    config.search.simulations = 16;
    let egdb = config.read_egdb::<Russian>().unwrap();
    let opening = parse_fen::<Russian>(OPENING).unwrap();
    let mut records = Vec::new();
    play_games::<Russian, _>(
        &config,
        &UniformEvaluator,
        8,
        3,
        "uniform",
        &[opening],
        egdb.as_ref(),
        |record| records.push(record),
    );
    records
}

#[test]
fn games_that_reach_the_tables_end_with_their_result() {
    let db = Egdb::<Russian>::open(tables()).unwrap();
    let records = games(true, false);
    assert_eq!(records.len(), 8);
    let mut adjudicated = 0;
    for record in &records {
        assert_eq!(record.database_hits, 0, "the search was told not to probe");
        if !record.database_result {
            continue;
        }
        adjudicated += 1;
        let game = read_games::<Russian>(&record.pdn).unwrap().remove(0);
        let last = game.game.position();
        let probe = db.probe(last).expect("the last position is in the tables");
        let expected = match probe.wdl {
            Wdl::Win => Outcome::Win {
                winner: last.turn(),
                reason: WinReason::Adjudication,
            },
            Wdl::Loss => Outcome::Win {
                winner: !last.turn(),
                reason: WinReason::Adjudication,
            },
            Wdl::Draw => Outcome::Draw(DrawReason::Adjudication),
        };
        assert_eq!(record.outcome, expected);
        // The samples' value targets are that result too: decided for both sides, or drawn.
        let decided = matches!(expected, Outcome::Win { .. });
        for sample in &record.samples {
            assert_eq!(sample.result != 0, decided, "{:?}", record.outcome);
        }
    }
    assert!(
        adjudicated >= 4,
        "{adjudicated} of 8 games reached the tables"
    );
}

#[test]
fn without_adjudication_the_search_still_probes() {
    let records = games(false, true);
    assert!(records.iter().all(|r| !r.database_result));
    let hits: u64 = records.iter().map(|r| r.database_hits).sum();
    assert!(hits > 0, "no search leaf was answered by the tables");
}

/// Counts the positions it is asked to evaluate.
#[derive(Default)]
struct Counting(AtomicU64);

impl Evaluator<Russian> for Counting {
    fn evaluate(&self, leaves: &[Leaf<'_, Russian>]) -> Vec<Evaluation> {
        self.0.fetch_add(leaves.len() as u64, Ordering::Relaxed);
        UniformEvaluator.evaluate(leaves)
    }
}

/// From a root in the tables, every leaf below it is answered by them: only the root is
/// evaluated, and the search's value has the tables' sign.
#[test]
fn the_search_takes_table_positions_as_finished() {
    let db = Arc::new(Egdb::<Russian>::open(tables()).unwrap());
    for (fen, wdl) in [("W:WKc1,Ke1:BKh8", Wdl::Draw), ("W:WKa1,Kc3:Bh6", Wdl::Win)] {
        let position = parse_fen::<Russian>(fen).unwrap();
        assert_eq!(db.probe(&position).unwrap().wdl, wdl, "{fen}");
        let config = SearchConfig {
            simulations: 200,
            ..SearchConfig::default()
        };
        let mut search = Search::new(Game::<Russian>::from_position(position), config, 1);
        search.set_egdb(Some(db.clone()));
        let counting = Counting::default();
        search.start(RootNoise::Off);
        search.run(&counting);
        let report = search.report();
        assert_eq!(counting.0.load(Ordering::Relaxed), 1, "{fen}");
        assert!(search.database_hits() > 0);
        match wdl {
            Wdl::Win => assert!(report.value > 0.9, "{fen}: {}", report.value),
            Wdl::Draw => assert!(report.value.abs() < 0.1, "{fen}: {}", report.value),
            Wdl::Loss => assert!(report.value < -0.9, "{fen}: {}", report.value),
        }
    }
}
