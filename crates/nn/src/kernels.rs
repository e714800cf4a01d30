//! The two kernels the CPU passes share: a matrix product on the `gemm` crate (burn's own CPU
//! matrix kernel) over strided views, and im2col with its adjoint col2im.
//!
//! Activations are square-major (`[boards x area, channels]`); a `kernel x kernel` convolution
//! reads im2col's `[boards x area, kernel x kernel x channels]` (kernel row, kernel column,
//! channel; channel fastest), so that its weights are one `[kernel x kernel x input, output]`
//! matrix.

/// A matrix stored in a slice with any row and column strides (a transposed view swaps them).
#[derive(Clone, Copy, Debug)]
pub(crate) struct View<'a> {
    data: &'a [f32],
    rows: usize,
    cols: usize,
    row_stride: usize,
    col_stride: usize,
}

impl<'a> View<'a> {
    /// `data` as a row-major `rows x cols` matrix.
    pub(crate) fn rows(data: &'a [f32], rows: usize, cols: usize) -> Self {
        View {
            data,
            rows,
            cols,
            row_stride: cols,
            col_stride: 1,
        }
    }

    /// `rows x cols` values of `data` whose rows start `row_stride` values apart (a band of
    /// columns of a wider row-major matrix).
    pub(crate) fn strided(data: &'a [f32], rows: usize, cols: usize, row_stride: usize) -> Self {
        View {
            data,
            rows,
            cols,
            row_stride,
            col_stride: 1,
        }
    }

    /// The transpose of this matrix (no copy).
    pub(crate) fn t(self) -> Self {
        View {
            rows: self.cols,
            cols: self.rows,
            row_stride: self.col_stride,
            col_stride: self.row_stride,
            ..self
        }
    }

    /// Whether every element the strides name lies inside the slice.
    fn in_bounds(&self) -> bool {
        self.rows == 0
            || self.cols == 0
            || (self.rows - 1) * self.row_stride + (self.cols - 1) * self.col_stride
                < self.data.len()
    }
}

/// `out = a x b` (or `out += a x b` if `accumulate`), `out` row-major `a.rows x b.cols`, on the
/// calling thread.
#[allow(unsafe_code)]
pub(crate) fn matmul(a: View, b: View, out: &mut [f32], accumulate: bool) {
    let (m, k, n) = (a.rows, a.cols, b.cols);
    assert!(
        b.rows == k && out.len() == m * n,
        "matrix shapes do not match"
    );
    assert!(
        a.in_bounds() && b.in_bounds(),
        "a view reaches past its slice"
    );
    if m == 0 || n == 0 {
        return;
    }
    if k == 0 {
        if !accumulate {
            out.fill(0.0);
        }
        return;
    }
    // SAFETY: every element the strides of `a` and `b` address lies inside their slices
    // (checked above), `out` holds exactly the row-major `m x n` result and is borrowed
    // mutably, so nothing else reads or writes it; its previous contents are read only when
    // `accumulate` is set.
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            out.as_mut_ptr(),
            1,
            n as isize,
            accumulate,
            a.data.as_ptr(),
            a.col_stride as isize,
            a.row_stride as isize,
            b.data.as_ptr(),
            b.col_stride as isize,
            b.row_stride as isize,
            1.0,
            1.0,
            false,
            false,
            false,
            gemm::Parallelism::None,
        );
    }
}

/// Runs `f` inside a function compiled for the widest vector instructions this processor has,
/// chosen at run time (AVX-512, or AVX2 with FMA, on x86-64; through `pulp`, the crate `gemm`
/// dispatches with): the workspace is built for baseline x86-64, whose 128-bit SSE2 is all
/// that the element-wise loops of the passes get otherwise. Only code inlined into `f` is
/// compiled that way, so `f` is a closure marked `#[inline(always)]` holding the loop. The
/// arithmetic is the same (no fused multiply-adds are formed), so results keep their bits.
#[inline(always)]
pub(crate) fn wide<R>(f: impl FnOnce() -> R) -> R {
    pulp::Arch::new().dispatch(f)
}

