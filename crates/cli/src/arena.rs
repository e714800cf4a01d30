//! `damas match` and `damas tournament`: players named by strings meet on balanced openings;
//! games go to PDN, results to JSON and CSV after every game (so a killed match or tournament
//! resumes where it stopped), ratings with 95% intervals. The work is the arena's; this module
//! reads the arguments and prints.

use crate::out::{out, outln};
use damas_arena::{
    ArenaOptions, GameRules, MatchOptions, PlayerSettings, Progress, Resumed, Schedule, Sprt,
    SprtVerdict, TournamentOptions, at_equal_time, checkpoint_players, default_results_dir,
    play_match, play_tournament,
};
use damas_rules::Variant;
use indicatif::{ProgressBar, ProgressStyle};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Options shared by `match` and `tournament`.
#[derive(clap::Args, Clone)]
pub struct Common {
    /// Start positions, one FEN per line (default: balanced random openings).
    #[arg(long)]
    openings: Option<PathBuf>,
    /// Random plies of the built-in openings.
    #[arg(long, default_value_t = 4)]
    opening_plies: u32,
    /// Games played at once.
    #[arg(long, default_value_t = 2, value_parser = crate::args::at_least_one::<usize>)]
    concurrency: usize,
    /// Seconds per move for outside (Hub, DXP) engines.
    #[arg(long, default_value_t = 0.1, allow_negative_numbers = true, value_parser = crate::args::positive_seconds)]
    time: f64,
    /// Equal time: every player thinks this many seconds per move (networks search by the
    /// clock, alpha-beta too, outside engines get it as --time), whatever its string says.
    #[arg(long, allow_negative_numbers = true, value_parser = crate::args::positive_seconds, conflicts_with = "time")]
    equal_time: Option<f64>,
    /// Games longer than this many plies are drawn.
    #[arg(long, default_value_t = GameRules::default().max_plies, value_parser = crate::args::at_least_one::<u32>)]
    max_plies: u32,
    /// Adjudicate a win when both players' scores agree beyond this many hundredths of a man
    /// (networks report value x 1000) for four moves each.
    #[arg(long)]
    adjudicate: Option<i32>,
    /// Endgame database root (`damas egdb build --out DIR`): games that reach a position it
    /// holds end with its result, and `alphabeta:...,egdb` players probe it.
    #[arg(long, value_name = "DIR")]
    egdb: Option<PathBuf>,
    /// Output directory (games.pdn, results.json, results.csv, ratings); default: one per
    /// variant and players under runs/arena/, which a rerun continues.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Seed of the players' randomness.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
    #[command(flatten)]
    device: crate::args::DeviceArgs,
}

impl Common {
    /// The players' strings, each given the same time per move under `--equal-time`.
    fn players(&self, players: Vec<String>) -> anyhow::Result<Vec<String>> {
        Ok(match self.equal_time {
            Some(seconds) => at_equal_time(&players, Duration::from_secs_f64(seconds))?,
            None => players,
        })
    }

    /// The arena's options for `variant`, the results in `--out` or else in the default
    /// directory of these players under `root`.
    fn options(
        &self,
        variant: Variant,
        root: &str,
        players: &[String],
    ) -> anyhow::Result<ArenaOptions> {
        let out = match &self.out {
            Some(out) => out.clone(),
            None => default_results_dir(Path::new(root), variant.name(), players)?,
        };
        Ok(ArenaOptions {
            variant,
            openings: self.openings.clone(),
            opening_plies: self.opening_plies,
            concurrency: self.concurrency,
            settings: PlayerSettings {
                engine_time: Duration::from_secs_f64(self.equal_time.unwrap_or(self.time)),
                device: self.device.open()?,
                egdb: self.egdb.clone(),
            },
            rules: GameRules {
                max_plies: self.max_plies,
                adjudicate_score: self.adjudicate,
                ..GameRules::default()
            },
            out,
            seed: self.seed,
        })
    }

    fn bar(&self, total: usize) -> ProgressBar {
        let bar = if self.quiet {
            ProgressBar::hidden()
        } else {
            ProgressBar::new(total as u64)
        };
        bar.set_style(
            ProgressStyle::with_template("{bar:30} {pos}/{len} games {msg}")
                .expect("valid template"),
        );
        bar
    }

    /// What the progress bar shows of `progress`; the notice of a continued match or
    /// tournament is printed once, above the bar.
    fn show(&self, bar: &ProgressBar, progress: &Progress, what: &str) {
        if let Some(resumed) = &progress.resumed {
            bar.suspend(|| eprintln!("{}", continuing(resumed, what)));
        }
        bar.set_length(progress.total as u64);
        bar.set_position(progress.done as u64);
        bar.set_message(progress.message.clone());
    }
}

/// `continuing: 8 games already stored in DIR, 0 to play; use --out for a fresh match`.
fn continuing(resumed: &Resumed, what: &str) -> String {
    let games = |n: usize| if n == 1 { "game" } else { "games" };
    format!(
        "continuing: {} {} already stored in {}, {} to play; use --out for a fresh {what}",
        resumed.stored,
        games(resumed.stored),
        resumed.dir.display(),
        resumed.to_play
    )
}

