//! The training step on the CPU without burn: the network's forward pass in training mode
//! (batch norm on batch statistics), the loss, the backward pass written out layer by layer,
//! and the optimiser over one flat parameter buffer, as PyTorch's and Lc0's own CPU trainers
//! run. burn's autodiff on its `flex` backend spends most of a step outside the arithmetic
//! (one small product per position of the batch, layouts converted on every call); here each
//! convolution is an im2col and one matrix product per tile of boards forward, two backward,
//! on the [`crate::kernels`] the inference pass uses.
//!
//! The maths is burn's, within float rounding: the gradients are tested against burn's autodiff
//! on the same network and batch, and the optimiser state is read and written in burn's record
//! format, so checkpoints are the same files whichever path trained them.

mod layers;
mod loss;
mod optimizer;
mod params;

pub use loss::{LossWeights, StepReport, Targets, burn_loss};
pub use optimizer::{OptimizerRule, StateError};
pub use params::Unsupported;

use crate::encoding::{BoardShape, INPUT_PLANES};
use crate::kernels::transpose_boards;
use crate::network::Network;
use burn::prelude::*;
use layers::{Shape, Unit, UnitCache, UnitGradients};
use optimizer::FlatOptimizer;
use params::Layout;

/// A network being trained on the CPU: its parameters, batch-norm statistics and optimiser
/// state in flat buffers.
#[derive(Clone, Debug)]
pub struct CpuTrainer {
    /// The network the buffers came from: the structure and parameter identities that
    /// [`CpuTrainer::network`] fills in.
    template: Network,
    board: BoardShape,
    layout: Layout,
    values: Vec<f32>,
    statistics: Vec<f32>,
    optimizer: FlatOptimizer,
}

/// The gradients of one batch, in the flat buffer's layout.
pub(crate) struct Gradients {
    pub(crate) values: Vec<f32>,
    /// Which slots have a gradient (the auxiliary outputs only while one of their losses
    /// counts, as burn leaves parameters outside the loss's graph alone).
    pub(crate) trained: Vec<bool>,
    /// The running statistics after this batch.
    pub(crate) statistics: Vec<f32>,
}

impl CpuTrainer {
    /// Trains `network` (for `board`) with `rule` and, if given, an L2 penalty of
    /// `weight_decay` added to every gradient, from a fresh optimiser state.
    pub fn new(
        network: &Network,
        board: BoardShape,
        rule: OptimizerRule,
        weight_decay: Option<f32>,
    ) -> Result<Self, Unsupported> {
        let (layout, values, statistics) = params::read(network)?;
        let optimizer = FlatOptimizer::new(rule, weight_decay, layout.len, layout.slots.len());
        Ok(CpuTrainer {
            template: network.clone(),
            board,
            layout,
            values,
            statistics,
            optimizer,
        })
    }

    /// Continues from an optimiser state written by burn's optimiser or by
    /// [`CpuTrainer::optimizer_state`] (the bytes of `optimizer.bpk`).
    pub fn load_optimizer_state(&mut self, bytes: Vec<u8>) -> Result<(), StateError> {
        self.optimizer.load(&self.layout.slots, bytes)
    }

    /// The optimiser state in burn's record format (what `optimizer.bpk` holds).
    pub fn optimizer_state(&self) -> Vec<u8> {
        self.optimizer.to_bytes(&self.layout.slots)
    }

    /// The network as trained so far, on `device` (parameters keep their identities, so
    /// the optimiser state stays attached to them).
    pub fn network(&self, device: &Device) -> Network {
        params::write(
            &self.template,
            &self.layout,
            &self.values,
            &self.statistics,
            device,
        )
    }

    /// One optimisation step on a batch: `inputs` encoded as the network reads them
    /// (`[n, planes, height, width]`, flattened), `targets` for the same `n` positions.
    pub fn step(
        &mut self,
        inputs: &[f32],
        targets: &Targets,
        weights: &LossWeights,
        learning_rate: f64,
    ) -> StepReport {
        let (report, gradients) = self.gradients(inputs, targets, weights);
        self.statistics = gradients.statistics;
        self.optimizer.step(
            &self.layout.slots,
            &gradients.trained,
            &mut self.values,
            &gradients.values,
            learning_rate,
        );
        report
    }

