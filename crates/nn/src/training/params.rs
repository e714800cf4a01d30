//! The network's parameters as one flat buffer in burn's own layouts (so that burn's weights,
//! its optimiser state and ours are the same numbers in the same order), with what the passes
//! need to know of each layer; and the way back to a burn [`Network`].

use crate::network::Network;
use burn::module::{Param, ParamId, RunningState};
use burn::prelude::*;

/// One parameter tensor inside the flat buffer.
#[derive(Clone, Debug)]
pub(crate) struct Slot {
    /// Its burn identity (optimiser state is keyed by it).
    pub(crate) id: ParamId,
    /// Where it starts.
    pub(crate) offset: usize,
    /// Its shape in burn.
    pub(crate) shape: Vec<usize>,
}

impl Slot {
    /// Its number of values.
    pub(crate) fn len(&self) -> usize {
        self.shape.iter().product()
    }

    /// Its values in `buffer`.
    pub(crate) fn of<'a>(&self, buffer: &'a [f32]) -> &'a [f32] {
        &buffer[self.offset..self.offset + self.len()]
    }

    /// Its values in `buffer`, to write.
    pub(crate) fn of_mut<'a>(&self, buffer: &'a mut [f32]) -> &'a mut [f32] {
        &mut buffer[self.offset..self.offset + self.len()]
    }
}

/// A convolution without bias followed by batch norm (burn's `[output, input, kernel, kernel]`
/// weights).
#[derive(Clone, Debug)]
pub(crate) struct ConvLayer {
    pub(crate) weight: Slot,
    pub(crate) gamma: Slot,
    pub(crate) beta: Slot,
    pub(crate) input: usize,
    pub(crate) output: usize,
    pub(crate) kernel: usize,
    pub(crate) epsilon: f64,
    pub(crate) momentum: f64,
    /// Where its running mean starts in the statistics buffer (its variance follows).
    pub(crate) statistics: usize,
}

/// A linear layer with bias (burn's `[input, output]` weights).
#[derive(Clone, Debug)]
pub(crate) struct DenseLayer {
    pub(crate) weight: Slot,
    pub(crate) bias: Slot,
    pub(crate) input: usize,
    pub(crate) output: usize,
}

/// Every layer of a network, in [`Network::conv_blocks_mut`] and [`Network::linears_mut`]
/// order.
#[derive(Clone, Debug)]
pub(crate) struct Layout {
    /// Stem, tower (first and second of each block), policy head, value head.
    pub(crate) convs: Vec<ConvLayer>,
    pub(crate) policy_fc: DenseLayer,
    pub(crate) value_hidden: DenseLayer,
    pub(crate) value_out: DenseLayer,
    pub(crate) aux_out: Option<DenseLayer>,
    /// Every slot, in buffer order.
    pub(crate) slots: Vec<Slot>,
    /// Values of the flat parameter buffer.
    pub(crate) len: usize,
}

impl Layout {
    /// Residual blocks in the tower.
    pub(crate) fn blocks(&self) -> usize {
        (self.convs.len() - 3) / 2
    }

    /// The slots of the auxiliary outputs (trained only while one of their losses counts).
    pub(crate) fn aux_slots(&self) -> Vec<usize> {
        self.aux_out.as_ref().map_or(Vec::new(), |aux| {
            self.slots
                .iter()
                .enumerate()
                .filter(|(_, s)| s.id == aux.weight.id || s.id == aux.bias.id)
                .map(|(i, _)| i)
                .collect()
        })
    }
}

/// A tensor's values, row-major.
fn values<const D: usize>(tensor: Tensor<D>) -> Vec<f32> {
    tensor
        .try_into_vec_as::<f32>()
        .unwrap_or_else(|e| panic!("network weights are floats: {e:?}"))
}

/// Builds the layout while copying the values in.
struct Reader {
    values: Vec<f32>,
    statistics: Vec<f32>,
    slots: Vec<Slot>,
}

impl Reader {
    fn take<const D: usize>(&mut self, param: &Param<Tensor<D>>) -> Slot {
        let slot = Slot {
            id: param.id,
            offset: self.values.len(),
            shape: param.dims().to_vec(),
        };
        self.values.extend(values(param.val()));
        self.slots.push(slot.clone());
        slot
    }
}

