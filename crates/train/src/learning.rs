//! `damas bench learning`: strength against training time. A run is trained from scratch for a
//! wall-clock budget (the run's own loop, [`crate::run::Run`] with a budget), then checkpoints
//! picked every few minutes are rated on an alpha-beta ladder: a stored one
//! (`ladders/<variant>.json`, `damas ladder build`), or one of `alphabeta:depth=1..D` played
//! here first. Each checkpoint meets only the few rungs nearest its strength
//! ([`damas_arena::ladder::climb`]), at a fixed number of simulations and, if asked, again at
//! a fixed time per move (the equal-time scale). The result is a table, the minutes each rung
//! took to reach, `curve.json` and `curve.png` (several runs can share the picture).
//!
//! Everything lives in one directory: the run (`<out>/<name>/`), a ladder played here
//! (`<out>/ladder.json`, its games under `<out>/ladder/`), the checkpoints' matches
//! (`<out>/rated/<scale>/<generation>/<rung>/`), `curve.json` and `curve.png`. Running the
//! command again resumes whatever was left, mid-match included.

use crate::config::ConfigFile;
use crate::run::{GenerationTime, Progress, RunError, RunPaths, train};
use damas_arena::ladder::{LadderFileError, LadderOptions, build_ladder, climb};
pub use damas_arena::plot::TimeAxis;
use damas_arena::plot::{Curve, PlotError, learning_curves};
use damas_arena::{
    ArenaError, ArenaOptions, ClimbOptions, EloEstimate, GameRules, Ladder, PlayerSettings, Wdl,
    read_ladder, write_ladder,
};
use damas_nn::read_any_meta;
use serde::{Deserialize, Deserializer, Serialize};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What `damas bench learning` does.
#[derive(Clone, Debug)]
pub struct LearningOptions {
    /// The run's config; its generation count is lifted (the budget ends the run), its time
    /// budget replaced by `minutes` and its final match skipped.
    pub config: ConfigFile,
    /// Wall-clock budget of the training, in minutes.
    pub minutes: f64,
    /// One checkpoint per this much training time is rated.
    pub every: Duration,
    /// The directory of everything (see the module documentation).
    pub out: PathBuf,
    /// Simulations per move of the networks.
    pub simulations: u32,
    /// Also rate each checkpoint searching this long per move (the equal-time scale).
    pub move_time: Option<Duration>,
    /// A stored ladder file; none: a ladder of `alphabeta:depth=1..depths` played here.
    pub ladder: Option<PathBuf>,
    /// The depths of a ladder played here.
    pub depths: u32,
    /// Rungs each checkpoint meets, chosen near its strength.
    pub rungs: usize,
    /// Games of each checkpoint against each rung it meets (and of each pair of a ladder
    /// played here).
    pub games: u32,
    /// Games played at once (one at a time when a player thinks by the clock).
    pub concurrency: usize,
    /// Other benchmark directories whose curves are drawn beside this one.
    pub compare: Vec<PathBuf>,
    /// The curve's name in its table, `curve.json` and legend (none: the config's name).
    pub label: Option<String>,
    /// How `curve.png` scales training time.
    pub time_axis: TimeAxis,
}

/// A rung's player string, as `curve.json` names it. Curves written before ladders had named
/// rungs called them by their depth, which still reads (as `alphabeta:depth=N`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Rung(pub String);

impl<'de> Deserialize<'de> for Rung {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Stored {
            Depth(u32),
            Player(String),
        }
        Ok(match Stored::deserialize(deserializer)? {
            Stored::Depth(depth) => Rung(format!("alphabeta:depth={depth}")),
            Stored::Player(player) => Rung(player),
        })
    }
}

impl Rung {
    /// A short column heading: `d4` for a depth, `t0.1` for a time per move, else the string.
    pub fn short(&self) -> String {
        let rest = self.0.strip_prefix("alphabeta:");
        match rest.and_then(|r| r.split_once('=')) {
            Some(("depth", d)) if !d.contains(',') => format!("d{d}"),
            Some(("time", t)) if !t.contains(',') => format!("t{t}"),
            _ => self.0.clone(),
        }
    }
}

