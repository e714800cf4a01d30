//! Pictures a person can read: ratings against checkpoint number (`ratings.png`) and strength
//! against training time (`damas bench learning`'s `curve.png`). Axes carry labels and numbers,
//! drawn with the DejaVu Sans font shipped in `assets/fonts` (its licence beside it), so no
//! system font is needed.

use crate::elo::EloEstimate;
use plotters::coord::Shift;
use plotters::coord::ranged1d::ValueFormatter;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use std::path::Path;
use std::sync::Once;

/// The font every picture's text is drawn in.
const FONT: &[u8] = include_bytes!("../../../assets/fonts/DejaVuSans.ttf");

/// Why a picture could not be drawn.
#[derive(Debug, thiserror::Error)]
#[error("cannot draw {path}: {message}")]
pub struct PlotError {
    /// The file.
    pub path: std::path::PathBuf,
    /// The drawing library's message.
    pub message: String,
}

/// Registers the shipped font as plotters' `sans-serif` (once per process).
fn register_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // The font is part of the binary; failing to read it is a build defect.
        plotters::style::register_font("sans-serif", FontStyle::Normal, FONT)
            .unwrap_or_else(|_| panic!("the shipped DejaVuSans.ttf is not a font"));
    });
}

fn plot_error(path: &Path) -> impl FnOnce(Box<dyn std::error::Error>) -> PlotError + '_ {
    move |e| PlotError {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

/// The colour of the `i`th line.
fn line_colour(i: usize) -> RGBColor {
    const COLOURS: [RGBColor; 6] = [
        RGBColor(30, 90, 200),
        RGBColor(220, 80, 30),
        RGBColor(30, 150, 60),
        RGBColor(150, 50, 170),
        RGBColor(200, 150, 0),
        RGBColor(0, 150, 170),
    ];
    COLOURS[i % COLOURS.len()]
}

/// The range a set of values spans, padded by a tenth on each side (at least `min_span`).
fn padded_range(values: impl Iterator<Item = f64>, min_span: f64) -> (f64, f64) {
    let (low, high) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), v| {
        (l.min(v), h.max(v))
    });
    let (low, high) = if low.is_finite() {
        (low, high)
    } else {
        (0.0, 0.0)
    };
    let span = (high - low).max(min_span);
    let middle = (low + high) / 2.0;
    (middle - span * 0.6, middle + span * 0.6)
}

/// Draws `ratings` of checkpoints `numbers` into the PNG file `path`: one point per checkpoint
/// with its 95% interval, joined by a line, against labelled axes.
pub fn ratings(path: &Path, numbers: &[u32], ratings: &[EloEstimate]) -> Result<(), PlotError> {
    draw_ratings(path, numbers, ratings).map_err(plot_error(path))
}

fn draw_ratings(
    path: &Path,
    numbers: &[u32],
    ratings: &[EloEstimate],
) -> Result<(), Box<dyn std::error::Error>> {
    register_font();
    let root = BitMapBackend::new(path, (900, 560)).into_drawing_area();
    root.fill(&WHITE)?;
    let first = f64::from(*numbers.first().unwrap_or(&0));
    let last = f64::from(*numbers.last().unwrap_or(&1)).max(first + 1.0);
    let (low, high) = padded_range(
        ratings.iter().flat_map(|r| [r.low, r.high]).chain([0.0]),
        100.0,
    );
    let mut chart = ChartBuilder::on(&root)
        .caption(
            "Rating of each checkpoint (95% interval)",
            ("sans-serif", 22),
        )
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(65)
        .build_cartesian_2d(first - 0.5..last + 0.5, low..high)?;
    chart
        .configure_mesh()
        .x_desc("checkpoint (generation)")
        .y_desc("Elo")
        .y_label_formatter(&|v| format!("{v:.0}"))
        .label_style(("sans-serif", 15))
        .axis_desc_style(("sans-serif", 17))
        .draw()?;
    let blue = line_colour(0);
    let points: Vec<(f64, f64)> = numbers
        .iter()
        .zip(ratings)
        .map(|(&n, r)| (f64::from(n), r.elo))
        .collect();
    chart.draw_series(LineSeries::new(points.clone(), blue.stroke_width(2)))?;
    chart.draw_series(numbers.iter().zip(ratings).map(|(&n, r)| {
        PathElement::new(
            vec![(f64::from(n), r.low), (f64::from(n), r.high)],
            blue.mix(0.5).stroke_width(2),
        )
    }))?;
    chart.draw_series(points.iter().map(|&p| Circle::new(p, 4, blue.filled())))?;
    root.present()?;
    Ok(())
}

