//! A ladder: reference players (rungs) of one variant, rated once against each other and kept
//! in a file, so that any other player is rated from its own games against the few rungs
//! nearest its strength (a bracket search) instead of a tournament with all of them.
//!
//! - [`build_ladder`] plays each rung against the next `reach` rungs of its list (one match
//!   directory per pair, so a stopped build resumes), fits the ratings with the first rung at
//!   0 and returns the [`Ladder`] that `ladders/<variant>.json` keeps.
//! - [`rate_on_ladder`] fits one player's rating with the rungs held at theirs (its interval
//!   from its own games).
//! - [`next_rung`] picks the rung to meet next; [`climb`] plays that bracket to its end.

use crate::elo::{EloEstimate, Wdl, fit_ratings, score_from_elo, signed_elo};
use crate::spec::{PlayerSpec, SpecError};
use crate::store::slug;
use crate::tournament::{ArenaError, ArenaOptions, MatchOptions, Progress, play_match};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The rungs `damas ladder build` uses unless told otherwise: the engine at fixed depths, then
/// at fixed times per move up to a second. Pairs are made in this order, so it should run
/// from weak to strong (depth 12 and the times are interleaved by the fit, not by the list).
pub const DEFAULT_RUNGS: &[&str] = &[
    "alphabeta:depth=1",
    "alphabeta:depth=2",
    "alphabeta:depth=3",
    "alphabeta:depth=4",
    "alphabeta:depth=5",
    "alphabeta:depth=6",
    "alphabeta:depth=7",
    "alphabeta:depth=8",
    "alphabeta:depth=10",
    "alphabeta:depth=12",
    "alphabeta:time=0.01",
    "alphabeta:time=0.03",
    "alphabeta:time=0.1",
    "alphabeta:time=0.3",
    "alphabeta:time=1",
];

/// How a ladder is built.
#[derive(Clone, Debug)]
pub struct LadderOptions {
    /// The variant, openings, players' settings and game rules; `out` is the root of the
    /// pairs' match directories (`<out>/<variant>/<first>_vs_<second>`).
    pub arena: ArenaOptions,
    /// The rungs' player strings, weakest first.
    pub rungs: Vec<String>,
    /// Each rung meets this many rungs after it in the list.
    pub reach: usize,
    /// Games per pair (each opening twice, colours swapped).
    pub games: u32,
    /// Games at once when a player thinks by the clock (fewer than `arena.concurrency`, so
    /// that timed players do not share cores).
    pub timed_concurrency: usize,
}

/// One rung and its rating.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RatedRung {
    /// The player string, in its canonical spelling.
    pub player: String,
    /// Its rating, the first rung at 0.
    pub rating: EloEstimate,
}

/// The results of one pair of rungs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PairResult {
    /// The first player (earlier in the list).
    pub first: String,
    /// The second player.
    pub second: String,
    /// The first player's results.
    pub result: Wdl,
}

/// A rated ladder, as `ladders/<variant>.json` keeps it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Ladder {
    /// The variant.
    pub variant: String,
    /// The rungs in list order, with their ratings.
    pub rungs: Vec<RatedRung>,
    /// Every pair's results, from which the ratings were fitted.
    pub pairs: Vec<PairResult>,
    /// Each rung met this many rungs after it.
    pub reach: usize,
    /// Games per pair.
    pub games_per_pair: u32,
    /// Random plies of the balanced openings.
    pub opening_plies: u32,
    /// Games longer than this were drawn.
    pub max_plies: u32,
    /// Seed of the openings and players.
    pub seed: u64,
    /// The machine the games were played on (time rungs are as strong as the machine).
    pub machine: String,
}

impl Ladder {
    /// The rungs' ratings (Elo), in list order.
    pub fn elos(&self) -> Vec<f64> {
        self.rungs.iter().map(|r| r.rating.elo).collect()
    }

    /// The index of a rung, found by its player string in any spelling.
    pub fn position(&self, player: &str) -> Option<usize> {
        let name = canonical(player).ok()?;
        self.rungs.iter().position(|r| r.player == name)
    }

