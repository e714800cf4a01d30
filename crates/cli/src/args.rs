//! Arguments shared by several subcommands.

use damas_nn::{DeviceChoice, NetworkSize};
use damas_rules::{ParseFenError, Position, Rules, Variant, parse_fen};

/// The `--variant` and `--fen` options of the commands that work on a position.
#[derive(clap::Args)]
pub struct PositionArgs {
    /// Variant name (see `damas variants`).
    #[arg(long, value_parser = parse_variant)]
    pub variant: Variant,
    /// Position in PDN FEN; the variant's start if omitted.
    #[arg(long)]
    pub fen: Option<String>,
}

impl PositionArgs {
    /// The position given by `--fen`, or the variant's start.
    pub fn position<V: Rules>(&self) -> Result<Position<V::Geometry>, ParseFenError> {
        match &self.fen {
            Some(fen) => parse_fen::<V>(fen),
            None => Ok(Position::initial::<V>()),
        }
    }
}

/// The `--blocks` and `--channels` options of the commands that make a network.
#[derive(clap::Args, Clone, Copy)]
pub struct SizeArgs {
    /// Residual blocks.
    #[arg(long, default_value_t = NetworkSize::DEFAULT.blocks)]
    pub blocks: usize,
    /// Channels per convolution.
    #[arg(long, default_value_t = NetworkSize::DEFAULT.channels)]
    pub channels: usize,
}

impl SizeArgs {
    /// The network size given.
    pub fn size(self) -> NetworkSize {
        NetworkSize {
            blocks: self.blocks,
            channels: self.channels,
        }
    }
}

/// The `--device` option of the commands that run a network.
#[derive(clap::Args, Clone, Copy)]
pub struct DeviceArgs {
    /// Where networks run: cpu, wgpu, cuda or cuda:N (wgpu and cuda need a build with
    /// `--features wgpu` or `--features cuda`).
    #[arg(long, default_value = "cpu", value_parser = parse_device)]
    pub device: DeviceChoice,
}

impl DeviceArgs {
    /// The burn device, checked to exist.
    pub fn open(self) -> Result<damas_nn::Device, damas_nn::DeviceError> {
        self.device.open()
    }
}

/// Parses a `--device` value.
pub fn parse_device(s: &str) -> Result<DeviceChoice, String> {
    s.parse::<DeviceChoice>().map_err(|e| e.to_string())
}

/// Parses a `--variant` value.
pub fn parse_variant(s: &str) -> Result<Variant, String> {
    s.parse::<Variant>().map_err(|e| e.to_string())
}

/// Parses a side: `white` or `black`.
pub fn parse_color(s: &str) -> Result<damas_rules::Color, String> {
    match s.to_ascii_lowercase().as_str() {
        "white" | "w" => Ok(damas_rules::Color::White),
        "black" | "b" => Ok(damas_rules::Color::Black),
        other => Err(format!("`{other}` is not a side (expected white or black)")),
    }
}

/// Parses a positive number of minutes (fractions allowed) into a duration.
pub fn parse_minutes(s: &str) -> Result<std::time::Duration, String> {
    match s.trim().parse::<f64>() {
        Ok(minutes) if minutes > 0.0 && minutes.is_finite() && minutes <= 1e6 => {
            Ok(std::time::Duration::from_secs_f64(minutes * 60.0))
        }
        _ => Err(format!("`{s}` is not a positive number of minutes")),
    }
}

/// Parses a count that must be at least 1 (`--games`, `--concurrency`, `--rounds`, ...).
pub fn at_least_one<T>(s: &str) -> Result<T, String>
where
    T: std::str::FromStr + PartialOrd + From<u8>,
{
    let n: T = s
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not a whole number"))?;
    if n < T::from(1) {
        return Err(format!("`{s}` is too small: at least 1"));
    }
    Ok(n)
}

/// Parses a time in seconds that must be positive and finite (`--time`, `--seconds`).
pub fn positive_seconds(s: &str) -> Result<f64, String> {
    let seconds: f64 = s
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not a number of seconds"))?;
    if !(seconds.is_finite() && seconds > 0.0 && seconds <= 1e6) {
        return Err(format!(
            "`{s}`: seconds must be a positive number, at most 1000000"
        ));
    }
    Ok(seconds)
}
