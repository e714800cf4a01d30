//! One network being trained: the burn model on an autodiff device, its optimiser, and the
//! training step (policy cross-entropy + win/draw/loss cross-entropy + the weighted auxiliary
//! losses, L2 in the optimiser).

use crate::config::{Optimizer, TrainingSection};
use burn::optim::decay::WeightDecayConfig;
use burn::optim::momentum::MomentumConfig;
use burn::optim::{AdamConfig, GradientsParams, ModuleOptimizer, SgdConfig};
use burn::prelude::*;
use burn::tensor::Bytes;
use burn::tensor::activation::log_softmax;
use damas_nn::checkpoint::ExtraFiles;
use damas_nn::{
    AUX_MATERIAL, AUX_OUTPUTS, AUX_PLIES_LEFT, BoardShape, CheckpointError, CheckpointMeta,
    Network, NetworkConfig, load_network, save_checkpoint,
};
use damas_rules::Rules;
use damas_selfplay::Sample;
use std::marker::PhantomData;
use std::path::Path;

/// Averages over the steps of one training phase.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TrainMetrics {
    /// Steps taken.
    pub steps: u64,
    /// Policy cross-entropy against the search's targets.
    pub policy_loss: f64,
    /// Win/draw/loss cross-entropy against the game results.
    pub value_loss: f64,
    /// Entropy of the network's policy.
    pub policy_entropy: f64,
    /// Share of positions whose most likely result (win, draw, loss) was the actual one.
    pub value_accuracy: f64,
    /// Squared error of the predicted final material balance (scaled, see [`aux_targets`]);
    /// 0 without the auxiliary head.
    pub material_loss: f64,
    /// Squared error of the predicted plies left (scaled); 0 without the auxiliary head.
    pub moves_left_loss: f64,
}

impl TrainMetrics {
    fn add(&mut self, other: &TrainMetrics) {
        let n = self.steps as f64;
        let total = n + 1.0;
        self.policy_loss = (self.policy_loss * n + other.policy_loss) / total;
        self.value_loss = (self.value_loss * n + other.value_loss) / total;
        self.policy_entropy = (self.policy_entropy * n + other.policy_entropy) / total;
        self.value_accuracy = (self.value_accuracy * n + other.value_accuracy) / total;
        self.material_loss = (self.material_loss * n + other.material_loss) / total;
        self.moves_left_loss = (self.moves_left_loss * n + other.moves_left_loss) / total;
        self.steps += 1;
    }
}

/// The model and optimiser of a run.
pub struct Trainer<V: Rules> {
    model: Network,
    optimizer: ModuleOptimizer,
    config: TrainingSection,
    device: Device,
    step: u64,
    /// Averages since the last [`Trainer::take_metrics`].
    metrics: TrainMetrics,
    _variant: PhantomData<V>,
}

fn optimizer(config: &TrainingSection) -> ModuleOptimizer {
    let decay = Some(WeightDecayConfig::new(config.l2));
    match config.optimizer {
        Optimizer::Adam => AdamConfig::new()
            .with_epsilon(1e-8)
            .with_weight_decay(decay)
            .init(),
        Optimizer::Sgd => SgdConfig::new()
            .with_momentum(Some(
                MomentumConfig::new()
                    .with_momentum(0.9)
                    .with_dampening(0.0)
                    .with_nesterov(true),
            ))
            .with_weight_decay(decay)
            .init(),
    }
}

impl<V: Rules> Trainer<V> {
    /// A fresh network of this shape with random weights (seeded), trained on `device`.
    pub fn new(
        network: &NetworkConfig,
        config: &TrainingSection,
        seed: u64,
        device: &Device,
    ) -> Self {
        let device = device.clone().autodiff();
        device.seed(seed);
        Trainer {
            model: network.init(&device),
            optimizer: optimizer(config),
            config: config.clone(),
            device,
            step: 0,
            metrics: TrainMetrics::default(),
            _variant: PhantomData,
        }
    }