    /// The rungs ordered by rating, strongest first, with their games: `rank player Elo
    /// interval games score`.
    pub fn table(&self) -> String {
        let mut order: Vec<usize> = (0..self.rungs.len()).collect();
        order.sort_by(|&a, &b| {
            self.rungs[b]
                .rating
                .elo
                .total_cmp(&self.rungs[a].rating.elo)
        });
        let width = self.rungs.iter().map(|r| r.player.len()).max().unwrap_or(6);
        let mut text = format!(
            "{} ladder: {} rungs, {} games per pair, each rung against the next {} (played on {})\n",
            self.variant,
            self.rungs.len(),
            self.games_per_pair,
            self.reach,
            self.machine
        );
        text += &format!(
            "{:>3} {:<width$} {:>6} {:>13} {:>6} {:>6}\n",
            "#", "rung", "Elo", "95% interval", "games", "score"
        );
        for (rank, &i) in order.iter().enumerate() {
            let rung = &self.rungs[i];
            let mut total = Wdl::default();
            for pair in &self.pairs {
                if pair.first == rung.player {
                    total += pair.result;
                } else if pair.second == rung.player {
                    total += pair.result.reversed();
                }
            }
            let r = rung.rating;
            let interval = if r.low == r.high {
                "(anchor)".to_string()
            } else {
                format!("{}..{}", signed_elo(r.low), signed_elo(r.high))
            };
            text += &format!(
                "{:>3} {:<width$} {:>6} {:>13} {:>6} {:>5.1}%\n",
                rank + 1,
                rung.player,
                signed_elo(r.elo),
                interval,
                total.games(),
                100.0 * total.score()
            );
        }
        text
    }
}

/// A player string in its canonical spelling.
fn canonical(player: &str) -> Result<String, SpecError> {
    Ok(player.parse::<PlayerSpec>()?.to_string())
}

/// Whether a player thinks by the clock (so that games at once would slow it down).
pub fn is_timed(spec: &PlayerSpec) -> bool {
    match spec {
        PlayerSpec::Net { time, .. } => time.is_some(),
        PlayerSpec::AlphaBeta { limits, .. } => limits.move_time.is_some(),
        PlayerSpec::Random => false,
        PlayerSpec::Hub(_) | PlayerSpec::Dxp(_) => true,
    }
}

/// The pairs a ladder of `rungs` plays: each rung with the next `reach`.
pub fn ladder_pairs(rungs: usize, reach: usize) -> Vec<(usize, usize)> {
    (0..rungs)
        .flat_map(|a| (a + 1..rungs.min(a + 1 + reach)).map(move |b| (a, b)))
        .collect()
}

/// The match directory of two players under `root`: `<root>/<first>_vs_<second>`, each name
/// as a file-system-safe slug.
pub fn pair_dir(root: &Path, first: &str, second: &str) -> PathBuf {
    root.join(format!("{}_vs_{}", slug(first), slug(second)))
}

/// The CPU this runs on, as `/proc/cpuinfo` names it, and its number of threads.
pub fn describe_machine() -> String {
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|text| {
            text.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, name)| name.trim().to_string())
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_string());
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    format!("{model}, {threads} threads")
}

/// Plays (or resumes) every pair of the ladder and fits its ratings, the first rung at 0;
/// `on_game` sees each pair's progress (the pair's two names, then the match's progress).
pub fn build_ladder(
    options: &LadderOptions,
    on_game: &mut dyn FnMut(&str, &Progress),
) -> Result<Ladder, ArenaError> {
    if options.rungs.len() < 2 {
        return Err(ArenaError::TooFewPlayers);
    }
    let names: Vec<String> = options
        .rungs
        .iter()
        .map(|r| canonical(r))
        .collect::<Result<_, _>>()?;
    crate::tournament::refuse_duplicates(&names)?;
    let root = options.arena.out.join(slug(options.arena.variant.name()));
    let mut table = vec![vec![Wdl::default(); names.len()]; names.len()];
    let mut pairs = Vec::new();
    for (a, b) in ladder_pairs(names.len(), options.reach.max(1)) {
        let result = play_pair(
            &options.arena,
            options.games,
            options.timed_concurrency,
            [names[a].clone(), names[b].clone()],
            pair_dir(&root, &names[a], &names[b]),
            on_game,
        )?;
        table[a][b] += result;
        table[b][a] += result.reversed();
        pairs.push(PairResult {
            first: names[a].clone(),
            second: names[b].clone(),
            result,
        });
    }
    let ratings = fit_ratings(&table, 0, 1.0);
    Ok(Ladder {
        variant: options.arena.variant.name().to_string(),
        rungs: names
            .into_iter()
            .zip(ratings)
            .map(|(player, rating)| RatedRung { player, rating })
            .collect(),
        pairs,
        reach: options.reach.max(1),
        games_per_pair: options.games,
        opening_plies: options.arena.opening_plies,
        max_plies: options.arena.rules.max_plies,
        seed: options.arena.seed,
        machine: describe_machine(),
    })
}

