//! `damas match` and `damas tournament`: players named by strings meet on balanced openings;
//! games go to PDN, results to JSON and CSV (rewritten atomically after every game, so a
//! killed match or tournament resumes where it stopped), ratings with 95% intervals.

use crate::model::open_evaluator;
use anyhow::{Context, bail};
use damas_arena::{
    AlphaBetaPlayer, BoxedFactory, DxpPlayer, GameRules, HubPlayer, MctsPlayer, Pairing, Player,
    PlayerSpec, RandomPlayer, ScheduledGame, Sprt, SprtVerdict, Wdl, balanced_openings,
    elo_estimate, fit_ratings, gauntlet, parse_openings, round_robin, run_schedule,
};
use damas_mcts::SearchConfig;
use damas_rules::{
    Color, Game, Geometry, Outcome, Rules, Variant, VariantVisitor, write_game_with_outcome,
};
use damas_selfplay::shard::write_atomically;
use indicatif::{ProgressBar, ProgressStyle};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// Options shared by `match` and `tournament`.
#[derive(clap::Args, Clone)]
pub struct Common {
    /// Variant to play.
    #[arg(long, value_parser = crate::parse_variant)]
    variant: Variant,
    /// Start positions, one FEN per line (default: balanced random openings).
    #[arg(long)]
    openings: Option<PathBuf>,
    /// Random plies of the built-in openings.
    #[arg(long, default_value_t = 4)]
    opening_plies: u32,
    /// Games played at once.
    #[arg(long, default_value_t = 2)]
    concurrency: usize,
    /// Seconds per move for outside (Hub) engines.
    #[arg(long, default_value_t = 0.1)]
    time: f64,
    /// Games longer than this many plies are drawn.
    #[arg(long, default_value_t = 300)]
    max_plies: u32,
    /// Adjudicate a win when both players' scores agree beyond this many hundredths of a man
    /// (networks report value x 1000) for four moves each.
    #[arg(long)]
    adjudicate: Option<i32>,
    /// Output directory (games.pdn, results.json, results.csv, ratings).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Seed of the players' randomness.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
}

/// Arguments of `damas match`.
#[derive(clap::Args)]
pub struct MatchArgs {
    #[command(flatten)]
    common: Common,
    /// The first player.
    first: String,
    /// The second player.
    second: String,
    /// Games (each opening twice, colours swapped).
    #[arg(long, default_value_t = 20)]
    games: u32,
    /// Stop as soon as a sequential probability ratio test decides: `elo0,elo1,alpha,beta`.
    #[arg(long)]
    sprt: Option<String>,
}

/// Arguments of `damas tournament`.
#[derive(clap::Args)]
pub struct TournamentArgs {
    #[command(flatten)]
    common: Common,
    /// The players.
    #[arg(long, num_args = 1.., conflicts_with = "checkpoints")]
    players: Vec<String>,
    /// Every checkpoint of a run directory's `checkpoints/` as a player instead.
    #[arg(long)]
    checkpoints: Option<PathBuf>,
    /// With --checkpoints: every Nth checkpoint (the last one always).
    #[arg(long, default_value_t = 1)]
    every: u32,
    /// With --checkpoints: simulations per move.
    #[arg(long, default_value_t = 100)]
    sims: u32,
    /// Rounds: each pair meets twice per round, colours swapped.
    #[arg(long, default_value_t = 2)]
    rounds: u32,
    /// Only the first player meets the others (a gauntlet).
    #[arg(long)]
    gauntlet: bool,
}

/// One finished game in the results file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct GameResult {
    id: u32,
    white: usize,
    black: usize,
    /// White's points: 1, 0.5 or 0.
    white_points: f64,
    result: String,
    reason: String,
    plies: u32,
}

/// The results file: what was played, so a restart skips it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct Results {
    variant: String,
    players: Vec<String>,
    games: Vec<GameResult>,
}

/// Where a match or tournament writes, and what it already holds.
struct Store {
    dir: PathBuf,
    results: Results,
    pdn: String,
}

