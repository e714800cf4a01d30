//! Networks as the search's evaluator. A [`Predictor`] is anything that runs a network on
//! encoded positions (burn here, an exported model in another runtime elsewhere) and answers in
//! one form: policy logits and win/draw/loss probabilities. [`ModelEvaluator`] turns any
//! predictor into a [`damas_mcts::Evaluator`]: it encodes a batch of leaves, runs one forward
//! pass, and hands out priors over each leaf's legal moves and a value.

use crate::encoding::{BoardShape, INPUT_PLANES, encode, move_priors};
use crate::inference::CpuNetwork;
use crate::network::Network;
use burn::prelude::*;
use burn::tensor::activation::softmax;
use damas_mcts::{Evaluation, Evaluator, Leaf};
use damas_rules::Rules;
use std::marker::PhantomData;
use std::sync::Arc;

/// What a network computes for a batch of encoded positions.
#[derive(Clone, Debug, PartialEq)]
pub struct Outputs {
    /// Policy logits, [`BoardShape::policy_len`] per position.
    pub policy_logits: Vec<f32>,
    /// Win, draw and loss probabilities for the side to move, three per position.
    pub wdl: Vec<f32>,
}

/// Why a network could not be run on a batch.
#[derive(Debug, thiserror::Error)]
#[error("the network could not be run: {0}")]
pub struct PredictError(pub String);

/// A network that runs on encoded positions (`[batch, planes, height, width]`, flattened).
pub trait Predictor: Send + Sync {
    /// The outputs for `batch` positions.
    fn predict(&self, inputs: Vec<f32>, batch: usize) -> Result<Outputs, PredictError>;
}

impl<P: Predictor + ?Sized> Predictor for Arc<P> {
    fn predict(&self, inputs: Vec<f32>, batch: usize) -> Result<Outputs, PredictError> {
        (**self).predict(inputs, batch)
    }
}

impl<P: Predictor + ?Sized> Predictor for Box<P> {
    fn predict(&self, inputs: Vec<f32>, batch: usize) -> Result<Outputs, PredictError> {
        (**self).predict(inputs, batch)
    }
}

/// Checks that `inputs` holds `batch` positions encoded for `board`.
pub(crate) fn check_input_len(
    board: BoardShape,
    inputs: &[f32],
    batch: usize,
) -> Result<(), PredictError> {
    let expected = batch * board.input_len();
    if inputs.len() == expected {
        Ok(())
    } else {
        Err(PredictError(format!(
            "{} input values for {batch} positions, expected {expected}",
            inputs.len()
        )))
    }
}

/// A burn network in inference mode on a device.
pub struct BurnModel {
    network: Network,
    device: Device,
    board: BoardShape,
}

impl BurnModel {
    /// `network`, made for `board`, switched to inference mode to run on `device`.
    pub fn new(network: &Network, board: BoardShape, device: &Device) -> Self {
        BurnModel {
            board,
            network: network.valid().to_device(device),
            device: device.clone(),
        }
    }
}

impl Predictor for BurnModel {
    fn predict(&self, inputs: Vec<f32>, batch: usize) -> Result<Outputs, PredictError> {
        let shape = self.board;
        check_input_len(shape, &inputs, batch)?;
        let data = TensorData::new(inputs, [batch, INPUT_PLANES, shape.height, shape.width]);
        let output = self.network.forward(Tensor::from_data(data, &self.device));
        let read = |tensor: Tensor<2>| {
            tensor
                .try_into_vec_as::<f32>()
                .map_err(|e| PredictError(format!("{e:?}")))
        };
        Ok(Outputs {
            policy_logits: read(output.policy)?,
            wdl: read(softmax(output.value, 1))?,
        })
    }
}

/// A network in inference mode where it runs fastest: on the CPU the folded pass of
/// [`CpuNetwork`], elsewhere burn on the device.
pub enum NetModel {
    /// burn's CPU backend was asked for: the network runs without burn.
    Cpu(Box<CpuNetwork>),
    /// An accelerator: burn runs the network there.
    Burn(Box<BurnModel>),
}

impl NetModel {
    /// `network`, made for `board`, ready to run on `device`.
    pub fn new(network: &Network, board: BoardShape, device: &Device) -> Self {
        if *device == Device::flex() {
            NetModel::Cpu(Box::new(network.to_cpu(board)))
        } else {
            NetModel::Burn(Box::new(BurnModel::new(network, board, device)))
        }
    }
}

impl Predictor for NetModel {
    fn predict(&self, inputs: Vec<f32>, batch: usize) -> Result<Outputs, PredictError> {
        match self {
            NetModel::Cpu(network) => network.predict(inputs, batch),
            NetModel::Burn(model) => model.predict(inputs, batch),
        }
    }
}

/// Any predictor as the search's evaluator for variant `V`.
pub struct ModelEvaluator<V: Rules, P> {
    predictor: P,
    _variant: PhantomData<V>,
}

/// A network as the search's evaluator ([`NetModel`]: folded on the CPU, burn elsewhere).
pub type NetEvaluator<V> = ModelEvaluator<V, NetModel>;

impl<V: Rules, P: Predictor> ModelEvaluator<V, P> {
    /// Evaluates leaves of `V` with `predictor`, which must be a network for `V`'s board.
    pub fn wrap(predictor: P) -> Self {
        ModelEvaluator {
            predictor,
            _variant: PhantomData,
        }
    }

    /// The predictor behind it.
    pub fn predictor(&self) -> &P {
        &self.predictor
    }
}

impl<V: Rules> NetEvaluator<V> {
    /// Evaluates with `network` (switched to inference mode) on `device`.
    pub fn new(network: &Network, device: &Device) -> Self {
        Self::wrap(NetModel::new(network, BoardShape::of::<V>(), device))
    }
}

impl<V: Rules, P: Predictor> Evaluator<V> for ModelEvaluator<V, P> {
    fn evaluate(&self, leaves: &[Leaf<'_, V>]) -> Vec<Evaluation> {
        if leaves.is_empty() {
            return Vec::new();
        }
        let outputs = self
            .predictor
            .predict(encode_leaves(leaves), leaves.len())
            // Models are checked against their variant's board when opened: a failure here is
            // a bug, not bad input.
            .unwrap_or_else(|e| panic!("{e}"));
        evaluations(leaves, &outputs)
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
/// batch's outputs.
pub fn evaluations<V: Rules>(leaves: &[Leaf<'_, V>], outputs: &Outputs) -> Vec<Evaluation> {
    let policy_len = BoardShape::of::<V>().policy_len();
    leaves
        .iter()
        .enumerate()
        .map(|(i, leaf)| {
            let logits = &outputs.policy_logits[i * policy_len..(i + 1) * policy_len];
            let wdl = &outputs.wdl[3 * i..3 * i + 3];
            let turn = leaf.game.position().turn();
            Evaluation {
                priors: move_priors::<V>(logits, leaf.moves, turn),
                value: wdl[0] - wdl[2],
            }
        })
        .collect()
}
