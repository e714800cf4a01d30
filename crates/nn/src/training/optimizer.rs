//! Adam and SGD over the flat parameter buffer, step for step burn's own (`burn-optim`
//! 0.22.1: L2 added to the gradient, Adam's bias corrections folded into one factor, SGD's
//! Nesterov momentum), and their state read from and written to burn's `optimizer.bpk`, so
//! that a run can move between the CPU trainer and burn's (a GPU) at any checkpoint.

use super::params::Slot;
use crate::kernels::wide;
use burn::optim::decay::WeightDecayConfig;
use burn::optim::momentum::MomentumConfig;
use burn::optim::{AdamConfig, ModuleOptimizer, SgdConfig};
use burn::tensor::{Bytes, DType};
use burn_pack::{Reader, Scalar, Writer};
use std::collections::BTreeMap;

/// The update rule.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum OptimizerRule {
    /// Adam (Kingma and Ba), without AMSGrad.
    Adam {
        /// Decay of the first moment.
        beta_1: f32,
        /// Decay of the second moment.
        beta_2: f32,
        /// Added to the second moment's root.
        epsilon: f32,
    },
    /// Stochastic gradient descent with momentum.
    Sgd {
        /// Momentum.
        momentum: f32,
        /// Dampening of the new gradient in the velocity.
        dampening: f32,
        /// Nesterov's look-ahead.
        nesterov: bool,
    },
}

impl OptimizerRule {
    /// burn's optimiser for this rule, with an L2 penalty of `weight_decay` added to every
    /// gradient if given (what the GPU path trains with, and the CPU trainer's reference).
    pub fn burn_optimizer(self, weight_decay: Option<f32>) -> ModuleOptimizer {
        let decay = weight_decay.map(WeightDecayConfig::new);
        match self {
            OptimizerRule::Adam {
                beta_1,
                beta_2,
                epsilon,
            } => AdamConfig::new()
                .with_beta_1(beta_1)
                .with_beta_2(beta_2)
                .with_epsilon(epsilon)
                .with_weight_decay(decay)
                .init(),
            OptimizerRule::Sgd {
                momentum,
                dampening,
                nesterov,
            } => SgdConfig::new()
                .with_momentum(Some(
                    MomentumConfig::new()
                        .with_momentum(f64::from(momentum))
                        .with_dampening(f64::from(dampening))
                        .with_nesterov(nesterov),
                ))
                .with_weight_decay(decay)
                .init(),
        }
    }
}

/// Names in burn's optimizer record: `{param id}.{field}`.
const RANK: &str = "__rank";
const TIME: &str = "momentum.time";
const MOMENT_1: &str = "momentum.moment_1";
const MOMENT_2: &str = "momentum.moment_2";
const VELOCITY: &str = "momentum.velocity";

/// Why an optimiser state could not be read.
#[derive(Debug, thiserror::Error)]
pub enum StateError {
    /// Not a burnpack file.
    #[error("not an optimiser state: {0}")]
    Format(String),
    /// The state names parameters, none of them this network's.
    #[error(
        "the state belongs to another network: it names {0} tensors, none of this network's parameters"
    )]
    Foreign(usize),
    /// A parameter's state is missing a field or has the wrong size.
    #[error("the state of parameter {id} does not fit the network: {what}")]
    Mismatch {
        /// The parameter's id.
        id: u64,
        /// What is wrong.
        what: String,
    },
}

/// The optimiser's state: per-value moments (or velocity) and per-parameter step counts, in
/// the flat buffer's layout.
#[derive(Clone, Debug)]
pub(crate) struct FlatOptimizer {
    rule: OptimizerRule,
    weight_decay: Option<f32>,
    /// Adam's first moment, or SGD's velocity.
    first: Vec<f32>,
    /// Adam's second moment.
    second: Vec<f32>,
    /// Steps taken by each slot (0: no state yet).
    time: Vec<usize>,
}

impl FlatOptimizer {
    /// A fresh state for `slots` (`len` values in all).
    pub(crate) fn new(
        rule: OptimizerRule,
        weight_decay: Option<f32>,
        len: usize,
        slots: usize,
    ) -> Self {
        let second = match rule {
            OptimizerRule::Adam { .. } => vec![0.0; len],
            OptimizerRule::Sgd { .. } => Vec::new(),
        };
        FlatOptimizer {
            rule,
            weight_decay,
            first: vec![0.0; len],
            second,
            time: vec![0; slots],
        }
    }