impl Store {
    fn open(dir: &Path, variant: &str, players: &[String]) -> anyhow::Result<Store> {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        let path = dir.join("results.json");
        let results = match std::fs::read_to_string(&path) {
            Ok(text) => {
                let results: Results = serde_json::from_str(&text)
                    .with_context(|| format!("{}: not a results file", path.display()))?;
                if results.variant != variant || results.players != players {
                    bail!(
                        "{} holds results of {} between {:?}; use another --out",
                        dir.display(),
                        results.variant,
                        results.players
                    );
                }
                results
            }
            Err(_) => Results {
                variant: variant.to_string(),
                players: players.to_vec(),
                games: Vec::new(),
            },
        };
        let pdn = std::fs::read_to_string(dir.join("games.pdn")).unwrap_or_default();
        Ok(Store {
            dir: dir.to_path_buf(),
            results,
            pdn,
        })
    }

    fn played(&self) -> Vec<u32> {
        self.results.games.iter().map(|g| g.id).collect()
    }

    fn add<V: Rules>(&mut self, game: &ScheduledGame<V>) -> anyhow::Result<()> {
        let played = &game.played;
        let white_points = match played.outcome {
            Outcome::Win {
                winner: Color::White,
                ..
            } => 1.0,
            Outcome::Win { .. } => 0.0,
            Outcome::Draw(_) => 0.5,
        };
        let names = &self.results.players;
        let round = (game.pairing.id + 1).to_string();
        let tags = [
            ("Event", "damas arena"),
            ("Round", round.as_str()),
            ("White", names[game.pairing.white].as_str()),
            ("Black", names[game.pairing.black].as_str()),
            ("Termination", played.reason.as_str()),
        ];
        self.pdn.push_str(&write_game_with_outcome(
            &played.game,
            &tags,
            Some(played.outcome),
        ));
        self.pdn.push('\n');
        self.results.games.push(GameResult {
            id: game.pairing.id,
            white: game.pairing.white,
            black: game.pairing.black,
            white_points,
            result: played.outcome.pdn_result::<V::Geometry>().to_string(),
            reason: played.reason.clone(),
            plies: played.game.ply(),
        });
        let mut csv = String::from("id,white,black,white_points,result,plies,reason\n");
        for g in &self.results.games {
            csv.push_str(&format!(
                "{},\"{}\",\"{}\",{},{},{},\"{}\"\n",
                g.id,
                names[g.white].replace('"', "'"),
                names[g.black].replace('"', "'"),
                g.white_points,
                g.result,
                g.plies,
                g.reason.replace('"', "'")
            ));
        }
        let json = serde_json::to_string_pretty(&self.results)?;
        for (file, contents) in [
            ("games.pdn", self.pdn.as_bytes()),
            ("results.csv", csv.as_bytes()),
            ("results.json", json.as_bytes()),
        ] {
            let path = self.dir.join(file);
            write_atomically(&path, contents)
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
        Ok(())
    }

    /// Each player's results against each other player.
    fn table(&self) -> Vec<Vec<Wdl>> {
        let n = self.results.players.len();
        let mut table = vec![vec![Wdl::default(); n]; n];
        for g in &self.results.games {
            let (w, b) = (g.white, g.black);
            if g.white_points == 1.0 {
                table[w][b].wins += 1;
                table[b][w].losses += 1;
            } else if g.white_points == 0.0 {
                table[w][b].losses += 1;
                table[b][w].wins += 1;
            } else {
                table[w][b].draws += 1;
                table[b][w].draws += 1;
            }
        }
        table
    }
}

/// Builds the player named by `spec` for variant `V`.
fn factory<V: Rules>(spec: &PlayerSpec, common: &Common) -> anyhow::Result<BoxedFactory<V>> {
    let hub_time = Duration::from_secs_f64(common.time);
    Ok(match spec.clone() {
        PlayerSpec::Net {
            path,
            simulations,
            time,
            gumbel,
        } => {
            let (evaluator, _) = open_evaluator::<V>(&path)?;
            let evaluator: Arc<dyn damas_mcts::Evaluator<V>> = Arc::from(evaluator);
            let config = SearchConfig {
                simulations,
                gumbel,
                ..SearchConfig::default()
            };
            MctsPlayer::factory(evaluator, config, time)
        }
        PlayerSpec::AlphaBeta(limits) => Box::new(move |seed| {
            Box::new(AlphaBetaPlayer::<V>::new(limits, seed)) as Box<dyn Player<V>>
        }),
        PlayerSpec::Random => {
            Box::new(|seed| Box::new(RandomPlayer::new(seed)) as Box<dyn Player<V>>)
        }
        PlayerSpec::Hub(command) => Box::new(move |_| {
            Box::new(HubPlayer::new(&command, V::NAME, hub_time)) as Box<dyn Player<V>>
        }),
        PlayerSpec::Dxp(address) => {
            anyhow::ensure!(
                V::Geometry::SQUARES == 50,
                "dxp:{address}: DXP is played on 10x10 boards only, not {}",
                V::NAME
            );
            Box::new(move |_| Box::new(DxpPlayer::new(&address, hub_time)) as Box<dyn Player<V>>)
        }
    })
}

fn openings<V: Rules>(common: &Common, count: usize) -> anyhow::Result<Vec<Game<V>>> {
    match &common.openings {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read {}", path.display()))?;
            let openings = parse_openings::<V>(&text)
                .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
            anyhow::ensure!(!openings.is_empty(), "{}: no openings", path.display());
            Ok(openings)
        }
        None => Ok(balanced_openings::<V>(
            count.max(1),
            common.opening_plies,
            60,
            common.seed,
        )),
    }
}