    /// Continues from a checkpoint on `device`: its weights, its optimiser state if it has
    /// one, its step. A checkpoint written on any device loads on any other.
    pub fn resume(
        dir: &Path,
        config: &TrainingSection,
        device: &Device,
    ) -> Result<(Self, CheckpointMeta), CheckpointError> {
        let device = device.clone().autodiff();
        let (model, meta) = load_network::<V>(dir, &device)?;
        let mut optimizer = optimizer(config);
        let path = dir.join("optimizer.bpk");
        if path.exists() {
            let bytes = std::fs::read(&path).map_err(|reason| CheckpointError::Io {
                path: path.clone(),
                reason,
            })?;
            optimizer = optimizer
                .from_bytes(Bytes::from_bytes_vec(bytes))
                .map_err(|e| CheckpointError::Weights {
                    path,
                    message: format!("{e:?}"),
                })?;
        }
        let trainer = Trainer {
            model,
            optimizer,
            config: config.clone(),
            device,
            step: meta.step,
            metrics: TrainMetrics::default(),
            _variant: PhantomData,
        };
        Ok((trainer, meta))
    }

    /// Counts steps from `step` on (a network grown during a run joins the run's count, and
    /// with it the learning-rate schedule).
    pub fn set_step(&mut self, step: u64) {
        self.step = step;
    }

    /// Training steps taken so far (over the whole run).
    pub fn step(&self) -> u64 {
        self.step
    }

    /// The network being trained.
    pub fn network(&self) -> &Network {
        &self.model
    }

    /// The learning rate of the next step.
    pub fn learning_rate(&self) -> f64 {
        self.config.learning_rate_at(self.step)
    }

    /// One optimisation step on `batch`; returns that step's metrics (value accuracy against
    /// the game results, whatever the value target mixes in).
    pub fn train_step(&mut self, batch: &[&Sample]) -> TrainMetrics {
        let shape = BoardShape::of::<V>();
        let n = batch.len();
        let mut policy = vec![0.0f32; n * shape.policy_len()];
        let mut wdl = vec![0.0f32; n * 3];
        let mut aux = vec![0.0f32; n * AUX_OUTPUTS];
        let mut aux_mask = vec![0.0f32; n];
        for (i, sample) in batch.iter().enumerate() {
            for &(index, p) in &sample.policy {
                policy[i * shape.policy_len() + index as usize] = p;
            }
            let target = value_target(sample, self.config.search_value_weight);
            wdl[i * 3..i * 3 + 3].copy_from_slice(&target);
            if let Some(targets) = aux_targets(sample) {
                aux[i * AUX_OUTPUTS..(i + 1) * AUX_OUTPUTS].copy_from_slice(&targets);
                aux_mask[i] = 1.0;
            }
        }
        let aux_count = aux_mask.iter().sum::<f32>();
        let x = input_tensor::<V>(batch, &self.device);
        let policy_target = Tensor::<2>::from_data(
            TensorData::new(policy, [n, shape.policy_len()]),
            &self.device,
        );
        let wdl_target = Tensor::<2>::from_data(TensorData::new(wdl.clone(), [n, 3]), &self.device);
        let (output, aux_output) = self.model.forward_with_aux(x);
        let log_policy = log_softmax(output.policy, 1);
        let log_value = log_softmax(output.value, 1);
        let policy_loss = (log_policy.clone() * policy_target).sum_dim(1).mean().neg();
        let value_loss = (log_value.clone() * wdl_target).sum_dim(1).mean().neg();
        let mut loss = policy_loss.clone() + value_loss.clone() * self.config.value_weight;
        let mut aux_losses = [0.0f64; AUX_OUTPUTS];
        let weights = [self.config.material_weight, self.config.moves_left_weight];
        if let Some(predicted) = aux_output.filter(|_| aux_count > 0.0) {
            // The material prediction goes through tanh, like its target's range [-1, 1].
            let material = predicted.clone().narrow(1, AUX_MATERIAL, 1).tanh();
            let plies = predicted.narrow(1, AUX_PLIES_LEFT, 1);
            let predicted = Tensor::cat(vec![material, plies], 1);
            let target =
                Tensor::<2>::from_data(TensorData::new(aux, [n, AUX_OUTPUTS]), &self.device);
            let mask = Tensor::<2>::from_data(TensorData::new(aux_mask, [n, 1]), &self.device);
            let errors = (predicted - target).powi_scalar(2) * mask;
            for (column, weight) in weights.into_iter().enumerate() {
                let column_loss = errors.clone().narrow(1, column, 1).sum() / aux_count;
                aux_losses[column] = column_loss.clone().into_scalar::<f32>() as f64;
                if weight > 0.0 {
                    loss = loss + column_loss * weight;
                }
            }
        }
        let gradients = GradientsParams::from_grads(loss.backward(), &self.model);
        let rate = self.learning_rate();
        self.model = self.optimizer.step(rate, self.model.clone(), gradients);
        self.step += 1;

        let entropy = (log_policy.clone().exp() * log_policy)
            .sum_dim(1)
            .mean()
            .neg()
            .into_scalar::<f32>();
        let predicted = log_value.try_into_vec_as::<f32>().expect("float values");
        let correct = (0..n)
            .filter(|&i| {
                let row = &predicted[3 * i..3 * i + 3];
                let best = (0..3)
                    .max_by(|&a, &b| row[a].total_cmp(&row[b]))
                    .expect("three outcomes");
                best == (1 - batch[i].result as i64) as usize
            })
            .count();
        let metrics = TrainMetrics {
            steps: 1,
            policy_loss: policy_loss.into_scalar::<f32>() as f64,
            value_loss: value_loss.into_scalar::<f32>() as f64,
            policy_entropy: entropy as f64,
            value_accuracy: correct as f64 / n as f64,
            material_loss: aux_losses[AUX_MATERIAL],
            moves_left_loss: aux_losses[AUX_PLIES_LEFT],
        };
        self.metrics.add(&metrics);
        metrics
    }

