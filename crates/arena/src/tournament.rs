//! Matches and tournaments run to the end from their options: players built from strings,
//! openings, the schedule (skipping games already in the results directory), the results store,
//! an optional SPRT, and the rating files. `damas match`, `damas tournament` and the learning
//! benchmark all run through here.

use crate::elo::{EloEstimate, Sprt, SprtVerdict, Wdl, elo_estimate, fit_ratings, signed_elo};
use crate::factory::{PlayerError, PlayerSettings};
use crate::game::GameRules;
use crate::matches::{
    BoxedFactory, Pairing, ScheduledGame, each_pair, gauntlet, match_pairings, round_robin,
    run_schedule,
};
use crate::openings::{balanced_openings, parse_openings};
use crate::plot::PlotError;
use crate::spec::{PlayerSpec, SpecError};
use crate::store::{ResultsStore, StoreError, quoted};
use damas_models::{ModelError, model_variant};
use damas_nn::{CheckpointError, checkpoint_dir, list_checkpoints};
use damas_rules::{FenLineError, Game, Rules, Variant, VariantVisitor};
use std::path::{Path, PathBuf};

/// Why a match or tournament could not be played.
#[derive(Debug, thiserror::Error)]
pub enum ArenaError {
    /// A player string is not understood.
    #[error(transparent)]
    Spec(#[from] SpecError),
    /// A player could not be built.
    #[error(transparent)]
    Player(#[from] PlayerError),
    /// The results directory could not be used.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The openings file could not be read.
    #[error("cannot read openings {path}")]
    OpeningsIo {
        /// The file.
        path: PathBuf,
        /// The system's reason.
        #[source]
        source: std::io::Error,
    },
    /// A line of the openings file is not a FEN of the variant.
    #[error("openings {path}")]
    OpeningsFen {
        /// The file.
        path: PathBuf,
        /// The bad line.
        #[source]
        source: FenLineError,
    },
    /// A table of the endgame database was found damaged during the games (its positions
    /// were played on as if not in the tables; the results stored are sound).
    #[error("endgame database damaged: {0}; rebuild that table with `damas egdb build`")]
    EgdbDamaged(String),
    /// The openings file holds none.
    #[error("{0}: no openings")]
    NoOpenings(PathBuf),
    /// Fewer than two players.
    #[error("a tournament or a ladder needs at least two players")]
    TooFewPlayers,
    /// A tournament names one player twice (its rows would be indistinguishable).
    #[error(
        "player `{0}` is named twice; give each player once (a player against itself: `damas match`)"
    )]
    DuplicatePlayer(String),
    /// A scheduled pair names a player twice or one that does not exist.
    #[error("cannot pair players {0} and {1} among {2}")]
    BadPair(usize, usize, usize),
    /// The checkpoints directory could not be read.
    #[error("cannot list checkpoints")]
    Checkpoints(#[from] CheckpointError),
    /// The checkpoints directory holds none.
    #[error("no checkpoints in {0}")]
    NoCheckpoints(PathBuf),
    /// A checkpoint's variant could not be read.
    #[error(transparent)]
    Model(#[from] ModelError),
    /// Two checkpoints of one directory are for different variants.
    #[error(
        "{dir}: checkpoint {first} is for {first_variant} but checkpoint {other} for {other_variant}"
    )]
    CheckpointVariants {
        /// The checkpoints directory.
        dir: PathBuf,
        /// The first checkpoint.
        first: u32,
        /// Its variant.
        first_variant: Variant,
        /// A checkpoint for another variant.
        other: u32,
        /// Its variant.
        other_variant: Variant,
    },
    /// The variant asked for is not the checkpoints'.
    #[error("--variant {given} given, but the checkpoints in {dir} are for {found}")]
    VariantMismatch {
        /// The checkpoints directory.
        dir: PathBuf,
        /// The variant asked for.
        given: Variant,
        /// The checkpoints' variant.
        found: Variant,
    },
    /// The ratings picture could not be drawn.
    #[error(transparent)]
    Plot(#[from] PlotError),
}

/// What matches and tournaments share.
#[derive(Clone, Debug)]
pub struct ArenaOptions {
    /// The variant played.
    pub variant: Variant,
    /// Start positions, one FEN per line (none: balanced random openings).
    pub openings: Option<PathBuf>,
    /// Random plies of the built-in openings.
    pub opening_plies: u32,
    /// Games played at once (one when a DXP engine plays: it takes one connection at a time).
    pub concurrency: usize,
    /// How players are built.
    pub settings: PlayerSettings,
    /// Length cap and adjudication.
    pub rules: GameRules,
    /// The results directory.
    pub out: PathBuf,
    /// Seed of the openings and the players' randomness.
    pub seed: u64,
}

/// A match between two players.
#[derive(Clone, Debug)]
pub struct MatchOptions {
    /// Openings, players' settings, output.
    pub arena: ArenaOptions,
    /// The two players' strings.
    pub players: [String; 2],
    /// Games (each opening twice, colours swapped).
    pub games: u32,
    /// Stop as soon as this test decides.
    pub sprt: Option<Sprt>,
}

/// A round robin or a gauntlet.
#[derive(Clone, Debug)]
pub struct TournamentOptions {
    /// Openings, players' settings, output.
    pub arena: ArenaOptions,
    /// The players' strings.
    pub players: Vec<String>,
    /// The checkpoint number of each player, when they are a run's checkpoints (for the
    /// ratings picture).
    pub checkpoints: Option<Vec<u32>>,
    /// Each pair meets twice per round, colours swapped.
    pub rounds: u32,
    /// Who meets whom.
    pub schedule: Schedule,
    /// The player whose rating is fixed at 0.
    pub anchor: usize,
}

/// Who meets whom in a tournament.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Schedule {
    /// Every player meets every other.
    #[default]
    RoundRobin,
    /// Only the first player meets the others.
    Gauntlet,
    /// These pairs of players (indices) meet; the rating fit still puts everyone on one scale
    /// as long as the pairs connect them.
    Pairs(Vec<(usize, usize)>),
}

