//! One network being trained: its parameters, its optimiser and the training step (policy
//! cross-entropy + win/draw/loss cross-entropy + the weighted auxiliary losses, L2 in the
//! optimiser), taken by one of two paths with the same maths: the hand-written CPU step
//! ([`CpuTrainer`]) on the CPU, burn's autodiff and optimiser on GPUs.

use crate::config::{Optimizer, TrainingSection};
use burn::optim::{GradientsParams, ModuleOptimizer};
use burn::prelude::*;
use burn::tensor::Bytes;
use damas_nn::checkpoint::ExtraFiles;
use damas_nn::training::burn_loss;
use damas_nn::{
    AUX_MATERIAL, AUX_OUTPUTS, AUX_PLIES_LEFT, BoardShape, CheckpointError, CheckpointMeta,
    CpuTrainer, LossWeights, Network, NetworkConfig, OptimizerRule, StepReport, Targets,
    load_network, save_checkpoint,
};
use damas_rules::Rules;
use damas_selfplay::Sample;
use std::cell::OnceCell;
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

/// Which code takes the training steps; both give the same updates within float rounding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepPath {
    /// The hand-written CPU step ([`CpuTrainer`]): the default on the CPU.
    Native,
    /// burn's autodiff and optimiser: the default on GPUs, and the reference.
    Burn,
}

impl StepPath {
    /// The path a run takes on `device`.
    pub fn for_device(device: &Device) -> Self {
        if *device == Device::flex() {
            StepPath::Native
        } else {
            StepPath::Burn
        }
    }

    /// Its name in benchmark output.
    pub fn name(self) -> &'static str {
        match self {
            StepPath::Native => "native CPU step",
            StepPath::Burn => "burn autodiff",
        }
    }
}

/// The parameters and optimiser state as one path holds them.
enum Engine {
    Burn {
        model: Network,
        optimizer: ModuleOptimizer,
    },
    Native {
        trainer: Box<CpuTrainer>,
        /// The network as trained so far, built when asked for.
        network: OnceCell<Network>,
    },
}

/// The model and optimiser of a run.
pub struct Trainer<V: Rules> {
    engine: Engine,
    config: TrainingSection,
    /// The autodiff device the network lives on.
    device: Device,
    step: u64,
    /// Averages since the last [`Trainer::take_metrics`].
    metrics: TrainMetrics,
    _variant: PhantomData<V>,
}

/// The update rule `config` names, with the constants every run uses.
fn optimizer_rule(config: &TrainingSection) -> OptimizerRule {
    match config.optimizer {
        Optimizer::Adam => OptimizerRule::Adam {
            beta_1: 0.9,
            beta_2: 0.999,
            epsilon: 1e-8,
        },
        Optimizer::Sgd => OptimizerRule::Sgd {
            momentum: 0.9,
            dampening: 0.0,
            nesterov: true,
        },
    }
}

/// The loss weights `config` names.
fn loss_weights(config: &TrainingSection) -> LossWeights {
    LossWeights {
        value: f64::from(config.value_weight),
        material: f64::from(config.material_weight),
        moves_left: f64::from(config.moves_left_weight),
    }
}

/// An error about the optimiser state of checkpoint `dir`.
fn state_error(dir: &Path, message: String) -> CheckpointError {
    CheckpointError::Weights {
        path: dir.join("optimizer.bpk"),
        message,
    }
}

impl<V: Rules> Trainer<V> {
    /// A fresh network of this shape with random weights, trained on `device`. The seed goes
    /// to the backend's one RNG for the process: the same seed gives the same network only
    /// while no other thread initialises a network at the same time.
    pub fn new(
        network: &NetworkConfig,
        config: &TrainingSection,
        seed: u64,
        device: &Device,
    ) -> Self {
        let autodiff = device.clone().autodiff();
        autodiff.seed(seed);
        let model = network.init(&autodiff);
        Self::assemble(model, None, config, device, 0)
            .unwrap_or_else(|e| panic!("a fresh optimiser state loads: {e}"))
    }

    /// Continues from a checkpoint on `device`: its weights, its optimiser state if it has
    /// one, its step. A checkpoint written on any device loads on any other, whichever path
    /// wrote it.
    pub fn resume(
        dir: &Path,
        config: &TrainingSection,
        device: &Device,
    ) -> Result<(Self, CheckpointMeta), CheckpointError> {
        let (model, meta) = load_network::<V>(dir, &device.clone().autodiff())?;
        let path = dir.join("optimizer.bpk");
        let state = if path.exists() {
            Some(std::fs::read(&path).map_err(|reason| CheckpointError::Io { path, reason })?)
        } else {
            None
        };
        let trainer = Self::assemble(model, state, config, device, meta.step)
            .map_err(|message| state_error(dir, message))?;
        Ok((trainer, meta))
    }

    /// A trainer on the path `device` calls for, from a model on its autodiff device and an
    /// optimiser state in burn's format (`None`: a fresh one).
    fn assemble(
        model: Network,
        state: Option<Vec<u8>>,
        config: &TrainingSection,
        device: &Device,
        step: u64,
    ) -> Result<Self, String> {
        Ok(Trainer {
            engine: engine::<V>(StepPath::for_device(device), model, state, config)?,
            config: config.clone(),
            device: device.clone().autodiff(),
            step,
            metrics: TrainMetrics::default(),
            _variant: PhantomData,
        })
    }

