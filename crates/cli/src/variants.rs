//! `damas variants`: the supported variants, one line each.

use crate::out::outln;
use damas_rules::Variant;

/// Arguments of `damas variants`.
#[derive(clap::Args)]
pub struct Args {}

pub fn run(_: Args) -> anyhow::Result<()> {
    let width = Variant::ALL
        .iter()
        .map(|v| v.name().len())
        .max()
        .unwrap_or(0);
    for variant in Variant::ALL {
        outln!("{:width$}  {}", variant.name(), variant.summary());
    }
    Ok(())
}