/// A checkpoint's rating on one scale and the games it came from.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Rated {
    /// Its rating on the ladder's scale.
    pub rating: EloEstimate,
    /// Its results against each rung it met, in the order played.
    pub against: Vec<(Rung, Wdl)>,
}

/// One rated checkpoint of a learning curve.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CurvePoint {
    /// Training minutes when it was written (the run's clock).
    pub minutes: f64,
    /// Its generation.
    pub generation: u32,
    /// Self-play samples made up to it.
    pub samples: u64,
    /// Its rating at the curve's simulations per move.
    pub rating: EloEstimate,
    /// Its results against each rung it met at those simulations.
    pub against: Vec<(Rung, Wdl)>,
    /// Its rating searching the curve's time per move, if one was asked for.
    #[serde(default)]
    pub timed: Option<Rated>,
}

/// A learning curve, as `curve.json` keeps it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct LearningCurve {
    /// The run's name.
    pub label: String,
    /// The variant.
    pub variant: String,
    /// Simulations per move of the networks.
    pub simulations: u32,
    /// Seconds per move of the equal-time ratings, if any.
    #[serde(default)]
    pub move_time: Option<f64>,
    /// The ladder's ratings: (rung, rating), the first rung fixed at 0.
    pub ladder: Vec<(Rung, EloEstimate)>,
    /// The rated checkpoints, in time order.
    pub points: Vec<CurvePoint>,
    /// Where each generation's time went: (generation, record).
    pub time: Vec<(u32, GenerationTime)>,
}

impl LearningCurve {
    /// Training minutes until a checkpoint first rated at or above each rung, at the curve's
    /// simulations: (rung, minutes), for the rungs reached.
    pub fn minutes_to_rungs(&self) -> Vec<(Rung, f64)> {
        self.reached(|p| Some(p.rating.elo))
    }

    /// The same on the equal-time scale.
    pub fn minutes_to_rungs_timed(&self) -> Vec<(Rung, f64)> {
        self.reached(|p| p.timed.as_ref().map(|t| t.rating.elo))
    }

    fn reached(&self, elo: impl Fn(&CurvePoint) -> Option<f64>) -> Vec<(Rung, f64)> {
        self.ladder
            .iter()
            .filter_map(|(rung, level)| {
                self.points
                    .iter()
                    .find(|p| elo(p).is_some_and(|e| e >= level.elo))
                    .map(|p| (rung.clone(), p.minutes))
            })
            .collect()
    }

