//! The network's inference pass on the CPU without burn, as engines run their nets (Lc0's and
//! KataGo's CPU backends do the same): batch norm folded into the convolutions, activations laid
//! out square-major (`[batch x squares, channels]`), and each convolution an im2col and a matrix
//! product per tile of 512 squares ([`crate::kernels`]), all on the calling thread.
//!
//! burn's CPU convolution runs one small product per position of the batch and converts layouts
//! on every call; on a 4x32 network and 8x8 board that spends most of the time outside the
//! arithmetic. `damas bench selfplay` times both paths side by side.

use crate::encoding::{BoardShape, INPUT_PLANES};
use crate::evaluator::{Outputs, PredictError, Predictor, check_input_len};
use crate::kernels::{View, Window, matmul, transpose_boards, wide};
use damas_mcts::softmax;

/// A convolution with batch norm folded in: `weights` is `[kernel x kernel x input, output]`
/// (kernel row, kernel column, input channel; output channel fastest), plus one bias per output.
#[derive(Clone, Debug)]
pub(crate) struct FoldedConv {
    pub(crate) input: usize,
    pub(crate) output: usize,
    pub(crate) kernel: usize,
    pub(crate) weights: Vec<f32>,
    pub(crate) bias: Vec<f32>,
}

/// A fully connected layer: `weights` is `[input, output]`, plus one bias per output.
#[derive(Clone, Debug)]
pub(crate) struct Dense {
    pub(crate) input: usize,
    pub(crate) output: usize,
    pub(crate) weights: Vec<f32>,
    pub(crate) bias: Vec<f32>,
}

/// A trained network's weights in inference form, for [`crate::Network::to_cpu`]. Its outputs
/// equal burn's inference pass up to float rounding (tested).
#[derive(Clone, Debug)]
pub struct CpuNetwork {
    pub(crate) board: BoardShape,
    pub(crate) stem: FoldedConv,
    pub(crate) tower: Vec<[FoldedConv; 2]>,
    pub(crate) policy_conv: FoldedConv,
    /// Rows ordered square-major, as [`FoldedConv`] leaves its output.
    pub(crate) policy_fc: Dense,
    pub(crate) value_conv: FoldedConv,
    /// Rows ordered square-major, as [`FoldedConv`] leaves its output.
    pub(crate) value_hidden: Dense,
    pub(crate) value_out: Dense,
}

/// Rows (board squares) of the tiles a convolution is split into: each tile's im2col buffer (at
/// 32 channels, 512 x 288 floats) stays in the core's cache while its product reads it.
const TILE_ROWS: usize = 512;

/// Positions per tile of a linear layer.
const DENSE_TILE_ROWS: usize = 32;

/// Adds `bias` to every row of `rows` (and the same rows of `skip`, when given), then applies
/// ReLU if `relu`.
fn finish(rows: &mut [f32], bias: &[f32], skip: Option<&[f32]>, relu: bool) {
    wide(
        #[inline(always)]
        || {
            if let Some(skip) = skip {
                for (value, s) in rows.iter_mut().zip(skip) {
                    *value += s;
                }
            }
            for row in rows.chunks_mut(bias.len()) {
                for (value, b) in row.iter_mut().zip(bias) {
                    let v = *value + b;
                    *value = if relu { v.max(0.0) } else { v };
                }
            }
        },
    );
}

/// Runs `tile(first_row, out_rows)` over `out` (rows of `width` values) cut into tiles of
/// `tile_rows` rows, on the calling thread: self-play's workers and a match's games each call
/// the network from their own thread, which uses the cores better than splitting one batch
/// (`damas bench selfplay`: 6,900 evaluations/s with two workers of one thread each, 4,500
/// when each also split its batches over two threads).
fn for_each_tile(
    out: &mut [f32],
    width: usize,
    tile_rows: usize,
    mut tile: impl FnMut(usize, &mut [f32]),
) {
    for (i, rows) in out.chunks_mut(tile_rows * width).enumerate() {
        tile(i * tile_rows, rows);
    }
}

impl FoldedConv {
    /// The convolution over `x` (`[batch x area, input]`) on a `height x width` board, with
    /// "same" padding, bias, the optional skip connection (`[batch x area, output]`) and ReLU.
    fn apply(
        &self,
        x: &[f32],
        board: (usize, usize),
        skip: Option<&[f32]>,
        relu: bool,
    ) -> Vec<f32> {
        let (height, width) = board;
        let area = height * width;
        let positions = x.len() / self.input;
        let k = self.kernel * self.kernel * self.input;
        let boards_per_tile = (TILE_ROWS / area).max(1);
        let mut out = vec![0.0; positions * self.output];
        let mut columns = Vec::new();
        let weights = View::rows(&self.weights, k, self.output);
        let window = Window::new(height, width, self.kernel);
        for_each_tile(&mut out, self.output, boards_per_tile * area, |row, out| {
            let rows = out.len() / self.output;
            if self.kernel == 1 {
                let input = &x[row * self.input..(row + rows) * self.input];
                matmul(View::rows(input, rows, k), weights, out, false);
            } else {
                let boards = &x[row * self.input..(row + rows) * self.input];
                window.im2col(boards, self.input, &mut columns);
                matmul(View::rows(&columns, rows, k), weights, out, false);
            }
            let skip = skip.map(|s| &s[row * self.output..(row + rows) * self.output]);
            finish(out, &self.bias, skip, relu);
        });
        out
    }
}

impl Dense {
    /// The layer on `rows` inputs of `self.input` values, with ReLU if `relu`.
    fn apply(&self, x: &[f32], rows: usize, relu: bool) -> Vec<f32> {
        let mut out = vec![0.0; rows * self.output];
        for_each_tile(&mut out, self.output, DENSE_TILE_ROWS, |row, out| {
            let n = out.len() / self.output;
            let input = &x[row * self.input..(row + n) * self.input];
            let weights = View::rows(&self.weights, self.input, self.output);
            matmul(View::rows(input, n, self.input), weights, out, false);
            finish(out, &self.bias, None, relu);
        });
        out
    }
}

impl CpuNetwork {
    /// The board the network was made for.
    pub fn board(&self) -> BoardShape {
        self.board
    }

    /// Policy logits and win/draw/loss probabilities for `batch` positions encoded as burn
    /// takes them (`[batch, planes, height, width]`, flattened).
    pub fn run(&self, inputs: &[f32], batch: usize) -> Outputs {
        let (height, width) = (self.board.height, self.board.width);
        let area = height * width;
        // Planes-major to square-major.
        let x = transpose_boards(&inputs[..batch * INPUT_PLANES * area], INPUT_PLANES, area);
        let board = (height, width);
        let mut x = self.stem.apply(&x, board, None, true);
        for [first, second] in &self.tower {
            let y = first.apply(&x, board, None, true);
            x = second.apply(&y, board, Some(&x), true);
        }
        let policy = self.policy_conv.apply(&x, board, None, true);
        let policy_logits = self.policy_fc.apply(&policy, batch, false);
        let value = self.value_conv.apply(&x, board, None, true);
        let hidden = self.value_hidden.apply(&value, batch, true);
        let wdl_logits = self.value_out.apply(&hidden, batch, false);
        Outputs {
            policy_logits,
            wdl: wdl_logits.chunks(3).flat_map(softmax).collect(),
        }
    }
}

impl Predictor for CpuNetwork {
    fn predict(&self, inputs: Vec<f32>, batch: usize) -> Result<Outputs, PredictError> {
        check_input_len(self.board, &inputs, batch)?;
        Ok(self.run(&inputs, batch))
    }
}