fn bar(common: &Common, total: usize) -> ProgressBar {
    let bar = if common.quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(total as u64)
    };
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} games {msg}").expect("valid template"),
    );
    bar
}

fn parse_sprt(text: &str) -> anyhow::Result<Sprt> {
    let values: Vec<f64> = text
        .split(',')
        .map(|v| v.trim().parse::<f64>())
        .collect::<Result<_, _>>()
        .with_context(|| format!("--sprt `{text}`: expected elo0,elo1,alpha,beta"))?;
    let [elo0, elo1, alpha, beta] = values[..] else {
        bail!("--sprt `{text}`: expected four numbers elo0,elo1,alpha,beta");
    };
    anyhow::ensure!(
        elo0 < elo1
            && (0.0..0.5).contains(&alpha)
            && alpha > 0.0
            && (0.0..0.5).contains(&beta)
            && beta > 0.0,
        "--sprt `{text}`: needs elo0 < elo1 and 0 < alpha, beta < 0.5"
    );
    Ok(Sprt {
        elo0,
        elo1,
        alpha,
        beta,
    })
}

struct Match<'a>(&'a MatchArgs);

impl VariantVisitor for Match<'_> {
    type Output = anyhow::Result<()>;
    fn visit<V: Rules>(self) -> anyhow::Result<()> {
        let args = self.0;
        let common = &args.common;
        let specs: Vec<PlayerSpec> = [&args.first, &args.second]
            .into_iter()
            .map(|s| s.parse())
            .collect::<Result<_, _>>()?;
        let sprt = args.sprt.as_deref().map(parse_sprt).transpose()?;
        let names: Vec<String> = specs.iter().map(ToString::to_string).collect();
        let out = common
            .out
            .clone()
            .unwrap_or_else(|| PathBuf::from("runs/arena/match"));
        let mut store = Store::open(&out, V::NAME, &names)?;
        let factories = specs
            .iter()
            .map(|s| factory::<V>(s, common))
            .collect::<anyhow::Result<Vec<_>>>()?;
        let openings = openings::<V>(common, args.games.div_ceil(2) as usize)?;
        let pairings = damas_arena::match_pairings(args.games, &store.played());
        let rules = game_rules(common);
        let progress = bar(common, args.games as usize);
        let first_result = |store: &Store| store.table()[0][1];
        let mut verdict = SprtVerdict::Continue;
        let mut failure = None;
        let refs: Vec<_> = factories.iter().map(|f| f.as_ref()).collect();
        run_schedule(
            &refs,
            &pairings,
            &openings,
            concurrency(common, &specs),
            &rules,
            common.seed,
            |game| {
                if let Err(e) = store.add(&game) {
                    failure = Some(e);
                    return false;
                }
                let wdl = first_result(&store);
                let mut message = format!(
                    "{}: {:.1}% (+{} ={} -{})",
                    names[0],
                    100.0 * wdl.score(),
                    wdl.wins,
                    wdl.draws,
                    wdl.losses
                );
                if let Some(sprt) = sprt {
                    message += &format!(", LLR {:.2}", sprt.llr(wdl));
                    verdict = sprt.verdict(wdl);
                }
                progress.set_position(u64::from(wdl.games()));
                progress.set_message(message);
                verdict == SprtVerdict::Continue
            },
        );
        progress.finish_and_clear();
        if let Some(e) = failure {
            return Err(e);
        }
        let wdl = first_result(&store);
        println!("{} vs {}", names[0], names[1]);
        println!(
            "games {}: +{} ={} -{} for {}, score {:.1}%, {}",
            wdl.games(),
            wdl.wins,
            wdl.draws,
            wdl.losses,
            names[0],
            100.0 * wdl.score(),
            elo_estimate(wdl)
        );
        if let Some(sprt) = sprt {
            let (low, high) = sprt.bounds();
            println!(
                "SPRT elo0={} elo1={} alpha={} beta={}: LLR {:.2} (bounds {:.2}, {:.2}): {}",
                sprt.elo0,
                sprt.elo1,
                sprt.alpha,
                sprt.beta,
                sprt.llr(wdl),
                low,
                high,
                match sprt.verdict(wdl) {
                    SprtVerdict::AcceptH1 => "H1 accepted",
                    SprtVerdict::AcceptH0 => "H0 accepted",
                    SprtVerdict::Continue => "undecided",
                }
            );
        }
        let estimate = elo_estimate(wdl);
        let ratings = serde_json::json!({
            "players": names,
            "first": { "wins": wdl.wins, "draws": wdl.draws, "losses": wdl.losses,
                       "score": wdl.score(), "elo": estimate.elo,
                       "elo_low": estimate.low, "elo_high": estimate.high },
        });
        write_atomically(
            &out.join("ratings.json"),
            serde_json::to_string_pretty(&ratings)?.as_bytes(),
        )?;
        println!("results in {}", out.display());
        Ok(())
    }
}

