//! The residual network: a convolution stem, a tower of residual blocks, a policy head (logits
//! over every from-to index) and a value head (win/draw/loss logits), as in AlphaZero. The value
//! head's hidden layer may also feed two auxiliary outputs that only training reads (KataGo's
//! score and Lc0's moves-left heads): the game's final material balance and the plies left.

use crate::encoding::{BoardShape, INPUT_PLANES};
use crate::inference::{CpuNetwork, Dense, FoldedConv};
use burn::nn::conv::{Conv2d, Conv2dConfig};
use burn::nn::{BatchNorm, BatchNormConfig, Linear, LinearConfig, PaddingConfig2d};
use burn::prelude::*;
use burn::tensor::activation::relu;

/// The size of a network's tower, as configs and command lines give it. Its default is the one
/// default network size of every command and config.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct NetworkSize {
    /// Residual blocks in the tower.
    pub blocks: usize,
    /// Channels of every convolution in the tower.
    pub channels: usize,
}

impl NetworkSize {
    /// Four blocks of 32 channels: the network of the measured recipe (`configs/quick.toml`),
    /// the one that learned fastest per minute on two cores (docs/notebook/).
    pub const DEFAULT: NetworkSize = NetworkSize {
        blocks: 4,
        channels: 32,
    };

    /// Checks both values against their ranges; `section` prefixes the keys in the error.
    pub fn validate(&self, section: &str) -> Result<(), damas_mcts::InvalidValue> {
        damas_mcts::InvalidValue::check(
            self.blocks <= 64,
            section,
            "blocks",
            self.blocks,
            "0 to 64",
        )?;
        damas_mcts::InvalidValue::check(
            (1..=1024).contains(&self.channels),
            section,
            "channels",
            self.channels,
            "1 to 1024",
        )
    }
}

impl Default for NetworkSize {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// The shape of a network; the board comes from the variant.
#[derive(Config, Debug, PartialEq)]
pub struct NetworkConfig {
    /// The board the network plays on.
    pub board: BoardShape,
    /// Residual blocks in the tower.
    #[config(default = "NetworkSize::DEFAULT.blocks")]
    pub blocks: usize,
    /// Channels of every convolution in the tower.
    #[config(default = "NetworkSize::DEFAULT.channels")]
    pub channels: usize,
    /// Channels of the policy head's 1x1 convolution.
    #[config(default = 4)]
    pub policy_channels: usize,
    /// Hidden units of the value head.
    #[config(default = 64)]
    pub value_hidden: usize,
    /// Whether the value head also has the auxiliary outputs (absent, so no, in checkpoints
    /// made before they existed).
    pub aux_head: Option<bool>,
}

/// Convolution (3x3, or 1x1 in the heads), batch norm, optional ReLU.
#[derive(Module, Debug)]
pub(crate) struct ConvBlock {
    pub(crate) conv: Conv2d,
    pub(crate) norm: BatchNorm,
}

impl ConvBlock {
    fn new(input: usize, output: usize, kernel: usize, device: &Device) -> Self {
        ConvBlock {
            conv: Conv2dConfig::new([input, output], [kernel, kernel])
                .with_padding(PaddingConfig2d::Same)
                .with_bias(false)
                .init(device),
            norm: BatchNormConfig::new(output).init(device),
        }
    }

    fn forward(&self, x: Tensor<4>) -> Tensor<4> {
        self.norm.forward(self.conv.forward(x))
    }

