//! Players built from their strings ([`PlayerSpec`]): one factory per player, called once per
//! thread that needs it, so every thread plays with its own instance.

use crate::dxp::client::DxpPlayer;
use crate::hub::client::HubPlayer;
use crate::matches::BoxedFactory;
use crate::player::{AlphaBetaPlayer, MctsPlayer, Player, RandomPlayer};
use crate::spec::PlayerSpec;
use damas_models::{Model, ModelError};
use damas_nn::Device;
use damas_rules::{Geometry, Rules};
use std::path::Path;
use std::time::Duration;

/// What players are built with, besides their own strings.
#[derive(Clone, Debug)]
pub struct PlayerSettings {
    /// Seconds per move given to outside (Hub, DXP) engines.
    pub engine_time: Duration,
    /// The device networks in checkpoints run on.
    pub device: Device,
}

impl Default for PlayerSettings {
    fn default() -> Self {
        PlayerSettings {
            engine_time: Duration::from_millis(100),
            device: damas_nn::cpu(),
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
            PlayerSpec::AlphaBeta(_) => format!("{self} (depth, nodes or seconds per move)"),
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
            PlayerSpec::AlphaBeta(limits) => Box::new(move |seed| {
                Box::new(AlphaBetaPlayer::<V>::new(limits, seed)) as Box<dyn Player<V>>
            }),
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