    /// One step of every slot marked in `trained`, with `gradients` and `learning_rate`.
    pub(crate) fn step(
        &mut self,
        slots: &[Slot],
        trained: &[bool],
        values: &mut [f32],
        gradients: &[f32],
        learning_rate: f64,
    ) {
        let lr = learning_rate as f32;
        for (index, slot) in slots.iter().enumerate() {
            if !trained[index] {
                continue;
            }
            self.time[index] += 1;
            let range = slot.offset..slot.offset + slot.len();
            let params = &mut values[range.clone()];
            let grads = &gradients[range.clone()];
            let decay = self.weight_decay;
            // The loops below take copies (`move`): constants reached through references are
            // loaded again on every element, and the loop is not vectorised.
            let gradient = move |p: f32, g: f32| decay.map_or(g, |d| p * d + g);
            match self.rule {
                OptimizerRule::Adam {
                    beta_1,
                    beta_2,
                    epsilon,
                } => {
                    let time = self.time[index] as i32;
                    let correction_2 = (1.0 - beta_2.powi(time)).sqrt();
                    let factor = correction_2 / (1.0 - beta_1.powi(time));
                    let first = &mut self.first[range.clone()];
                    let second = &mut self.second[range];
                    let steps = params.iter_mut().zip(grads).zip(first).zip(second);
                    wide(
                        #[inline(always)]
                        move || {
                            for (((p, &g), m), v) in steps {
                                let g = gradient(*p, g);
                                *m = *m * beta_1 + g * (1.0 - beta_1);
                                *v = *v * beta_2 + g * g * (1.0 - beta_2);
                                let update = *m * factor / (v.sqrt() + epsilon * correction_2);
                                *p -= update * lr;
                            }
                        },
                    );
                }
                OptimizerRule::Sgd {
                    momentum,
                    dampening,
                    nesterov,
                } => {
                    let first_step = self.time[index] == 1;
                    let velocity = &mut self.first[range];
                    let steps = params.iter_mut().zip(grads).zip(velocity);
                    wide(
                        #[inline(always)]
                        move || {
                            for ((p, &g), v) in steps {
                                let g = gradient(*p, g);
                                *v = if first_step {
                                    g
                                } else {
                                    g * (1.0 - dampening) + *v * momentum
                                };
                                let update = if nesterov { *v * momentum + g } else { *v };
                                *p -= update * lr;
                            }
                        },
                    );
                }
            }
        }
    }

    /// The state in burn's optimizer record format (`optimizer.bpk`).
    pub(crate) fn to_bytes(&self, slots: &[Slot]) -> Vec<u8> {
        let mut tensors = Vec::new();
        let mut scalars: BTreeMap<String, Scalar> = BTreeMap::new();
        for (slot, &time) in slots.iter().zip(&self.time) {
            if time == 0 {
                continue;
            }
            let id = slot.id.val();
            let tensor = |field: &str, values: &[f32]| {
                let bytes: Vec<u8> = slot
                    .of(values)
                    .iter()
                    .flat_map(|v| v.to_le_bytes())
                    .collect();
                burn_pack::Tensor::new(
                    format!("{id}.{field}"),
                    DType::F32,
                    slot.shape.clone(),
                    Some(id),
                    Bytes::from_bytes_vec(bytes),
                )
            };
            scalars.insert(format!("{id}.{RANK}"), Scalar::from(slot.shape.len()));
            match self.rule {
                OptimizerRule::Adam { .. } => {
                    tensors.push(tensor(MOMENT_1, &self.first));
                    tensors.push(tensor(MOMENT_2, &self.second));
                    scalars.insert(format!("{id}.{TIME}"), Scalar::from(time));
                }
                OptimizerRule::Sgd { .. } => tensors.push(tensor(VELOCITY, &self.first)),
            }
        }
        let mut writer = Writer::new(tensors);
        for (key, value) in &scalars {
            writer = writer.with_scalar(key, *value);
        }
        writer
            .into_bytes()
            .expect("an in-memory burnpack is always written")
            .to_vec()
    }

    /// Replaces the state with the one in `bytes` (burn's record format); parameters it does
    /// not name start fresh.
    pub(crate) fn load(&mut self, slots: &[Slot], bytes: Vec<u8>) -> Result<(), StateError> {
        let reader = Reader::from_bytes(Bytes::from_bytes_vec(bytes))
            .map_err(|e| StateError::Format(e.to_string()))?;
        let scalars = reader.scalars().clone();
        let mut tensors = BTreeMap::new();
        for tensor in reader
            .into_tensors()
            .map_err(|e| StateError::Format(e.to_string()))?
        {
            let (name, dtype, _, _, bytes) = tensor
                .into_parts()
                .map_err(|e| StateError::Format(e.to_string()))?;
            if dtype != DType::F32 {
                return Err(StateError::Format(format!("{name} is {dtype:?}, not f32")));
            }
            let values: Vec<f32> = bytes
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect();
            tensors.insert(name, values);
        }
        let named = tensors.len();
        let mut matched = 0;
        let mut fresh =
            FlatOptimizer::new(self.rule, self.weight_decay, self.first.len(), slots.len());
        for (index, slot) in slots.iter().enumerate() {
            let id = slot.id.val();
            let mut take = |field: &str, into: &mut Vec<f32>| -> Result<bool, StateError> {
                let Some(values) = tensors.remove(&format!("{id}.{field}")) else {
                    return Ok(false);
                };
                if values.len() != slot.len() {
                    return Err(StateError::Mismatch {
                        id,
                        what: format!("{field} has {} values, not {}", values.len(), slot.len()),
                    });
                }
                slot.of_mut(into).copy_from_slice(&values);
                Ok(true)
            };
            let found = match self.rule {
                OptimizerRule::Adam { .. } => {
                    let first = take(MOMENT_1, &mut fresh.first)?;
                    let second = take(MOMENT_2, &mut fresh.second)?;
                    if first != second {
                        return Err(StateError::Mismatch {
                            id,
                            what: "one of the two moments is missing".into(),
                        });
                    }
                    if first {
                        let time = scalars.get(&format!("{id}.{TIME}")).copied();
                        fresh.time[index] =
                            time.and_then(|t| usize::try_from(t).ok()).ok_or_else(|| {
                                StateError::Mismatch {
                                    id,
                                    what: "no step count".into(),
                                }
                            })?;
                    }
                    first
                }
                OptimizerRule::Sgd { .. } => take(VELOCITY, &mut fresh.first)?,
            };
            matched += usize::from(found);
            if found && fresh.time[index] == 0 {
                // SGD keeps no step count; what matters is that its velocity exists.
                fresh.time[index] = 1;
            }
        }
        if named > 0 && matched == 0 {
            return Err(StateError::Foreign(named));
        }
        *self = fresh;
        Ok(())
    }
}
