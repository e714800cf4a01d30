//! The training passes of the network's layers on square-major activations
//! (`[boards x area, channels]`): convolution (im2col and one product per tile of boards; its
//! backward as two products per tile and col2im), batch norm in training mode with ReLU and the
//! residual add, and the linear layers. Work is split over the rayon pool in tiles or in a fixed
//! number of contiguous groups of tiles, and every sum over the batch is added up in tile or
//! group order, so a step gives the same bits whatever thread ran which part.

use super::params::{ConvLayer, DenseLayer};
use crate::kernels::{View, Window, matmul, wide};
use rayon::prelude::*;
use std::ops::Range;

/// Rows (board squares) per tile of a convolution: the tile's im2col buffer (at 32 channels,
/// 512 x 288 floats) stays in the core's cache while its products read it.
const TILE_ROWS: usize = 512;

/// Rows of `rows` split into at most `groups` contiguous ranges, each a whole number of
/// `unit`-row tiles (the last may be shorter).
pub(crate) fn groups(rows: usize, unit: usize, groups: usize) -> Vec<Range<usize>> {
    let tiles = rows.div_ceil(unit.max(1));
    let per_group = tiles.div_ceil(groups.max(1)).max(1) * unit.max(1);
    (0..rows)
        .step_by(per_group)
        .map(|start| start..(start + per_group).min(rows))
        .collect()
}

/// `data` cut into the rows of `ranges` (`width` values a row), to write in parallel.
fn split_rows<'a>(
    mut data: &'a mut [f32],
    ranges: &[Range<usize>],
    width: usize,
) -> Vec<&'a mut [f32]> {
    let mut parts = Vec::with_capacity(ranges.len());
    for range in ranges {
        let (part, rest) = data.split_at_mut(range.len() * width);
        parts.push(part);
        data = rest;
    }
    parts
}

/// `total += part`, value by value.
pub(crate) fn add_into(total: &mut [f32], part: &[f32]) {
    wide(
        #[inline(always)]
        || {
            for (t, p) in total.iter_mut().zip(part) {
                *t += p;
            }
        },
    );
}

/// Adds `parts` in order into one vector of `len` zeros.
fn sum_in_order(parts: Vec<Vec<f64>>, len: usize) -> Vec<f64> {
    parts.into_iter().fold(vec![0.0; len], |mut total, part| {
        for (t, p) in total.iter_mut().zip(part) {
            *t += p;
        }
        total
    })
}

/// Per-channel sums and sums of squares of square-major `rows` (`channels` values a row), as
/// `[sums..., squares...]` in f64 (which keeps the one-pass variance exact enough at these
/// batch sizes).
fn channel_sums(rows: &[f32], channels: usize) -> Vec<f64> {
    let mut sums = vec![0.0f64; 2 * channels];
    let (linear, squares) = sums.split_at_mut(channels);
    wide(
        #[inline(always)]
        || {
            for row in rows.chunks_exact(channels) {
                for ((s, q), &v) in linear.iter_mut().zip(squares.iter_mut()).zip(row) {
                    let v = f64::from(v);
                    *s += v;
                    *q += v * v;
                }
            }
        },
    );
    sums
}

/// The shape of the work: the board and how many groups the pool runs.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Shape {
    pub(crate) height: usize,
    pub(crate) width: usize,
    pub(crate) groups: usize,
}

impl Shape {
    fn area(&self) -> usize {
        self.height * self.width
    }

    /// Rows of a convolution tile: whole boards, about [`TILE_ROWS`].
    fn tile_rows(&self) -> usize {
        (TILE_ROWS / self.area()).max(1) * self.area()
    }

    fn window(&self, kernel: usize) -> Window {
        Window::new(self.height, self.width, kernel)
    }
}

/// A convolution's weights as the products read them: `[kernel x kernel x input, output]`
/// from burn's `[output, input, kernel, kernel]`.
pub(crate) fn to_columns(layer: &ConvLayer, burn: &[f32]) -> Vec<f32> {
    let (input, output, taps) = (layer.input, layer.output, layer.kernel * layer.kernel);
    let mut out = vec![0.0; burn.len()];
    for o in 0..output {
        for i in 0..input {
            for tap in 0..taps {
                out[(tap * input + i) * output + o] = burn[(o * input + i) * taps + tap];
            }
        }
    }
    out
}

/// The inverse of [`to_columns`], adding into `burn`.
pub(crate) fn from_columns(layer: &ConvLayer, columns: &[f32], burn: &mut [f32]) {
    let (input, output, taps) = (layer.input, layer.output, layer.kernel * layer.kernel);
    for o in 0..output {
        for i in 0..input {
            for tap in 0..taps {
                burn[(o * input + i) * taps + tap] = columns[(tap * input + i) * output + o];
            }
        }
    }
}