/// Games at once: one when a DXP engine plays (it takes one connection at a time).
fn concurrency(common: &Common, specs: &[PlayerSpec]) -> usize {
    if specs.iter().any(|s| matches!(s, PlayerSpec::Dxp(_))) {
        1
    } else {
        common.concurrency
    }
}

fn game_rules(common: &Common) -> GameRules {
    GameRules {
        max_plies: common.max_plies,
        adjudicate_score: common.adjudicate,
        ..GameRules::default()
    }
}

/// The players of a tournament over checkpoints: every `every`th, and the last.
fn checkpoint_players(
    dir: &Path,
    every: u32,
    sims: u32,
) -> anyhow::Result<(Vec<String>, Vec<u32>)> {
    let mut numbers: Vec<u32> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read {}", dir.display()))?
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("meta.json").exists())
        .filter_map(|e| e.file_name().to_str()?.parse().ok())
        .collect();
    numbers.sort_unstable();
    let last = *numbers
        .last()
        .with_context(|| format!("no checkpoints in {}", dir.display()))?;
    numbers.retain(|&n| n % every.max(1) == 0 || n == last);
    let players = numbers
        .iter()
        .map(|n| format!("net:{},sims={sims}", dir.join(format!("{n:06}")).display()))
        .collect();
    Ok((players, numbers))
}

struct Tournament<'a>(&'a TournamentArgs);

