//! `damas bench learning`: strength against training time. A run is trained from scratch for a
//! wall-clock budget (the run's own loop, [`crate::run::Run`] with a budget), then checkpoints
//! picked every few minutes meet an alpha-beta ladder (`alphabeta:depth=1..D`) in one
//! tournament whose joint rating fit, anchored at depth 1, puts networks and ladder on one
//! scale. The result is a table, the minutes each ladder level took to reach, `curve.json`
//! and `curve.png` (several runs can share the picture, for ablations).
//!
//! Everything lives in one directory: the run (`<out>/<name>/`), the tournament
//! (`<out>/tournament/`, resumable like any tournament), `curve.json` and `curve.png`.
//! Running the command again resumes whatever was left.

use crate::config::ConfigFile;
use crate::run::{GenerationTime, Progress, RunError, RunPaths, train};
pub use damas_arena::plot::TimeAxis;
use damas_arena::plot::{Curve, PlotError, learning_curves};
use damas_arena::{
    ArenaError, ArenaOptions, EloEstimate, GameRules, PlayerSettings, Schedule, TournamentOptions,
    Wdl, play_tournament,
};
use damas_nn::read_any_meta;
use serde::{Deserialize, Serialize};
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
    /// One checkpoint per this much training time goes to the tournament.
    pub every: Duration,
    /// The directory of everything (see the module documentation).
    pub out: PathBuf,
    /// Simulations per move of the networks in the tournament.
    pub simulations: u32,
    /// The ladder: alpha-beta at depths 1 to this.
    pub depths: u32,
    /// Each checkpoint meets each ladder level `2 x rounds` times (colours swapped).
    pub rounds: u32,
    /// Tournament games played at once.
    pub concurrency: usize,
    /// Other benchmark directories whose curves are drawn beside this one.
    pub compare: Vec<PathBuf>,
    /// The curve's name in its table, `curve.json` and legend (none: the config's name).
    pub label: Option<String>,
    /// How `curve.png` scales training time.
    pub time_axis: TimeAxis,
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
    /// Its rating on the ladder's scale.
    pub rating: EloEstimate,
    /// Its results against each ladder depth (depth, results), in depth order.
    pub against: Vec<(u32, Wdl)>,
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
    /// The ladder's ratings: (depth, rating), depth 1 fixed at 0.
    pub ladder: Vec<(u32, EloEstimate)>,
    /// The rated checkpoints, in time order.
    pub points: Vec<CurvePoint>,
    /// Where each generation's time went: (generation, record).
    pub time: Vec<(u32, GenerationTime)>,
}

impl LearningCurve {
    /// Training minutes until a checkpoint first rated at or above each ladder depth:
    /// (depth, minutes), for the depths reached.
    pub fn minutes_to_depths(&self) -> Vec<(u32, f64)> {
        self.ladder
            .iter()
            .filter_map(|&(depth, level)| {
                self.points
                    .iter()
                    .find(|p| p.rating.elo >= level.elo)
                    .map(|p| (depth, p.minutes))
            })
            .collect()
    }

