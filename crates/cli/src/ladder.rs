//! `damas ladder build|show|rate`: the stored alpha-beta ladders (`ladders/<variant>.json`) that
//! rate networks and engines past fixed depths. The work is the arena's ([`damas_arena::ladder`]);
//! this module reads the arguments and prints.

use crate::out::{out, outln};
use damas_arena::ladder::{DEFAULT_RUNGS, LadderOptions, build_ladder, climb};
use damas_arena::{
    ArenaOptions, ClimbOptions, GameRules, PlayerSettings, Progress, default_results_dir,
    read_ladder, signed_elo, write_ladder,
};
use damas_rules::Variant;
use indicatif::{ProgressBar, ProgressStyle};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Arguments of `damas ladder`.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    what: What,
}

#[derive(clap::Subcommand)]
enum What {
    /// Play (or resume) the ladder's pairs and write `<dir>/<variant>.json`.
    Build(BuildArgs),
    /// Print a stored ladder: its rungs by rating, with games and scores.
    Show(ShowArgs),
    /// Rate one player on a stored ladder: it meets the rungs nearest its strength.
    Rate(RateArgs),
}

/// Where ladders are kept.
#[derive(clap::Args)]
struct Place {
    /// Variant of the ladder.
    #[arg(long, value_parser = crate::args::parse_variant)]
    variant: Variant,
    /// Directory of the ladder files (`<dir>/<variant>.json`) and their games
    /// (`<dir>/games/<variant>/`).
    #[arg(long, default_value = "ladders")]
    dir: PathBuf,
}

impl Place {
    fn file(&self) -> PathBuf {
        self.dir.join(format!("{}.json", self.variant.name()))
    }
}

#[derive(clap::Args)]
struct BuildArgs {
    #[command(flatten)]
    place: Place,
    /// The rungs, weakest first, comma-separated (default: depths 1-8, 10 and 12, then 0.01,
    /// 0.03, 0.1, 0.3 and 1 s per move).
    #[arg(long, value_delimiter = ',')]
    rungs: Vec<String>,
    /// Each rung meets this many rungs after it in the list.
    #[arg(long, default_value_t = 3, value_parser = crate::args::at_least_one::<usize>)]
    reach: usize,
    /// Games per pair (each opening twice, colours swapped).
    #[arg(long, default_value_t = 20, value_parser = crate::args::at_least_one::<u32>)]
    games: u32,
    #[command(flatten)]
    play: Play,
}

/// How ladder games are played.
#[derive(clap::Args)]
struct Play {
    /// Random plies of the balanced openings.
    #[arg(long, default_value_t = 4)]
    opening_plies: u32,
    /// Games longer than this many plies are drawn.
    #[arg(long, default_value_t = GameRules::default().max_plies, value_parser = crate::args::at_least_one::<u32>)]
    max_plies: u32,
    /// Games played at once between fixed-depth players.
    #[arg(long, default_value_t = 2, value_parser = crate::args::at_least_one::<usize>)]
    concurrency: usize,
    /// Games played at once when a player thinks by the clock (more would share cores and
    /// weaken it).
    #[arg(long, default_value_t = 1, value_parser = crate::args::at_least_one::<usize>)]
    timed_concurrency: usize,
    /// Seed of the openings and the players' randomness.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
    #[command(flatten)]
    device: crate::args::DeviceArgs,
}

impl Play {
    fn arena(&self, variant: Variant, out: PathBuf) -> anyhow::Result<ArenaOptions> {
        Ok(ArenaOptions {
            variant,
            openings: None,
            opening_plies: self.opening_plies,
            concurrency: self.concurrency,
            settings: PlayerSettings {
                device: self.device.open()?,
                ..PlayerSettings::default()
            },
            rules: GameRules {
                max_plies: self.max_plies,
                ..GameRules::default()
            },
            out,
            seed: self.seed,
        })
    }

    fn bar(&self) -> ProgressBar {
        let bar = if self.quiet {
            ProgressBar::hidden()
        } else {
            ProgressBar::new(0)
        };
        bar.set_style(
            ProgressStyle::with_template("{msg} {bar:30} {pos}/{len} games")
                .expect("valid template"),
        );
        bar
    }
}