    /// The averages since the last call, and a fresh start.
    pub fn take_metrics(&mut self) -> TrainMetrics {
        std::mem::take(&mut self.metrics)
    }

    /// Writes the checkpoint directory `dir`: weights, optimiser state, `meta` (with this step)
    /// and any extra files.
    pub fn save(
        &self,
        dir: &Path,
        meta: &CheckpointMeta,
        mut extra: ExtraFiles,
    ) -> Result<(), CheckpointError> {
        let optimizer = self
            .optimizer
            .into_bytes()
            .map_err(|e| CheckpointError::Weights {
                path: dir.join("optimizer.bpk"),
                message: format!("{e:?}"),
            })?;
        extra.push(("optimizer.bpk", optimizer.to_vec()));
        let meta = CheckpointMeta {
            step: self.step,
            ..meta.clone()
        };
        save_checkpoint(dir, &meta, &self.model, extra)
    }
}

/// The encoded positions of `batch` on `device`, `[batch, planes, height, width]`.
pub fn input_tensor<V: Rules>(batch: &[&Sample], device: &Device) -> Tensor<4> {
    let shape = BoardShape::of::<V>();
    let mut inputs = vec![0.0f32; batch.len() * shape.input_len()];
    for (sample, input) in batch.iter().zip(inputs.chunks_mut(shape.input_len())) {
        sample.position.encode::<V>(input);
    }
    let dims = [
        batch.len(),
        damas_nn::INPUT_PLANES,
        shape.height,
        shape.width,
    ];
    Tensor::from_data(TensorData::new(inputs, dims), device)
}

/// The win/draw/loss target of a sample: the game's result `z` as a one-hot, mixed with weight
/// `search_weight` with the search's value `q` as (max(q,0), 1-|q|, max(-q,0)) (KataGo and Lc0
/// train on such a mix: q is less noisy than one game's result, z is unbiased).
pub fn value_target(sample: &Sample, search_weight: f32) -> [f32; 3] {
    let mut z = [0.0; 3];
    z[(1 - i32::from(sample.result).clamp(-1, 1)) as usize] = 1.0;
    let q = sample.search_value.clamp(-1.0, 1.0);
    let q = [q.max(0.0), 1.0 - q.abs(), (-q).max(0.0)];
    std::array::from_fn(|k| (1.0 - search_weight) * z[k] + search_weight * q[k])
}

/// Material balances are divided by this (and clamped to [-1, 1]) as the material target.
pub const MATERIAL_SCALE: f32 = 10.0;
/// Plies left are divided by this (after a cap of three times it) as the moves-left target.
pub const PLIES_LEFT_SCALE: f32 = 100.0;

/// The auxiliary targets of a sample, scaled as the network predicts them (material at
/// [`AUX_MATERIAL`], plies left at [`AUX_PLIES_LEFT`]); `None` for samples from older shards.
pub fn aux_targets(sample: &Sample) -> Option<[f32; AUX_OUTPUTS]> {
    let aux = sample.aux?;
    let mut targets = [0.0; AUX_OUTPUTS];
    targets[AUX_MATERIAL] = (f32::from(aux.material) / MATERIAL_SCALE).clamp(-1.0, 1.0);
    targets[AUX_PLIES_LEFT] =
        f32::from(aux.plies_left).min(3.0 * PLIES_LEFT_SCALE) / PLIES_LEFT_SCALE;
    Some(targets)
}