/// One run's learning curve: ratings of its checkpoints against the minutes of training.
#[derive(Clone, Debug)]
pub struct Curve {
    /// The run's name, for the legend.
    pub label: String,
    /// (minutes, rating) of each rated checkpoint, in time order.
    pub points: Vec<(f64, EloEstimate)>,
}

/// How the time axis of a learning-curve picture is scaled.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TimeAxis {
    /// Minutes from 0 on a linear axis.
    #[default]
    Linear,
    /// Minutes on a logarithmic axis, so that a run of hours keeps its first minutes readable;
    /// the untrained network (0 minutes) stands at the axis's left end.
    Log,
}

/// Draws learning `curves` into the PNG file `path`: Elo against training minutes on `axis`,
/// one line per run with 95% intervals, and each `ladder` level (name, Elo) as a labelled
/// horizontal line.
pub fn learning_curves(
    path: &Path,
    curves: &[Curve],
    ladder: &[(String, f64)],
    axis: TimeAxis,
) -> Result<(), PlotError> {
    draw_learning_curves(path, curves, ladder, axis).map_err(plot_error(path))
}

fn draw_learning_curves(
    path: &Path,
    curves: &[Curve],
    ladder: &[(String, f64)],
    axis: TimeAxis,
) -> Result<(), Box<dyn std::error::Error>> {
    register_font();
    let root = BitMapBackend::new(path, (1000, 620)).into_drawing_area();
    root.fill(&WHITE)?;
    let minutes = || curves.iter().flat_map(|c| c.points.iter().map(|p| p.0));
    let last_minute = minutes().fold(1.0, f64::max);
    let (low, high) = padded_range(
        curves
            .iter()
            .flat_map(|c| c.points.iter().flat_map(|(_, r)| [r.low, r.high]))
            .chain(ladder.iter().map(|l| l.1)),
        100.0,
    );
    let frame = Frame {
        curves,
        ladder,
        low,
        high,
        last_minute,
    };
    match axis {
        TimeAxis::Linear => frame.draw(
            &root,
            RangedCoordf64::from(0.0..last_minute * 1.12),
            0.0,
            last_minute * 1.12,
            "training time (minutes, wall clock)",
        )?,
        TimeAxis::Log => {
            // Half the first rated minute (at most one) is the left end: 0 has no logarithm.
            let first = minutes().filter(|&m| m > 0.0).fold(f64::INFINITY, f64::min);
            let left = if first.is_finite() {
                (first / 2.0).min(1.0)
            } else {
                0.1
            };
            let right = last_minute * 1.5;
            frame.draw(
                &root,
                LogCoord::<f64>::from((left..right).log_scale()),
                left,
                right,
                "training time (minutes, wall clock, logarithmic; 0 drawn at the left end)",
            )?
        }
    }
    root.present()?;
    Ok(())
}

/// What a learning-curve picture shows, whichever the time axis.
struct Frame<'a> {
    curves: &'a [Curve],
    ladder: &'a [(String, f64)],
    low: f64,
    high: f64,
    last_minute: f64,
}

