//! Where a match or tournament keeps its games: `games.pdn`, `results.json` and `results.csv`
//! in one directory, all rewritten atomically after every game, so that a stopped match or
//! tournament resumes where it stopped and never loses a finished game.

use crate::elo::Wdl;
use crate::matches::ScheduledGame;
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
    #[error("{dir} holds results of {variant} between {players:?}; use another --out")]
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

/// A CSV field in double quotes (quotes inside become single quotes).
pub fn quoted(text: &str) -> String {
    format!("\"{}\"", text.replace('"', "'"))
}
