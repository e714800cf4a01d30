//! The training loss: policy cross-entropy against the search's visit distribution,
//! win/draw/loss cross-entropy against the value target, and the weighted auxiliary squared
//! errors (material through tanh, plies left) over the samples that have them; computed twice,
//! on plain slices with its gradients by hand (the CPU trainer) and in burn's tensors (the
//! GPU path, and the reference the hand-written gradients are tested against).

use crate::network::{AUX_MATERIAL, AUX_OUTPUTS, AUX_PLIES_LEFT, Network};
use burn::prelude::*;
use burn::tensor::activation::log_softmax;

/// The targets of a batch of `n` positions, flattened row by row.
#[derive(Clone, Copy, Debug)]
pub struct Targets<'a> {
    /// Policy targets, `[n, policy_len]`.
    pub policy: &'a [f32],
    /// Win/draw/loss targets, `[n, 3]`.
    pub wdl: &'a [f32],
    /// Auxiliary targets, `[n, AUX_OUTPUTS]` (anything where `aux_mask` is 0).
    pub aux: &'a [f32],
    /// 1 for the positions that have auxiliary targets, 0 for the others, `[n]`.
    pub aux_mask: &'a [f32],
}

/// The weights of the loss's terms against the policy loss.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LossWeights {
    /// Of the win/draw/loss cross-entropy.
    pub value: f64,
    /// Of the material error (0: not trained).
    pub material: f64,
    /// Of the plies-left error (0: not trained).
    pub moves_left: f64,
}

impl LossWeights {
    /// Whether the auxiliary outputs are trained (one of their weights is positive).
    pub fn trains_aux(&self) -> bool {
        self.material > 0.0 || self.moves_left > 0.0
    }

    fn aux(&self) -> [f64; AUX_OUTPUTS] {
        let mut weights = [0.0; AUX_OUTPUTS];
        weights[AUX_MATERIAL] = self.material;
        weights[AUX_PLIES_LEFT] = self.moves_left;
        weights
    }
}

/// What one step's loss came to.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StepReport {
    /// Policy cross-entropy.
    pub policy_loss: f64,
    /// Win/draw/loss cross-entropy (unweighted).
    pub value_loss: f64,
    /// Mean entropy of the network's policy.
    pub policy_entropy: f64,
    /// Mean squared error of each auxiliary output over the positions that have targets
    /// (unweighted; 0 without them).
    pub aux_losses: [f64; AUX_OUTPUTS],
    /// The network's win/draw/loss log-probabilities, `[n, 3]`.
    pub wdl_log_probs: Vec<f32>,
}

/// `log_softmax` of one row.
fn log_softmax_row(row: &[f32]) -> Vec<f32> {
    let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let sum: f64 = row.iter().map(|&v| f64::from(v - max).exp()).sum();
    let log_sum = sum.ln() as f32;
    row.iter().map(|&v| v - max - log_sum).collect()
}

/// The loss's gradients with respect to the network's outputs.
pub(crate) struct OutputGradients {
    pub(crate) policy: Vec<f32>,
    pub(crate) wdl: Vec<f32>,
    /// `None` when the auxiliary outputs are not trained this step.
    pub(crate) aux: Option<Vec<f32>>,
}

/// Cross-entropy `-mean_rows sum_j t log softmax(l)` of `logits` against `targets` (rows of
/// `width`), its gradient scaled by `weight`, and the mean entropy; adds the log-probabilities
/// to `log_probs` if given.
fn cross_entropy(
    logits: &[f32],
    targets: &[f32],
    width: usize,
    weight: f64,
    mut log_probs: Option<&mut Vec<f32>>,
) -> (f64, f64, Vec<f32>) {
    let rows = logits.len() / width;
    let mut loss = 0.0f64;
    let mut entropy = 0.0f64;
    let mut gradient = vec![0.0f32; logits.len()];
    let scale = (weight / rows as f64) as f32;
    for ((row, target), grad) in logits
        .chunks(width)
        .zip(targets.chunks(width))
        .zip(gradient.chunks_mut(width))
    {
        let log_p = log_softmax_row(row);
        let mass: f32 = target.iter().sum();
        for ((&lp, &t), g) in log_p.iter().zip(target).zip(grad.iter_mut()) {
            let p = lp.exp();
            loss -= f64::from(t) * f64::from(lp);
            entropy -= f64::from(p) * f64::from(lp);
            *g = (p * mass - t) * scale;
        }
        if let Some(out) = log_probs.as_deref_mut() {
            out.extend_from_slice(&log_p);
        }
    }
    (loss / rows as f64, entropy / rows as f64, gradient)
}

