//! The players the page may choose from, and their searches. The browser names a player only by
//! an id from [`Roster::list`]: it never sends a player string, a path or a command.
//! Searches run on blocking threads, at most `max_searches` at once and one at a time per game;
//! a request whose page goes away stops its search.

use crate::board::{GameRequest, GameState, game_state, parse_variant, replay};
use crate::error::ApiError;
use crate::runs::Runs;
use damas_arena::{PlayerSettings, PlayerSpec};
use damas_models::inspect::inspect_game;
use damas_models::{Model, model_variant};
use damas_nn::Device;
use damas_rules::{Rules, Variant, VariantVisitor};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::Semaphore;

/// The players every server offers besides its own: alpha-beta at a few strengths and random.
pub const DEFAULT_PLAYERS: &[&str] = &[
    "alphabeta:depth=2",
    "alphabeta:depth=4",
    "alphabeta:depth=6",
    "alphabeta:time=1",
    "random",
];

/// Why the server's players cannot be set up.
#[derive(Debug, thiserror::Error)]
pub enum RosterError {
    /// A network whose file does not open.
    #[error("player `{spec}`")]
    Model {
        /// The player string.
        spec: String,
        /// Why its model does not open.
        #[source]
        source: Box<damas_models::ModelError>,
    },
}

/// A player the page may choose, as the API lists it.
#[derive(Clone, Debug, Serialize)]
pub struct PlayerInfo {
    /// What the page sends back to choose it.
    pub id: String,
    /// The player string (or the run and checkpoint it stands for).
    pub label: String,
    /// The variant it plays, if only one (networks); `None` plays every variant.
    pub variant: Option<&'static str>,
    /// Whether it is a network (which can also show its policy and win/draw/loss).
    pub network: bool,
}

/// The players given at start and those the runs directory adds.
pub struct Roster {
    configured: Vec<(PlayerSpec, Option<Variant>)>,
}

impl Roster {
    /// The roster of `specs` plus [`DEFAULT_PLAYERS`], networks opened once to learn their
    /// variant.
    pub fn new(specs: &[PlayerSpec]) -> Result<Self, RosterError> {
        let mut configured: Vec<(PlayerSpec, Option<Variant>)> = Vec::new();
        let defaults = DEFAULT_PLAYERS.iter().map(|text| {
            text.parse::<PlayerSpec>()
                .expect("the default players are valid player strings")
        });
        for spec in specs.iter().cloned().chain(defaults) {
            if configured.iter().any(|(known, _)| *known == spec) {
                continue;
            }
            // Outside engines (`hub:`, `dxp:`) are offered as the operator named them: the
            // browser can choose them, never name another command or address.
            let variant = match &spec {
                PlayerSpec::Net { path, .. } => Some(model_variant(Path::new(path)).map_err(
                    |source| RosterError::Model {
                        spec: spec.to_string(),
                        source: Box::new(source),
                    },
                )?),
                _ => None,
            };
            configured.push((spec, variant));
        }
        Ok(Roster { configured })
    }

    /// Every player the page may choose now: the configured ones, then the newest checkpoint
    /// of each run (id `run:<name>`).
    pub fn list(&self, runs: Option<&Runs>) -> Vec<PlayerInfo> {
        let mut players: Vec<PlayerInfo> = self
            .configured
            .iter()
            .map(|(spec, variant)| PlayerInfo {
                id: spec.to_string(),
                label: spec.to_string(),
                variant: variant.map(Variant::name),
                network: matches!(spec, PlayerSpec::Net { .. }),
            })
            .collect();
        if let Some(runs) = runs {
            for run in runs.list() {
                if let (Some(newest), Some(variant)) = (run.newest, run.variant) {
                    players.push(PlayerInfo {
                        id: format!("run:{}", run.name),
                        label: format!("{} (checkpoint {newest})", run.name),
                        variant: Some(variant),
                        network: true,
                    });
                }
            }
        }
        players
    }

    /// The player with id `id`, and the variant it is bound to, if any.
    pub fn resolve(
        &self,
        id: &str,
        runs: Option<&Runs>,
    ) -> Result<(PlayerSpec, Option<Variant>), ApiError> {
        if let Some(name) = id.strip_prefix("run:")
            && let Some(runs) = runs
        {
            let run = runs.find(name)?;
            let checkpoint = run.newest_checkpoint().ok_or_else(|| {
                ApiError::not_found(format!("player `{id}`: the run has no checkpoint yet"))
            })?;
            let variant = run.variant.and_then(|name| parse_variant(name).ok());
            return Ok((net_spec(&checkpoint), variant));
        }
        self.configured
            .iter()
            .find(|(spec, _)| spec.to_string() == id)
            .cloned()
            .ok_or_else(|| {
                ApiError::not_found(format!("player `{id}`: not one this server offers"))
            })
    }
}

