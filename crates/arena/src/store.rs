//! Where a match or tournament keeps its games: `games.pdn`, `results.json` and `results.csv`
//! in one directory, all rewritten atomically after every game, so that a stopped match or
//! tournament resumes where it stopped and never loses a finished game.

use crate::elo::Wdl;
use crate::matches::ScheduledGame;
use crate::spec::{PlayerSpec, SpecError};
use damas_nn::write_atomically;
use damas_rules::{Color, Outcome, Rules, write_game_with_outcome};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// One finished game in the results file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameResult {
    /// Its number in the schedule.
    pub id: u32,
    /// The player with White (an index into the players).
    pub white: usize,
    /// The player with Black.
    pub black: usize,
    /// White's points: 1, 0.5 or 0.
    pub white_points: f64,
    /// The PDN result.
    pub result: String,
    /// How it ended, in words.
    pub reason: String,
    /// Plies played.
    pub plies: u32,
}

/// The results file: what was played, so a restart skips it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Results {
    /// The variant's name.
    pub variant: String,
    /// The players' strings.
    pub players: Vec<String>,
    /// What each player was given to think with, in words.
    #[serde(default)]
    pub time_controls: Vec<String>,
    /// The finished games.
    pub games: Vec<GameResult>,
}

/// Why a results directory could not be used.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// A file could not be read or written.
    #[error("cannot read or write {path}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The system's reason.
        #[source]
        source: std::io::Error,
    },
    /// `results.json` is not one.
    #[error("{path}: not a results file")]
    NotResults {
        /// The file.
        path: PathBuf,
        /// The parser's reason.
        #[source]
        source: serde_json::Error,
    },
    /// The directory holds another match or tournament.
    #[error("{dir} holds results of {variant} between {}; use another --out", and_list(.players))]
    Mismatch {
        /// The directory.
        dir: PathBuf,
        /// The variant it holds.
        variant: String,
        /// The players it holds.
        players: Vec<String>,
    },
}

/// A results directory, and what it already holds.
pub struct ResultsStore {
    dir: PathBuf,
    results: Results,
    pdn: String,
}

