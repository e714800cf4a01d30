//! Where finished games go: samples into numbered shards, games into numbered PDN files, and
//! running statistics for the progress display.

use crate::play::GameRecord;
use crate::shard::{SHARD_FORMAT, Shard, ShardError, ShardHeader};
use damas_nn::write_atomically;
use damas_rules::{Color, Outcome, Rules};
use std::path::{Path, PathBuf};

/// Running totals over the games seen so far.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stats {
    /// Games finished.
    pub games: u32,
    /// Samples recorded.
    pub samples: u64,
    /// Plies played.
    pub plies: u64,
    /// Wins of White (the side at the bottom, which moves first in most variants but second in
    /// English, Pool and Thai).
    pub white_wins: u32,
    /// Wins of Black.
    pub black_wins: u32,
    /// Draws.
    pub draws: u32,
    /// Games ended by resignation.
    pub resignations: u32,
    /// Games played with resignation disabled to check it.
    pub resign_checks: u32,
    /// Of those, games where a side would have resigned.
    pub would_resign: u32,
    /// Of those, games the would-be resigner did not lose.
    pub false_resignations: u32,
    /// Games ended by reaching the endgame database.
    pub database_results: u32,
    /// Search leaves the endgame database answered (network evaluations saved).
    pub database_hits: u64,
}

impl Stats {
    /// Adds a finished game.
    pub fn add(&mut self, record: &GameRecord) {
        self.games += 1;
        self.samples += record.samples.len() as u64;
        self.plies += u64::from(record.plies);
        match record.outcome {
            Outcome::Win {
                winner: Color::White,
                reason,
            } => {
                self.white_wins += 1;
                self.resignations += u32::from(reason == damas_rules::WinReason::Resignation);
            }
            Outcome::Win { reason, .. } => {
                self.black_wins += 1;
                self.resignations += u32::from(reason == damas_rules::WinReason::Resignation);
            }
            Outcome::Draw(_) => self.draws += 1,
        }
        self.database_results += u32::from(record.database_result);
        self.database_hits += record.database_hits;
        if let Some(check) = record.resign_check {
            self.resign_checks += 1;
            self.would_resign += u32::from(check.is_some());
            self.false_resignations += u32::from(record.false_resignation());
        }
    }

    /// Average game length in plies.
    pub fn average_plies(&self) -> f64 {
        if self.games == 0 {
            0.0
        } else {
            self.plies as f64 / self.games as f64
        }
    }
}

/// Collects finished games and writes them out every `games_per_shard` games.
pub struct ShardWriter {
    shard_dir: PathBuf,
    pdn_dir: PathBuf,
    prefix: String,
    header: ShardHeader,
    games_per_shard: u32,
    samples: Vec<crate::shard::Sample>,
    pdn: String,
    games: u32,
    next_index: u32,
    written: Vec<PathBuf>,
}

impl ShardWriter {
    /// Writes shards of `V`'s games `<prefix>-NNNNNN.shard` into `shard_dir` and the games
    /// `<prefix>-NNNNNN.pdn` into `pdn_dir`, numbered after any already there; `model` names
    /// the player.
    pub fn new<V: Rules>(
        shard_dir: &Path,
        pdn_dir: &Path,
        prefix: &str,
        model: &str,
        games_per_shard: u32,
    ) -> Self {
        let next_index = crate::shard::list_shards(shard_dir)
            .unwrap_or_default()
            .iter()
            .filter_map(|path| {
                let stem = path.file_stem()?.to_str()?;
                stem.strip_prefix(prefix)?
                    .strip_prefix('-')?
                    .parse::<u32>()
                    .ok()
            })
            .max()
            .map_or(0, |last| last + 1);
        ShardWriter {
            shard_dir: shard_dir.to_path_buf(),
            pdn_dir: pdn_dir.to_path_buf(),
            prefix: prefix.to_string(),
            header: ShardHeader {
                format: SHARD_FORMAT,
                variant: V::NAME.to_string(),
                encoding_version: damas_nn::ENCODING_VERSION,
                model: model.to_string(),
                games: 0,
                generation: None,
                plies: 0,
                results: [0; 3],
            },
            games_per_shard: games_per_shard.max(1),
            samples: Vec::new(),
            pdn: String::new(),
            games: 0,
            next_index,
            written: Vec::new(),
        }
    }

    /// Records `generation` (of the run's network that plays) in every shard.
    pub fn with_generation(mut self, generation: u32) -> Self {
        self.header.generation = Some(generation);
        self
    }

    /// Takes a finished game; writes a shard when enough games have gathered.
    pub fn add(&mut self, record: GameRecord) -> Result<(), ShardError> {
        self.header.plies += u64::from(record.plies);
        let result = match record.outcome {
            Outcome::Win {
                winner: Color::White,
                ..
            } => 0,
            Outcome::Draw(_) => 1,
            Outcome::Win { .. } => 2,
        };
        self.header.results[result] += 1;
        self.samples.extend(record.samples);
        self.pdn.push_str(&record.pdn);
        self.pdn.push('\n');
        self.games += 1;
        if self.games >= self.games_per_shard {
            self.flush()?;
        }
        Ok(())
    }

    /// Writes what has gathered (if anything) as one shard and one PDN file.
    pub fn flush(&mut self) -> Result<(), ShardError> {
        if self.games == 0 {
            return Ok(());
        }
        let name = format!("{}-{:06}", self.prefix, self.next_index);
        let shard = Shard {
            header: ShardHeader {
                games: self.games,
                ..self.header.clone()
            },
            samples: std::mem::take(&mut self.samples),
        };
        let pdn_path = self.pdn_dir.join(format!("{name}.pdn"));
        write_atomically(&pdn_path, self.pdn.as_bytes()).map_err(|source| ShardError::Io {
            path: pdn_path,
            source,
        })?;
        let path = self.shard_dir.join(format!("{name}.shard"));
        shard.write(&path)?;
        self.written.push(path);
        self.pdn.clear();
        self.games = 0;
        self.header.plies = 0;
        self.header.results = [0; 3];
        self.next_index += 1;
        Ok(())
    }

    /// The player named in the shards and games.
    pub fn model(&self) -> &str {
        &self.header.model
    }

    /// The shard files written so far.
    pub fn written(&self) -> &[PathBuf] {
        &self.written
    }
}
