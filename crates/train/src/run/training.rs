//! Training a generation on the replay window, and growing the network when a stage is due.

use super::records::{GenerationTime, SelfPlayDone};
use super::{Run, RunError};
use crate::replay::ReplayWindow;
use crate::trainer::{TrainMetrics, Trainer};
use damas_nn::{BoardShape, CheckpointMeta, NetworkConfig, NetworkSize};
use damas_rules::Rules;
use rand::rngs::StdRng;
use std::time::Instant;

impl<V: Rules> Run<'_, V> {
    /// Samples made by every generation up to `generation` (from the self-play markers).
    pub(super) fn total_samples(&self, generation: u32) -> u64 {
        (1..=generation)
            .filter_map(|g| {
                let marker = self.paths.shards.join(format!("gen{g:06}.done"));
                let text = std::fs::read_to_string(marker).ok()?;
                Some(serde_json::from_str::<SelfPlayDone>(&text).ok()?.samples)
            })
            .sum()
    }

    /// Trains generation `generation` and writes its checkpoint; the time it took (training
    /// and i/o; the rest of the record is the caller's).
    pub(super) fn train(
        &mut self,
        generation: u32,
        done: &SelfPlayDone,
    ) -> Result<(TrainMetrics, GenerationTime), RunError> {
        let loading = Instant::now();
        let previous = self.paths.checkpoint(generation - 1);
        let (trainer, meta) = Trainer::<V>::resume(&previous, &self.config.training, &self.device)?;
        let training = &self.config.training;
        let total = self.total_samples(generation);
        let window_size = ReplayWindow::size_for(training, total);
        let window = ReplayWindow::load::<V>(&self.paths.shards, window_size)?;
        let mut time = GenerationTime {
            io: loading.elapsed().as_secs_f64(),
            ..GenerationTime::default()
        };
        let training_started = Instant::now();
        let steps = ((done.samples as f64 * training.samples_per_new_sample)
            / training.batch_size as f64)
            .ceil() as u64;
        let mut rng: StdRng =
            rand::SeedableRng::seed_from_u64(self.config.seed ^ u64::from(generation) << 20);
        let (mut trainer, meta) = match self.grow(generation, &meta, &window, &mut rng)? {
            Some(mut grown) => {
                // The new network joins the run's step count (and its learning-rate schedule).
                grown.0.set_step(trainer.step());
                grown
            }
            None => (trainer, meta),
        };
        let phase = format!("generation {generation} training");
        self.fit(&mut trainer, &window, steps, &mut rng, &phase, false);
        time.training = training_started.elapsed().as_secs_f64();
        let saving = Instant::now();
        let metrics = trainer.take_metrics();
        self.board.scalar(
            "train/window_samples",
            window.len() as f64,
            u64::from(generation),
        );
        let mut meta = CheckpointMeta {
            generation,
            search: Some(self.evaluation_search()),
            ..meta
        };
        meta.metrics.extend([
            ("policy_loss".to_string(), metrics.policy_loss),
            ("value_loss".to_string(), metrics.value_loss),
            ("policy_entropy".to_string(), metrics.policy_entropy),
            ("value_accuracy".to_string(), metrics.value_accuracy),
            ("material_loss".to_string(), metrics.material_loss),
            ("moves_left_loss".to_string(), metrics.moves_left_loss),
            ("total_samples".to_string(), total as f64),
            ("window_samples".to_string(), window.len() as f64),
        ]);
        let dir = self.paths.checkpoint(generation);
        let config_copy = std::fs::read(self.paths.root.join("config.toml")).unwrap_or_default();
        trainer.save(&dir, &meta, vec![("config.toml", config_copy)])?;
        self.home.publish_dir(&dir)?;
        time.io += saving.elapsed().as_secs_f64();
        Ok((metrics, time))
    }

    /// `steps` optimisation steps of `trainer` on batches drawn from `window`, each step's
    /// losses to TensorBoard (a growth candidate's under `growth/`, at its own step).
    pub(super) fn fit(
        &mut self,
        trainer: &mut Trainer<V>,
        window: &ReplayWindow,
        steps: u64,
        rng: &mut StdRng,
        phase: &str,
        candidate: bool,
    ) {
        // The tags, named once: a growth candidate's under `growth/`.
        let [
            policy,
            value,
            entropy,
            accuracy,
            material,
            moves_left,
            learning_rate,
        ] = [
            "loss/policy",
            "loss/value",
            "train/policy_entropy",
            "train/value_accuracy",
            "loss/material",
            "loss/moves_left",
            "train/learning_rate",
        ]
        .map(|name| {
            if candidate {
                format!("growth/{}", name.replace('/', "_"))
            } else {
                name.to_string()
            }
        });
        self.progress.start(phase, steps);
        for i in 0..steps {
            if window.is_empty() {
                break;
            }
            let batch = window.sample(self.config.training.batch_size, rng);
            let metrics = trainer.train_step(&batch);
            let step = trainer.step();
            let board = &mut self.board;
            board.scalar(&policy, metrics.policy_loss, step);
            board.scalar(&value, metrics.value_loss, step);
            board.scalar(&entropy, metrics.policy_entropy, step);
            board.scalar(&accuracy, metrics.value_accuracy, step);
            board.scalar(&material, metrics.material_loss, step);
            board.scalar(&moves_left, metrics.moves_left_loss, step);
            board.scalar(&learning_rate, trainer.learning_rate(), step);
            self.progress.update(
                i + 1,
                &format!(
                    "policy {:.3} value {:.3}",
                    metrics.policy_loss, metrics.value_loss
                ),
            );
        }
        self.progress.finish();
    }

    /// With `[growth]`, when a network of another size is due than the one of `current` (the
    /// checkpoint before `generation`): its candidate (fresh, or kept in `candidates/BxC/` from
    /// an earlier try) trains on the window, is kept, and plays the current network. Returns
    /// it, with the metadata of its checkpoints, if it takes over.
    pub(super) fn grow(
        &mut self,
        generation: u32,
        current: &CheckpointMeta,
        window: &ReplayWindow,
        rng: &mut StdRng,
    ) -> Result<Option<(Trainer<V>, CheckpointMeta)>, RunError> {
        let growth = self.config.growth.clone();
        let minutes = self.clock_after(generation - 1) / 60.0;
        let due = growth.size_due(self.config.network, generation, minutes);
        let size = NetworkSize {
            blocks: current.network.blocks,
            channels: current.network.channels,
        };
        if due == size {
            return Ok(None);
        }
        let name = format!("{}x{}", due.blocks, due.channels);
        let dir = self.paths.root.join("candidates").join(&name);
        let (mut candidate, meta) = if dir.join("meta.json").exists() {
            Trainer::<V>::resume(&dir, &self.config.training, &self.device)?
        } else {
            let network = NetworkConfig::sized(BoardShape::of::<V>(), due);
            let seed = self.config.seed ^ u64::from(generation) << 40;
            let trainer = Trainer::<V>::new(&network, &self.config.training, seed, &self.device);
            (trainer, CheckpointMeta::new::<V>(network))
        };
        let meta = CheckpointMeta {
            generation,
            search: Some(self.evaluation_search()),
            ..meta
        };
        let phase = format!("generation {generation}: {name} candidate training");
        self.fit(&mut candidate, window, growth.steps, rng, &phase, true);
        candidate.take_metrics();
        candidate.save(&dir, &meta, vec![])?;
        let score = if growth.gate_games > 0 {
            let new = self.mcts_factory_at(&dir)?;
            let old = self.mcts_factory(generation - 1)?;
            let what = format!("{name} candidate vs {}x{}", size.blocks, size.channels);
            let names = [
                format!("{name} candidate"),
                format!("generation {}", generation - 1),
            ];
            let (wdl, _) = self.play(&*new, &*old, growth.gate_games, &what, &names);
            self.board
                .scalar("growth/candidate_score", wdl.score(), u64::from(generation));
            Some(wdl.score())
        } else {
            None
        };
        let takes_over = score.is_none_or(|s| s >= growth.gate_score);
        let verdict = if takes_over {
            "takes over"
        } else {
            "trains on and tries again next generation"
        };
        self.say(&format!(
            "generation {generation}: the {name} network after {} steps on the window{}: {verdict}",
            candidate.step(),
            score.map_or(String::new(), |s| format!(
                " scored {:.1}% in {} games against the {}x{}",
                100.0 * s,
                growth.gate_games,
                size.blocks,
                size.channels
            )),
        ));
        Ok(takes_over.then_some((candidate, meta)))
    }
}
