//! Players named by one string, so that any two can meet:
//! `net:PATH[,sims=N|time=SECONDS][,gumbel]`, `alphabeta:depth=N|nodes=N|time=SECONDS[,egdb]`,
//! `random`, `hub:"COMMAND ARGS"`, `dxp:HOST:PORT`.

use damas_engine::Limits;
use std::fmt;
use std::str::FromStr;
use std::time::Duration;

/// A player as named on the command line.
#[derive(Clone, Debug, PartialEq)]
pub enum PlayerSpec {
    /// A network checkpoint (or exported model) searched with MCTS. Unless told otherwise it
    /// plays with the search it was trained with (or the default search).
    Net {
        /// The checkpoint directory or ONNX file.
        path: String,
        /// Simulations per move instead of the model's own.
        simulations: Option<u32>,
        /// Thinking time per move, instead of a simulation count.
        time: Option<Duration>,
        /// Gumbel root search instead of the model's own choice.
        gumbel: bool,
    },
    /// The alpha-beta baseline.
    AlphaBeta {
        /// When it stops searching.
        limits: Limits,
        /// Whether it probes the arena's endgame database (`--egdb`).
        egdb: bool,
    },
    /// Uniformly random moves.
    Random,
    /// A Hub engine started as a child process.
    Hub(String),
    /// A DXP engine listening at this address (10x10 only).
    Dxp(String),
}

/// Why a player string is not understood.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("player `{text}`: {message}")]
pub struct SpecError {
    /// The string.
    pub text: String,
    /// What is wrong.
    pub message: String,
}

/// A time in seconds: positive, finite and at most a day.
fn seconds(value: &str, key: &str) -> Result<Duration, String> {
    match value.parse::<f64>() {
        Ok(s) if s.is_finite() && s > 0.0 && s <= 86_400.0 => Ok(Duration::from_secs_f64(s)),
        Ok(_) => Err(format!(
            "{key}={value}: seconds must be positive and at most 86400"
        )),
        Err(_) => Err(format!(
            "{key}={value}: `{value}` is not a number of seconds"
        )),
    }
}

/// A count that must be at least 1 (`depth`, `nodes`, `sims`).
fn count<T: FromStr + PartialOrd + From<u8>>(value: &str, key: &str) -> Result<T, String> {
    match value.parse::<T>() {
        Ok(n) if n >= T::from(1) => Ok(n),
        Ok(_) => Err(format!("{key}={value}: {key} must be at least 1")),
        Err(_) => Err(format!("{key}={value}: `{value}` is not a whole number")),
    }
}

impl FromStr for PlayerSpec {
    type Err = SpecError;

    fn from_str(text: &str) -> Result<Self, SpecError> {
        let fail = |message: String| SpecError {
            text: text.to_string(),
            message,
        };
        let (kind, rest) = text.split_once(':').unwrap_or((text, ""));
        match kind {
            "random" if rest.is_empty() => Ok(PlayerSpec::Random),
            "alphabeta" => {
                let mut limits = Limits::default();
                let mut egdb = false;
                for option in rest.split(',').filter(|o| !o.is_empty()) {
                    if option == "egdb" {
                        egdb = true;
                        continue;
                    }
                    let (key, value) = option
                        .split_once('=')
                        .ok_or_else(|| fail(format!("`{option}` is not key=value")))?;
                    match key {
                        "depth" => limits.depth = Some(count(value, key).map_err(fail)?),
                        "nodes" => limits.nodes = Some(count(value, key).map_err(fail)?),
                        "time" => limits.move_time = Some(seconds(value, key).map_err(fail)?),
                        other => {
                            return Err(fail(format!(
                                "unknown option `{other}` (depth, nodes, time, egdb)"
                            )));
                        }
                    }
                }
                if limits == Limits::default() {
                    limits.depth = Some(6);
                }
                Ok(PlayerSpec::AlphaBeta { limits, egdb })
            }
            "net" => {
                let mut parts = rest.split(',');
                let path = parts.next().filter(|p| !p.is_empty()).ok_or_else(|| {
                    fail("needs a checkpoint directory or ONNX file: net:PATH[,sims=N|time=S][,gumbel]".into())
                })?;
                let (mut simulations, mut time, mut gumbel) = (None, None, false);
                for option in parts {
                    match option.split_once('=') {
                        Some(("sims", v)) => simulations = Some(count(v, "sims").map_err(fail)?),
                        Some(("time", v)) => time = Some(seconds(v, "time").map_err(fail)?),
                        None if option == "gumbel" => gumbel = true,
                        _ => {
                            return Err(fail(format!(
                                "unknown option `{option}` (sims=, time=, gumbel)"
                            )));
                        }
                    }
                }
                Ok(PlayerSpec::Net {
                    path: path.to_string(),
                    simulations,
                    time,
                    gumbel,
                })
            }
            "hub" => {
                let command = rest.trim().trim_matches('"').trim();
                if command.is_empty() {
                    return Err(fail("needs a command: hub:\"/path/to/engine args\"".into()));
                }
                Ok(PlayerSpec::Hub(command.to_string()))
            }
            "dxp" => {
                if rest
                    .rsplit_once(':')
                    .is_none_or(|(_, port)| port.parse::<u16>().is_err())
                {
                    return Err(fail("needs an address: dxp:HOST:PORT".into()));
                }
                Ok(PlayerSpec::Dxp(rest.to_string()))
            }
            _ => Err(fail(
                "expected net:PATH, alphabeta:depth=N, random, hub:\"COMMAND\" or dxp:HOST:PORT"
                    .into(),
            )),
        }
    }
}