/// The loss of a batch from the network's outputs (`aux` if it has the auxiliary outputs),
/// and its gradients with respect to them.
pub(crate) fn loss(
    policy: &[f32],
    wdl: &[f32],
    aux: Option<&[f32]>,
    targets: &Targets,
    weights: &LossWeights,
) -> (StepReport, OutputGradients) {
    let width = targets.policy.len() / targets.aux_mask.len().max(1);
    let (policy_loss, policy_entropy, d_policy) =
        cross_entropy(policy, targets.policy, width, 1.0, None);
    let mut wdl_log_probs = Vec::with_capacity(wdl.len());
    let (value_loss, _, d_wdl) =
        cross_entropy(wdl, targets.wdl, 3, weights.value, Some(&mut wdl_log_probs));
    let mut report = StepReport {
        policy_loss,
        value_loss,
        policy_entropy,
        aux_losses: [0.0; AUX_OUTPUTS],
        wdl_log_probs,
    };
    let count: f32 = targets.aux_mask.iter().sum();
    let mut d_aux = None;
    if let Some(aux) = aux.filter(|_| count > 0.0) {
        let aux_weights = weights.aux();
        let mut gradient = vec![0.0f32; aux.len()];
        for (((out, target), &mask), grad) in aux
            .chunks(AUX_OUTPUTS)
            .zip(targets.aux.chunks(AUX_OUTPUTS))
            .zip(targets.aux_mask)
            .zip(gradient.chunks_mut(AUX_OUTPUTS))
        {
            for column in 0..AUX_OUTPUTS {
                // The material prediction goes through tanh, like its target's range [-1, 1].
                let (predicted, slope) = if column == AUX_MATERIAL {
                    let m = out[column].tanh();
                    (m, 1.0 - m * m)
                } else {
                    (out[column], 1.0)
                };
                let error = (predicted - target[column]) * mask;
                report.aux_losses[column] += f64::from(error * error);
                grad[column] = (aux_weights[column] as f32) * 2.0 * error / count * slope;
            }
        }
        for loss in &mut report.aux_losses {
            *loss /= f64::from(count);
        }
        d_aux = weights.trains_aux().then_some(gradient);
    }
    let gradients = OutputGradients {
        policy: d_policy,
        wdl: d_wdl,
        aux: d_aux,
    };
    (report, gradients)
}

/// The same loss in burn's tensors, on `network`'s device, for `input`
/// (`[n, planes, height, width]`): the scalar to call `backward` on, and the report.
pub fn burn_loss(
    network: &Network,
    input: Tensor<4>,
    targets: &Targets,
    weights: &LossWeights,
) -> (Tensor<1>, StepReport) {
    let device = input.device();
    let n = targets.aux_mask.len();
    let width = targets.policy.len() / n.max(1);
    let tensor = |values: &[f32], columns: usize| {
        Tensor::<2>::from_data(TensorData::new(values.to_vec(), [n, columns]), &device)
    };
    let (output, aux_output) = network.forward_with_aux(input);
    let log_policy = log_softmax(output.policy, 1);
    let log_value = log_softmax(output.value, 1);
    let policy_loss = (log_policy.clone() * tensor(targets.policy, width))
        .sum_dim(1)
        .mean()
        .neg();
    let value_loss = (log_value.clone() * tensor(targets.wdl, 3))
        .sum_dim(1)
        .mean()
        .neg();
    let mut loss = policy_loss.clone() + value_loss.clone() * weights.value;
    let mut aux_losses = [0.0f64; AUX_OUTPUTS];
    let count = targets.aux_mask.iter().sum::<f32>();
    if let Some(predicted) = aux_output.filter(|_| count > 0.0) {
        // The material prediction goes through tanh, like its target's range [-1, 1].
        let material = predicted.clone().narrow(1, AUX_MATERIAL, 1).tanh();
        let plies = predicted.narrow(1, AUX_PLIES_LEFT, 1);
        let predicted = Tensor::cat(vec![material, plies], 1);
        let errors = (predicted - tensor(targets.aux, AUX_OUTPUTS)).powi_scalar(2)
            * tensor(targets.aux_mask, 1);
        for (column, weight) in weights.aux().into_iter().enumerate() {
            let column_loss = errors.clone().narrow(1, column, 1).sum() / count;
            aux_losses[column] = column_loss.clone().into_scalar::<f32>() as f64;
            if weight > 0.0 {
                loss = loss + column_loss * weight;
            }
        }
    }
    let entropy = (log_policy.clone().exp() * log_policy)
        .sum_dim(1)
        .mean()
        .neg()
        .into_scalar::<f32>();
    let report = StepReport {
        policy_loss: policy_loss.into_scalar::<f32>() as f64,
        value_loss: value_loss.into_scalar::<f32>() as f64,
        policy_entropy: entropy as f64,
        aux_losses,
        wdl_log_probs: log_value.try_into_vec_as::<f32>().expect("float values"),
    };
    (loss, report)
}
