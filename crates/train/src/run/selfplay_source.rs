//! Where a generation's games come from: played here, or collected from workers' uploads.

use super::error::io_error;
use super::home::{INCOMING, REJECTED};
use super::records::SelfPlayDone;
use super::{Run, RunError};
use damas_mcts::{Evaluator, StaticEvaluator};
use damas_nn::write_atomically;
use damas_rules::Rules;
use damas_selfplay::{
    EngineGames, Shard, ShardError, ShardWriter, engine_games_into_shards, play_into_shards,
};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

impl<V: Rules> Run<'_, V> {
    /// The generation whose network plays self-play games: the latest, or with gating the
    /// last one promoted.
    pub(super) fn self_play_generation(&self, before: u32) -> u32 {
        if !self.config.evaluation.gating {
            return before;
        }
        std::fs::read_to_string(self.paths.root.join("best"))
            .ok()
            .and_then(|text| text.trim().parse().ok())
            .filter(|&best| best <= before)
            .unwrap_or(0)
    }

    /// Generation `generation`'s self-play, played here or collected from workers; its
    /// shards and marker are published before it returns.
    pub(super) fn self_play(&mut self, generation: u32) -> Result<SelfPlayDone, RunError> {
        let prefix = format!("gen{generation:06}");
        let marker = self.paths.shards.join(format!("{prefix}.done"));
        if let Ok(text) = std::fs::read_to_string(&marker)
            && let Ok(done) = serde_json::from_str::<SelfPlayDone>(&text)
        {
            return Ok(done);
        }
        // Leftovers of an interrupted self-play of this generation are incomplete: start over.
        for dir in [&self.paths.shards, &self.paths.games] {
            for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                if entry.file_name().to_string_lossy().starts_with(&prefix) {
                    let _ = std::fs::remove_file(entry.path());
                }
            }
        }
        if self.home.mirrored() {
            // Listed from this generation on, so the cost stays that of one generation.
            for folder in ["shards", "games"] {
                let from = format!("{folder}/{prefix}");
                for key in self.home.store.list_after(folder, &from)? {
                    if key[folder.len() + 1..].starts_with(&prefix) {
                        self.home.store.delete(&key)?;
                    }
                }
            }
        }
        let done = if self.config.distributed.external_selfplay {
            self.collect_worker_games(generation, &prefix)?
        } else {
            self.play_games(generation, &prefix)?
        };
        let step = u64::from(generation);
        let board = &mut self.board;
        board.scalar(
            "selfplay/positions_per_second",
            done.samples as f64 / done.seconds.max(1e-9),
            step,
        );
        board.scalar(
            "selfplay/game_length",
            done.plies as f64 / f64::from(done.games.max(1)),
            step,
        );
        let games = f64::from(done.games.max(1));
        let (white, draws, black) = done.results;
        board.scalar("selfplay/white_wins", f64::from(white) / games, step);
        board.scalar("selfplay/draws", f64::from(draws) / games, step);
        board.scalar("selfplay/black_wins", f64::from(black) / games, step);
        let mut files = Vec::new();
        for dir in [&self.paths.games, &self.paths.shards] {
            for entry in std::fs::read_dir(dir).map_err(io_error(dir))?.flatten() {
                if entry.file_name().to_string_lossy().starts_with(&prefix) {
                    files.push(entry.path());
                }
            }
        }
        self.home.publish(&files)?;
        let text = serde_json::to_string_pretty(&done).expect("serializable");
        write_atomically(&marker, text.as_bytes()).map_err(io_error(&marker))?;
        self.home.publish(std::slice::from_ref(&marker))?;
        // Only now, with the marker kept, may the workers' copies go.
        for key in &done.consumed {
            self.home.store.delete(key)?;
        }
        Ok(done)
    }

    /// Plays generation `generation`'s games here, into shards named `prefix-NNNNNN`: with the
    /// network (or in generation 1 the static evaluation, or the engine's own games when the
    /// run has a warm start).
    pub(super) fn play_games(
        &mut self,
        generation: u32,
        prefix: &str,
    ) -> Result<SelfPlayDone, RunError> {
        let warm_start = &self.config.warm_start;
        let engine_games = generation == 1 && warm_start.games > 0;
        let player = self.self_play_generation(generation - 1);
        // No evaluator when the engine plays.
        let (evaluator, model): (Option<Arc<dyn Evaluator<V>>>, String) = if engine_games {
            (None, format!("alphabeta:depth={}", warm_start.depth))
        } else if generation == 1 && self.config.bootstrap_with_static_eval {
            (
                Some(Arc::new(StaticEvaluator::<V>::default())),
                "static-eval".into(),
            )
        } else {
            (
                Some(self.load_evaluator(player)?),
                format!("{}/{player:06}", self.config.name),
            )
        };
        let mut writer = ShardWriter::new::<V>(
            &self.paths.shards,
            &self.paths.games,
            prefix,
            &model,
            self.config.selfplay.games_per_shard,
        )
        .with_generation(player);
        let games = if engine_games {
            warm_start.games
        } else {
            self.config.games_per_generation
        };
        self.progress.start(
            &format!("generation {generation} self-play"),
            u64::from(games),
        );
        let seed = self.config.seed ^ u64::from(generation).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let progress = &mut *self.progress;
        let on_game = |stats: &damas_selfplay::Stats, seconds: f64| {
            progress.update(
                u64::from(stats.games),
                &format!(
                    "{:.1} positions/s, {:.1} plies avg, W/D/L {}/{}/{}",
                    stats.samples as f64 / seconds.max(1e-9),
                    stats.average_plies(),
                    stats.white_wins,
                    stats.draws,
                    stats.black_wins
                ),
            );
        };
        let report = if let Some(evaluator) = evaluator {
            play_into_shards::<V, _>(
                &self.config.selfplay,
                &evaluator.as_ref(),
                games,
                seed,
                &self.selfplay_openings,
                self.selfplay_egdb.as_ref(),
                &mut writer,
                on_game,
            )
        } else {
            let settings = EngineGames {
                depth: warm_start.depth,
                opening_plies: warm_start.opening_plies,
                max_plies: self.config.selfplay.max_plies,
                workers: self.config.selfplay.workers,
            };
            engine_games_into_shards::<V>(
                &settings,
                games,
                seed,
                &self.selfplay_openings,
                &mut writer,
                on_game,
            )
        };
        self.progress.finish();
        let report = report?;
        damas_selfplay::SelfPlayConfig::check_egdb(self.selfplay_egdb.as_ref())?;
        let stats = &report.stats;
        let done = SelfPlayDone {
            games: stats.games,
            samples: stats.samples,
            plies: stats.plies,
            results: (stats.white_wins, stats.draws, stats.black_wins),
            resignations: (
                stats.resignations,
                stats.would_resign,
                stats.false_resignations,
            ),
            seconds: report.seconds,
            network_share: report.network_share(),
            cache_hit_rate: report.cache.hit_rate(),
            evaluations: report.evaluations,
            mean_batch: report.mean_batch(),
            database_results: stats.database_results,
            database_hits: stats.database_hits,
            ..SelfPlayDone::default()
        };
        let step = u64::from(generation);
        let board = &mut self.board;
        let lengths: Vec<f64> = report.lengths.iter().map(|&n| f64::from(n)).collect();
        board.histogram("selfplay/game_lengths", &lengths, 20, step);
        board.scalar("selfplay/network_time_share", done.network_share, step);
        board.scalar("selfplay/cache_hit_rate", done.cache_hit_rate, step);
        board.scalar("selfplay/mean_batch", done.mean_batch, step);
        board.scalar(
            "selfplay/evaluations_per_game",
            done.evaluations as f64 / f64::from(done.games.max(1)),
            step,
        );
        board.scalar(
            "selfplay/database_results",
            f64::from(done.database_results) / f64::from(done.games.max(1)),
            step,
        );
        board.scalar(
            "selfplay/evaluations_per_sample",
            done.evaluations as f64 / done.samples.max(1) as f64,
            step,
        );
        Ok(done)
    }

    /// The `incoming/` shards earlier generations took (their copies may still be there if a
    /// stop came between the marker and the deletion).
    pub(super) fn consumed_before(&self, generation: u32) -> std::collections::HashSet<String> {
        (1..generation)
            .filter_map(|g| {
                let marker = self.paths.shards.join(format!("gen{g:06}.done"));
                let text = std::fs::read_to_string(marker).ok()?;
                Some(serde_json::from_str::<SelfPlayDone>(&text).ok()?.consumed)
            })
            .flatten()
            .collect()
    }

    /// Generation `generation`'s games from workers: waits until `incoming/` holds at least
    /// `games_per_generation` games played by a network no more than `max_staleness`
    /// generations older than the newest, and copies their shards in as `prefix-<name>`.
    /// Every shard is decoded and checked before it counts; one that cannot be used is moved
    /// to `rejected/`, and [`VERSION_ERRORS_TO_STOP`] of another version stop the run.
    pub(super) fn collect_worker_games(
        &mut self,
        generation: u32,
        prefix: &str,
    ) -> Result<SelfPlayDone, RunError> {
        let started = Instant::now();
        let newest = self.self_play_generation(generation - 1);
        let oldest = newest.saturating_sub(self.config.distributed.max_staleness);
        let wanted = self.config.games_per_generation;
        let poll = Duration::from_secs_f64(self.config.distributed.poll_seconds);
        let mut seen = self.consumed_before(generation);
        let mut done = SelfPlayDone::default();
        let mut waits = 0u32;
        let mut version_errors = 0u32;
        self.progress.start(
            &format!("generation {generation} worker games"),
            u64::from(wanted),
        );
        while done.games < wanted {
            let mut progressed = false;
            for key in newest_first(self.home.store.list(INCOMING)?) {
                if done.games >= wanted {
                    break;
                }
                let Some(name) = key
                    .strip_prefix("incoming/")
                    .filter(|name| name.ends_with(".shard") && !name.contains('/'))
                else {
                    continue;
                };
                if seen.contains(&key) {
                    continue;
                }
                seen.insert(key.clone());
                if played_by(name).is_some_and(|g| g < oldest) {
                    self.home.store.delete(&key)?;
                    done.stale_dropped += 1;
                    continue;
                }
                let Some(bytes) = self.home.store.get(&key)? else {
                    continue;
                };
                let shard = match Shard::from_bytes(&bytes, Path::new(&key)) {
                    Ok(shard) if shard.header.variant == V::NAME => shard,
                    Ok(shard) => {
                        let text = format!(
                            "{key}: a shard of {}, not {}: moved to {REJECTED}/",
                            shard.header.variant,
                            V::NAME
                        );
                        self.say(&text);
                        self.reject(&key, name, &bytes)?;
                        continue;
                    }
                    Err(error) => {
                        self.say(&format!("{error}: moved to {REJECTED}/"));
                        self.reject(&key, name, &bytes)?;
                        if matches!(error, ShardError::WrongVersion { .. }) {
                            version_errors += 1;
                            if version_errors >= VERSION_ERRORS_TO_STOP {
                                return Err(RunError::VersionSkew {
                                    count: version_errors,
                                    source: error,
                                });
                            }
                        }
                        continue;
                    }
                };
                if shard.header.generation.is_none_or(|g| g < oldest) {
                    self.home.store.delete(&key)?;
                    done.stale_dropped += 1;
                    continue;
                }
                let path = self.paths.shards.join(format!("{prefix}-{name}"));
                write_atomically(&path, &bytes).map_err(io_error(&path))?;
                let header = &shard.header;
                done.games += header.games;
                done.samples += shard.samples.len() as u64;
                done.plies += header.plies;
                done.results.0 += header.results[0];
                done.results.1 += header.results[1];
                done.results.2 += header.results[2];
                done.consumed.push(key);
                progressed = true;
                self.progress.update(
                    u64::from(done.games),
                    &format!("{} shards from workers", done.consumed.len()),
                );
            }
            if done.games < wanted && !progressed {
                waits += 1;
                if waits.is_multiple_of(60) {
                    let text = format!(
                        "generation {generation}: {} of {wanted} games after {:.0}s; waiting for \
                         workers (`damas worker --run {}`)",
                        done.games,
                        started.elapsed().as_secs_f64(),
                        self.home.store.location()
                    );
                    self.say(&text);
                }
                std::thread::sleep(poll);
            }
        }
        self.progress.finish();
        done.seconds = started.elapsed().as_secs_f64();
        Ok(done)
    }
}