/// How far a match or tournament has got, after each game (and once before the first, when
/// the results directory already held games).
#[derive(Clone, Debug)]
pub struct Progress {
    /// Games finished (those of an earlier, resumed run included).
    pub done: usize,
    /// Games scheduled.
    pub total: usize,
    /// One line on how it goes.
    pub message: String,
    /// Set on the call before the first game when the results directory already held games.
    pub resumed: Option<Resumed>,
}

/// What a results directory already held when a match or tournament started on it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resumed {
    /// Games stored by earlier runs.
    pub stored: usize,
    /// Games left to play now (none when the directory holds as many as asked, or more).
    pub to_play: usize,
    /// The directory.
    pub dir: PathBuf,
}

impl Resumed {
    /// The notice, if `store` already holds games and `to_play` are left.
    fn of(store: &ResultsStore, to_play: usize) -> Option<Resumed> {
        let stored = store.results().games.len();
        (stored > 0).then(|| Resumed {
            stored,
            to_play,
            dir: store.dir().to_path_buf(),
        })
    }
}

/// What a match found.
#[derive(Clone, Debug)]
pub struct MatchSummary {
    /// The players' names.
    pub names: [String; 2],
    /// The first player's results.
    pub first: Wdl,
    /// The first player's Elo over the second, with its interval.
    pub elo: EloEstimate,
    /// The test, its log-likelihood ratio and verdict, if one was asked for.
    pub sprt: Option<(Sprt, f64, SprtVerdict)>,
    /// Where the results are.
    pub out: PathBuf,
}

/// What a tournament found.
#[derive(Clone, Debug)]
pub struct TournamentSummary {
    /// The players' names.
    pub names: Vec<String>,
    /// `table[i][j]`: player i's results against player j.
    pub table: Vec<Vec<Wdl>>,
    /// Each player's fitted rating (the anchor at 0).
    pub ratings: Vec<EloEstimate>,
    /// Each player's checkpoint number, when they are checkpoints.
    pub checkpoints: Option<Vec<u32>>,
    /// Where the results are.
    pub out: PathBuf,
}

