//! Players built from their strings ([`PlayerSpec`]): one factory per player, called once per
//! thread that needs it, so every thread plays with its own instance.

use crate::dxp::client::DxpPlayer;
use crate::hub::client::HubPlayer;
use crate::matches::BoxedFactory;
use crate::player::{AlphaBetaPlayer, MctsPlayer, Player, RandomPlayer};
use crate::spec::PlayerSpec;
use damas_egdb::Egdb;
use damas_models::{Model, ModelError};
use damas_nn::Device;
use damas_rules::{Geometry, Rules};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// What players are built with, besides their own strings.
#[derive(Clone, Debug)]
pub struct PlayerSettings {
    /// Seconds per move given to outside (Hub, DXP) engines.
    pub engine_time: Duration,
    /// The device networks in checkpoints run on.
    pub device: Device,
    /// An endgame database root (`damas egdb build --out DIR`): games that reach a position it
    /// holds are adjudicated with its result, and players whose string says `egdb` probe it.
    pub egdb: Option<PathBuf>,
}

impl PlayerSettings {
    /// The endgame database of `V` under [`PlayerSettings::egdb`], opened once per process.
    pub fn open_egdb<V: Rules>(&self) -> Result<Option<Arc<Egdb<V>>>, PlayerError> {
        let Some(root) = &self.egdb else {
            return Ok(None);
        };
        Egdb::open_shared(root)
            .map(Some)
            .map_err(|source| PlayerError::Egdb {
                path: root.clone(),
                source: Box::new(source),
            })
    }
}

impl Default for PlayerSettings {
    fn default() -> Self {
        PlayerSettings {
            engine_time: Duration::from_millis(100),
            device: damas_nn::cpu(),
            egdb: None,
        }
    }
}

/// Why a player could not be built.
#[derive(Debug, thiserror::Error)]
pub enum PlayerError {
    /// Its network does not open.
    #[error("player `{spec}`")]
    Model {
        /// The player.
        spec: String,
        /// Why its model does not open.
        #[source]
        source: Box<ModelError>,
    },
    /// The endgame database does not open.
    #[error("endgame database {path}")]
    Egdb {
        /// The database root.
        path: PathBuf,
        /// What is wrong with it.
        #[source]
        source: Box<damas_egdb::TableError>,
    },
    /// A player asks for the endgame database but the arena has none.
    #[error("player `{spec}` probes the endgame database, but none was given (--egdb DIR)")]
    NoEgdb {
        /// The player.
        spec: String,
    },
    /// A DXP engine for a board DXP does not play on.
    #[error("dxp:{address}: DXP is played on 10x10 boards only, not {variant}")]
    DxpBoard {
        /// The engine's address.
        address: String,
        /// The variant asked for.
        variant: &'static str,
    },
}

impl PlayerSpec {
    /// What the player is given to think with, in words (for the results file).
    pub fn time_control(&self, settings: &PlayerSettings) -> String {
        let seconds = settings.engine_time.as_secs_f64();
        match self {
            PlayerSpec::Net {
                time: Some(time), ..
            } => format!("{} s/move", time.as_secs_f64()),
            PlayerSpec::Net {
                simulations: Some(n),
                ..
            } => format!("{n} simulations/move"),
            PlayerSpec::Net { .. } => "the search its model carries".into(),
            PlayerSpec::AlphaBeta { .. } => format!("{self} (depth, nodes or seconds per move)"),
            PlayerSpec::Random => "none".into(),
            PlayerSpec::Hub(_) => format!("level move-time={seconds:.3} per move"),
            PlayerSpec::Dxp(_) => DxpPlayer::describe_time(settings.engine_time),
        }
    }

    /// The factory of this player for variant `V`. Networks are opened here, once, and shared
    /// by every instance; they play with the search they were trained with unless the string
    /// says otherwise (`sims=`, `time=`, `gumbel`).
    pub fn factory<V: Rules>(
        &self,
        settings: &PlayerSettings,
    ) -> Result<BoxedFactory<V>, PlayerError> {
        let engine_time = settings.engine_time;
        Ok(match self.clone() {
            PlayerSpec::Net {
                path,
                simulations,
                time,
                gumbel,
            } => {
                let model = Model::<V>::open_path(Path::new(&path), &settings.device).map_err(
                    |source| PlayerError::Model {
                        spec: self.to_string(),
                        source: Box::new(source),
                    },
                )?;
                let mut search = model.search();
                if let Some(simulations) = simulations {
                    search.simulations = simulations;
                }
                search.gumbel |= gumbel;
                MctsPlayer::factory(model.evaluator(), search, time)
            }
            PlayerSpec::AlphaBeta { limits, egdb } => {
                let egdb = if egdb {
                    Some(
                        settings
                            .open_egdb::<V>()?
                            .ok_or_else(|| PlayerError::NoEgdb {
                                spec: self.to_string(),
                            })?,
                    )
                } else {
                    None
                };
                Box::new(move |seed| {
                    let mut player = AlphaBetaPlayer::<V>::new(limits, seed);
                    player.set_egdb(egdb.clone());
                    Box::new(player) as Box<dyn Player<V>>
                })
            }
            PlayerSpec::Random => {
                Box::new(|seed| Box::new(RandomPlayer::new(seed)) as Box<dyn Player<V>>)
            }
            PlayerSpec::Hub(command) => Box::new(move |_| {
                Box::new(HubPlayer::new(&command, V::HUB_NAME, engine_time)) as Box<dyn Player<V>>
            }),
            PlayerSpec::Dxp(address) => {
                if V::Geometry::SQUARES != 50 {
                    return Err(PlayerError::DxpBoard {
                        address,
                        variant: V::NAME,
                    });
                }
                Box::new(move |_| {
                    Box::new(DxpPlayer::new(&address, engine_time)) as Box<dyn Player<V>>
                })
            }
        })
    }
}