impl VariantVisitor for Tournament<'_> {
    type Output = anyhow::Result<()>;
    fn visit<V: Rules>(self) -> anyhow::Result<()> {
        let args = self.0;
        let common = &args.common;
        let (players, numbers) = match &args.checkpoints {
            Some(dir) => {
                let (players, numbers) = checkpoint_players(dir, args.every, args.sims)?;
                (players, Some(numbers))
            }
            None => (args.players.clone(), None),
        };
        anyhow::ensure!(
            players.len() >= 2,
            "a tournament needs at least two players"
        );
        let specs: Vec<PlayerSpec> = players
            .iter()
            .map(|s| s.parse())
            .collect::<Result<_, _>>()?;
        let names: Vec<String> = specs.iter().map(ToString::to_string).collect();
        let out = common
            .out
            .clone()
            .unwrap_or_else(|| PathBuf::from("runs/arena/tournament"));
        let mut store = Store::open(&out, V::NAME, &names)?;
        let factories = specs
            .iter()
            .map(|s| factory::<V>(s, common))
            .collect::<anyhow::Result<Vec<_>>>()?;
        let schedule = if args.gauntlet {
            gauntlet(names.len(), args.rounds)
        } else {
            round_robin(names.len(), args.rounds)
        };
        let played = store.played();
        let pairings: Vec<Pairing> = schedule
            .iter()
            .copied()
            .filter(|p| !played.contains(&p.id))
            .collect();
        let openings = openings::<V>(common, args.rounds as usize)?;
        let progress = bar(common, schedule.len());
        progress.set_position(played.len() as u64);
        let mut failure = None;
        let refs: Vec<_> = factories.iter().map(|f| f.as_ref()).collect();
        run_schedule(
            &refs,
            &pairings,
            &openings,
            concurrency(common, &specs),
            &game_rules(common),
            common.seed,
            |game| {
                if let Err(e) = store.add(&game) {
                    failure = Some(e);
                    return false;
                }
                progress.inc(1);
                progress.set_message(format!("last: {}", game.played.reason));
                true
            },
        );
        progress.finish_and_clear();
        if let Some(e) = failure {
            return Err(e);
        }
        let table = store.table();
        let ratings = fit_ratings(&table, 0, 1.0);
        print_crosstable(&names, &table, &ratings);
        let rows: Vec<serde_json::Value> = names
            .iter()
            .zip(&ratings)
            .enumerate()
            .map(|(i, (name, r))| {
                let total = table[i].iter().fold(Wdl::default(), |mut t, w| {
                    damas_arena::matches::add(&mut t, *w);
                    t
                });
                serde_json::json!({"player": name, "elo": r.elo, "elo_low": r.low, "elo_high": r.high,
                    "games": total.games(), "score": total.score(),
                    "checkpoint": numbers.as_ref().map(|n| n[i])})
            })
            .collect();
        write_atomically(
            &out.join("ratings.json"),
            serde_json::to_string_pretty(&rows)?.as_bytes(),
        )?;
        let mut csv = String::from("player,elo,elo_low,elo_high\n");
        for (name, r) in names.iter().zip(&ratings) {
            csv.push_str(&format!(
                "\"{}\",{:.1},{:.1},{:.1}\n",
                name.replace('"', "'"),
                r.elo,
                r.low,
                r.high
            ));
        }
        write_atomically(&out.join("ratings.csv"), csv.as_bytes())?;
        if let Some(numbers) = numbers {
            let path = out.join("ratings.png");
            crate::plot::ratings(&path, &numbers, &ratings)
                .with_context(|| format!("cannot draw {}", path.display()))?;
        }
        println!("results in {}", out.display());
        Ok(())
    }
}

fn print_crosstable(names: &[String], table: &[Vec<Wdl>], ratings: &[damas_arena::EloEstimate]) {
    let mut order: Vec<usize> = (0..names.len()).collect();
    order.sort_by(|&a, &b| ratings[b].elo.total_cmp(&ratings[a].elo));
    println!(
        "{:>3} {:<40} {:>7} {:>17}  vs",
        "#", "player", "Elo", "95% interval"
    );
    for (rank, &i) in order.iter().enumerate() {
        let cells: Vec<String> = order
            .iter()
            .map(|&j| {
                if i == j {
                    "  -  ".to_string()
                } else {
                    let w = table[i][j];
                    format!("{:.1}/{}", w.wins as f64 + 0.5 * w.draws as f64, w.games())
                }
            })
            .collect();
        let interval = if ratings[i].low == ratings[i].high {
            "(anchor)".to_string()
        } else {
            format!("{:+.0}..{:+.0}", ratings[i].low, ratings[i].high)
        };
        println!(
            "{:>3} {:<40} {:>+7.0} {:>17}  {}",
            rank + 1,
            names[i],
            ratings[i].elo,
            interval,
            cells.join(" ")
        );
    }
}

/// Runs `damas match`.
pub fn run_match(args: MatchArgs) -> anyhow::Result<()> {
    args.common.variant.visit(Match(&args))
}

/// Runs `damas tournament`.
pub fn run_tournament(args: TournamentArgs) -> anyhow::Result<()> {
    args.common.variant.visit(Tournament(&args))
}