/// One ladder match between `players`, `games` games played into `out` (resumed if it holds
/// games); one at a time up to `timed_concurrency` when either thinks by the clock.
fn play_pair(
    arena: &ArenaOptions,
    games: u32,
    timed_concurrency: usize,
    players: [String; 2],
    out: PathBuf,
    on_game: &mut dyn FnMut(&str, &Progress),
) -> Result<Wdl, ArenaError> {
    let label = format!("{} vs {}", players[0], players[1]);
    let mut arena = arena.clone();
    arena.out = out;
    for player in &players {
        if is_timed(&player.parse()?) {
            arena.concurrency = arena.concurrency.min(timed_concurrency.max(1));
        }
    }
    let summary = play_match(
        &MatchOptions {
            arena,
            players,
            games,
            sprt: None,
        },
        &mut |p| on_game(&label, p),
    )?;
    Ok(summary.first)
}

/// Reads a ladder file.
pub fn read_ladder(path: &Path) -> Result<Ladder, LadderFileError> {
    let text = std::fs::read_to_string(path).map_err(|source| LadderFileError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    serde_json::from_str(&text).map_err(|source| LadderFileError::Format {
        path: path.to_path_buf(),
        source,
    })
}

/// Writes a ladder file (atomically: a stopped write leaves the old one).
pub fn write_ladder(path: &Path, ladder: &Ladder) -> Result<(), LadderFileError> {
    let text = serde_json::to_string_pretty(ladder).expect("a ladder serializes");
    damas_nn::write_atomically(path, text.as_bytes()).map_err(|source| LadderFileError::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// Why a ladder file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum LadderFileError {
    /// It could not be read or written.
    #[error("ladder file {path}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The system's reason.
        #[source]
        source: std::io::Error,
    },
    /// It is not a ladder.
    #[error("{path} is not a ladder file")]
    Format {
        /// The file.
        path: PathBuf,
        /// What the parser found.
        #[source]
        source: serde_json::Error,
    },
}

/// The rating of a player from its results against the rungs of `ladder` (results as
/// (rung index, the player's results)), the rungs held at their ratings: maximum likelihood
/// under the logistic model, with one virtual draw against the rungs' mean (weighted by
/// games), which keeps a perfect score finite. The 95% interval comes from the player's own
/// games: it says where the player stands among the rungs it met. Their own ratings are
/// uncertain relative to the ladder's anchor too (the ladder file gives each rung's interval),
/// but that uncertainty is shared by everything rated on the ladder and does not blur a
/// comparison between two players, or between a player and a rung.
pub fn rate_on_ladder(ladder: &[EloEstimate], results: &[(usize, Wdl)]) -> EloEstimate {
    let k = 10f64.ln() / 400.0;
    let games: f64 = results.iter().map(|(_, w)| w.games() as f64).sum();
    if games == 0.0 {
        return EloEstimate {
            elo: 0.0,
            low: f64::NEG_INFINITY,
            high: f64::INFINITY,
        };
    }
    let centre = results
        .iter()
        .map(|(i, w)| ladder[*i].elo * w.games() as f64)
        .sum::<f64>()
        / games;
    // (opponent rating, points, games), the prior's virtual draw last.
    let mut terms: Vec<(f64, f64, f64)> = results
        .iter()
        .map(|(i, w)| {
            let points = w.wins as f64 + 0.5 * w.draws as f64;
            (ladder[*i].elo, points, w.games() as f64)
        })
        .collect();
    terms.push((centre, 0.5, 1.0));
    let information = |rating: f64| {
        terms
            .iter()
            .map(|&(opponent, _, n)| {
                let expected = score_from_elo(rating - opponent);
                n * expected * (1.0 - expected)
            })
            .sum::<f64>()
    };
    let mut rating = centre;
    for _ in 0..200 {
        let gradient: f64 = terms
            .iter()
            .map(|&(opponent, points, n)| points - n * score_from_elo(rating - opponent))
            .sum();
        let step = (gradient / (information(rating) * k)).clamp(-400.0, 400.0);
        rating += step;
        if step.abs() < 1e-7 {
            break;
        }
    }
    let margin = 1.959_964 / (k * information(rating).max(1e-12).sqrt());
    EloEstimate {
        elo: rating,
        low: rating - margin,
        high: rating + margin,
    }
}

/// The rung a player rated `estimate` meets next: of those it has not met (`met`), the one
/// rated nearest the estimate; none when it has met them all.
pub fn next_rung(ladder: &[EloEstimate], met: &[usize], estimate: f64) -> Option<usize> {
    (0..ladder.len())
        .filter(|i| !met.contains(i))
        .min_by(|&a, &b| {
            (ladder[a].elo - estimate)
                .abs()
                .total_cmp(&(ladder[b].elo - estimate).abs())
        })
}

/// How a player climbs a ladder.
#[derive(Clone, Debug)]
pub struct ClimbOptions {
    /// Openings, players' settings and rules (the ladder's own, normally); `out` is the
    /// player's directory, one match directory per rung met under it.
    pub arena: ArenaOptions,
    /// The player string.
    pub player: String,
    /// Rungs to meet.
    pub rungs: usize,
    /// Games against each.
    pub games: u32,
    /// The rating the bracket starts from (the first rung met is the one nearest it).
    pub start: f64,
    /// Games at once when either player thinks by the clock.
    pub timed_concurrency: usize,
}

/// Where a player landed on a ladder.
#[derive(Clone, Debug, PartialEq)]
pub struct Climb {
    /// Its rating on the ladder's scale.
    pub rating: EloEstimate,
    /// The rungs met (ladder indices) and its results against each, in the order played.
    pub against: Vec<(usize, Wdl)>,
}

/// Rates a player on `ladder`: it meets the rung nearest `start`, then each time the unmet
/// rung nearest its rating so far, `rungs` times. Every match is stored (so a stopped climb
/// resumes and replays the same choices from the stored results); `on_game` sees each.
pub fn climb(
    ladder: &Ladder,
    options: &ClimbOptions,
    on_game: &mut dyn FnMut(&str, &Progress),
) -> Result<Climb, ArenaError> {
    let player = canonical(&options.player)?;
    let elos: Vec<EloEstimate> = ladder.rungs.iter().map(|r| r.rating).collect();
    let mut against: Vec<(usize, Wdl)> = Vec::new();
    let mut estimate = options.start;
    for _ in 0..options.rungs {
        let met: Vec<usize> = against.iter().map(|(i, _)| *i).collect();
        let Some(rung) = next_rung(&elos, &met, estimate) else {
            break;
        };
        let opponent = &ladder.rungs[rung].player;
        let result = play_pair(
            &options.arena,
            options.games,
            options.timed_concurrency,
            [player.clone(), opponent.clone()],
            options.arena.out.join(slug(opponent)),
            on_game,
        )?;
        against.push((rung, result));
        estimate = rate_on_ladder(&elos, &against).elo;
    }
    Ok(Climb {
        rating: rate_on_ladder(&elos, &against),
        against,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rated(elo: f64, margin: f64) -> EloEstimate {
        EloEstimate {
            elo,
            low: elo - margin,
            high: elo + margin,
        }
    }

    #[test]
    fn pairs_reach_the_next_rungs_only() {
        assert_eq!(
            ladder_pairs(4, 2),
            vec![(0, 1), (0, 2), (1, 2), (1, 3), (2, 3)]
        );
        assert_eq!(ladder_pairs(3, 9), vec![(0, 1), (0, 2), (1, 2)]);
    }

    #[test]
    fn an_even_score_against_one_rung_is_that_rung() {
        let ladder = [rated(0.0, 0.0), rated(300.0, 40.0)];
        let even = Wdl {
            wins: 5,
            draws: 10,
            losses: 5,
        };
        let r = rate_on_ladder(&ladder, &[(1, even)]);
        assert!((r.elo - 300.0).abs() < 1e-6, "{r:?}");
        // 21 games' worth of information at an even score: about +-150 Elo.
        let margin = r.high - r.elo;
        assert!((140.0..160.0).contains(&margin), "{r:?}");
    }

    #[test]
    fn a_perfect_score_stays_finite_and_above_the_rung() {
        let ladder = [rated(0.0, 0.0), rated(200.0, 30.0)];
        let all = Wdl {
            wins: 20,
            ..Wdl::default()
        };
        let r = rate_on_ladder(&ladder, &[(1, all)]);
        assert!(r.elo.is_finite() && r.elo > 400.0, "{r:?}");
    }

    #[test]
    fn the_bracket_moves_towards_the_estimate() {
        let ladder: Vec<EloEstimate> = (0..6).map(|i| rated(200.0 * i as f64, 20.0)).collect();
        assert_eq!(next_rung(&ladder, &[], 390.0), Some(2));
        assert_eq!(next_rung(&ladder, &[2], 390.0), Some(1));
        assert_eq!(next_rung(&ladder, &[0, 1, 2, 3, 4, 5], 0.0), None);
    }
}
