//! The run: inputs spread over the targets by weight, worker threads, a watchdog that reports
//! an input running past the time limit as a hang (its worker is abandoned and replaced),
//! panics caught with their message, counts per target.

use crate::alloc;
use crate::targets::Target;
use rand::SeedableRng;
use rand::rngs::SmallRng;
use std::cell::{Cell, RefCell};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How a run goes.
#[derive(Clone, Debug)]
pub struct Options {
    /// Inputs over the targets with a weight, shared in proportion to it.
    pub inputs: u64,
    /// Inputs of each slow target (weight 0).
    pub slow_inputs: u64,
    /// Worker threads.
    pub threads: usize,
    /// Seed of every input (input `i` of target `t` depends only on it, `t` and `i`).
    pub seed: u64,
    /// An input running longer than this is a hang.
    pub time_limit: Duration,
    /// The largest single allocation allowed, in bytes (with [`alloc::CountingAlloc`]).
    pub alloc_limit: usize,
    /// The run stops after this many failures.
    pub max_failures: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            inputs: 10_000_000,
            slow_inputs: 1_000,
            threads: std::thread::available_parallelism().map_or(1, usize::from),
            seed: 0,
            time_limit: Duration::from_secs(2),
            alloc_limit: 256 << 20,
            max_failures: 20,
        }
    }
}

/// What went wrong with one input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FailureKind {
    /// The code under test panicked (message and place).
    Panic(String),
    /// It ran past the time limit.
    Hang,
}

/// One failing input.
#[derive(Clone, Debug)]
pub struct Failure {
    /// The target.
    pub target: &'static str,
    /// The input's index (replay it with `damas-fuzz --replay TARGET INDEX`).
    pub index: u64,
    /// What happened.
    pub kind: FailureKind,
    /// The input's bytes.
    pub input: Vec<u8>,
}

impl Failure {
    /// The input in hex.
    pub fn hex(&self) -> String {
        hex(&self.input)
    }
}

/// Bytes in hex.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// One target's figures.
#[derive(Clone, Debug, Default)]
pub struct TargetReport {
    /// Its name.
    pub name: &'static str,
    /// Inputs run.
    pub inputs: u64,
    /// Inputs the code under test accepted (the rest were refused with an error).
    pub accepted: u64,
    /// Inputs that panicked.
    pub panics: u64,
    /// Inputs that hung.
    pub hangs: u64,
    /// Time spent in its inputs (generation included), summed over threads.
    pub seconds: f64,
}

/// A run's figures.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// Per target.
    pub targets: Vec<TargetReport>,
    /// Every failure.
    pub failures: Vec<Failure>,
    /// Wall-clock time.
    pub seconds: f64,
    /// Most heap bytes live at once (with [`alloc::CountingAlloc`]).
    pub peak_heap: usize,
    /// The process's peak resident memory in KiB (Linux).
    pub max_rss_kib: Option<u64>,
    /// Whether the run stopped at `max_failures`.
    pub stopped_early: bool,
}

impl Report {
    /// Inputs run over all targets.
    pub fn inputs(&self) -> u64 {
        self.targets.iter().map(|t| t.inputs).sum()
    }
}

/// The input `index` of target number `t`, as every run with `seed` makes it.
pub fn input(target: &dyn Target, t: usize, index: u64, seed: u64) -> Vec<u8> {
    let mixed = seed
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add((t as u64) << 48)
        .wrapping_add(index);
    target.generate(&mut SmallRng::seed_from_u64(mixed))
}

thread_local! {
    static IS_WORKER: Cell<bool> = const { Cell::new(false) };
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Panics on threads the inputs started (a search thread, a loopback peer).
static STRAY: Mutex<Vec<String>> = Mutex::new(Vec::new());

fn install_hook() {
    std::panic::set_hook(Box::new(|info| {
        let payload = info.payload();
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "(no message)".into());
        let place = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        let text = format!("{message}{place}");
        if IS_WORKER.with(Cell::get) {
            LAST_PANIC.with(|last| *last.borrow_mut() = Some(text));
        } else {
            STRAY.lock().unwrap_or_else(|p| p.into_inner()).push(text);
        }
    }));
}