    /// The table the command prints: per checkpoint minutes, generation, samples, Elo with its
    /// interval on each scale and the scores against the rungs met; then the ladder, the
    /// minutes to each rung and the time split.
    pub fn table(&self) -> String {
        let mut out = format!(
            "{} ({}), networks at {} simulations per move",
            self.label, self.variant, self.simulations
        );
        if let Some(t) = self.move_time {
            out += &format!(" and at {t} s per move");
        }
        out.push('\n');
        out += &format!(
            "{:>7} {:>4} {:>8} {:>22}",
            "minutes", "gen", "samples", "Elo (95%)"
        );
        if let Some(t) = self.move_time {
            out += &format!(" {:>22}", format!("Elo at {t} s (95%)"));
        }
        out += "  scores against the rungs met\n";
        let interval = |r: &EloEstimate| format!("{:.0} [{:.0}, {:.0}]", r.elo, r.low, r.high);
        let scores = |against: &[(Rung, Wdl)]| {
            against
                .iter()
                .map(|(rung, wdl)| format!("{} {:.1}%", rung.short(), 100.0 * wdl.score()))
                .collect::<Vec<_>>()
                .join(", ")
        };
        for point in &self.points {
            out += &format!(
                "{:>7.1} {:>4} {:>8} {:>22}",
                point.minutes,
                point.generation,
                point.samples,
                interval(&point.rating)
            );
            if self.move_time.is_some() {
                let timed = point.timed.as_ref();
                out += &format!(
                    " {:>22}",
                    timed.map_or("-".to_string(), |t| interval(&t.rating))
                );
            }
            out += &format!("  {}", scores(&point.against));
            if let Some(timed) = &point.timed {
                out += &format!("; timed: {}", scores(&timed.against));
            }
            out.push('\n');
        }
        out += "ladder:";
        for (rung, r) in &self.ladder {
            out += &format!(
                " {} {:.0} [{:.0}, {:.0}];",
                rung.short(),
                r.elo,
                r.low,
                r.high
            );
        }
        out.push('\n');
        let mut scales = vec![(
            format!("{} simulations", self.simulations),
            self.minutes_to_rungs(),
        )];
        if let Some(t) = self.move_time {
            scales.push((format!("{t} s per move"), self.minutes_to_rungs_timed()));
        }
        for (scale, reached) in scales {
            if reached.is_empty() {
                out += &format!("minutes to reach a rung at {scale}: none reached\n");
            }
            for (rung, minutes) in reached {
                out += &format!("minutes to reach {} at {scale}: {minutes:.1}\n", rung.0);
            }
        }
        let total = |f: fn(&GenerationTime) -> f64| self.time.iter().map(|(_, t)| f(t)).sum();
        let (selfplay, training, io, evaluation): (f64, f64, f64, f64) = (
            total(|t| t.selfplay),
            total(|t| t.training),
            total(|t| t.io),
            total(|t| t.evaluation),
        );
        let all = (selfplay + training + io + evaluation).max(1e-9);
        out += &format!(
            "wall clock over {} generations: self-play {:.0}s ({:.0}%), training {:.0}s ({:.0}%), \
             i/o {:.0}s ({:.0}%), evaluation {:.0}s ({:.0}%)\n",
            self.time.len(),
            selfplay,
            100.0 * selfplay / all,
            training,
            100.0 * training / all,
            io,
            100.0 * io / all,
            evaluation,
            100.0 * evaluation / all
        );
        out
    }
}