impl TournamentSummary {
    /// Player `i`'s results against everyone.
    pub fn total(&self, i: usize) -> Wdl {
        let mut total = Wdl::default();
        for &wdl in &self.table[i] {
            total += wdl;
        }
        total
    }

    /// The crosstable, best first: rank, player, Elo, interval, and the points against each
    /// opponent, in columns headed by the opponent's rank (`#1`, `#2`, ...).
    pub fn crosstable(&self) -> String {
        let mut order: Vec<usize> = (0..self.names.len()).collect();
        order.sort_by(|&a, &b| self.ratings[b].elo.total_cmp(&self.ratings[a].elo));
        let cells: Vec<Vec<String>> = order
            .iter()
            .map(|&i| {
                order
                    .iter()
                    .map(|&j| {
                        if i == j {
                            "-".to_string()
                        } else {
                            let w = self.table[i][j];
                            format!("{}/{}", points(w), w.games())
                        }
                    })
                    .collect()
            })
            .collect();
        let width = cells
            .iter()
            .flatten()
            .map(String::len)
            .chain([format!("#{}", order.len()).len()])
            .max()
            .unwrap_or(1);
        let name_width = self.names.iter().map(String::len).max().unwrap_or(0).max(6);
        let headers: Vec<String> = (1..=order.len())
            .map(|rank| format!("{:>width$}", format!("#{rank}")))
            .collect();
        let mut text = format!(
            "{:>3} {:<name_width$} {:>6} {:>13}  {}\n",
            "#",
            "player",
            "Elo",
            "95% interval",
            headers.join(" ")
        );
        for (rank, &i) in order.iter().enumerate() {
            let rating = &self.ratings[i];
            let interval = if rating.low == rating.high {
                "(anchor)".to_string()
            } else {
                format!("{}..{}", signed_elo(rating.low), signed_elo(rating.high))
            };
            let row: Vec<String> = cells[rank]
                .iter()
                .map(|cell| format!("{cell:>width$}"))
                .collect();
            text += &format!(
                "{:>3} {:<name_width$} {:>6} {:>13}  {}\n",
                rank + 1,
                self.names[i],
                signed_elo(rating.elo),
                interval,
                row.join(" ")
            );
        }
        text
    }
}

/// A tournament's players taken from a run's checkpoints.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckpointPlayers {
    /// The players' strings (`net:DIR/NNNNNN[,sims=N]`).
    pub players: Vec<String>,
    /// Their checkpoint numbers.
    pub numbers: Vec<u32>,
    /// The variant they all play (from their `meta.json`).
    pub variant: Variant,
}

/// The players of a tournament over a run's checkpoints: every `every`th, and the last; each
/// at `simulations` per move if given (else with its own search). Their variant is read from
/// each checkpoint; they must agree with each other and with `variant` if one is given.
pub fn checkpoint_players(
    dir: &Path,
    every: u32,
    simulations: Option<u32>,
    variant: Option<Variant>,
) -> Result<CheckpointPlayers, ArenaError> {
    let mut numbers = list_checkpoints(dir)?;
    let last = *numbers
        .last()
        .ok_or_else(|| ArenaError::NoCheckpoints(dir.to_path_buf()))?;
    numbers.retain(|&n| n % every.max(1) == 0 || n == last);
    let mut found: Option<(u32, Variant)> = None;
    for &n in &numbers {
        let this = model_variant(&checkpoint_dir(dir, n))?;
        match found {
            None => found = Some((n, this)),
            Some((first, first_variant)) if first_variant != this => {
                return Err(ArenaError::CheckpointVariants {
                    dir: dir.to_path_buf(),
                    first,
                    first_variant,
                    other: n,
                    other_variant: this,
                });
            }
            Some(_) => {}
        }
    }
    let (_, found) = found.expect("at least the last checkpoint");
    if let Some(given) = variant.filter(|&given| given != found) {
        return Err(ArenaError::VariantMismatch {
            dir: dir.to_path_buf(),
            given,
            found,
        });
    }
    let players = numbers
        .iter()
        .map(|&n| {
            let path = checkpoint_dir(dir, n);
            match simulations {
                Some(sims) => format!("net:{},sims={sims}", path.display()),
                None => format!("net:{}", path.display()),
            }
        })
        .collect();
    Ok(CheckpointPlayers {
        players,
        numbers,
        variant: found,
    })
}

