//! The engine with endgame tables: exact scores from the tables, and tables that agree with a
//! deep search without them on random positions.

use damas_egdb::build::build;
use damas_egdb::{Egdb, Signature, Wdl};
use damas_engine::{EngineConfig, Limits, MATE, MATE_BOUND, Searcher};
use damas_rules::variants::English;
use damas_rules::{Bits, Game, Position, Rules};
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

/// English tables up to three pieces, built once (per test process) in a temporary directory.
fn tables() -> Arc<Egdb<English>> {
    static TABLES: OnceLock<Arc<Egdb<English>>> = OnceLock::new();
    TABLES
        .get_or_init(|| {
            let dir: PathBuf =
                std::env::temp_dir().join(format!("damas-engine-egdb-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            let (db, _) = build::<English>(&dir, &Signature::up_to(3), |_, _, _| {}).unwrap();
            let _ = std::fs::remove_dir_all(&dir);
            Arc::new(db)
        })
        .clone()
}

/// `count` positions of two or three pieces drawn from the tables by a fixed generator, each
/// with a legal move.
fn random_positions(count: usize) -> Vec<Position<<English as Rules>::Geometry>> {
    let positions =
        damas_egdb::bench::random_positions(&tables(), count, 0x2545_F491_4F6C_DD1D, |p| {
            p.occupied().count() >= 2
                && !Game::<English>::from_position(*p).legal_moves().is_empty()
        });
    assert_eq!(positions.len(), count);
    positions
}

fn score(
    searcher: &mut Searcher<English>,
    position: Position<<English as Rules>::Geometry>,
    depth: u32,
) -> i32 {
    searcher.clear();
    let game = Game::<English>::from_position(position);
    searcher
        .search(&game, &Limits::depth(depth), |_| {})
        .info
        .score
}

/// With tables, a one-ply search scores every position exactly as the tables do: a win in `d`
/// plies is `MATE - d` (English has no move-count rule a 3-piece win can reach).
#[test]
fn a_shallow_search_with_tables_scores_exactly() {
    let db = tables();
    let mut searcher = Searcher::<English>::new(EngineConfig::for_rules::<English>());
    searcher.set_egdb(Some(db.clone()));
    for position in random_positions(300) {
        let probe = db.probe(&position).unwrap();
        let expected = match (probe.wdl, probe.plies) {
            (Wdl::Draw, _) => 0,
            (Wdl::Win, Some(d)) => MATE - d as i32,
            (Wdl::Loss, Some(d)) => -(MATE - d as i32),
            other => panic!("a decided value without a distance: {other:?}"),
        };
        let game = Game::<English>::from_position(position);
        let result = searcher.search(&game, &Limits::depth(1), |_| {});
        assert_eq!(result.info.score, expected, "{position:?}");
        assert!(result.info.database_hits > 0);
    }
}

/// Without tables, a search deep enough to reach the end of the game finds each short win or
/// loss at exactly the tables' distance, and never a forced result where the tables see a draw.
#[test]
fn tables_agree_with_a_deep_search_without_them() {
    let db = tables();
    let mut searcher = Searcher::<English>::new(EngineConfig::for_rules::<English>());
    let (mut decided, mut drawn) = (0, 0);
    for position in random_positions(400) {
        let probe = db.probe(&position).unwrap();
        match (probe.wdl, probe.plies) {
            (Wdl::Draw, _) if drawn < 40 => {
                drawn += 1;
                let found = score(&mut searcher, position, 14);
                assert!(
                    found.abs() < MATE_BOUND,
                    "a draw scored {found}: {position:?}"
                );
            }
            (wdl, Some(d)) if d <= 13 => {
                decided += 1;
                let found = score(&mut searcher, position, d + 2);
                let expected = if wdl == Wdl::Win {
                    MATE - d as i32
                } else {
                    -(MATE - d as i32)
                };
                assert_eq!(found, expected, "{wdl} in {d}: {position:?}");
            }
            _ => {}
        }
    }
    assert!(
        decided >= 50 && drawn >= 20,
        "{decided} decided, {drawn} drawn"
    );
}
