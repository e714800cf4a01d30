//! The network as the search's evaluator: encodes a batch of leaves, runs one forward pass, and
//! turns the outputs into priors over each leaf's legal moves and a value.

use crate::encoding::{BoardShape, INPUT_PLANES, encode, move_priors};
use crate::network::Network;
use burn::prelude::*;
use burn::tensor::activation::softmax;
use damas_mcts::{Evaluation, Evaluator, Leaf};
use damas_rules::Rules;
use std::marker::PhantomData;

/// A network in inference mode, evaluating batches on its device.
pub struct NetEvaluator<V: Rules> {
    network: Network,
    device: Device,
    _variant: PhantomData<V>,
}

impl<V: Rules> NetEvaluator<V> {
    /// Wraps `network` (switched to inference mode) to evaluate on `device`.
    pub fn new(network: &Network, device: &Device) -> Self {
        NetEvaluator {
            network: network.valid().to_device(device),
            device: device.clone(),
            _variant: PhantomData,
        }
    }

    /// Policy logits and win/draw/loss probabilities for a batch of encoded positions.
    pub fn run(&self, inputs: Vec<f32>, batch: usize) -> (Vec<f32>, Vec<f32>) {
        let shape = BoardShape::of::<V>();
        let data = TensorData::new(inputs, [batch, INPUT_PLANES, shape.height, shape.width]);
        let output = self.network.forward(Tensor::from_data(data, &self.device));
        let policy = output
            .policy
            .try_into_vec_as::<f32>()
            .expect("float policy");
        let wdl = softmax(output.value, 1)
            .try_into_vec_as::<f32>()
            .expect("float value");
        (policy, wdl)
    }
}

impl<V: Rules> Evaluator<V> for NetEvaluator<V> {
    fn evaluate(&self, leaves: &[Leaf<'_, V>]) -> Vec<Evaluation> {
        if leaves.is_empty() {
            return Vec::new();
        }
        let (policy, wdl) = self.run(encode_leaves(leaves), leaves.len());
        evaluations(leaves, &policy, &wdl)
    }
}

/// The input tensor of a batch of leaves, `[leaves, planes, height, width]` flattened.
pub fn encode_leaves<V: Rules>(leaves: &[Leaf<'_, V>]) -> Vec<f32> {
    let input_len = BoardShape::of::<V>().input_len();
    let mut inputs = vec![0.0; leaves.len() * input_len];
    for (leaf, out) in leaves.iter().zip(inputs.chunks_mut(input_len)) {
        encode(leaf.game, out);
    }
    inputs
}

/// Each leaf's priors over its legal moves and its value (win minus loss probability), from a
/// batch's policy logits and win/draw/loss probabilities.
pub fn evaluations<V: Rules>(
    leaves: &[Leaf<'_, V>],
    policy: &[f32],
    wdl: &[f32],
) -> Vec<Evaluation> {
    let policy_len = BoardShape::of::<V>().policy_len();
    leaves
        .iter()
        .enumerate()
        .map(|(i, leaf)| {
            let logits = &policy[i * policy_len..(i + 1) * policy_len];
            let turn = leaf.game.position().turn();
            Evaluation {
                priors: move_priors::<V>(logits, leaf.moves, turn),
                value: wdl[3 * i] - wdl[3 * i + 2],
            }
        })
        .collect()
}