/// Points as a person writes them: `1.5`, `2`.
fn points(wdl: Wdl) -> String {
    let half_points = 2 * wdl.wins + wdl.draws;
    if half_points.is_multiple_of(2) {
        (half_points / 2).to_string()
    } else {
        format!("{}.5", half_points / 2)
    }
}

/// The openings: the file's, or `count` balanced random ones.
fn openings<V: Rules>(options: &ArenaOptions, count: usize) -> Result<Vec<Game<V>>, ArenaError> {
    let Some(path) = &options.openings else {
        return Ok(balanced_openings::<V>(
            count.max(1),
            options.opening_plies,
            60,
            options.seed,
        ));
    };
    let text = std::fs::read_to_string(path).map_err(|source| ArenaError::OpeningsIo {
        path: path.clone(),
        source,
    })?;
    let openings = parse_openings::<V>(&text).map_err(|source| ArenaError::OpeningsFen {
        path: path.clone(),
        source,
    })?;
    if openings.is_empty() {
        return Err(ArenaError::NoOpenings(path.clone()));
    }
    Ok(openings)
}

/// The players of a match or tournament.
struct Players<V: Rules> {
    specs: Vec<PlayerSpec>,
    names: Vec<String>,
    time_controls: Vec<String>,
    factories: Vec<BoxedFactory<V>>,
    /// The endgame database that adjudicates their games, if the arena has one.
    egdb: Option<std::sync::Arc<damas_egdb::Egdb<V>>>,
}

impl<V: Rules> Players<V> {
    /// Reads the players' strings and builds their factories.
    fn new(strings: &[String], settings: &PlayerSettings) -> Result<Self, ArenaError> {
        let specs: Vec<PlayerSpec> = strings
            .iter()
            .map(|s| s.parse())
            .collect::<Result<_, _>>()?;
        let names = specs.iter().map(ToString::to_string).collect();
        let time_controls = specs.iter().map(|s| s.time_control(settings)).collect();
        let factories = specs
            .iter()
            .map(|spec| spec.factory::<V>(settings))
            .collect::<Result<_, _>>()?;
        Ok(Players {
            specs,
            names,
            time_controls,
            factories,
            egdb: settings.open_egdb::<V>()?,
        })
    }

    /// Games at once: one when a DXP engine plays (it takes one connection at a time).
    fn concurrency(&self, options: &ArenaOptions) -> usize {
        if self.specs.iter().any(|s| matches!(s, PlayerSpec::Dxp(_))) {
            1
        } else {
            options.concurrency
        }
    }

    /// Plays `pairings` and adds each finished game to `store`; `after` sees the store with the
    /// game in it and says whether to go on. A game the store cannot save stops the schedule.
    fn play_into(
        &self,
        arena: &ArenaOptions,
        pairings: &[Pairing],
        openings: &[Game<V>],
        store: &mut ResultsStore,
        mut after: impl FnMut(&ResultsStore, &ScheduledGame<V>) -> bool,
    ) -> Result<(), ArenaError> {
        let mut failure = None;
        let refs: Vec<_> = self.factories.iter().map(|f| f.as_ref()).collect();
        run_schedule(
            &refs,
            pairings,
            openings,
            self.concurrency(arena),
            &arena.rules,
            self.egdb.as_deref(),
            arena.seed,
            |game| match store.add(&game) {
                Ok(()) => after(store, &game),
                Err(e) => {
                    failure = Some(e);
                    false
                }
            },
        );
        if let Some(error) = failure {
            return Err(error.into());
        }
        match self
            .egdb
            .as_ref()
            .and_then(|db| db.faults().into_iter().next())
        {
            Some(fault) => Err(ArenaError::EgdbDamaged(fault)),
            None => Ok(()),
        }
    }
}