    /// The convolution with the batch norm's inference transform folded into its weights:
    /// `gamma (conv(x) - mean) / sqrt(var + eps) + beta` is `conv'(x) + bias`.
    fn folded(&self) -> FoldedConv {
        let [output, input, kernel, _] = self.conv.weight.dims();
        let weights = values(self.conv.weight.val());
        let gamma = values(self.norm.gamma.val());
        let beta = values(self.norm.beta.val());
        let mean = values(self.norm.running_mean.value());
        let var = values(self.norm.running_var.value());
        let conv_bias = self.conv.bias.as_ref().map(|b| values(b.val()));
        let scale: Vec<f32> = (0..output)
            .map(|o| (f64::from(gamma[o]) / (f64::from(var[o]) + self.norm.epsilon).sqrt()) as f32)
            .collect();
        let mut folded = vec![0.0; kernel * kernel * input * output];
        for o in 0..output {
            for i in 0..input {
                for tap in 0..kernel * kernel {
                    folded[(tap * input + i) * output + o] =
                        weights[(o * input + i) * kernel * kernel + tap] * scale[o];
                }
            }
        }
        let bias = (0..output)
            .map(|o| {
                let conv = conv_bias.as_ref().map_or(0.0, |b| b[o]);
                beta[o] + (conv - mean[o]) * scale[o]
            })
            .collect();
        FoldedConv {
            input,
            output,
            kernel,
            weights: folded,
            bias,
        }
    }
}

/// A tensor's values, row-major.
fn values<const D: usize>(tensor: Tensor<D>) -> Vec<f32> {
    tensor
        .try_into_vec_as::<f32>()
        .unwrap_or_else(|e| panic!("network weights are floats: {e:?}"))
}

/// A linear layer that reads a `[channels, area]` map flattened channel-major (as burn's
/// `flatten` of `[batch, channels, height, width]` gives it), with its rows reordered to read
/// the same map square-major (`[area, channels]`, as [`FoldedConv`] leaves it).
fn dense_square_major(linear: &Linear, channels: usize) -> Dense {
    let [input, output] = linear.weight.dims();
    let area = input / channels;
    let weights = values(linear.weight.val());
    let mut reordered = vec![0.0; input * output];
    for c in 0..channels {
        for square in 0..area {
            let (from, to) = (
                (c * area + square) * output,
                (square * channels + c) * output,
            );
            reordered[to..to + output].copy_from_slice(&weights[from..from + output]);
        }
    }
    Dense {
        input,
        output,
        weights: reordered,
        bias: linear
            .bias
            .as_ref()
            .map_or(vec![0.0; output], |b| values(b.val())),
    }
}

/// Two convolutions with a skip connection around them.
#[derive(Module, Debug)]
struct ResidualBlock {
    first: ConvBlock,
    second: ConvBlock,
}

impl ResidualBlock {
    fn forward(&self, x: Tensor<4>) -> Tensor<4> {
        let y = relu(self.first.forward(x.clone()));
        relu(self.second.forward(y) + x)
    }
}

/// The network.
#[derive(Module, Debug)]
pub struct Network {
    stem: ConvBlock,
    tower: Vec<ResidualBlock>,
    policy_conv: ConvBlock,
    policy_fc: Linear,
    value_conv: ConvBlock,
    value_hidden: Linear,
    value_out: Linear,
    aux_out: Option<Linear>,
}

/// The network's outputs for a batch.
#[derive(Debug)]
pub struct Output {
    /// Policy logits, `[batch, squares x squares]`.
    pub policy: Tensor<2>,
    /// Win, draw and loss logits for the side to move, `[batch, 3]`.
    pub value: Tensor<2>,
}

/// Columns of the auxiliary output, `[batch, AUX_OUTPUTS]`.
pub const AUX_OUTPUTS: usize = 2;
/// Column of the auxiliary output that predicts the final material balance (scaled by the
/// trainer).
pub const AUX_MATERIAL: usize = 0;
/// Column of the auxiliary output that predicts the plies left (scaled by the trainer).
pub const AUX_PLIES_LEFT: usize = 1;

impl NetworkConfig {
    /// A network of `size` for `board`, with the auxiliary outputs.
    pub fn sized(board: BoardShape, size: NetworkSize) -> Self {
        NetworkConfig::new(board)
            .with_blocks(size.blocks)
            .with_channels(size.channels)
            .with_aux_head(Some(true))
    }

    /// Whether the network has the auxiliary outputs.
    pub fn has_aux_head(&self) -> bool {
        self.aux_head == Some(true)
    }

    /// The size of its tower.
    pub fn size(&self) -> NetworkSize {
        NetworkSize {
            blocks: self.blocks,
            channels: self.channels,
        }
    }