/// What a convolution-norm-ReLU unit keeps from its forward pass for its backward pass.
#[derive(Debug, Default)]
pub(crate) struct UnitCache {
    /// The convolution's output, before the norm.
    z: Vec<f32>,
    /// The unit's output (after the skip add and ReLU).
    pub(crate) out: Vec<f32>,
    mean: Vec<f32>,
    inv_std: Vec<f32>,
    /// The batch's (biased) variance, for the running statistics.
    variance: Vec<f32>,
}

impl UnitCache {
    /// Updates running statistics `[mean..., var...]` as burn does:
    /// `running = (1 - momentum) running + momentum batch`.
    pub(crate) fn update_running(&self, layer: &ConvLayer, statistics: &mut [f32]) {
        let n = layer.output;
        let m = layer.momentum;
        let at = layer.statistics;
        let blend = |old: &mut f32, new: f32| {
            *old = (f64::from(*old) * (1.0 - m) + f64::from(new) * m) as f32;
        };
        for c in 0..n {
            blend(&mut statistics[at + c], self.mean[c]);
            blend(&mut statistics[at + n + c], self.variance[c]);
        }
    }
}

/// Gradients of one unit's parameters, in the products' layout for the weights.
pub(crate) struct UnitGradients {
    pub(crate) weight: Vec<f32>,
    pub(crate) gamma: Vec<f32>,
    pub(crate) beta: Vec<f32>,
}

/// A convolution-norm-ReLU unit's layer and current parameters.
#[derive(Clone, Copy)]
pub(crate) struct Unit<'a> {
    pub(crate) layer: &'a ConvLayer,
    /// The convolution's weights in the products' layout ([`to_columns`]).
    pub(crate) weights: &'a [f32],
    pub(crate) gamma: &'a [f32],
    pub(crate) beta: &'a [f32],
}

/// A convolution, batch norm in training mode (batch statistics), the optional skip add, ReLU:
/// burn's `relu(norm(conv(x)) [+ skip])`.
pub(crate) fn unit_forward(unit: Unit, x: &[f32], skip: Option<&[f32]>, shape: Shape) -> UnitCache {
    let Unit {
        layer,
        weights,
        gamma,
        beta,
    } = unit;
    let (input, output) = (layer.input, layer.output);
    let rows = x.len() / input;
    let k = layer.kernel * layer.kernel * input;
    let window = shape.window(layer.kernel);
    let tile_rows = shape.tile_rows();
    let mut z = vec![0.0f32; rows * output];
    let weights = View::rows(weights, k, output);
    // Per tile, the product and then, while it is still in cache, its per-channel sums for the
    // batch statistics, added up in tile order below.
    let tile_sums: Vec<Vec<f64>> = z
        .par_chunks_mut(tile_rows * output)
        .enumerate()
        .map_init(Vec::new, |columns, (tile, out)| {
            let n = out.len() / output;
            let first = tile * tile_rows;
            let x = &x[first * input..(first + n) * input];
            if layer.kernel == 1 {
                matmul(View::rows(x, n, k), weights, out, false);
            } else {
                window.im2col(x, input, columns);
                matmul(View::rows(columns, n, k), weights, out, false);
            }
            channel_sums(out, output)
        })
        .collect();
    let sums = sum_in_order(tile_sums, 2 * output);
    let count = rows as f64;
    let mean64: Vec<f64> = sums[..output].iter().map(|s| s / count).collect();
    let mean: Vec<f32> = mean64.iter().map(|&m| m as f32).collect();
    let variance: Vec<f32> = sums[output..]
        .iter()
        .zip(&mean64)
        .map(|(q, m)| (q / count - m * m).max(0.0) as f32)
        .collect();
    let inv_std: Vec<f32> = variance
        .iter()
        .map(|&v| (1.0 / (f64::from(v) + layer.epsilon).sqrt()) as f32)
        .collect();
    // out = relu(z scale + shift [+ skip]), per channel.
    let scale: Vec<f32> = inv_std.iter().zip(gamma).map(|(s, g)| s * g).collect();
    let shift: Vec<f32> = (0..output).map(|c| beta[c] - mean[c] * scale[c]).collect();
    let mut out = vec![0.0f32; rows * output];
    out.par_chunks_mut(tile_rows * output)
        .zip(z.par_chunks(tile_rows * output))
        .enumerate()
        .for_each(|(tile, (out, z))| {
            let first = tile * tile_rows * output;
            let skip = skip.map(|skip| &skip[first..first + out.len()]);
            wide(
                #[inline(always)]
                || {
                    for (r, (out, z)) in out
                        .chunks_exact_mut(output)
                        .zip(z.chunks_exact(output))
                        .enumerate()
                    {
                        let rows = out.iter_mut().zip(z).zip(&scale).zip(&shift);
                        match skip {
                            Some(skip) => {
                                let skip = &skip[r * output..(r + 1) * output];
                                for ((((o, &z), &a), &b), &s) in rows.zip(skip) {
                                    *o = (z * a + b + s).max(0.0);
                                }
                            }
                            None => {
                                for (((o, &z), &a), &b) in rows {
                                    *o = (z * a + b).max(0.0);
                                }
                            }
                        }
                    }
                },
            );
        });
    UnitCache {
        z,
        out,
        mean,
        inv_std,
        variance,
    }
}