/// Plays a match to its end (or until its SPRT decides), resuming from the results already in
/// `out`; `on_game` sees the progress after each game. Writes `ratings.json` at the end.
pub fn play_match(
    options: &MatchOptions,
    on_game: &mut dyn FnMut(&Progress),
) -> Result<MatchSummary, ArenaError> {
    struct Visit<'a>(&'a MatchOptions, &'a mut dyn FnMut(&Progress));
    impl VariantVisitor for Visit<'_> {
        type Output = Result<MatchSummary, ArenaError>;
        fn visit<V: Rules>(self) -> Self::Output {
            let Visit(options, on_game) = self;
            let arena = &options.arena;
            let players = Players::<V>::new(&options.players, &arena.settings)?;
            let names = &players.names;
            let mut store = ResultsStore::open(&arena.out, V::NAME, names, &players.time_controls)?;
            let openings = openings::<V>(arena, options.games.div_ceil(2) as usize)?;
            let pairings = match_pairings(options.games, &store.played());
            let first_result = |store: &ResultsStore| store.table()[0][1];
            if let Some(resumed) = Resumed::of(&store, pairings.len()) {
                on_game(&Progress {
                    done: resumed.stored,
                    total: options.games as usize,
                    message: String::new(),
                    resumed: Some(resumed),
                });
            }
            players.play_into(arena, &pairings, &openings, &mut store, |store, _| {
                let wdl = first_result(store);
                let mut message = format!(
                    "{}: {:.1}% (+{} ={} -{})",
                    names[0],
                    100.0 * wdl.score(),
                    wdl.wins,
                    wdl.draws,
                    wdl.losses
                );
                let verdict = options.sprt.map(|sprt| {
                    message += &format!(", LLR {:.2}", sprt.llr(wdl));
                    sprt.verdict(wdl)
                });
                on_game(&Progress {
                    done: wdl.games() as usize,
                    total: options.games as usize,
                    message,
                    resumed: None,
                });
                verdict.is_none_or(|v| v == SprtVerdict::Continue)
            })?;
            let first = first_result(&store);
            let elo = elo_estimate(first);
            let ratings = serde_json::json!({
                "players": names,
                "first": { "wins": first.wins, "draws": first.draws, "losses": first.losses,
                           "score": first.score(), "elo": elo.elo,
                           "elo_low": elo.low, "elo_high": elo.high },
            });
            let json = serde_json::to_string_pretty(&ratings).expect("ratings serialize");
            store.write("ratings.json", json.as_bytes())?;
            Ok(MatchSummary {
                names: [names[0].clone(), names[1].clone()],
                first,
                elo,
                sprt: options
                    .sprt
                    .map(|sprt| (sprt, sprt.llr(first), sprt.verdict(first))),
                out: arena.out.clone(),
            })
        }
    }
    options.arena.variant.visit(Visit(options, on_game))
}