    /// The path taking the steps.
    pub fn path(&self) -> StepPath {
        match self.engine {
            Engine::Burn { .. } => StepPath::Burn,
            Engine::Native { .. } => StepPath::Native,
        }
    }

    /// Moves the network and its optimiser state to `path` (on the CPU, where both run; a
    /// network the native step cannot train stays on burn's path).
    pub fn set_path(&mut self, path: StepPath) {
        if path == self.path() {
            return;
        }
        let (model, state) = (self.network().clone(), self.optimizer_state());
        self.engine = engine::<V>(path, model, state.ok(), &self.config)
            .unwrap_or_else(|e| panic!("an optimiser state moves between paths: {e}"));
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
        match &self.engine {
            Engine::Burn { model, .. } => model,
            Engine::Native { trainer, network } => {
                network.get_or_init(|| trainer.network(&self.device))
            }
        }
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
        let targets = Targets {
            policy: &policy,
            wdl: &wdl,
            aux: &aux,
            aux_mask: &aux_mask,
        };
        let weights = loss_weights(&self.config);
        let rate = self.learning_rate();
        let inputs = encode::<V>(batch);
        let report = match &mut self.engine {
            Engine::Burn { model, optimizer } => {
                let x = input_tensor::<V>(inputs, &self.device);
                let (loss, report) = burn_loss(model, x, &targets, &weights);
                let gradients = GradientsParams::from_grads(loss.backward(), &*model);
                *model = optimizer.step(rate, model.clone(), gradients);
                report
            }
            Engine::Native { trainer, network } => {
                *network = OnceCell::new();
                trainer.step(&inputs, &targets, &weights, rate)
            }
        };
        self.step += 1;
        let metrics = metrics(&report, batch);
        self.metrics.add(&metrics);
        metrics
    }

    /// The averages since the last call, and a fresh start.
    pub fn take_metrics(&mut self) -> TrainMetrics {
        std::mem::take(&mut self.metrics)
    }

    /// The optimiser state in burn's format (what `optimizer.bpk` holds).
    fn optimizer_state(&self) -> Result<Vec<u8>, String> {
        match &self.engine {
            Engine::Burn { optimizer, .. } => optimizer
                .into_bytes()
                .map(|bytes| bytes.to_vec())
                .map_err(|e| format!("{e:?}")),
            Engine::Native { trainer, .. } => Ok(trainer.optimizer_state()),
        }
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
            .optimizer_state()
            .map_err(|message| state_error(dir, message))?;
        extra.push(("optimizer.bpk", optimizer));
        let meta = CheckpointMeta {
            step: self.step,
            ..meta.clone()
        };
        save_checkpoint(dir, &meta, self.network(), extra)
    }
}

/// The engine of `path` holding `model` and the optimiser `state` (burn's format). A network
/// the native step cannot train stays on burn's path.
fn engine<V: Rules>(
    path: StepPath,
    model: Network,
    state: Option<Vec<u8>>,
    config: &TrainingSection,
) -> Result<Engine, String> {
    let rule = optimizer_rule(config);
    if path == StepPath::Native {
        let board = BoardShape::of::<V>();
        if let Ok(mut trainer) = CpuTrainer::new(&model, board, rule, Some(config.l2)) {
            if let Some(bytes) = state {
                trainer
                    .load_optimizer_state(bytes)
                    .map_err(|e| e.to_string())?;
            }
            let network = OnceCell::from(model);
            let trainer = Box::new(trainer);
            return Ok(Engine::Native { trainer, network });
        }
    }
    let mut optimizer = rule.burn_optimizer(Some(config.l2));
    if let Some(bytes) = state {
        optimizer = optimizer
            .from_bytes(Bytes::from_bytes_vec(bytes))
            .map_err(|e| format!("{e:?}"))?;
    }
    Ok(Engine::Burn { model, optimizer })
}

/// One step's metrics from its loss report (value accuracy against `batch`'s results).
fn metrics(report: &StepReport, batch: &[&Sample]) -> TrainMetrics {
    let correct = batch
        .iter()
        .zip(report.wdl_log_probs.chunks(3))
        .filter(|(sample, row)| {
            let best = (0..3)
                .max_by(|&a, &b| row[a].total_cmp(&row[b]))
                .expect("three outcomes");
            best == (1 - sample.result as i64) as usize
        })
        .count();
    TrainMetrics {
        steps: 1,
        policy_loss: report.policy_loss,
        value_loss: report.value_loss,
        policy_entropy: report.policy_entropy,
        value_accuracy: correct as f64 / batch.len() as f64,
        material_loss: report.aux_losses[AUX_MATERIAL],
        moves_left_loss: report.aux_losses[AUX_PLIES_LEFT],
    }
}

/// The encoded positions of `batch`, `[batch, planes, height, width]` flattened.
pub fn encode<V: Rules>(batch: &[&Sample]) -> Vec<f32> {
    let shape = BoardShape::of::<V>();
    let mut inputs = vec![0.0f32; batch.len() * shape.input_len()];
    for (sample, input) in batch.iter().zip(inputs.chunks_mut(shape.input_len())) {
        sample.position.encode::<V>(input);
    }
    inputs
}

/// Encoded positions (from [`encode`]) as a tensor on `device`, `[n, planes, height, width]`.
fn input_tensor<V: Rules>(inputs: Vec<f32>, device: &Device) -> Tensor<4> {
    let shape = BoardShape::of::<V>();
    let dims = [
        inputs.len() / shape.input_len(),
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
