//! A counting global allocator: live and peak bytes, and a cap on any one allocation. A request
//! over the cap is refused (the process then stops with Rust's allocation failure) after the
//! input that asked for it is named on standard error, so it can be replayed.

#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::io::Write;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
static LIMIT: AtomicUsize = AtomicUsize::new(usize::MAX);
/// The target names, for the report of a refused allocation.
pub(crate) static NAMES: OnceLock<Vec<&'static str>> = OnceLock::new();

thread_local! {
    /// The input this thread runs: (target index, input index), `u64::MAX` when none.
    static CURRENT: Cell<(u64, u64)> = const { Cell::new((u64::MAX, u64::MAX)) };
}

/// The system allocator, counted and capped; install it with `#[global_allocator]`.
pub struct CountingAlloc;

/// Sets the largest single allocation allowed (bytes).
pub fn set_limit(bytes: usize) {
    LIMIT.store(bytes, Ordering::Relaxed);
}

/// Bytes allocated and not yet freed.
pub fn live() -> usize {
    LIVE.load(Ordering::Relaxed)
}

/// The most bytes live at once so far.
pub fn peak() -> usize {
    PEAK.load(Ordering::Relaxed)
}

/// Records which input the calling thread runs (`None`: none).
pub(crate) fn set_current(input: Option<(usize, u64)>) {
    let value = input.map_or((u64::MAX, u64::MAX), |(t, i)| (t as u64, i));
    CURRENT.with(|c| c.set(value));
}

/// Writes `n` in decimal into `out` from `at`; returns the new end.
fn put_number(out: &mut [u8], mut at: usize, n: u64) -> usize {
    let mut digits = [0u8; 20];
    let mut len = 0;
    let mut n = n;
    loop {
        digits[len] = b'0' + (n % 10) as u8;
        len += 1;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for d in digits[..len].iter().rev() {
        if at < out.len() {
            out[at] = *d;
            at += 1;
        }
    }
    at
}

fn put(out: &mut [u8], at: usize, text: &[u8]) -> usize {
    let end = (at + text.len()).min(out.len());
    out[at..end].copy_from_slice(&text[..end - at]);
    end
}

/// Names the input that asked for `size` bytes, without allocating.
fn report_refusal(size: usize) {
    let mut line = [0u8; 256];
    let (target, input) = CURRENT.with(Cell::get);
    let mut at = put(&mut line, 0, b"damas-fuzz: refused an allocation of ");
    at = put_number(&mut line, at, size as u64);
    at = put(&mut line, at, b" bytes; input: ");
    let name = NAMES
        .get()
        .and_then(|names| names.get(target as usize))
        .copied();
    match name {
        Some(name) => {
            at = put(&mut line, at, name.as_bytes());
            at = put(&mut line, at, b" ");
            at = put_number(&mut line, at, input);
            at = put(&mut line, at, b" (replay: damas-fuzz --replay ");
            at = put(&mut line, at, name.as_bytes());
            at = put(&mut line, at, b" ");
            at = put_number(&mut line, at, input);
            at = put(&mut line, at, b")");
        }
        None => at = put(&mut line, at, b"outside any input"),
    }
    at = put(&mut line, at, b"\n");
    let _ = std::io::stderr().write_all(&line[..at]);
}

fn counted(size: usize) {
    let live = LIVE.fetch_add(size, Ordering::Relaxed) + size;
    PEAK.fetch_max(live, Ordering::Relaxed);
}

// SAFETY: every call is forwarded to `System` with the caller's layout; the counters are plain
// atomics, and a refused request returns null as the trait allows.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if layout.size() > LIMIT.load(Ordering::Relaxed) {
            report_refusal(layout.size());
            return std::ptr::null_mut();
        }
        // SAFETY: forwarded with the caller's layout.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            counted(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if layout.size() > LIMIT.load(Ordering::Relaxed) {
            report_refusal(layout.size());
            return std::ptr::null_mut();
        }
        // SAFETY: forwarded with the caller's layout.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            counted(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: `ptr` came from this allocator with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > LIMIT.load(Ordering::Relaxed) {
            report_refusal(new_size);
            return std::ptr::null_mut();
        }
        // SAFETY: forwarded with the caller's pointer, layout and size.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
            counted(new_size);
        }
        p
    }
}