/// One core's measured single-precision peak in GFLOP/s: the best rate of repeated 256-cube
/// matrix products on this thread for about `seconds` (the `gemm` kernels every pass here
/// runs on, at a size where they are bound by the FMA units, not by memory). Processors that
/// split 512-bit FMAs in two (AMD Zen 4) measure half the rate their flags suggest.
pub fn measured_peak_gflops(seconds: f64) -> f64 {
    const N: usize = 256;
    let a: Vec<f32> = (0..N * N).map(|i| (i % 7) as f32 * 0.1).collect();
    let b: Vec<f32> = (0..N * N).map(|i| (i % 5) as f32 * 0.1).collect();
    let mut out = vec![0.0f32; N * N];
    let flops = 2.0 * (N * N * N) as f64;
    let start = std::time::Instant::now();
    let mut best = 0.0f64;
    while best == 0.0 || start.elapsed().as_secs_f64() < seconds {
        let product = std::time::Instant::now();
        matmul(View::rows(&a, N, N), View::rows(&b, N, N), &mut out, false);
        best = best.max(flops / product.elapsed().as_secs_f64() / 1e9);
    }
    best
}

/// A board's shape and a convolution's kernel, as im2col and col2im take them, with the copies
/// they make for every board worked out once.
#[derive(Clone, Debug)]
pub(crate) struct Window {
    /// The copies of one board: runs of consecutive slots read from consecutive squares (the
    /// taps of one kernel row that fall on the board, mostly).
    copies: Vec<Run>,
    /// One board's im2col slots whose tap falls off the board, in runs (each run's `source`
    /// is its `slot`: only the slots matter).
    off_board: Vec<Run>,
    /// Squares per board.
    area: usize,
    /// Taps per square (`kernel x kernel`).
    taps: usize,
}

/// `len` consecutive im2col slots of one board starting at `slot` (numbered `square x taps +
/// tap`), read from `len` consecutive squares starting at `source`.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Run {
    slot: usize,
    source: usize,
    len: usize,
}

impl Run {
    /// Adds slot `slot` read from square `source` to `runs`: to the last run if both follow
    /// on from it, else as a run of its own.
    fn extend(runs: &mut Vec<Run>, slot: usize, source: usize) {
        match runs.last_mut() {
            Some(last) if last.slot + last.len == slot && last.source + last.len == source => {
                last.len += 1;
            }
            _ => runs.push(Run {
                slot,
                source,
                len: 1,
            }),
        }
    }
}

impl Window {
    /// The window of a `kernel x kernel` convolution with "same" padding on a `height x width`
    /// board.
    pub(crate) fn new(height: usize, width: usize, kernel: usize) -> Self {
        let taps = kernel * kernel;
        let reach = (kernel / 2) as isize;
        let (mut copies, mut off_board) = (Vec::new(), Vec::new());
        for square in 0..height * width {
            let (y, x) = ((square / width) as isize, (square % width) as isize);
            for tap in 0..taps {
                let sy = y + (tap / kernel) as isize - reach;
                let sx = x + (tap % kernel) as isize - reach;
                let slot = square * taps + tap;
                if (0..height as isize).contains(&sy) && (0..width as isize).contains(&sx) {
                    Run::extend(&mut copies, slot, (sy * width as isize + sx) as usize);
                } else {
                    Run::extend(&mut off_board, slot, slot);
                }
            }
        }
        Window {
            copies,
            off_board,
            area: height * width,
            taps,
        }
    }

    /// Fills `columns` with `[boards x area, kernel x kernel x channels]`: for every square,
    /// the `kernel x kernel` neighbourhood of `x` (`[boards x area, channels]`) around it, zero
    /// off the board ("same" padding). Every value is written, so `columns` may hold anything.
    pub(crate) fn im2col(&self, x: &[f32], channels: usize, columns: &mut Vec<f32>) {
        let row_len = self.taps * channels;
        let boards = x.len() / (self.area * channels);
        columns.resize(boards * self.area * row_len, 0.0);
        for (input, out) in x
            .chunks_exact(self.area * channels)
            .zip(columns.chunks_exact_mut(self.area * row_len))
        {
            for run in &self.copies {
                out[run.slot * channels..(run.slot + run.len) * channels].copy_from_slice(
                    &input[run.source * channels..(run.source + run.len) * channels],
                );
            }
            for run in &self.off_board {
                out[run.slot * channels..(run.slot + run.len) * channels].fill(0.0);
            }
        }
    }

    /// The adjoint of [`Window::im2col`]: adds every entry of `columns` back onto the square
    /// it was read from, into `x` (`[boards x area, channels]`, added to).
    pub(crate) fn col2im(&self, columns: &[f32], channels: usize, x: &mut [f32]) {
        let row_len = self.taps * channels;
        wide(
            #[inline(always)]
            || {
                for (out, columns) in x
                    .chunks_exact_mut(self.area * channels)
                    .zip(columns.chunks_exact(self.area * row_len))
                {
                    for run in &self.copies {
                        let from = &columns[run.slot * channels..(run.slot + run.len) * channels];
                        let to = &mut out[run.source * channels..(run.source + run.len) * channels];
                        for (value, c) in to.iter_mut().zip(from) {
                            *value += c;
                        }
                    }
                }
            },
        );
    }
}