/// Plays a round robin or gauntlet to its end, resuming from the results already in `out`;
/// `on_game` sees the progress after each game. Fits the ratings and writes `ratings.json`,
/// `ratings.csv` and, for checkpoints, `ratings.png`.
pub fn play_tournament(
    options: &TournamentOptions,
    on_game: &mut dyn FnMut(&Progress),
) -> Result<TournamentSummary, ArenaError> {
    struct Visit<'a>(&'a TournamentOptions, &'a mut dyn FnMut(&Progress));
    impl VariantVisitor for Visit<'_> {
        type Output = Result<TournamentSummary, ArenaError>;
        fn visit<V: Rules>(self) -> Self::Output {
            let Visit(options, on_game) = self;
            let arena = &options.arena;
            if options.players.len() < 2 {
                return Err(ArenaError::TooFewPlayers);
            }
            refuse_duplicates(&options.players)?;
            let players = Players::<V>::new(&options.players, &arena.settings)?;
            let names = players.names.clone();
            let mut store =
                ResultsStore::open(&arena.out, V::NAME, &names, &players.time_controls)?;
            let schedule = match &options.schedule {
                Schedule::RoundRobin => round_robin(names.len(), options.rounds),
                Schedule::Gauntlet => gauntlet(names.len(), options.rounds),
                Schedule::Pairs(pairs) => {
                    if let Some(&(a, b)) = pairs
                        .iter()
                        .find(|&&(a, b)| a == b || a >= names.len() || b >= names.len())
                    {
                        return Err(ArenaError::BadPair(a, b, names.len()));
                    }
                    each_pair(pairs, options.rounds)
                }
            };
            let played = store.played();
            let pairings: Vec<Pairing> = schedule
                .iter()
                .copied()
                .filter(|p| !played.contains(&p.id))
                .collect();
            let openings = openings::<V>(arena, options.rounds as usize)?;
            let mut done = played.len();
            if let Some(resumed) = Resumed::of(&store, pairings.len()) {
                on_game(&Progress {
                    done,
                    total: schedule.len(),
                    message: String::new(),
                    resumed: Some(resumed),
                });
            }
            players.play_into(arena, &pairings, &openings, &mut store, |_, game| {
                done += 1;
                on_game(&Progress {
                    done,
                    total: schedule.len(),
                    message: format!("last: {}", game.played.reason),
                    resumed: None,
                });
                true
            })?;
            let table = store.table();
            let ratings = fit_ratings(&table, options.anchor, 1.0);
            let summary = TournamentSummary {
                names,
                table,
                ratings,
                checkpoints: options.checkpoints.clone(),
                out: arena.out.clone(),
            };
            write_ratings(&store, &summary)?;
            Ok(summary)
        }
    }
    options.arena.variant.visit(Visit(options, on_game))
}

/// Refuses a list of players naming one player twice (in its canonical spelling).
pub(crate) fn refuse_duplicates(players: &[String]) -> Result<(), ArenaError> {
    let mut seen = std::collections::HashSet::new();
    for text in players {
        let name = text.parse::<PlayerSpec>()?.to_string();
        if !seen.insert(name.clone()) {
            return Err(ArenaError::DuplicatePlayer(name));
        }
    }
    Ok(())
}

/// `ratings.json`, `ratings.csv` and, for checkpoints, `ratings.png`.
fn write_ratings(store: &ResultsStore, summary: &TournamentSummary) -> Result<(), ArenaError> {
    let rows: Vec<serde_json::Value> = summary
        .names
        .iter()
        .zip(&summary.ratings)
        .enumerate()
        .map(|(i, (name, r))| {
            let total = summary.total(i);
            serde_json::json!({"player": name, "elo": r.elo, "elo_low": r.low, "elo_high": r.high,
                "games": total.games(), "score": total.score(),
                "checkpoint": summary.checkpoints.as_ref().map(|n| n[i])})
        })
        .collect();
    let json = serde_json::to_string_pretty(&rows).expect("ratings serialize");
    store.write("ratings.json", json.as_bytes())?;
    let mut csv = String::from("player,elo,elo_low,elo_high\n");
    for (name, r) in summary.names.iter().zip(&summary.ratings) {
        csv.push_str(&format!(
            "{},{:.1},{:.1},{:.1}\n",
            quoted(name),
            r.elo,
            r.low,
            r.high
        ));
    }
    store.write("ratings.csv", csv.as_bytes())?;
    if let Some(numbers) = &summary.checkpoints {
        crate::plot::ratings(&store.dir().join("ratings.png"), numbers, &summary.ratings)?;
    }
    Ok(())
}
