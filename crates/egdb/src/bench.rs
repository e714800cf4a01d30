//! Probe speed: random positions drawn from the loaded tables, probed through [`Egdb::probe`]
//! (signature, index, lookup), timed the first time each is probed, again with the block cache
//! emptied, and over many probes.

use crate::db::Egdb;
use crate::value::Wdl;
use damas_rules::{Color, Position, Rules};
use std::hint::black_box;
use std::time::Instant;

/// What a probe benchmark measured.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct ProbeSpeed {
    /// Distinct positions drawn.
    pub positions: usize,
    /// Probes timed.
    pub probes: u64,
    /// Nanoseconds per probe, over the positions probed again and again.
    pub nanos_per_probe: f64,
    /// Nanoseconds per probe the first time each position is probed (for tables on disk,
    /// mostly blocks not yet cached: an unpacking each, and the first touch of the mapped
    /// page that holds the block).
    pub nanos_first_probe: f64,
    /// Nanoseconds per probe of the same positions again after the block cache was emptied:
    /// for tables on disk, mostly a block unpacked, its pages already mapped (a cache miss in
    /// a process that has probed for a while; positions of small tables share blocks, so some
    /// are hits); in memory, a repeat of the first pass.
    pub nanos_uncached_probe: f64,
    /// Of the positions drawn: won, drawn, lost for the side to move.
    pub wins: u64,
    /// Drawn.
    pub draws: u64,
    /// Lost.
    pub losses: u64,
}

/// Up to `count` positions drawn by a fixed generator seeded by `seed` (not 0) from the tables
/// of `db`, a table chosen uniformly, then an index and a side to move, each kept if `keep`
/// says so (fewer when a million draws do not find `count`).
pub fn random_positions<V: Rules>(
    db: &Egdb<V>,
    count: usize,
    seed: u64,
    keep: impl Fn(&Position<V::Geometry>) -> bool,
) -> Vec<Position<V::Geometry>> {
    let mut state = seed;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let signatures = db.signatures();
    let mut positions = Vec::new();
    let mut tries = 0;
    while positions.len() < count && !signatures.is_empty() && tries < 1_000_000 {
        tries += 1;
        let indexer = db
            .indexer(signatures[(next() % signatures.len() as u64) as usize])
            .expect("listed");
        let size = indexer.size();
        let turn = if next() & 1 == 0 {
            Color::White
        } else {
            Color::Black
        };
        if let Some(p) = indexer.decode(next() % size, turn)
            && keep(&p)
        {
            positions.push(p);
        }
    }
    positions
}

/// Times `probes` probes of up to 4096 positions drawn at random from every table of `db`.
pub fn probe_speed<V: Rules>(db: &Egdb<V>, probes: u64) -> ProbeSpeed {
    let positions = random_positions(db, 4096, 0x9E37_79B9_7F4A_7C15, |_| true);
    let mut report = ProbeSpeed {
        positions: positions.len(),
        ..ProbeSpeed::default()
    };
    if positions.is_empty() {
        return report;
    }
    let started = Instant::now();
    for p in &positions {
        match db.probe(p).map(|p| p.wdl) {
            Some(Wdl::Win) => report.wins += 1,
            Some(Wdl::Draw) => report.draws += 1,
            Some(Wdl::Loss) => report.losses += 1,
            None => {}
        }
    }
    report.nanos_first_probe = started.elapsed().as_nanos() as f64 / positions.len() as f64;
    db.clear_cache();
    let started = Instant::now();
    for p in &positions {
        black_box(db.probe(black_box(p)));
    }
    report.nanos_uncached_probe = started.elapsed().as_nanos() as f64 / positions.len() as f64;
    let started = Instant::now();
    let mut i = 0usize;
    for _ in 0..probes {
        black_box(db.probe(black_box(&positions[i])));
        i += 1;
        if i == positions.len() {
            i = 0;
        }
    }
    report.probes = probes;
    report.nanos_per_probe = started.elapsed().as_nanos() as f64 / probes as f64;
    report
}