/// The backward pass of [`unit_forward`]: from the gradient of its output, the gradients of
/// its parameters and of the pre-ReLU sum (what the skip connection's input receives), and
/// the gradient of its input `x` added into `dx` if one is given.
pub(crate) fn unit_backward(
    unit: Unit,
    cache: &UnitCache,
    x: &[f32],
    d_out: Vec<f32>,
    mut dx: Option<Vec<f32>>,
    shape: Shape,
) -> (UnitGradients, Option<Vec<f32>>, Vec<f32>) {
    let Unit {
        layer,
        weights,
        gamma,
        ..
    } = unit;
    let (input, output) = (layer.input, layer.output);
    let rows = x.len() / input;
    let tile_rows = shape.tile_rows();
    let ranges = groups(rows, tile_rows, shape.groups);
    // Through ReLU (`d_sum`, what the skip connection's input receives), with the norm's
    // sums in the same pass: dgamma = sum(d x_hat), dbeta = sum(d).
    let mut d_sum = d_out;
    let parts = split_rows(&mut d_sum, &ranges, output)
        .into_par_iter()
        .zip(&ranges)
        .map(|(d, range)| {
            let mut sums = vec![0.0f64; 2 * output];
            let (d_gamma, d_beta) = sums.split_at_mut(output);
            let z = &cache.z[range.start * output..range.end * output];
            let out = &cache.out[range.start * output..range.end * output];
            wide(
                #[inline(always)]
                || {
                    for ((d, z), out) in d
                        .chunks_exact_mut(output)
                        .zip(z.chunks_exact(output))
                        .zip(out.chunks_exact(output))
                    {
                        let channels = d_gamma.iter_mut().zip(d_beta.iter_mut());
                        let statistics = cache.mean.iter().zip(&cache.inv_std);
                        for ((((d, &z), &out), (d_gamma, d_beta)), (&mean, &inv_std)) in
                            d.iter_mut().zip(z).zip(out).zip(channels).zip(statistics)
                        {
                            if out <= 0.0 {
                                *d = 0.0;
                            }
                            let x_hat = (z - mean) * inv_std;
                            *d_gamma += f64::from(*d) * f64::from(x_hat);
                            *d_beta += f64::from(*d);
                        }
                    }
                },
            );
            sums
        })
        .collect();
    let sums = sum_in_order(parts, 2 * output);
    let d_gamma: Vec<f32> = sums[..output].iter().map(|&s| s as f32).collect();
    let d_beta: Vec<f32> = sums[output..].iter().map(|&s| s as f32).collect();
    // dz = gamma inv_std / N (N d - dbeta - x_hat dgamma) = a d + b z + e, per channel.
    let n = rows as f32;
    let a: Vec<f32> = (0..output).map(|c| gamma[c] * cache.inv_std[c]).collect();
    let b: Vec<f32> = (0..output)
        .map(|c| -a[c] * cache.inv_std[c] * d_gamma[c] / n)
        .collect();
    let e: Vec<f32> = (0..output)
        .map(|c| a[c] / n * (cache.mean[c] * cache.inv_std[c] * d_gamma[c] - d_beta[c]))
        .collect();
    // Through the norm and the convolution, tile by tile: dz for the tile's rows, then
    // dW += columns^T dz and d_columns = dz W^T, col2im'd into dx; dW summed over the groups
    // in order.
    let k = layer.kernel * layer.kernel * input;
    let window = shape.window(layer.kernel);
    let w = View::rows(weights, k, output);
    let dx_parts: Vec<Option<&mut [f32]>> = match dx.as_deref_mut() {
        Some(dx) => split_rows(dx, &ranges, input)
            .into_iter()
            .map(Some)
            .collect(),
        None => ranges.iter().map(|_| None).collect(),
    };
    let partial_weights: Vec<Vec<f32>> = ranges
        .par_iter()
        .zip(dx_parts)
        .map(|(range, mut dx)| {
            let mut d_weight = vec![0.0f32; k * output];
            let (mut dz, mut columns, mut d_columns) = (Vec::new(), Vec::new(), Vec::new());
            for start in range.clone().step_by(tile_rows) {
                let end = (start + tile_rows).min(range.end);
                let n = end - start;
                let span = start * output..end * output;
                dz.resize(n * output, 0.0);
                wide(
                    #[inline(always)]
                    || {
                        for ((dz, d), z) in dz
                            .chunks_exact_mut(output)
                            .zip(d_sum[span.clone()].chunks_exact(output))
                            .zip(cache.z[span.clone()].chunks_exact(output))
                        {
                            for ((((dz, &d), &z), &a), (&b, &e)) in
                                dz.iter_mut().zip(d).zip(z).zip(&a).zip(b.iter().zip(&e))
                            {
                                *dz = a * d + b * z + e;
                            }
                        }
                    },
                );
                let dz = View::rows(&dz, n, output);
                let x = &x[start * input..end * input];
                let columns = if layer.kernel == 1 {
                    x
                } else {
                    window.im2col(x, input, &mut columns);
                    &columns[..]
                };
                matmul(View::rows(columns, n, k).t(), dz, &mut d_weight, true);
                if let Some(dx) = dx.as_deref_mut() {
                    let dx = &mut dx[(start - range.start) * input..(end - range.start) * input];
                    if layer.kernel == 1 {
                        matmul(dz, w.t(), dx, true);
                    } else {
                        d_columns.resize(n * k, 0.0);
                        matmul(dz, w.t(), &mut d_columns, false);
                        window.col2im(&d_columns, input, dx);
                    }
                }
            }
            d_weight
        })
        .collect();
    let weight = partial_weights
        .into_iter()
        .reduce(|mut total, part| {
            add_into(&mut total, &part);
            total
        })
        .unwrap_or_else(|| vec![0.0; k * output]);
    let gradients = UnitGradients {
        weight,
        gamma: d_gamma,
        beta: d_beta,
    };
    (gradients, dx, d_sum)
}