/// A network player for a checkpoint directory, with the search it was trained with.
fn net_spec(checkpoint: &Path) -> PlayerSpec {
    PlayerSpec::Net {
        path: checkpoint.to_string_lossy().into_owned(),
        simulations: None,
        time: None,
        gumbel: false,
    }
}

/// A search that can be stopped by a request that no longer waits for it: set before the
/// player exists, or after, the player's own stop flag gets it.
#[derive(Default)]
struct Cancel {
    cancelled: AtomicBool,
    player_stop: Mutex<Option<Arc<AtomicBool>>>,
}

impl Cancel {
    fn cancel(&self) {
        let slot = self.player_stop.lock().unwrap_or_else(|p| p.into_inner());
        self.cancelled.store(true, Ordering::SeqCst);
        if let Some(stop) = slot.as_ref() {
            stop.store(true, Ordering::SeqCst);
        }
    }

    fn attach(&self, stop: Arc<AtomicBool>) {
        let mut slot = self.player_stop.lock().unwrap_or_else(|p| p.into_inner());
        if self.cancelled.load(Ordering::SeqCst) {
            stop.store(true, Ordering::SeqCst);
        }
        *slot = Some(stop);
    }

    fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::SeqCst)
    }
}

/// Cancels its search when dropped: the request's future is dropped when its page goes away.
struct CancelOnDrop(Arc<Cancel>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.cancel();
    }
}

/// A request for a player's move in a game.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ThinkRequest {
    /// The game.
    pub game: GameRequest,
    /// The player's id, from the players listing.
    pub player: String,
    /// The page's name for this game: a new search for the same game stops the one before.
    #[serde(default)]
    pub game_id: Option<String>,
}

/// A player's move and the game after it.
#[derive(Clone, Debug, Serialize)]
pub struct ThinkReply {
    /// The move in PDN.
    pub text: String,
    /// What the player says of its search.
    pub info: String,
    /// Seconds the search took.
    pub seconds: f64,
    /// The game with the move played.
    pub state: GameState,
}

/// A request for what a network makes of a position.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnalyseRequest {
    /// The game, at the position to analyse.
    pub game: GameRequest,
    /// A network player's id.
    pub player: String,
}

/// A legal move and the network's prior for it.
#[derive(Clone, Debug, Serialize)]
pub struct MovePrior {
    /// The move in PDN.
    pub text: String,
    /// Its prior, as the search gets it.
    pub probability: f32,
}

/// What a network makes of a position.
#[derive(Clone, Debug, Serialize)]
pub struct Analysis {
    /// Win, draw and loss probabilities for the side to move.
    pub wdl: [f32; 3],
    /// The legal moves, most probable first.
    pub moves: Vec<MovePrior>,
}

/// The searches in progress.
pub struct Searches {
    permits: Arc<Semaphore>,
    games: Mutex<HashMap<String, Arc<Cancel>>>,
    device: Device,
}

/// The longest game id a page may send.
const MAX_GAME_ID: usize = 64;

impl Searches {
    /// At most `max_searches` at once, networks on `device`.
    pub fn new(max_searches: u16, device: Device) -> Self {
        Searches {
            permits: Arc::new(Semaphore::new(usize::from(max_searches.max(1)))),
            games: Mutex::new(HashMap::new()),
            device,
        }
    }