/// Runs one input and catches a panic: `Ok(accepted)` or `Err(message)`.
pub fn run_one(target: &dyn Target, input: &[u8]) -> Result<bool, String> {
    let stray_before = STRAY.lock().unwrap_or_else(|p| p.into_inner()).len();
    let was_worker = IS_WORKER.with(|w| w.replace(true));
    let result = catch_unwind(AssertUnwindSafe(|| target.run(input)));
    IS_WORKER.with(|w| w.set(was_worker));
    let caught = match result {
        Ok(accepted) => Ok(accepted),
        Err(_) => Err(LAST_PANIC
            .with(|last| last.borrow_mut().take())
            .unwrap_or_else(|| "panic".into())),
    };
    let stray = STRAY.lock().unwrap_or_else(|p| p.into_inner());
    match stray.get(stray_before..).and_then(<[String]>::last) {
        Some(message) => Err(format!("in a thread of the input: {message}")),
        None => caught,
    }
}

/// What a worker is doing, for the watchdog.
struct Slot {
    target: AtomicU64,
    index: AtomicU64,
    /// Milliseconds since the run started when the current input started; `u64::MAX`: idle.
    started: AtomicU64,
    abandoned: AtomicBool,
}

/// The targets of a run, shared with its threads.
pub type Targets = Arc<Vec<Box<dyn Target>>>;

struct Shared {
    targets: Targets,
    counts: Vec<u64>,
    options: Options,
    begin: Instant,
    inputs: Vec<AtomicU64>,
    accepted: Vec<AtomicU64>,
    nanos: Vec<AtomicU64>,
    failures: Mutex<Vec<Failure>>,
    stop: AtomicBool,
}

impl Shared {
    fn fail(&self, failure: Failure) {
        let mut failures = self.failures.lock().unwrap_or_else(|p| p.into_inner());
        failures.push(failure);
        if failures.len() >= self.options.max_failures {
            self.stop.store(true, Ordering::SeqCst);
        }
    }

    /// Runs stripe `stripe` from input position (`t`, `k`): inputs `stripe + k * threads`.
    fn work(&self, stripe: usize, from: (usize, u64), slot: &Slot) {
        let step = self.options.threads as u64;
        for t in from.0..self.targets.len() {
            let first = if t == from.0 { from.1 } else { 0 };
            let target = self.targets[t].as_ref();
            let mut k = first;
            loop {
                let index = stripe as u64 + k * step;
                if index >= self.counts[t]
                    || self.stop.load(Ordering::Relaxed)
                    || slot.abandoned.load(Ordering::SeqCst)
                {
                    break;
                }
                slot.target.store(t as u64, Ordering::SeqCst);
                slot.index.store(k, Ordering::SeqCst);
                let start = Instant::now();
                slot.started
                    .store(self.begin.elapsed().as_millis() as u64, Ordering::SeqCst);
                alloc::set_current(Some((t, index)));
                let data = input(target, t, index, self.options.seed);
                let result = run_one(target, &data);
                alloc::set_current(None);
                slot.started.store(u64::MAX, Ordering::SeqCst);
                if slot.abandoned.load(Ordering::SeqCst) {
                    return;
                }
                self.inputs[t].fetch_add(1, Ordering::Relaxed);
                self.nanos[t].fetch_add(start.elapsed().as_nanos() as u64, Ordering::Relaxed);
                match result {
                    Ok(true) => {
                        self.accepted[t].fetch_add(1, Ordering::Relaxed);
                    }
                    Ok(false) => {}
                    Err(message) => self.fail(Failure {
                        target: target.name(),
                        index,
                        kind: FailureKind::Panic(message),
                        input: data,
                    }),
                }
                k += 1;
            }
            if self.stop.load(Ordering::Relaxed) || slot.abandoned.load(Ordering::SeqCst) {
                return;
            }
        }
    }
}

fn new_slot() -> Arc<Slot> {
    Arc::new(Slot {
        target: AtomicU64::new(0),
        index: AtomicU64::new(0),
        started: AtomicU64::new(u64::MAX),
        abandoned: AtomicBool::new(false),
    })
}

/// Peak resident memory of this process in KiB, from `/proc/self/status`.
pub fn max_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// The inputs each target gets.
pub fn counts(targets: &[Box<dyn Target>], options: &Options) -> Vec<u64> {
    let total: u64 = targets.iter().map(|t| t.weight()).sum::<u64>().max(1);
    targets
        .iter()
        .map(|t| match t.weight() {
            0 => options.slow_inputs,
            w => options.inputs * w / total,
        })
        .collect()
}