/// Why a learning curve could not be made.
#[derive(Debug, thiserror::Error)]
pub enum LearningError {
    /// The training run failed.
    #[error("training")]
    Run(#[from] RunError),
    /// The tournament failed.
    #[error("tournament")]
    Arena(#[from] ArenaError),
    /// The picture could not be drawn.
    #[error(transparent)]
    Plot(#[from] PlotError),
    /// The config's device cannot be used.
    #[error(transparent)]
    Device(#[from] damas_nn::DeviceError),
    /// A file could not be read or written.
    #[error("{path}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The system's reason.
        #[source]
        source: std::io::Error,
    },
    /// A compared run's `curve.json` is not a learning curve.
    #[error("{path} is not a learning curve: {message}")]
    BadCurve {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// The stored ladder could not be read or written.
    #[error(transparent)]
    Ladder(#[from] LadderFileError),
    /// The stored ladder is for another variant.
    #[error("the ladder {path} is for {found}, but the run plays {wanted}")]
    LadderVariant {
        /// The ladder file.
        path: PathBuf,
        /// Its variant.
        found: String,
        /// The run's.
        wanted: String,
    },
    /// The run made no checkpoint to rate.
    #[error("the run in {0} has no trained checkpoint")]
    NoCheckpoints(PathBuf),
    /// An option is out of range.
    #[error("{0}")]
    Invalid(String),
}

/// Trains (or resumes) the run, rates its checkpoints on the ladder and writes `curve.json`
/// and `curve.png`; `progress` sees every phase.
pub fn learning_curve(
    options: &LearningOptions,
    progress: &mut dyn Progress,
) -> Result<LearningCurve, LearningError> {
    if options.depths < 2 || options.rungs == 0 || options.games == 0 || options.simulations == 0 {
        return Err(LearningError::Invalid(
            "depths must be at least 2, and rungs, games and simulations at least 1".into(),
        ));
    }
    if options.every.is_zero() {
        return Err(LearningError::Invalid(
            "the checkpoint spacing must be positive".into(),
        ));
    }
    if !(options.minutes.is_finite() && options.minutes > 0.0) {
        return Err(LearningError::Invalid(format!(
            "the budget must be a positive number of minutes, not {}",
            options.minutes
        )));
    }
    // A stored ladder is read before the hours of training, so that a wrong path or variant
    // is told at once.
    let stored = options
        .ladder
        .as_ref()
        .map(|path| stored_ladder(path, options.config.config.variant))
        .transpose()?;
    let mut file = options.config.clone();
    file.config.generations = u32::MAX;
    file.config.minutes = Some(options.minutes);
    file.config.evaluation.final_games = 0;
    train(&file, &options.out, progress)?;
    let name = &file.config.name;
    let paths = RunPaths::new(&options.out.join(name));
    let chosen = choose_checkpoints(&paths, options.every)?;
    let arena = ArenaOptions {
        variant: file.config.variant,
        openings: None,
        opening_plies: file.config.evaluation.opening_plies,
        concurrency: options.concurrency,
        settings: PlayerSettings {
            device: file.config.device.open()?,
            ..PlayerSettings::default()
        },
        rules: GameRules {
            max_plies: file.config.selfplay.max_plies,
            ..GameRules::default()
        },
        out: options.out.join("ladder"),
        seed: file.config.seed,
    };
    let ladder = match stored {
        Some(ladder) => ladder,
        None => depth_ladder(options, &arena, progress)?,
    };
    let mut scales = vec![(format!("sims{}", options.simulations), None)];
    if let Some(time) = options.move_time {
        scales.push((format!("time{}", time.as_secs_f64()), Some(time)));
    }
    let games = (chosen.len() * scales.len() * options.rungs) as u64 * u64::from(options.games);
    progress.start("checkpoints", games);
    let mut done = 0u64;
    let mut ratings: Vec<Vec<Rated>> = Vec::new();
    for (scale, time) in &scales {
        // The bracket of each checkpoint starts where the one before landed (the first at
        // the weakest rung): a run mostly climbs.
        let mut start = ladder.rungs[0].rating.elo;
        let mut rated = Vec::new();
        for &(generation, _) in &chosen {
            let checkpoint = paths.checkpoint(generation);
            let player = match time {
                Some(t) => format!("net:{},time={}", checkpoint.display(), t.as_secs_f64()),
                None => format!("net:{},sims={}", checkpoint.display(), options.simulations),
            };
            let climbed = climb(
                &ladder,
                &ClimbOptions {
                    arena: ArenaOptions {
                        out: options
                            .out
                            .join("rated")
                            .join(scale)
                            .join(format!("{generation:06}")),
                        ..arena.clone()
                    },
                    player,
                    rungs: options.rungs,
                    games: options.games,
                    start,
                    timed_concurrency: 1,
                },
                &mut |pair, p| {
                    if p.resumed.is_none() && p.done > 0 {
                        done += 1;
                    }
                    progress.update(
                        done,
                        &format!("generation {generation}, {pair}: {}/{}", p.done, p.total),
                    );
                },
            )?;
            start = climbed.rating.elo;
            rated.push(Rated {
                rating: climbed.rating,
                against: climbed
                    .against
                    .iter()
                    .map(|&(i, wdl)| (Rung(ladder.rungs[i].player.clone()), wdl))
                    .collect(),
            });
        }
        ratings.push(rated);
    }
    progress.finish();
    let points = chosen
        .iter()
        .enumerate()
        .map(|(i, &(generation, time))| {
            let at_sims = &ratings[0][i];
            let samples = read_any_meta(&paths.checkpoint(generation))
                .ok()
                .and_then(|meta| meta.metrics.get("total_samples").copied())
                .unwrap_or(0.0) as u64;
            CurvePoint {
                minutes: time / 60.0,
                generation,
                samples,
                rating: at_sims.rating,
                against: at_sims.against.clone(),
                timed: ratings.get(1).map(|timed| timed[i].clone()),
            }
        })
        .collect();
    let time = paths
        .generations()?
        .into_iter()
        .filter_map(|g| GenerationTime::read(&paths.checkpoint(g)).map(|t| (g, t)))
        .collect();
    let curve = LearningCurve {
        label: options.label.clone().unwrap_or_else(|| name.to_string()),
        variant: file.config.variant.to_string(),
        simulations: options.simulations,
        move_time: options.move_time.map(|t| t.as_secs_f64()),
        ladder: ladder
            .rungs
            .iter()
            .map(|r| (Rung(r.player.clone()), r.rating))
            .collect(),
        points,
        time,
    };
    let path = options.out.join("curve.json");
    let text = serde_json::to_string_pretty(&curve).expect("serializable");
    damas_nn::write_atomically(&path, text.as_bytes())
        .map_err(|source| LearningError::Io { path, source })?;
    let mut curves = vec![curve.clone()];
    for dir in &options.compare {
        curves.push(read_curve(&dir.join("curve.json"))?);
    }
    draw(&options.out.join("curve.png"), &curves, options.time_axis)?;
    Ok(curve)
}

/// A stored ladder, checked to be for `variant`.
fn stored_ladder(path: &Path, variant: damas_rules::Variant) -> Result<Ladder, LearningError> {
    let ladder = read_ladder(path)?;
    if ladder.variant != variant.name() {
        return Err(LearningError::LadderVariant {
            path: path.to_path_buf(),
            found: ladder.variant,
            wanted: variant.name().to_string(),
        });
    }
    Ok(ladder)
}

/// A ladder of `alphabeta:depth=1..D` played here (every pair) and kept in
/// `<out>/ladder.json`.
fn depth_ladder(
    options: &LearningOptions,
    arena: &ArenaOptions,
    progress: &mut dyn Progress,
) -> Result<Ladder, LearningError> {
    let rungs: Vec<String> = (1..=options.depths)
        .map(|d| format!("alphabeta:depth={d}"))
        .collect();
    let reach = rungs.len();
    let pairs = (rungs.len() * (rungs.len() - 1) / 2) as u64;
    progress.start("ladder", pairs * u64::from(options.games));
    let mut done = 0u64;
    let ladder = build_ladder(
        &LadderOptions {
            arena: arena.clone(),
            rungs,
            reach,
            games: options.games,
            timed_concurrency: 1,
        },
        &mut |pair, p| {
            if p.resumed.is_none() && p.done > 0 {
                done += 1;
            }
            progress.update(done, &format!("{pair}: {}/{}", p.done, p.total));
        },
    )?;
    progress.finish();
    write_ladder(&options.out.join("ladder.json"), &ladder)?;
    Ok(ladder)
}

/// Reads a `curve.json`.
pub fn read_curve(path: &Path) -> Result<LearningCurve, LearningError> {
    let text = std::fs::read_to_string(path).map_err(|source| LearningError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    serde_json::from_str(&text).map_err(|e| LearningError::BadCurve {
        path: path.to_path_buf(),
        message: e.to_string(),
    })
}

/// Draws `curves` (each on both scales when it has timed ratings; the first one's ladder as
/// the reference lines, those within reach of the curves) into `path`, time on `axis`.
pub fn draw(path: &Path, curves: &[LearningCurve], axis: TimeAxis) -> Result<(), PlotError> {
    let mut lines: Vec<Curve> = Vec::new();
    for c in curves {
        lines.push(Curve {
            label: format!("{}, {} sims", c.label, c.simulations),
            points: c.points.iter().map(|p| (p.minutes, p.rating)).collect(),
        });
        if let Some(t) = c.move_time {
            lines.push(Curve {
                label: format!("{}, {t} s/move", c.label),
                points: c
                    .points
                    .iter()
                    .filter_map(|p| p.timed.as_ref().map(|r| (p.minutes, r.rating)))
                    .collect(),
            });
        }
    }
    let best = lines
        .iter()
        .flat_map(|l| l.points.iter().map(|(_, r)| r.elo))
        .fold(f64::NEG_INFINITY, f64::max);
    let ladder: Vec<(String, f64)> = curves
        .first()
        .map(|c| {
            // Rungs up to the first one above the best checkpoint: the rest only squash the
            // picture.
            let mut sorted: Vec<&(Rung, EloEstimate)> = c.ladder.iter().collect();
            sorted.sort_by(|a, b| a.1.elo.total_cmp(&b.1.elo));
            let above = sorted.iter().position(|(_, r)| r.elo > best);
            let keep = above.map_or(sorted.len(), |i| i + 1);
            sorted[..keep]
                .iter()
                .map(|(rung, r)| (rung.0.trim_start_matches("alphabeta:").to_string(), r.elo))
                .collect()
        })
        .unwrap_or_default();
    learning_curves(path, &lines, &ladder, axis)
}

/// The checkpoints the curve rates, with the run's clock when each was written: the untrained
/// generation 0, the last one written by each multiple of `every`, and the last.
fn choose_checkpoints(paths: &RunPaths, every: Duration) -> Result<Vec<(u32, f64)>, LearningError> {
    let timed: Vec<(u32, f64)> = paths
        .generations()?
        .into_iter()
        .filter(|&g| g > 0)
        .filter_map(|g| GenerationTime::read(&paths.checkpoint(g)).map(|t| (g, t.trained_at)))
        .collect();
    let Some(&(_, end)) = timed.last() else {
        return Err(LearningError::NoCheckpoints(paths.root.clone()));
    };
    let step = every.as_secs_f64();
    let mut chosen = vec![(0, 0.0)];
    let mut mark = step;
    while mark < end + step {
        if let Some(&last) = timed.iter().rev().find(|(_, t)| *t <= mark)
            && !chosen.contains(&last)
        {
            chosen.push(last);
        }
        mark += step;
    }
    if let Some(&last) = timed.last()
        && !chosen.contains(&last)
    {
        chosen.push(last);
    }
    Ok(chosen)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn curves_of_every_earlier_format_still_read() {
        // The measured curves kept in docs/notebook/: the older ones name depth rungs by number,
        // the newer carry an equal-time scale.
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/notebook");
        let mut read = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            if path.extension().is_some_and(|e| e == "json") && text.contains("\"ladder\"") {
                let curve = read_curve(&path).unwrap();
                assert_eq!(
                    curve.ladder[0].0,
                    Rung("alphabeta:depth=1".into()),
                    "{path:?}"
                );
                // A curve has an equal-time scale exactly when its points carry time ratings.
                let timed = curve.points.iter().filter(|p| p.timed.is_some()).count();
                assert_eq!(curve.move_time.is_some(), timed > 0, "{path:?}");
                read += 1;
            }
        }
        assert!(read > 5, "only {read} curves in {dir:?}");
    }

    #[test]
    fn rungs_have_short_headings() {
        assert_eq!(Rung("alphabeta:depth=12".into()).short(), "d12");
        assert_eq!(Rung("alphabeta:time=0.1".into()).short(), "t0.1");
        assert_eq!(Rung("random".into()).short(), "random");
        let from_number: Rung = serde_json::from_str("4").unwrap();
        assert_eq!(from_number, Rung("alphabeta:depth=4".into()));
        assert_eq!(
            serde_json::to_string(&from_number).unwrap(),
            "\"alphabeta:depth=4\""
        );
    }
}
