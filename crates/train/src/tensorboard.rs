//! TensorBoard logging: scalars and raw histograms as TFRecord event files, written by this
//! process (tensorboard-rs builds the records and summaries). tensorboard-rs's own writer runs
//! in a thread that panics on the first failed write, so a full disk aborted the whole run; here
//! the first error is kept, later writes are skipped, and [`TensorBoard::flush`] returns it.

use protobuf::Message;
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::SystemTime;
use tensorboard_proto::event::Event;
use tensorboard_proto::summary::Summary;
use tensorboard_rs::record_writer::RecordWriter;
use tensorboard_rs::summary::{histogram_raw, scalar};

/// Writes scalars and histograms to one event file in a TensorBoard log directory.
pub struct TensorBoard {
    writer: RecordWriter<BufWriter<File>>,
    path: PathBuf,
    /// The first write error; once set, nothing more is written.
    error: Option<std::io::Error>,
}

fn now() -> f64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// The machine's name for the event file's name, as the kernel knows it (not the
/// environment, which only the binary reads), "localhost" where it cannot be read.
pub(crate) fn host_name() -> String {
    let name = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    let name: String = name
        .trim()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'))
        .collect();
    if name.is_empty() {
        "localhost".into()
    } else {
        name
    }
}

impl TensorBoard {
    /// Opens a new event file in `dir` (named as TensorBoard expects; the last number counts
    /// the files this process opened, zero-padded so that names sort in the order the files
    /// were opened, as TensorBoard reads them, and two in one second do not collide).
    pub fn new(dir: &Path) -> std::io::Result<Self> {
        static OPENED: AtomicU32 = AtomicU32::new(0);
        let start = now();
        let host = host_name();
        let name = format!(
            "events.out.tfevents.{:010}.{host}.{}.{:04}",
            start as u64,
            std::process::id(),
            OPENED.fetch_add(1, Ordering::Relaxed)
        );
        let path = dir.join(name);
        let file = File::create(&path)?;
        let mut board = TensorBoard {
            writer: RecordWriter::new(BufWriter::new(file)),
            path,
            error: None,
        };
        let mut event = Event::new();
        event.set_wall_time(start);
        event.set_file_version("brain.Event:2".into());
        board.write(&event);
        board.flush()?;
        Ok(board)
    }

    /// The event files in `dir` that processes of this machine wrote (their names carry the
    /// host name, as [`TensorBoard::new`] gives them).
    pub fn written_here(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
        let host = format!(".{}.", host_name());
        Ok(std::fs::read_dir(dir)?
            .flatten()
            .map(|entry| entry.path())
            .filter(|path| {
                path.is_file()
                    && path
                        .file_name()
                        .is_some_and(|name| name.to_string_lossy().contains(&host))
            })
            .collect())
    }

    /// The event file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn write(&mut self, event: &Event) {
        if self.error.is_some() {
            return;
        }
        let result = event
            .write_to_bytes()
            .map_err(std::io::Error::other)
            .and_then(|bytes| self.writer.write(&bytes));
        if let Err(error) = result {
            self.error = Some(error);
        }
    }

    fn summary(&mut self, summary: Summary, step: u64) {
        let mut event = Event::new();
        event.set_wall_time(now());
        event.set_step(step as i64);
        event.set_summary(summary);
        self.write(&event);
    }

    /// Logs one scalar.
    pub fn scalar(&mut self, tag: &str, value: f64, step: u64) {
        self.summary(scalar(tag, value as f32), step);
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
        let summary = histogram_raw(
            tag,
            min,
            max,
            values.len() as f64,
            sum,
            squares,
            &limits,
            &counts,
        );
        self.summary(summary, step);
    }

    /// Writes everything buffered to disk; the first error of any write since the file was
    /// opened, if there was one.
    pub fn flush(&mut self) -> std::io::Result<()> {
        if self.error.is_none()
            && let Err(error) = self.writer.flush()
        {
            self.error = Some(error);
        }
        match &self.error {
            Some(error) => Err(std::io::Error::new(error.kind(), error.to_string())),
            None => Ok(()),
        }
    }
}