    /// The loss of a batch and its gradients, without changing anything.
    pub(crate) fn gradients(
        &self,
        inputs: &[f32],
        targets: &Targets,
        weights: &LossWeights,
    ) -> (StepReport, Gradients) {
        let layout = &self.layout;
        let values = &self.values;
        let area = self.board.height * self.board.width;
        let shape = Shape {
            height: self.board.height,
            width: self.board.width,
            groups: rayon::current_num_threads(),
        };
        let blocks = layout.blocks();
        let (policy_unit, value_unit) = (1 + 2 * blocks, 2 + 2 * blocks);
        let columns: Vec<Vec<f32>> = layout
            .convs
            .iter()
            .map(|layer| layers::to_columns(layer, layer.weight.of(values)))
            .collect();

        // Forward. `input_of(i)` is what conv unit `i` reads.
        let x0 = transpose_boards(inputs, INPUT_PLANES, area);
        let mut units: Vec<UnitCache> = Vec::with_capacity(layout.convs.len());
        let params = |i: usize| {
            let layer = &layout.convs[i];
            Unit {
                layer,
                weights: &columns[i],
                gamma: layer.gamma.of(values),
                beta: layer.beta.of(values),
            }
        };
        let unit = |i: usize, x: &[f32], skip: Option<&[f32]>| {
            layers::unit_forward(params(i), x, skip, shape)
        };
        units.push(unit(0, &x0, None));
        for b in 0..blocks {
            let x = &units[2 * b].out;
            let first = unit(1 + 2 * b, x, None);
            let second = unit(2 + 2 * b, &first.out, Some(x));
            units.push(first);
            units.push(second);
        }
        let trunk = &units[2 * blocks].out;
        let policy_head = unit(policy_unit, trunk, None);
        let value_head = unit(value_unit, trunk, None);
        let dense = |layer: &params::DenseLayer, x: &[f32], relu: bool| {
            layers::dense_forward(
                layer,
                layer.weight.of(values),
                layer.bias.of(values),
                x,
                relu,
            )
        };
        let policy_in = transpose_boards(&policy_head.out, area, layout.convs[policy_unit].output);
        let policy = dense(&layout.policy_fc, &policy_in, false);
        let value_in = transpose_boards(&value_head.out, area, layout.convs[value_unit].output);
        let hidden = dense(&layout.value_hidden, &value_in, true);
        let wdl = dense(&layout.value_out, &hidden, false);
        let aux = layout
            .aux_out
            .as_ref()
            .map(|aux| dense(aux, &hidden, false));
        let (report, outputs) = loss::loss(&policy, &wdl, aux.as_deref(), targets, weights);

        // Backward.
        let mut grads = vec![0.0f32; layout.len];
        let mut store_dense = |layer: &params::DenseLayer, weight: Vec<f32>, bias: Vec<f32>| {
            layer.weight.of_mut(&mut grads).copy_from_slice(&weight);
            layer.bias.of_mut(&mut grads).copy_from_slice(&bias);
        };
        let dense_back = |layer: &params::DenseLayer, x: &[f32], dy: &[f32]| {
            layers::dense_backward(layer, layer.weight.of(values), x, dy, true)
        };
        let (w, b, d_policy_in) = dense_back(&layout.policy_fc, &policy_in, &outputs.policy);
        store_dense(&layout.policy_fc, w, b);
        let (w, b, d_hidden) = dense_back(&layout.value_out, &hidden, &outputs.wdl);
        store_dense(&layout.value_out, w, b);
        let mut d_hidden = d_hidden.expect("asked for");
        if let (Some(layer), Some(d_aux)) = (&layout.aux_out, &outputs.aux) {
            let (w, b, d) = dense_back(layer, &hidden, d_aux);
            store_dense(layer, w, b);
            for (total, d) in d_hidden.iter_mut().zip(d.expect("asked for")) {
                *total += d;
            }
        }
        for (d, &h) in d_hidden.iter_mut().zip(&hidden) {
            if h <= 0.0 {
                *d = 0.0;
            }
        }
        let (w, b, d_value_in) = dense_back(&layout.value_hidden, &value_in, &d_hidden);
        store_dense(&layout.value_hidden, w, b);

        let mut store_unit = |i: usize, unit: UnitGradients| {
            let layer = &layout.convs[i];
            layers::from_columns(layer, &unit.weight, layer.weight.of_mut(&mut grads));
            layer.gamma.of_mut(&mut grads).copy_from_slice(&unit.gamma);
            layer.beta.of_mut(&mut grads).copy_from_slice(&unit.beta);
        };
        // Each unit's input gradient is added into the buffer it is given: the heads' into one
        // for the trunk, a block's first unit's into the skip connection's share.
        let unit_back = |i: usize, cache: &UnitCache, x: &[f32], d, dx| {
            layers::unit_backward(params(i), cache, x, d, dx, shape)
        };
        let d_policy_head = transpose_boards(
            &d_policy_in.expect("asked for"),
            layout.convs[policy_unit].output,
            area,
        );
        let d_value_head = transpose_boards(
            &d_value_in.expect("asked for"),
            layout.convs[value_unit].output,
            area,
        );
        let zeros = vec![0.0; trunk.len()];
        let (g, d_trunk, _) =
            unit_back(policy_unit, &policy_head, trunk, d_policy_head, Some(zeros));
        store_unit(policy_unit, g);
        let (g, d_trunk, _) = unit_back(value_unit, &value_head, trunk, d_value_head, d_trunk);
        store_unit(value_unit, g);
        let mut d_x = d_trunk.expect("asked for");
        for b in (0..blocks).rev() {
            let (first, second) = (1 + 2 * b, 2 + 2 * b);
            let (x, mid) = (&units[2 * b].out, &units[first].out);
            let zeros = vec![0.0; mid.len()];
            let (g, d_mid, d_sum) = unit_back(second, &units[second], mid, d_x, Some(zeros));
            store_unit(second, g);
            // The skip connection carries the pre-ReLU sum's gradient to the block's input.
            let (g, d_in, _) = unit_back(
                first,
                &units[first],
                x,
                d_mid.expect("asked for"),
                Some(d_sum),
            );
            store_unit(first, g);
            d_x = d_in.expect("asked for");
        }
        let (g, _, _) = unit_back(0, &units[0], &x0, d_x, None);
        store_unit(0, g);

        let mut statistics = self.statistics.clone();
        for (i, cache) in units.iter().chain([&policy_head, &value_head]).enumerate() {
            // `units` holds the stem and tower; the heads follow them in the layout.
            cache.update_running(&layout.convs[i], &mut statistics);
        }
        let mut trained = vec![true; layout.slots.len()];
        if outputs.aux.is_none() {
            for i in layout.aux_slots() {
                trained[i] = false;
            }
        }
        let gradients = Gradients {
            values: grads,
            trained,
            statistics,
        };
        (report, gradients)
    }
}

#[cfg(test)]
mod tests;
