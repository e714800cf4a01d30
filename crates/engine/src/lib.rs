//! The classic alpha-beta baseline every trained network is measured against: iterative
//! deepening principal variation search, a transposition table keyed by the Zobrist hash, killer
//! and history ordering, forced captures searched past the horizon, and a hand-made evaluation
//! whose weights depend on the board family only.
//!
//! ```
//! use damas_engine::{EngineConfig, Limits, Searcher};
//! use damas_rules::{Game, variants::International};
//! let mut searcher = Searcher::<International>::new(EngineConfig::for_rules::<International>());
//! let result = searcher.search(&Game::new(), &Limits::depth(3), |_| {});
//! assert!(result.best.is_some());
//! ```

pub mod bench;
pub mod eval;
pub mod search;
pub mod tt;

pub use eval::{Weights, evaluate};
pub use search::{
    Clock, DATABASE_BOUND, DATABASE_WIN, EngineConfig, Limits, MATE, MATE_BOUND, SearchInfo,
    SearchResult, Searcher,
};