/// Why a network cannot train on the CPU path.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the CPU trainer does not support {0}")]
pub struct Unsupported(pub String);

/// The layout of `network`, its parameters and its batch norms' running statistics.
pub(crate) fn read(network: &Network) -> Result<(Layout, Vec<f32>, Vec<f32>), Unsupported> {
    let mut network = network.clone();
    let mut reader = Reader {
        values: Vec::new(),
        statistics: Vec::new(),
        slots: Vec::new(),
    };
    let mut convs = Vec::new();
    for block in network.conv_blocks_mut() {
        if block.conv.bias.is_some() {
            return Err(Unsupported("convolutions with a bias".into()));
        }
        let [output, input, kernel, width] = block.conv.weight.dims();
        if kernel != width || kernel % 2 == 0 {
            return Err(Unsupported(format!("a {kernel}x{width} kernel")));
        }
        // `value` can be one update behind (burn's training forward pass records its update
        // and merges it on the next read that syncs).
        let statistics = reader.statistics.len();
        reader
            .statistics
            .extend(values(block.norm.running_mean.value_sync()));
        reader
            .statistics
            .extend(values(block.norm.running_var.value_sync()));
        convs.push(ConvLayer {
            weight: reader.take(&block.conv.weight),
            gamma: reader.take(&block.norm.gamma),
            beta: reader.take(&block.norm.beta),
            input,
            output,
            kernel,
            epsilon: block.norm.epsilon,
            momentum: block.norm.momentum,
            statistics,
        });
    }
    let mut denses = Vec::new();
    for linear in network.linears_mut() {
        let [input, output] = linear.weight.dims();
        let Some(bias) = &linear.bias else {
            return Err(Unsupported("linear layers without a bias".into()));
        };
        let weight = reader.take(&linear.weight);
        denses.push(DenseLayer {
            weight,
            bias: reader.take(bias),
            input,
            output,
        });
    }
    let mut denses = denses.into_iter();
    let mut dense = || denses.next().expect("three linear layers at least");
    let (policy_fc, value_hidden, value_out) = (dense(), dense(), dense());
    let aux_out = denses.next();
    let layout = Layout {
        convs,
        policy_fc,
        value_hidden,
        value_out,
        aux_out,
        len: reader.values.len(),
        slots: reader.slots,
    };
    Ok((layout, reader.values, reader.statistics))
}

/// `template` with its parameters replaced by `values` and its running statistics by
/// `statistics` (the parameters keep their burn identities), on `device`.
pub(crate) fn write(
    template: &Network,
    layout: &Layout,
    values: &[f32],
    statistics: &[f32],
    device: &Device,
) -> Network {
    /// `slot`'s values in place of `old`, tracked by autodiff if `old` was.
    fn param<const D: usize>(
        old: &Param<Tensor<D>>,
        slot: &Slot,
        values: &[f32],
        device: &Device,
    ) -> Param<Tensor<D>> {
        let data = TensorData::new(slot.of(values).to_vec(), slot.shape.clone());
        let tensor = Tensor::from_data(data, device).set_require_grad(old.val().is_require_grad());
        Param::initialized(slot.id, tensor)
    }
    let mut network = template.clone();
    for (block, layer) in network.conv_blocks_mut().into_iter().zip(&layout.convs) {
        block.conv.weight = param(&block.conv.weight, &layer.weight, values, device);
        block.norm.gamma = param(&block.norm.gamma, &layer.gamma, values, device);
        block.norm.beta = param(&block.norm.beta, &layer.beta, values, device);
        let n = layer.output;
        let at = layer.statistics;
        let running = |from: usize| {
            let data = TensorData::new(statistics[from..from + n].to_vec(), [n]);
            RunningState::new(Tensor::<1>::from_data(data, device))
        };
        block.norm.running_mean = running(at);
        block.norm.running_var = running(at + n);
    }
    let denses = [
        Some(&layout.policy_fc),
        Some(&layout.value_hidden),
        Some(&layout.value_out),
        layout.aux_out.as_ref(),
    ];
    for (linear, layer) in network
        .linears_mut()
        .into_iter()
        .zip(denses.into_iter().flatten())
    {
        linear.weight = param(&linear.weight, &layer.weight, values, device);
        let bias = linear.bias.as_ref().expect("read checked the biases");
        linear.bias = Some(param(bias, &layer.bias, values, device));
    }
    network
}