/// Shows one match's progress on the bar.
fn show(bar: &ProgressBar, pair: &str, progress: &Progress) {
    bar.set_length(progress.total as u64);
    bar.set_position(progress.done as u64);
    bar.set_message(pair.to_string());
}

#[derive(clap::Args)]
struct ShowArgs {
    #[command(flatten)]
    place: Place,
}

#[derive(clap::Args)]
struct RateArgs {
    #[command(flatten)]
    place: Place,
    /// The player (`net:PATH,sims=N`, `net:PATH,time=S`, `hub:"COMMAND"`, ...).
    player: String,
    /// Rungs to meet, each chosen nearest the rating so far.
    #[arg(long, default_value_t = 3, value_parser = crate::args::at_least_one::<usize>)]
    rungs: usize,
    /// Games against each rung.
    #[arg(long, default_value_t = 20, value_parser = crate::args::at_least_one::<u32>)]
    games: u32,
    /// The rating the bracket starts from (default: the middle rung's).
    #[arg(long, allow_negative_numbers = true)]
    start: Option<f64>,
    /// Seconds per move for outside (Hub, DXP) engines.
    #[arg(long, default_value_t = 0.1, value_parser = crate::args::positive_seconds)]
    time: f64,
    /// Directory of the player's matches (default: one per variant and player under
    /// runs/arena/ladder/, which a rerun continues).
    #[arg(long)]
    out: Option<PathBuf>,
    #[command(flatten)]
    play: Play,
}

/// Runs `damas ladder`.
pub fn run(args: Args) -> anyhow::Result<()> {
    match args.what {
        What::Build(args) => build(args),
        What::Show(args) => {
            let ladder = read_ladder(&args.place.file())?;
            out!("{}", ladder.table());
            Ok(())
        }
        What::Rate(args) => rate(args),
    }
}

fn build(args: BuildArgs) -> anyhow::Result<()> {
    let rungs = if args.rungs.is_empty() {
        DEFAULT_RUNGS.iter().map(|r| r.to_string()).collect()
    } else {
        args.rungs
    };
    let options = LadderOptions {
        arena: args
            .play
            .arena(args.place.variant, args.place.dir.join("games"))?,
        rungs,
        reach: args.reach,
        games: args.games,
        timed_concurrency: args.play.timed_concurrency,
    };
    let bar = args.play.bar();
    let ladder = build_ladder(&options, &mut |pair, p| show(&bar, pair, p));
    bar.finish_and_clear();
    let ladder = ladder?;
    let file = args.place.file();
    write_ladder(&file, &ladder)?;
    out!("{}", ladder.table());
    outln!("ladder: {}", file.display());
    Ok(())
}

fn rate(args: RateArgs) -> anyhow::Result<()> {
    let ladder = read_ladder(&args.place.file())?;
    let variant = args.place.variant;
    let out = match args.out {
        Some(out) => out,
        None => default_results_dir(
            Path::new("runs/arena/ladder"),
            variant.name(),
            std::slice::from_ref(&args.player),
        )?,
    };
    let mut arena = args.play.arena(variant, out.clone())?;
    arena.settings.engine_time = Duration::from_secs_f64(args.time);
    let middle = ladder.rungs.len() / 2;
    let start = args.start.unwrap_or(ladder.elos()[middle]);
    let bar = args.play.bar();
    let climbed = climb(
        &ladder,
        &ClimbOptions {
            arena,
            player: args.player.clone(),
            rungs: args.rungs,
            games: args.games,
            start,
            timed_concurrency: args.play.timed_concurrency,
        },
        &mut |pair, p| show(&bar, pair, p),
    );
    bar.finish_and_clear();
    let climbed = climbed?;
    for (rung, wdl) in &climbed.against {
        let rung = &ladder.rungs[*rung];
        outln!(
            "against {} ({}): +{} ={} -{}, {:.1}%",
            rung.player,
            signed_elo(rung.rating.elo),
            wdl.wins,
            wdl.draws,
            wdl.losses,
            100.0 * wdl.score()
        );
    }
    outln!(
        "{} on the {} ladder: {}",
        args.player,
        ladder.variant,
        climbed.rating
    );
    outln!("results in {}", out.display());
    Ok(())
}