/// Rows per task of a linear layer's products.
const DENSE_ROWS: usize = 16;

/// `y = x W + b` for the rows of `x` (`[rows, input]`), and ReLU if `relu`.
pub(crate) fn dense_forward(
    layer: &DenseLayer,
    weight: &[f32],
    bias: &[f32],
    x: &[f32],
    relu: bool,
) -> Vec<f32> {
    let rows = x.len() / layer.input;
    let mut y = vec![0.0f32; rows * layer.output];
    let w = View::rows(weight, layer.input, layer.output);
    y.par_chunks_mut(DENSE_ROWS * layer.output)
        .enumerate()
        .for_each(|(i, out)| {
            let n = out.len() / layer.output;
            let first = i * DENSE_ROWS;
            let x = &x[first * layer.input..(first + n) * layer.input];
            matmul(View::rows(x, n, layer.input), w, out, false);
            wide(
                #[inline(always)]
                || {
                    for row in out.chunks_mut(layer.output) {
                        for (v, b) in row.iter_mut().zip(bias) {
                            *v += b;
                            if relu {
                                *v = v.max(0.0);
                            }
                        }
                    }
                },
            );
        });
    y
}

/// The gradients of a linear layer's weight (`[input, output]`) and bias from its input `x`
/// and the gradient `dy` of its output (after any ReLU's mask), and of its input if asked.
pub(crate) fn dense_backward(
    layer: &DenseLayer,
    weight: &[f32],
    x: &[f32],
    dy: &[f32],
    input_gradient: bool,
) -> (Vec<f32>, Vec<f32>, Option<Vec<f32>>) {
    let (input, output) = (layer.input, layer.output);
    let rows = x.len() / input;
    let dy_view = View::rows(dy, rows, output);
    // dW = x^T dy, its rows (inputs) split over the pool.
    let mut d_weight = vec![0.0f32; input * output];
    d_weight
        .par_chunks_mut(DENSE_ROWS * output)
        .enumerate()
        .for_each(|(i, out)| {
            let first = i * DENSE_ROWS;
            let n = out.len() / output;
            let x_columns = View::strided(&x[first..], rows, n, input);
            matmul(x_columns.t(), dy_view, out, false);
        });
    let mut d_bias = vec![0.0f64; output];
    wide(
        #[inline(always)]
        || {
            for row in dy.chunks(output) {
                for (s, &v) in d_bias.iter_mut().zip(row) {
                    *s += f64::from(v);
                }
            }
        },
    );
    let dx = input_gradient.then(|| {
        let mut dx = vec![0.0f32; rows * input];
        let w = View::rows(weight, input, output);
        dx.par_chunks_mut(DENSE_ROWS * input)
            .enumerate()
            .for_each(|(i, out)| {
                let n = out.len() / input;
                let first = i * DENSE_ROWS;
                let dy = View::rows(&dy[first * output..(first + n) * output], n, output);
                matmul(dy, w.t(), out, false);
            });
        dx
    });
    (d_weight, d_bias.into_iter().map(|s| s as f32).collect(), dx)
}
