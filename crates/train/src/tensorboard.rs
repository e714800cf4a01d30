//! TensorBoard logging through tensorboard-rs (scalars and raw histograms only: its other
//! methods are unimplemented).

use std::path::Path;
use tensorboard_rs::summary_writer::SummaryWriter;

/// Writes scalars and histograms to a TensorBoard log directory.
pub struct TensorBoard {
    writer: SummaryWriter,
}

impl TensorBoard {
    /// Opens a new event file in `dir`.
    pub fn new(dir: &Path) -> Self {
        TensorBoard {
            writer: SummaryWriter::new(dir),
        }
    }

    /// Logs one scalar.
    pub fn scalar(&mut self, tag: &str, value: f64, step: u64) {
        self.writer.add_scalar(tag, value as f32, step as usize);
    }

    /// Logs a histogram of `values` with `buckets` equal buckets between their extremes.
    pub fn histogram(&mut self, tag: &str, values: &[f64], buckets: usize, step: u64) {
        if values.is_empty() {
            return;
        }
        let min = values.iter().copied().fold(f64::INFINITY, f64::min);
        let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let width = ((max - min) / buckets.max(1) as f64).max(1e-9);
        let limits: Vec<f64> = (1..=buckets).map(|i| min + width * i as f64).collect();
        let mut counts = vec![0.0; buckets];
        for &v in values {
            let bucket = (((v - min) / width) as usize).min(buckets - 1);
            counts[bucket] += 1.0;
        }
        let sum: f64 = values.iter().sum();
        let squares: f64 = values.iter().map(|v| v * v).sum();
        self.writer.add_histogram_raw(
            tag,
            min,
            max,
            values.len() as f64,
            sum,
            squares,
            &limits,
            &counts,
            step as usize,
        );
    }

    /// Writes everything buffered to disk.
    pub fn flush(&mut self) {
        self.writer.flush();
    }
}