/// How many worker shards of another version one generation meets before the learner stops:
/// workers of another release would otherwise play on while the learner waits forever.
const VERSION_ERRORS_TO_STOP: u32 = 3;

impl<V: Rules> Run<'_, V> {
    /// Moves a worker's shard the learner cannot use from `incoming/` to `rejected/`.
    fn reject(&self, key: &str, name: &str, bytes: &[u8]) -> Result<(), RunError> {
        self.home.store.put(&format!("{REJECTED}/{name}"), bytes)?;
        self.home.store.delete(key)?;
        Ok(())
    }
}

/// The generation of the network that played a worker's shard, from its name
/// (`gNNNNNN-<worker>-<seq>.shard`).
fn played_by(name: &str) -> Option<u32> {
    name.strip_prefix('g')
        .and_then(|rest| rest.get(..6))
        .and_then(|digits| digits.parse::<u32>().ok())
}

/// Store keys of worker shards, those played by the newest network first (in upload order
/// within one network), so that a learner with more games on offer than it needs trains on
/// the freshest; names that do not say their network come last.
fn newest_first(mut keys: Vec<String>) -> Vec<String> {
    let generation = |key: &String| played_by(key.rsplit('/').next().unwrap_or(key));
    keys.sort_by(|a, b| generation(b).cmp(&generation(a)).then_with(|| a.cmp(b)));
    keys
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worker_shards_are_taken_newest_network_first() {
        let keys = [
            "incoming/g000003-a-000001.shard",
            "incoming/g000005-b-000002.shard",
            "incoming/odd.shard",
            "incoming/g000005-b-000001.shard",
            "incoming/g000004-a-000002.shard",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(
            newest_first(keys),
            [
                "incoming/g000005-b-000001.shard",
                "incoming/g000005-b-000002.shard",
                "incoming/g000004-a-000002.shard",
                "incoming/g000003-a-000001.shard",
                "incoming/odd.shard",
            ]
        );
    }
}