impl Frame<'_> {
    /// Draws onto `root` with the time axis `x`, which spans `left` to `right` minutes; points
    /// left of `left` are drawn at it.
    fn draw<X>(
        &self,
        root: &DrawingArea<BitMapBackend<'_>, Shift>,
        x: X,
        left: f64,
        right: f64,
        x_desc: &str,
    ) -> Result<(), Box<dyn std::error::Error>>
    where
        X: Ranged<ValueType = f64> + ValueFormatter<f64>,
    {
        let (low, high) = (self.low, self.high);
        let mut chart = ChartBuilder::on(root)
            .caption(
                "Strength against training time (alpha-beta ladder as reference)",
                ("sans-serif", 22),
            )
            .margin(15)
            .x_label_area_size(45)
            .y_label_area_size(65)
            .build_cartesian_2d(x, low..high)?;
        chart
            .configure_mesh()
            .x_desc(x_desc)
            .y_desc("Elo (alpha-beta depth 1 = 0)")
            .x_label_formatter(&|v| {
                format!("{v:.4}")
                    .trim_end_matches('0')
                    .trim_end_matches('.')
                    .to_string()
            })
            .y_label_formatter(&|v| format!("{v:.0}"))
            .label_style(("sans-serif", 15))
            .axis_desc_style(("sans-serif", 17))
            .draw()?;
        let grey = RGBColor(140, 140, 140);
        let label_at = self.last_minute * 1.005;
        for (name, elo) in self.ladder {
            chart.draw_series(DashedLineSeries::new(
                vec![(left, *elo), (right, *elo)],
                6,
                4,
                grey.stroke_width(1),
            ))?;
            chart.draw_series(std::iter::once(Text::new(
                name.clone(),
                (label_at, *elo + (high - low) * 0.01),
                ("sans-serif", 13).into_font().color(&grey),
            )))?;
        }
        for (i, curve) in self.curves.iter().enumerate() {
            let colour = line_colour(i);
            let at = |m: f64| m.max(left);
            let points: Vec<(f64, f64)> =
                curve.points.iter().map(|(m, r)| (at(*m), r.elo)).collect();
            chart
                .draw_series(LineSeries::new(points.clone(), colour.stroke_width(2)))?
                .label(curve.label.clone())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(2))
                });
            chart.draw_series(curve.points.iter().map(|(m, r)| {
                PathElement::new(
                    vec![(at(*m), r.low), (at(*m), r.high)],
                    colour.mix(0.4).stroke_width(2),
                )
            }))?;
            chart.draw_series(points.iter().map(|&p| Circle::new(p, 4, colour.filled())))?;
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .label_font(("sans-serif", 15))
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn estimate(elo: f64) -> EloEstimate {
        EloEstimate {
            elo,
            low: elo - 60.0,
            high: elo + 60.0,
        }
    }

    /// Both time axes draw a run of hours with its untrained point at 0 minutes; the pictures
    /// differ, and `DAMAS_KEEP_PLOTS=DIR` keeps them to be looked at.
    #[test]
    fn learning_curves_draw_on_both_time_axes() {
        let minutes = [0.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 240.0];
        let curve = Curve {
            label: "russian, 4 hours".into(),
            points: minutes
                .iter()
                .enumerate()
                .map(|(i, &m)| (m, estimate(-200.0 + 90.0 * i as f64)))
                .collect(),
        };
        let ladder: Vec<(String, f64)> = (1..=6)
            .map(|d| (format!("depth {d}"), 100.0 * f64::from(d - 1)))
            .collect();
        let dir = std::env::var_os("DAMAS_KEEP_PLOTS")
            .map(std::path::PathBuf::from)
            .unwrap_or_else(|| {
                std::env::temp_dir().join(format!("damas-plot-{}", std::process::id()))
            });
        std::fs::create_dir_all(&dir).unwrap();
        let mut pictures = Vec::new();
        for (axis, name) in [(TimeAxis::Linear, "linear.png"), (TimeAxis::Log, "log.png")] {
            let path = dir.join(name);
            learning_curves(&path, std::slice::from_ref(&curve), &ladder, axis).unwrap();
            let png = std::fs::read(&path).unwrap();
            assert_eq!(&png[1..4], b"PNG");
            pictures.push(png);
        }
        assert_ne!(pictures[0], pictures[1]);
        if std::env::var_os("DAMAS_KEEP_PLOTS").is_none() {
            let _ = std::fs::remove_dir_all(&dir);
        }
    }
}