/// Arguments of `damas match`.
#[derive(clap::Args)]
pub struct MatchArgs {
    /// Variant to play.
    #[arg(long, value_parser = crate::args::parse_variant)]
    variant: Variant,
    #[command(flatten)]
    common: Common,
    /// The first player.
    first: String,
    /// The second player.
    second: String,
    /// Games (each opening twice, colours swapped).
    #[arg(long, default_value_t = 20, value_parser = crate::args::at_least_one::<u32>)]
    games: u32,
    /// Stop as soon as a sequential probability ratio test decides: `elo0,elo1,alpha,beta`.
    #[arg(long)]
    sprt: Option<Sprt>,
}

/// Arguments of `damas tournament`.
#[derive(clap::Args)]
pub struct TournamentArgs {
    /// Variant to play (with --checkpoints: read from the checkpoints if omitted).
    #[arg(long, value_parser = crate::args::parse_variant, required_unless_present = "checkpoints")]
    variant: Option<Variant>,
    #[command(flatten)]
    common: Common,
    /// The players, each named once.
    #[arg(long, num_args = 1.., conflicts_with = "checkpoints")]
    players: Vec<String>,
    /// Every checkpoint of a run directory's `checkpoints/` as a player instead.
    #[arg(long)]
    checkpoints: Option<PathBuf>,
    /// With --checkpoints: every Nth checkpoint (the last one always).
    #[arg(long, default_value_t = 1, value_parser = crate::args::at_least_one::<u32>)]
    every: u32,
    /// With --checkpoints: simulations per move (default: each checkpoint's own search).
    #[arg(long, value_parser = crate::args::at_least_one::<u32>)]
    sims: Option<u32>,
    /// Rounds: each pair meets twice per round, colours swapped.
    #[arg(long, default_value_t = 2, value_parser = crate::args::at_least_one::<u32>)]
    rounds: u32,
    /// Only the first player meets the others (a gauntlet).
    #[arg(long)]
    gauntlet: bool,
}

/// Runs `damas match`.
pub fn run_match(args: MatchArgs) -> anyhow::Result<()> {
    let players = args.common.players(vec![args.first, args.second])?;
    let players = [players[0].clone(), players[1].clone()];
    let options = MatchOptions {
        arena: args
            .common
            .options(args.variant, "runs/arena/match", &players)?,
        players,
        games: args.games,
        sprt: args.sprt,
    };
    let progress = args.common.bar(args.games as usize);
    let summary = play_match(&options, &mut |p: &Progress| {
        args.common.show(&progress, p, "match");
    });
    progress.finish_and_clear();
    let summary = summary?;
    let wdl = summary.first;
    let [first, second] = &summary.names;
    outln!("{first} vs {second}");
    outln!(
        "games {}: +{} ={} -{} for {first}, score {:.1}%, {}",
        wdl.games(),
        wdl.wins,
        wdl.draws,
        wdl.losses,
        100.0 * wdl.score(),
        summary.elo
    );
    if let Some((sprt, llr, verdict)) = summary.sprt {
        let (low, high) = sprt.bounds();
        outln!(
            "SPRT elo0={} elo1={} alpha={} beta={}: LLR {llr:.2} (bounds {low:.2}, {high:.2}): {}",
            sprt.elo0,
            sprt.elo1,
            sprt.alpha,
            sprt.beta,
            match verdict {
                SprtVerdict::AcceptH1 => "H1 accepted",
                SprtVerdict::AcceptH0 => "H0 accepted",
                SprtVerdict::Continue => "undecided",
            }
        );
    }
    outln!("results in {}", summary.out.display());
    Ok(())
}

/// Runs `damas tournament`.
pub fn run_tournament(args: TournamentArgs) -> anyhow::Result<()> {
    let (variant, players, checkpoints) = match &args.checkpoints {
        Some(dir) => {
            let found = checkpoint_players(dir, args.every, args.sims, args.variant)?;
            (found.variant, found.players, Some(found.numbers))
        }
        None => {
            let variant = args
                .variant
                .expect("clap demands --variant without --checkpoints");
            (variant, args.players.clone(), None)
        }
    };
    let players = args.common.players(players)?;
    let root = if args.gauntlet {
        "runs/arena/gauntlet"
    } else {
        "runs/arena/tournament"
    };
    let options = TournamentOptions {
        arena: args.common.options(variant, root, &players)?,
        players,
        checkpoints,
        rounds: args.rounds,
        schedule: if args.gauntlet {
            Schedule::Gauntlet
        } else {
            Schedule::RoundRobin
        },
        anchor: 0,
    };
    let progress = args.common.bar(0);
    let summary = play_tournament(&options, &mut |p: &Progress| {
        args.common.show(&progress, p, "tournament");
    });
    progress.finish_and_clear();
    let summary = summary?;
    out!("{}", summary.crosstable());
    outln!("results in {}", summary.out.display());
    Ok(())
}
