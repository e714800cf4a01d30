//! The engine with endgame tables: exact scores from the tables, progress in won endings, won
//! endings played to a win within the draw rules, and tables that agree with a deep search
//! without them on random positions.

use damas_egdb::build::build;
use damas_egdb::{Egdb, Signature, Wdl};
use damas_engine::{DATABASE_WIN, EngineConfig, Limits, MATE, MATE_BOUND, Searcher};
use damas_rules::variants::{English, Russian};
use damas_rules::{Bits, Color, Game, Outcome, Position, Rules};
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

/// The engine's score of a table position: 0 for a draw, `DATABASE_WIN` less its progress for
/// a win, the opposite for a loss.
fn table_score(db: &Egdb<English>, position: &Position<<English as Rules>::Geometry>) -> i32 {
    let probe = db.probe(position).unwrap();
    match probe.progress(Signature::of(position)) {
        None => 0,
        Some(progress) if probe.wdl == Wdl::Win => DATABASE_WIN - progress as i32,
        Some(progress) => -(DATABASE_WIN - progress as i32),
    }
}

/// With tables, a one-ply search scores every position as the tables score its best move, and
/// from a won position that move lowers the progress (the material's rank, then the plies to
/// the next conversion), so that a won ending is played to its end without going round.
#[test]
fn a_shallow_search_with_tables_scores_exactly_and_makes_progress() {
    let db = tables();
    let mut searcher = Searcher::<English>::new(EngineConfig::for_rules::<English>());
    searcher.set_egdb(Some(db.clone()));
    let mut won = 0;
    for position in random_positions(300) {
        let game = Game::<English>::from_position(position);
        let expected = game
            .legal_moves()
            .iter()
            .map(|mv| -table_score(&db, &position.after(mv)))
            .max()
            .unwrap();
        let result = searcher.search(&game, &Limits::depth(1), |_| {});
        assert_eq!(result.info.score, expected, "{position:?}");
        assert!(result.info.database_hits > 0);
        let probe = db.probe(&position).unwrap();
        assert_eq!(expected.signum(), table_score(&db, &position).signum());
        if probe.wdl == Wdl::Win {
            won += 1;
            let next = position.after(&result.best.unwrap());
            let before = probe.progress(Signature::of(&position)).unwrap();
            let after = db.probe(&next).unwrap().progress(Signature::of(&next));
            assert!(
                after.unwrap() < before,
                "{position:?}: {after:?} after {before}"
            );
        }
    }
    assert!(won >= 50, "{won} won positions");
}

/// Without tables, a search deep enough to reach the end of the game finds each short win or
/// loss with the tables' sign, never sooner than the tables' distance to the next conversion
/// (a game cannot end before its next capture or promotion unless that is its end), and never
/// a forced result where the tables see a draw.
#[test]
fn tables_agree_with_a_deep_search_without_them() {
    let db = tables();
    let mut searcher = Searcher::<English>::new(EngineConfig::for_rules::<English>());
    let (mut decided, mut drawn, mut equal) = (0, 0, 0);
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
            (wdl, Some(d)) if d <= 11 => {
                let found = score(&mut searcher, position, 15);
                if found.abs() <= MATE_BOUND {
                    continue; // the end is further than the search looked
                }
                decided += 1;
                assert_eq!(
                    found > 0,
                    wdl == Wdl::Win,
                    "{wdl}: {position:?} scored {found}"
                );
                let to_end = (MATE - found.abs()) as u32;
                assert!(
                    to_end >= d,
                    "{wdl} ends in {to_end} plies, converts in {d}: {position:?}"
                );
                equal += usize::from(to_end == d);
            }
            _ => {}
        }
    }
    assert!(
        decided >= 50 && drawn >= 20 && equal > 0 && equal < decided,
        "{decided} decided ({equal} ending at their conversion), {drawn} drawn"
    );
}

/// Russian draughts: three kings against one must win within 15 moves (the FMJD rules of
/// Russian draughts), that is before the material changes. From the tables' longest such win the
/// engine with the tables, playing both sides under the game's own draw rules, wins it: the
/// winner converts as fast as the tables allow and the loser holds out as long as it can, so the
/// material first changes exactly at the tables' distance (the lone king taken, or a king given
/// up to win the rest).
#[test]
fn the_longest_win_of_three_kings_against_one_is_played_out_within_the_rule() {
    let dir = std::env::temp_dir().join(format!("damas-engine-egdb-3k1k-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let signature: Signature = "w0.3-b0.1".parse().unwrap();
    let (db, _) = build::<Russian>(&dir, &[signature], |_, _, _| {}).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    let table = db.table(signature).unwrap();
    let size = table.indexer().size();
    let (slot, longest) = table
        .values()
        .iter()
        .take(size as usize)
        .enumerate()
        .filter_map(|(slot, &bits)| {
            let value = damas_egdb::Value::from_bits(bits);
            (value.wdl() == Some(Wdl::Win)).then(|| (slot, value.plies().unwrap()))
        })
        .max_by_key(|&(_, plies)| plies)
        .unwrap();
    assert!(longest > 20 && longest <= 30, "{longest}");
    let start = table.indexer().decode(slot as u64, Color::White).unwrap();
    let mut searcher = Searcher::<Russian>::new(EngineConfig::for_rules::<Russian>());
    searcher.set_egdb(Some(Arc::new(db)));
    let mut game = Game::<Russian>::from_position(start);
    let mut converted = None;
    while game.outcome().is_none() {
        searcher.clear();
        let best = searcher
            .search(&game, &Limits::depth(3), |_| {})
            .best
            .unwrap();
        game.play(&best);
        if converted.is_none() && Signature::of(game.position()) != signature {
            converted = Some(game.ply());
        }
    }
    assert!(
        matches!(
            game.outcome(),
            Some(Outcome::Win {
                winner: Color::White,
                ..
            })
        ),
        "{:?} after {} plies",
        game.outcome(),
        game.ply()
    );
    assert_eq!(converted, Some(longest));
}