    /// A fresh network with random weights on `device`.
    pub fn init(&self, device: &Device) -> Network {
        let area = self.board.height * self.board.width;
        let c = self.channels;
        Network {
            stem: ConvBlock::new(INPUT_PLANES, c, 3, device),
            tower: (0..self.blocks)
                .map(|_| ResidualBlock {
                    first: ConvBlock::new(c, c, 3, device),
                    second: ConvBlock::new(c, c, 3, device),
                })
                .collect(),
            policy_conv: ConvBlock::new(c, self.policy_channels, 1, device),
            policy_fc: LinearConfig::new(self.policy_channels * area, self.board.policy_len())
                .init(device),
            value_conv: ConvBlock::new(c, 2, 1, device),
            value_hidden: LinearConfig::new(2 * area, self.value_hidden).init(device),
            value_out: LinearConfig::new(self.value_hidden, 3).init(device),
            aux_out: self
                .has_aux_head()
                .then(|| LinearConfig::new(self.value_hidden, AUX_OUTPUTS).init(device)),
        }
    }

    /// Multiply-adds of one forward pass for one position (convolutions and linear layers).
    pub fn flops_per_position(&self) -> u64 {
        let area = (self.board.height * self.board.width) as u64;
        let c = self.channels as u64;
        let conv = |input: u64, output: u64, kernel: u64| area * input * output * kernel * kernel;
        let stem = conv(INPUT_PLANES as u64, c, 3);
        let tower = 2 * self.blocks as u64 * conv(c, c, 3);
        let policy = conv(c, self.policy_channels as u64, 1)
            + self.policy_channels as u64 * area * self.board.policy_len() as u64;
        let value =
            conv(c, 2, 1) + 2 * area * self.value_hidden as u64 + self.value_hidden as u64 * 3;
        // The auxiliary outputs are not computed when the network plays.
        // Two floating-point operations per multiply-add.
        2 * (stem + tower + policy + value)
    }
}

impl Network {
    /// Runs the network on a batch of encoded positions, `[batch, planes, height, width]`.
    pub fn forward(&self, input: Tensor<4>) -> Output {
        let (policy, value_hidden) = self.policy_and_value_hidden(input);
        Output {
            policy,
            value: self.value_out.forward(value_hidden),
        }
    }

    /// The network in inference form for the CPU ([`CpuNetwork`]), for `board`.
    pub fn to_cpu(&self, board: BoardShape) -> CpuNetwork {
        let policy_conv = self.policy_conv.folded();
        let value_conv = self.value_conv.folded();
        CpuNetwork {
            board,
            stem: self.stem.folded(),
            tower: self
                .tower
                .iter()
                .map(|block| [block.first.folded(), block.second.folded()])
                .collect(),
            policy_fc: dense_square_major(&self.policy_fc, policy_conv.output),
            value_hidden: dense_square_major(&self.value_hidden, value_conv.output),
            value_out: dense_square_major(&self.value_out, 1),
            policy_conv,
            value_conv,
        }
    }

    /// [`Network::forward`] plus the auxiliary outputs `[batch, AUX_OUTPUTS]`, if the network
    /// has them (training reads them; playing does not compute them).
    pub fn forward_with_aux(&self, input: Tensor<4>) -> (Output, Option<Tensor<2>>) {
        let (policy, value_hidden) = self.policy_and_value_hidden(input);
        let aux = self
            .aux_out
            .as_ref()
            .map(|out| out.forward(value_hidden.clone()));
        let output = Output {
            policy,
            value: self.value_out.forward(value_hidden),
        };
        (output, aux)
    }

    /// The convolution blocks in the order the CPU trainer lays them out: the stem, the tower
    /// (each block's first and second), the policy head's, the value head's.
    pub(crate) fn conv_blocks_mut(&mut self) -> Vec<&mut ConvBlock> {
        std::iter::once(&mut self.stem)
            .chain(
                self.tower
                    .iter_mut()
                    .flat_map(|b| [&mut b.first, &mut b.second]),
            )
            .chain([&mut self.policy_conv, &mut self.value_conv])
            .collect()
    }