    /// The table the command prints: per checkpoint minutes, generation, samples, Elo with its
    /// interval and the score against each depth; then the ladder, the minutes to each level
    /// and the time split.
    pub fn table(&self) -> String {
        let mut out = format!(
            "{} ({}), networks at {} simulations per move\n",
            self.label, self.variant, self.simulations
        );
        out += &format!(
            "{:>7} {:>4} {:>8} {:>22}",
            "minutes", "gen", "samples", "Elo (95%)"
        );
        for (depth, _) in &self.ladder {
            out += &format!(" {:>6}", format!("d{depth}"));
        }
        out.push('\n');
        for point in &self.points {
            let r = &point.rating;
            out += &format!(
                "{:>7.1} {:>4} {:>8} {:>22}",
                point.minutes,
                point.generation,
                point.samples,
                format!("{:.0} [{:.0}, {:.0}]", r.elo, r.low, r.high)
            );
            for (_, wdl) in &point.against {
                out += &format!(" {:>5.1}%", 100.0 * wdl.score());
            }
            out.push('\n');
        }
        out += "ladder:";
        for (depth, r) in &self.ladder {
            out += &format!(" d{depth} {:.0} [{:.0}, {:.0}];", r.elo, r.low, r.high);
        }
        out.push('\n');
        let reached = self.minutes_to_depths();
        if reached.is_empty() {
            out += "minutes to reach a ladder level: none reached\n";
        }
        for (depth, minutes) in reached {
            out += &format!("minutes to reach the level of depth {depth}: {minutes:.1}\n");
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
    /// The run made no checkpoint to rate.
    #[error("the run in {0} has no trained checkpoint")]
    NoCheckpoints(PathBuf),
    /// An option is out of range.
    #[error("{0}")]
    Invalid(String),
}

/// Trains (or resumes) the run, rates its checkpoints against the ladder and writes
/// `curve.json` and `curve.png`; `progress` sees both phases.
pub fn learning_curve(
    options: &LearningOptions,
    progress: &mut dyn Progress,
) -> Result<LearningCurve, LearningError> {
    if options.depths == 0 || options.rounds == 0 || options.simulations == 0 {
        return Err(LearningError::Invalid(
            "depths, rounds and simulations must be at least 1".into(),
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
    let mut file = options.config.clone();
    file.config.generations = u32::MAX;
    file.config.minutes = Some(options.minutes);
    file.config.evaluation.final_games = 0;
    train(&file, &options.out, progress)?;
    let name = &file.config.name;
    let paths = RunPaths::new(&options.out.join(name));
    let chosen = choose_checkpoints(&paths, options.every)?;
    let ladder: Vec<String> = (1..=options.depths)
        .map(|d| format!("alphabeta:depth={d}"))
        .collect();
    let mut players = ladder.clone();
    for &(generation, _) in &chosen {
        players.push(format!(
            "net:{},sims={}",
            paths.checkpoint(generation).display(),
            options.simulations
        ));
    }
    let rungs = ladder.len();
    let mut pairs: Vec<(usize, usize)> = (0..rungs)
        .flat_map(|a| (a + 1..rungs).map(move |b| (a, b)))
        .collect();
    pairs.extend((rungs..players.len()).flat_map(|net| (0..rungs).map(move |d| (net, d))));
    let games = (pairs.len() as u64) * 2 * u64::from(options.rounds);
    let tournament = TournamentOptions {
        arena: ArenaOptions {
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
            out: options.out.join("tournament"),
            seed: file.config.seed,
        },
        players,
        checkpoints: None,
        rounds: options.rounds,
        schedule: Schedule::Pairs(pairs),
        anchor: 0,
    };
    progress.start("tournament", games);
    let summary = play_tournament(&tournament, &mut |p| {
        progress.update(
            p.done as u64,
            &format!("{}/{} {}", p.done, p.total, p.message),
        );
    });
    progress.finish();
    let summary = summary?;
    let points = chosen
        .iter()
        .enumerate()
        .map(|(i, &(generation, time))| {
            let index = rungs + i;
            let samples = read_any_meta(&paths.checkpoint(generation))
                .ok()
                .and_then(|meta| meta.metrics.get("total_samples").copied())
                .unwrap_or(0.0) as u64;
            CurvePoint {
                minutes: time / 60.0,
                generation,
                samples,
                rating: summary.ratings[index],
                against: (0..rungs)
                    .map(|d| (d as u32 + 1, summary.table[index][d]))
                    .collect(),
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
        ladder: (0..rungs)
            .map(|d| (d as u32 + 1, summary.ratings[d]))
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

/// Draws `curves` (the first one's ladder as the reference lines) into `path`, time on `axis`.
pub fn draw(path: &Path, curves: &[LearningCurve], axis: TimeAxis) -> Result<(), PlotError> {
    let lines: Vec<Curve> = curves
        .iter()
        .map(|c| Curve {
            label: c.label.clone(),
            points: c.points.iter().map(|p| (p.minutes, p.rating)).collect(),
        })
        .collect();
    let ladder: Vec<(String, f64)> = curves
        .first()
        .map(|c| {
            c.ladder
                .iter()
                .map(|(d, r)| (format!("depth {d}"), r.elo))
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