    /// The move `spec` plays in `request`'s game. Waits for a free search slot; dropping the
    /// returned future (a closed page) stops the search.
    pub async fn think(
        &self,
        request: ThinkRequest,
        spec: PlayerSpec,
        bound: Option<Variant>,
    ) -> Result<ThinkReply, ApiError> {
        let variant = parse_variant(&request.game.variant)?;
        check_variant(&request.player, bound, variant)?;
        if let Some(id) = &request.game_id
            && (id.len() > MAX_GAME_ID
                || !id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'))
        {
            return Err(ApiError::bad_request(format!(
                "game_id: at most {MAX_GAME_ID} letters, digits and dashes"
            )));
        }
        let cancel = Arc::new(Cancel::default());
        let _guard = CancelOnDrop(Arc::clone(&cancel));
        if let Some(id) = &request.game_id {
            let mut games = self.games.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(previous) = games.insert(id.clone(), Arc::clone(&cancel)) {
                previous.cancel();
            }
        }
        let permit = Arc::clone(&self.permits)
            .acquire_owned()
            .await
            .map_err(|_| ApiError::internal("the server is shutting down"))?;
        let settings = PlayerSettings {
            device: self.device.clone(),
            ..PlayerSettings::default()
        };
        let task_cancel = Arc::clone(&cancel);
        let game = request.game.clone();
        let result = tokio::task::spawn_blocking(move || {
            // The permit is held until the search has really ended, not only until the
            // request gave up on it.
            let _permit = permit;
            variant.visit(Think {
                game: &game,
                spec: &spec,
                settings: &settings,
                cancel: &task_cancel,
            })
        })
        .await
        .map_err(|error| ApiError::internal(format!("the search failed: {error}")));
        if let Some(id) = &request.game_id {
            let mut games = self.games.lock().unwrap_or_else(|p| p.into_inner());
            if games.get(id).is_some_and(|c| Arc::ptr_eq(c, &cancel)) {
                games.remove(id);
            }
        }
        result?
    }

    /// What the network `spec` makes of the position of `request`'s game.
    pub async fn analyse(
        &self,
        request: AnalyseRequest,
        spec: PlayerSpec,
        bound: Option<Variant>,
    ) -> Result<Analysis, ApiError> {
        let variant = parse_variant(&request.game.variant)?;
        check_variant(&request.player, bound, variant)?;
        let PlayerSpec::Net { path, .. } = spec else {
            return Err(ApiError::bad_request(format!(
                "player `{}`: only a network has a policy to show",
                request.player
            )));
        };
        let device = self.device.clone();
        tokio::task::spawn_blocking(move || {
            variant.visit(Analyse {
                game: &request.game,
                path: Path::new(&path).to_path_buf(),
                device: &device,
            })
        })
        .await
        .map_err(|error| ApiError::internal(format!("the analysis failed: {error}")))?
    }
}

fn check_variant(player: &str, bound: Option<Variant>, variant: Variant) -> Result<(), ApiError> {
    match bound {
        Some(bound) if bound != variant => Err(ApiError::bad_request(format!(
            "player `{player}` plays {}, not {}",
            bound.name(),
            variant.name()
        ))),
        _ => Ok(()),
    }
}

struct Think<'a> {
    game: &'a GameRequest,
    spec: &'a PlayerSpec,
    settings: &'a PlayerSettings,
    cancel: &'a Cancel,
}

impl VariantVisitor for Think<'_> {
    type Output = Result<ThinkReply, ApiError>;
    fn visit<V: Rules>(self) -> Self::Output {
        let mut replayed = replay::<V>(self.game)?;
        if let Some(outcome) = replayed.game.outcome() {
            return Err(ApiError::bad_request(format!(
                "the game is over ({outcome}): no move to search"
            )));
        }
        let factory = self
            .spec
            .factory::<V>(self.settings)
            .map_err(|error| ApiError::internal(ApiError::chain(&error)))?;
        let mut player = factory(replayed.game.ply().into());
        if let Some(stop) = player.stop_handle() {
            self.cancel.attach(stop);
        }
        player.new_game();
        let started = std::time::Instant::now();
        let answer = player
            .play(&replayed.game)
            .map_err(|forfeit| ApiError::internal(format!("the player failed: {forfeit}")))?;
        if self.cancel.is_cancelled() {
            return Err(ApiError::bad_request("the search was stopped"));
        }
        if !replayed.game.legal_moves().contains(&answer.mv) {
            return Err(ApiError::internal("the player answered an illegal move"));
        }
        replayed.play(&answer.mv);
        Ok(ThinkReply {
            text: replayed.history.last().cloned().unwrap_or_default(),
            info: answer.info,
            seconds: started.elapsed().as_secs_f64(),
            state: game_state(&replayed),
        })
    }
}

struct Analyse<'a> {
    game: &'a GameRequest,
    path: PathBuf,
    device: &'a Device,
}

impl VariantVisitor for Analyse<'_> {
    type Output = Result<Analysis, ApiError>;
    fn visit<V: Rules>(self) -> Self::Output {
        let replayed = replay::<V>(self.game)?;
        if let Some(outcome) = replayed.game.outcome() {
            return Err(ApiError::bad_request(format!(
                "the game is over ({outcome}): nothing to analyse"
            )));
        }
        let model = Model::<V>::open_path(&self.path, self.device)
            .map_err(|error| ApiError::internal(ApiError::chain(&error)))?;
        let report = inspect_game(&model, &replayed.game)
            .map_err(|error| ApiError::internal(ApiError::chain(&error)))?;
        Ok(Analysis {
            wdl: report.wdl,
            moves: report
                .moves
                .into_iter()
                .map(|m| MovePrior {
                    text: m.pdn,
                    probability: m.probability,
                })
                .collect(),
        })
    }
}