    /// The linear layers in the order the CPU trainer lays them out: the policy head's, the
    /// value head's hidden and output layers, the auxiliary outputs if present.
    pub(crate) fn linears_mut(&mut self) -> Vec<&mut Linear> {
        [
            Some(&mut self.policy_fc),
            Some(&mut self.value_hidden),
            Some(&mut self.value_out),
            self.aux_out.as_mut(),
        ]
        .into_iter()
        .flatten()
        .collect()
    }

    /// The policy logits and the value head's hidden layer.
    fn policy_and_value_hidden(&self, input: Tensor<4>) -> (Tensor<2>, Tensor<2>) {
        let mut x = relu(self.stem.forward(input));
        for block in &self.tower {
            x = block.forward(x);
        }
        let policy = relu(self.policy_conv.forward(x.clone())).flatten::<2>(1, 3);
        let value = relu(self.value_conv.forward(x)).flatten::<2>(1, 3);
        (
            self.policy_fc.forward(policy),
            relu(self.value_hidden.forward(value)),
        )
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::evaluator::{BurnModel, Predictor};
    use burn::module::{Param, RunningState};

    /// `n` values spread around `centre` by up to `spread / 2`, different for each `salt`.
    fn spread(n: usize, centre: f32, spread: f32, salt: usize, device: &Device) -> Tensor<1> {
        let values: Vec<f32> = (0..n)
            .map(|i| centre + spread * (((i * 37 + salt * 11) % 17) as f32 / 16.0 - 0.5))
            .collect();
        Tensor::from_data(TensorData::new(values, [n]), device)
    }

    /// Gives a block's batch norm the statistics and affine weights of a trained one, so that
    /// folding it is not the identity.
    pub(crate) fn train_norm(block: &mut ConvBlock, salt: usize, device: &Device) {
        let n = block.norm.gamma.dims()[0];
        block.norm.gamma = Param::from_tensor(spread(n, 1.0, 0.8, salt, device));
        block.norm.beta = Param::from_tensor(spread(n, 0.0, 0.6, salt + 1, device));
        block.norm.running_mean = RunningState::new(spread(n, 0.1, 0.6, salt + 2, device));
        block.norm.running_var = RunningState::new(spread(n, 1.0, 1.2, salt + 3, device));
    }

    #[test]
    fn the_cpu_pass_computes_what_burn_computes() {
        let device = Device::flex();
        // A non-square board too, so that rows and columns cannot be swapped unnoticed.
        for (height, width, squares) in [(8, 8, 32), (10, 10, 50), (6, 8, 24)] {
            let board = BoardShape {
                height,
                width,
                squares,
            };
            let config = NetworkConfig::sized(
                board,
                NetworkSize {
                    blocks: 2,
                    channels: 8,
                },
            );
            let mut network = config.init(&device);
            let mut salt = 0;
            for block in network.conv_blocks_mut() {
                train_norm(block, salt, &device);
                salt += 4;
            }
            // More positions than one tile of a convolution (512 squares) or of a linear layer
            // (32 rows) holds, with ones and zeros on every plane.
            let batch = 37;
            let inputs: Vec<f32> = (0..batch * board.input_len())
                .map(|i| ((i * 7 + i / 5) % 3 == 0) as u8 as f32)
                .collect();
            let burn = BurnModel::new(&network, board, &device)
                .predict(inputs.clone(), batch)
                .unwrap();
            let cpu = network.to_cpu(board).predict(inputs, batch).unwrap();
            assert_eq!(cpu.policy_logits.len(), batch * board.policy_len());
            let close = |a: &[f32], b: &[f32], what: &str| {
                let worst = a
                    .iter()
                    .zip(b)
                    .map(|(x, y)| (x - y).abs() / x.abs().max(1.0))
                    .fold(0.0, f32::max);
                assert!(worst < 1e-4, "{what} on {height}x{width}: off by {worst}");
            };
            close(&cpu.policy_logits, &burn.policy_logits, "policy");
            close(&cpu.wdl, &burn.wdl, "win/draw/loss");
        }
    }
}
