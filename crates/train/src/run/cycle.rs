//! The generation loop: self-play, training, evaluation, publication, in that order.

use super::home::{FINISHED, INCOMING};
use super::records::{GenerationTime, SelfPlayDone};
use super::{Run, RunError, RunSummary};
use crate::trainer::Trainer;
use damas_arena::elo_estimate;
use damas_nn::CheckpointMeta;
use damas_rules::Rules;
use std::path::PathBuf;
use std::time::Instant;

impl<V: Rules> Run<'_, V> {
    /// Runs generations until `config.generations` have checkpoints and evaluations.
    pub fn run(&mut self) -> Result<RunSummary, RunError> {
        damas_nn::set_inference_threads(self.config.training.threads);
        if self.paths.generations()?.is_empty() {
            let trainer = Trainer::<V>::new(
                &self.network_config(),
                &self.config.training,
                self.config.seed,
                &self.device,
            );
            let meta = CheckpointMeta::new::<V>(self.network_config());
            trainer.save(&self.paths.checkpoint(0), &meta, vec![])?;
            self.home.publish_dir(&self.paths.checkpoint(0))?;
            self.say(&format!(
                "{}: new run of {}, generation 0 is an untrained network",
                self.config.name,
                V::NAME
            ));
        }
        self.say(&format!(
            "device {}; self-play: {} games in flight per worker, {} leaves per game per batch",
            self.config.device,
            self.config.selfplay.games_per_worker,
            self.config.selfplay.search.leaves_per_batch
        ));
        let mut generation = *self
            .paths
            .generations()?
            .last()
            .expect("generation 0 exists");
        if generation > 0 && !self.paths.checkpoint(generation).join("time.json").exists() {
            // Stopped after the checkpoint: finish its evaluation, and record its time from
            // what is known (self-play's seconds; the training's were lost with the process).
            let evaluated = Instant::now();
            if !self.paths.checkpoint(generation).join("eval.json").exists() {
                self.evaluate(generation)?;
            }
            let marker = self.paths.shards.join(format!("gen{generation:06}.done"));
            let selfplay = std::fs::read_to_string(marker)
                .ok()
                .and_then(|text| serde_json::from_str::<SelfPlayDone>(&text).ok())
                .map_or(0.0, |done| done.seconds);
            let trained_at = self.clock_after(generation - 1) + selfplay;
            let evaluation = evaluated.elapsed().as_secs_f64();
            let time = GenerationTime {
                selfplay,
                evaluation,
                trained_at,
                elapsed: trained_at + evaluation,
                ..GenerationTime::default()
            };
            time.write(&self.paths.checkpoint(generation))?;
            self.publish_generation_end(generation)?;
        }
        if generation > 0 {
            self.say(&format!("resuming after generation {generation}"));
        }
        while generation < self.config.generations {
            // A learner whose lease was taken over stops here, before the next generation.
            self.home.renew_lease()?;
            let clock = self.clock_after(generation);
            if let Some(budget) = self.budget
                && clock >= budget.as_secs_f64()
            {
                self.say(&format!(
                    "time budget of {:.1} minutes spent after generation {generation} ({:.1} min)",
                    budget.as_secs_f64() / 60.0,
                    clock / 60.0
                ));
                break;
            }
            generation += 1;
            let started = Instant::now();
            let done = self.self_play(generation)?;
            let selfplay_seconds = started.elapsed().as_secs_f64();
            let (metrics, mut time) = self.train(generation, &done)?;
            time.selfplay = selfplay_seconds;
            time.trained_at = clock + time.selfplay + time.training + time.io;
            let train_seconds = time.training;
            let evaluated = Instant::now();
            let evaluation = self.evaluate(generation)?;
            time.evaluation = evaluated.elapsed().as_secs_f64();
            time.elapsed = time.trained_at + time.evaluation;
            time.write(&self.paths.checkpoint(generation))?;
            for (tag, seconds) in [
                ("time/selfplay_seconds", time.selfplay),
                ("time/training_seconds", time.training),
                ("time/io_seconds", time.io),
                ("time/evaluation_seconds", time.evaluation),
            ] {
                self.board.scalar(tag, seconds, u64::from(generation));
            }
            // The generation in a few lines of at most about 100 characters: positions and
            // losses, where the games came from (here: their length, how full the network's
            // batches were, cache hits; from workers: their shards), time, the baseline match.
            let secs = |s: f64| {
                if s < 10.0 {
                    format!("{s:.1}s")
                } else {
                    format!("{s:.0}s")
                }
            };
            let mut text = format!(
                "generation {generation}: {} games, {} positions, policy loss {:.3}, value loss \
                 {:.3}, value acc. {:.1}%",
                done.games,
                done.samples,
                metrics.policy_loss,
                metrics.value_loss,
                100.0 * metrics.value_accuracy,
            );
            if done.consumed.is_empty() {
                text += &format!(
                    "\n  self-play: {:.1} plies a game, mean batch {:.1}, cache hits {:.1}%",
                    done.plies as f64 / f64::from(done.games.max(1)),
                    done.mean_batch,
                    100.0 * done.cache_hit_rate,
                );
            } else {
                text += &format!(
                    "\n  from {} worker shards ({} stale dropped)",
                    done.consumed.len(),
                    done.stale_dropped
                );
            }
            let clock = if time.elapsed < 60.0 {
                secs(time.elapsed)
            } else {
                format!("{:.1} min", time.elapsed / 60.0)
            };
            text += &format!(
                "\n  time: self-play {}, training {}, i/o {}, evaluation {}; run clock {clock}",
                secs(selfplay_seconds),
                secs(train_seconds),
                secs(time.io),
                secs(time.evaluation),
            );
            if let Some((wdl, elo)) = evaluation.baseline.zip(evaluation.baseline_elo) {
                text += &format!(
                    "\n  vs baseline: {:.1}% (W/D/L {}/{}/{}), {elo}",
                    100.0 * wdl.score(),
                    wdl.wins,
                    wdl.draws,
                    wdl.losses
                );
            }
            self.say(&text);
            self.board.scalar(
                "time/selfplay_to_training_ratio",
                selfplay_seconds / train_seconds.max(1e-9),
                u64::from(generation),
            );
            self.flush_board()?;
            self.publish_generation_end(generation)?;
        }
        let mut summary = RunSummary {
            generation,
            final_vs_first: None,
        };
        if self.config.evaluation.final_games > 0 && generation > 0 {
            let (wdl, _) = self.net_match(
                generation,
                0,
                self.config.evaluation.final_games,
                "final vs first",
            )?;
            let elo = elo_estimate(wdl);
            self.say(&format!(
                "final checkpoint {generation} vs first (0): {:.1}% ({}/{}/{} in {} games), {elo}",
                100.0 * wdl.score(),
                wdl.wins,
                wdl.draws,
                wdl.losses,
                wdl.games()
            ));
            summary.final_vs_first = Some((wdl, elo));
        }
        self.flush_board()?;
        self.publish_generation_end(generation)?;
        self.home
            .store
            .put(FINISHED, format!("{generation}\n").as_bytes())?;
        // Workers' shards no generation took are not needed any more (each worker deletes the
        // ones it uploads after this when it stops). Tidying only: a store fault here leaves
        // them and does not fail the finished run.
        let tidied = self
            .home
            .store
            .list(INCOMING)
            .and_then(|keys| keys.iter().try_for_each(|key| self.home.store.delete(key)));
        if let Err(error) = tidied {
            self.say(&format!("incoming/ not emptied: {error}"));
        }
        Ok(summary)
    }

    /// Publishes what a generation leaves besides its shards and checkpoint: its evaluation and
    /// time records, the gating choice, the log and this process's TensorBoard events.
    pub(super) fn publish_generation_end(&self, generation: u32) -> Result<(), RunError> {
        if !self.home.mirrored() {
            return Ok(());
        }
        let dir = self.paths.checkpoint(generation);
        let mut files: Vec<PathBuf> = [
            dir.join("eval.pdn"),
            dir.join("eval.json"),
            dir.join("time.json"),
            self.paths.root.join("best"),
            self.paths.root.join("log.txt"),
        ]
        .into_iter()
        .filter(|path| path.exists())
        .collect();
        // Only this process's event file grows; the earlier ones were published whole when
        // the run was opened.
        files.push(self.board.path().to_path_buf());
        self.home.publish(&files)
    }
}