/// Runs `targets` as `options` say; `progress` gets (inputs done, inputs planned) about once a
/// second.
pub fn run(targets: &Targets, options: &Options, progress: &mut dyn FnMut(u64, u64)) -> Report {
    let names: Vec<&'static str> = targets.iter().map(|t| t.name()).collect();
    let _ = alloc::NAMES.set(names);
    alloc::set_limit(options.alloc_limit);
    install_hook();
    let threads = options.threads.max(1);
    let options = Options {
        threads,
        ..options.clone()
    };
    let counts = counts(targets, &options);
    let planned: u64 = counts.iter().sum();
    let zeros = || (0..targets.len()).map(|_| AtomicU64::new(0)).collect();
    let shared = Arc::new(Shared {
        targets: Arc::clone(targets),
        counts,
        options: options.clone(),
        begin: Instant::now(),
        inputs: zeros(),
        accepted: zeros(),
        nanos: zeros(),
        failures: Mutex::new(Vec::new()),
        stop: AtomicBool::new(false),
    });
    let mut hangs = vec![0u64; targets.len()];
    let spawn = |stripe: usize, from: (usize, u64)| {
        let slot = new_slot();
        let watched = Arc::clone(&slot);
        let shared = Arc::clone(&shared);
        let handle: JoinHandle<()> =
            std::thread::spawn(move || shared.work(stripe, from, &watched));
        (stripe, slot, handle)
    };
    let mut workers: Vec<_> = (0..threads).map(|w| spawn(w, (0, 0))).collect();
    let mut last_progress = Instant::now();
    while !workers.is_empty() {
        std::thread::sleep(Duration::from_millis(20));
        let mut next = Vec::new();
        for (stripe, slot, handle) in workers {
            if handle.is_finished() {
                let _ = handle.join();
                continue;
            }
            let started = slot.started.load(Ordering::SeqCst);
            let now = shared.begin.elapsed().as_millis() as u64;
            if started != u64::MAX
                && now.saturating_sub(started) > options.time_limit.as_millis() as u64
            {
                // The hung thread cannot be stopped: it is left to finish (or not) on its own
                // and a new worker takes the rest of its stripe.
                slot.abandoned.store(true, Ordering::SeqCst);
                let t = slot.target.load(Ordering::SeqCst) as usize;
                let k = slot.index.load(Ordering::SeqCst);
                let index = stripe as u64 + k * threads as u64;
                hangs[t] += 1;
                shared.fail(Failure {
                    target: targets[t].name(),
                    index,
                    kind: FailureKind::Hang,
                    input: input(targets[t].as_ref(), t, index, options.seed),
                });
                next.push(spawn(stripe, (t, k + 1)));
            } else {
                next.push((stripe, slot, handle));
            }
        }
        workers = next;
        if last_progress.elapsed() >= Duration::from_secs(1) {
            last_progress = Instant::now();
            let done: u64 = shared
                .inputs
                .iter()
                .map(|n| n.load(Ordering::Relaxed))
                .sum();
            progress(done, planned);
        }
    }
    let _ = std::panic::take_hook();
    alloc::set_limit(usize::MAX);
    let failures = shared
        .failures
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .clone();
    let mut targets_report = Vec::new();
    for (t, target) in targets.iter().enumerate() {
        let panics = failures
            .iter()
            .filter(|f| f.target == target.name() && matches!(f.kind, FailureKind::Panic(_)))
            .count() as u64;
        targets_report.push(TargetReport {
            name: target.name(),
            inputs: shared.inputs[t].load(Ordering::Relaxed),
            accepted: shared.accepted[t].load(Ordering::Relaxed),
            panics,
            hangs: hangs[t],
            seconds: shared.nanos[t].load(Ordering::Relaxed) as f64 * 1e-9,
        });
    }
    Report {
        targets: targets_report,
        stopped_early: failures.len() >= options.max_failures,
        failures,
        seconds: shared.begin.elapsed().as_secs_f64(),
        peak_heap: alloc::peak(),
        max_rss_kib: max_rss_kib(),
    }
}
