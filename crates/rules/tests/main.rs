//! The rules crate's integration tests, one topic per module.

mod common;
mod rules {
    pub mod bad_input;
    pub mod brainking;
    pub mod brute;
    pub mod more_variants;
    pub mod pdn;
    pub mod perft;
    pub mod positions;
    pub mod properties;
    pub mod seeds;
    pub mod site_rules;
}
