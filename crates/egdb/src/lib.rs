//! Endgame databases for every variant of the rules crate.
//!
//! A table holds every position of one material signature (men and kings per side), both
//! sides to move, with its game-theoretic value and distance to the next conversion (capture
//! or promotion, [`Distance`]), draw counters ignored. Tables are solved retrogradely from the smaller signatures a move can
//! reach ([`solve`]), written in a versioned, checksummed file of compressed blocks ([`file`]), and
//! probed as a set ([`Egdb`]) either read whole into memory or block by block from the files
//! through a cache ([`disk`]), in well under a microsecond once a block is cached.
//!
//! ```
//! use damas_egdb::{Egdb, Signature, Wdl, build};
//! use damas_rules::{parse_fen, variants::English};
//! let dir = std::env::temp_dir().join(format!("egdb-doc-{}", std::process::id()));
//! let two_kings_v_one: Signature = "w0.2-b0.1".parse().unwrap();
//! let (db, _) = build::build::<English>(&dir, &[two_kings_v_one], |_, _, _| {}).unwrap();
//! let position = parse_fen::<English>("W:WK1,K2:BK32").unwrap();
//! assert_eq!(db.probe(&position).unwrap().wdl, Wdl::Win);
//! # std::fs::remove_dir_all(&dir).unwrap();
//! ```
//!
//! Architecture invariant: the rules crate alone says what a move is; the solver finds
//! predecessors by unmaking candidates and keeping those whose legal moves lead back.

pub mod bench;
pub mod build;
pub mod db;
pub mod disk;
pub mod file;
pub mod index;
pub mod signature;
pub mod solve;
pub mod table;
pub mod value;
pub mod verify;

pub use db::{Egdb, Storage};
pub use index::Indexer;
pub use signature::Signature;
pub use table::{Table, TableError};
pub use value::{DISTANCE, Distance, Probe, Value, Wdl};