impl ResultsStore {
    /// Opens (or starts) the results of `players` playing `variant` in `dir`, each given
    /// `time_controls`; refuses a directory holding results of another variant or other
    /// players.
    pub fn open(
        dir: &Path,
        variant: &str,
        players: &[String],
        time_controls: &[String],
    ) -> Result<Self, StoreError> {
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| StoreError::Io { path, source }
        };
        std::fs::create_dir_all(dir).map_err(io(dir))?;
        let path = dir.join("results.json");
        let results = match std::fs::read_to_string(&path) {
            Ok(text) => {
                let results: Results =
                    serde_json::from_str(&text).map_err(|source| StoreError::NotResults {
                        path: path.clone(),
                        source,
                    })?;
                if results.variant != variant || results.players != players {
                    return Err(StoreError::Mismatch {
                        dir: dir.to_path_buf(),
                        variant: results.variant,
                        players: results.players,
                    });
                }
                Results {
                    time_controls: time_controls.to_vec(),
                    ..results
                }
            }
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Results {
                variant: variant.to_string(),
                players: players.to_vec(),
                time_controls: time_controls.to_vec(),
                games: Vec::new(),
            },
            Err(error) => return Err(io(&path)(error)),
        };
        let pdn_path = dir.join("games.pdn");
        let pdn = match std::fs::read_to_string(&pdn_path) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(error) => return Err(io(&pdn_path)(error)),
        };
        Ok(ResultsStore {
            dir: dir.to_path_buf(),
            results,
            pdn,
        })
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// What it holds.
    pub fn results(&self) -> &Results {
        &self.results
    }

    /// The ids of the games already played.
    pub fn played(&self) -> Vec<u32> {
        self.results.games.iter().map(|g| g.id).collect()
    }

    /// Adds a finished game and rewrites the files.
    pub fn add<V: Rules>(&mut self, game: &ScheduledGame<V>) -> Result<(), StoreError> {
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
        let json = serde_json::to_string_pretty(&self.results).expect("results serialize");
        let csv = self.csv();
        for (file, contents) in [
            ("games.pdn", self.pdn.as_bytes()),
            ("results.csv", csv.as_bytes()),
            ("results.json", json.as_bytes()),
        ] {
            self.write(file, contents)?;
        }
        Ok(())
    }

    /// Writes `contents` to the file `name` of the directory, atomically.
    pub fn write(&self, name: &str, contents: &[u8]) -> Result<(), StoreError> {
        let path = self.dir.join(name);
        write_atomically(&path, contents).map_err(|source| StoreError::Io { path, source })
    }

    fn csv(&self) -> String {
        let names = &self.results.players;
        let mut csv = String::from("id,white,black,white_points,result,plies,reason\n");
        for g in &self.results.games {
            csv.push_str(&format!(
                "{},{},{},{},{},{},{}\n",
                g.id,
                quoted(&names[g.white]),
                quoted(&names[g.black]),
                g.white_points,
                g.result,
                g.plies,
                quoted(&g.reason)
            ));
        }
        csv
    }

    /// Each player's results against each other player.
    pub fn table(&self) -> Vec<Vec<Wdl>> {
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

/// Players' strings as plain words: `a and b`, `a, b and c`.
fn and_list(players: &[String]) -> String {
    match players {
        [] => "no players".to_string(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// The default results directory of `players` (their strings as given) playing `variant`,
/// under `root`: `root/<variant>/<slug>`, the slug naming the players in a readable,
/// file-system-safe form (`alphabeta-depth-2_vs_random`), the players in their canonical spelling
/// so that two spellings of one player share it. A slug too long to read is shortened (the end
/// of each of two names, or the first of many and a count); it and players with free text (a
/// network's path, an engine's command) also get a short hash of the canonical strings, so
/// that two different pairings never share a directory by accident.
pub fn default_results_dir(
    root: &Path,
    variant: &str,
    players: &[String],
) -> Result<PathBuf, SpecError> {
    let specs: Vec<PlayerSpec> = players
        .iter()
        .map(|s| s.parse())
        .collect::<Result<_, _>>()?;
    let names: Vec<String> = specs.iter().map(ToString::to_string).collect();
    let free_text = specs
        .iter()
        .any(|s| !matches!(s, PlayerSpec::Random | PlayerSpec::AlphaBeta { .. }));
    let parts: Vec<String> = names.iter().map(|n| slug(n)).collect();
    let joined = parts.join("_vs_");
    let long = joined.len() > MAX_SLUG;
    let readable = match parts.as_slice() {
        _ if !long => joined,
        // Two long names: the end of each, where a path names its checkpoint.
        [first, second] => format!(
            "{}_vs_{}",
            tail(first, MAX_SLUG / 2 - 2),
            tail(second, MAX_SLUG / 2 - 2)
        ),
        [only] => tail(only, MAX_SLUG).to_string(),
        [first, rest @ ..] => format!("{}_and_{}-others", tail(first, MAX_SLUG / 2), rest.len()),
        [] => "no-players".to_string(),
    };
    let name = if free_text || long {
        let mut hash = Fnv::default();
        hash.add(variant);
        for name in &names {
            hash.add(name);
        }
        format!("{readable}_{:08x}", hash.0 as u32)
    } else {
        readable
    };
    Ok(root.join(slug(variant)).join(name))
}

/// The longest readable part of a default results directory's name.
const MAX_SLUG: usize = 80;

/// The last `n` bytes of a slug (all ASCII), without a leading `-`.
fn tail(slug: &str, n: usize) -> &str {
    slug[slug.len().saturating_sub(n)..].trim_start_matches('-')
}

/// Lower-case letters, digits and dots kept; every run of anything else one `-`.
pub(crate) fn slug(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() || c == '.' {
            out.push(c.to_ascii_lowercase());
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    let out = out.trim_end_matches('-');
    if out.is_empty() {
        "player".to_string()
    } else {
        out.to_string()
    }
}

/// FNV-1a over strings (each ended by a zero byte): a hash that stays the same across Rust
/// versions, for directory names.
struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv {
    fn add(&mut self, text: &str) {
        for &byte in text.as_bytes().iter().chain(&[0]) {
            self.0 ^= u64::from(byte);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}

/// A CSV field in double quotes (quotes inside become single quotes).
pub fn quoted(text: &str) -> String {
    format!("\"{}\"", text.replace('"', "'"))
}