/// Each board's `rows x cols` block of `x` transposed: square-major `[boards x area,
/// channels]` to burn's flattened `[boards, channels x area]` with `(area, channels)`, and back
/// with `(channels, area)`.
pub(crate) fn transpose_boards(x: &[f32], rows: usize, cols: usize) -> Vec<f32> {
    let mut out = vec![0.0; x.len()];
    for (out, x) in out.chunks_mut(rows * cols).zip(x.chunks(rows * cols)) {
        for r in 0..rows {
            for c in 0..cols {
                out[c * rows + r] = x[r * cols + c];
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn products_of_transposed_views_match_the_definition() {
        let (m, k, n) = (5, 7, 3);
        let a: Vec<f32> = (0..m * k).map(|i| (i % 11) as f32 - 5.0).collect();
        let b: Vec<f32> = (0..k * n).map(|i| (i % 7) as f32 * 0.5).collect();
        let expected =
            |i: usize, j: usize| (0..k).map(|l| a[i * k + l] * b[l * n + j]).sum::<f32>();
        let mut out = vec![0.0; m * n];
        matmul(View::rows(&a, m, k), View::rows(&b, k, n), &mut out, false);
        for i in 0..m {
            for j in 0..n {
                assert_eq!(out[i * n + j], expected(i, j));
            }
        }
        // (b^T a^T)^T = a b, read through transposed views, and accumulated on top.
        let mut out_t = vec![1.0; n * m];
        matmul(
            View::rows(&b, k, n).t(),
            View::rows(&a, m, k).t(),
            &mut out_t,
            true,
        );
        for i in 0..m {
            for j in 0..n {
                assert_eq!(out_t[j * m + i], expected(i, j) + 1.0);
            }
        }
    }

    #[test]
    fn im2col_matches_the_definition() {
        for (height, width, kernel) in [(8, 8, 3), (3, 4, 3), (3, 3, 3), (10, 10, 3), (4, 5, 1)] {
            let window = Window::new(height, width, kernel);
            let (boards, channels) = (2, 5);
            let area = height * width;
            let x: Vec<f32> = (0..boards * area * channels).map(|i| i as f32).collect();
            let mut columns = vec![-1.0; 7];
            window.im2col(&x, channels, &mut columns);
            let reach = (kernel / 2) as isize;
            let mut expected = Vec::new();
            for board in 0..boards {
                for square in 0..area {
                    let (y, x0) = ((square / width) as isize, (square % width) as isize);
                    for tap in 0..kernel * kernel {
                        let sy = y + (tap / kernel) as isize - reach;
                        let sx = x0 + (tap % kernel) as isize - reach;
                        for c in 0..channels {
                            let inside = (0..height as isize).contains(&sy)
                                && (0..width as isize).contains(&sx);
                            expected.push(if inside {
                                let source = board * area + (sy as usize) * width + sx as usize;
                                x[source * channels + c]
                            } else {
                                0.0
                            });
                        }
                    }
                }
            }
            assert_eq!(columns, expected, "{height}x{width}, kernel {kernel}");
        }
    }

    #[test]
    fn col2im_is_the_adjoint_of_im2col() {
        // <im2col(x), c> = <x, col2im(c)> for all x and c.
        let window = Window::new(3, 4, 3);
        let (boards, channels) = (2, 3);
        let x: Vec<f32> = (0..boards * 12 * channels)
            .map(|i| ((i * 7) % 5) as f32 - 2.0)
            .collect();
        // A reused buffer's old values must not survive (the off-board slots are zeroed).
        let mut columns = vec![9.0; 2000];
        window.im2col(&x, channels, &mut columns);
        let c: Vec<f32> = (0..columns.len())
            .map(|i| ((i * 3) % 7) as f32 - 3.0)
            .collect();
        let mut back = vec![0.0; x.len()];
        window.col2im(&c, channels, &mut back);
        let left: f32 = columns.iter().zip(&c).map(|(a, b)| a * b).sum();
        let right: f32 = x.iter().zip(&back).map(|(a, b)| a * b).sum();
        assert_eq!(left, right);
    }
}