impl PlayerSpec {
    /// The same player thinking `time` per move: a network searches for that long, the
    /// alpha-beta engine stops by the clock instead of a depth or node count; random players
    /// are unchanged, and outside engines get their time from the arena's settings.
    pub fn at_move_time(&self, time: Duration) -> PlayerSpec {
        match self.clone() {
            PlayerSpec::Net { path, gumbel, .. } => PlayerSpec::Net {
                path,
                simulations: None,
                time: Some(time),
                gumbel,
            },
            PlayerSpec::AlphaBeta { egdb, .. } => PlayerSpec::AlphaBeta {
                limits: Limits {
                    move_time: Some(time),
                    ..Limits::default()
                },
                egdb,
            },
            other => other,
        }
    }
}

/// The players' strings rewritten so that each thinks `time` per move (see
/// [`PlayerSpec::at_move_time`]): an equal-time match or tournament.
pub fn at_equal_time(players: &[String], time: Duration) -> Result<Vec<String>, SpecError> {
    players
        .iter()
        .map(|p| Ok(p.parse::<PlayerSpec>()?.at_move_time(time).to_string()))
        .collect()
}

impl fmt::Display for PlayerSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlayerSpec::Net {
                path,
                simulations,
                time,
                gumbel,
            } => {
                write!(f, "net:{path}")?;
                match (time, simulations) {
                    (Some(t), _) => write!(f, ",time={}", t.as_secs_f64())?,
                    (None, Some(n)) => write!(f, ",sims={n}")?,
                    (None, None) => {}
                }
                if *gumbel {
                    write!(f, ",gumbel")?;
                }
                Ok(())
            }
            PlayerSpec::AlphaBeta { limits, egdb } => {
                let mut options = Vec::new();
                if let Some(d) = limits.depth {
                    options.push(format!("depth={d}"));
                }
                if let Some(n) = limits.nodes {
                    options.push(format!("nodes={n}"));
                }
                if let Some(t) = limits.move_time {
                    options.push(format!("time={}", t.as_secs_f64()));
                }
                if *egdb {
                    options.push("egdb".into());
                }
                write!(f, "alphabeta:{}", options.join(","))
            }
            PlayerSpec::Random => write!(f, "random"),
            PlayerSpec::Hub(command) => write!(f, "hub:\"{command}\""),
            PlayerSpec::Dxp(address) => write!(f, "dxp:{address}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_time_gives_every_player_the_same_clock() {
        let players = [
            "net:runs/a/checkpoints/000010,sims=64,gumbel".to_string(),
            "alphabeta:depth=6".to_string(),
            "random".to_string(),
        ];
        let timed = at_equal_time(&players, Duration::from_millis(100)).unwrap();
        assert_eq!(
            timed,
            [
                "net:runs/a/checkpoints/000010,time=0.1,gumbel",
                "alphabeta:time=0.1",
                "random"
            ]
        );
        for text in &timed[..2] {
            let spec: PlayerSpec = text.parse().unwrap();
            let time = match spec {
                PlayerSpec::Net { time, .. } => time,
                PlayerSpec::AlphaBeta { limits, .. } => limits.move_time,
                _ => None,
            };
            assert_eq!(time, Some(Duration::from_millis(100)), "{text}");
        }
    }
}
