//! A PNG of rating against checkpoint number: one dot per checkpoint with its 95% interval as
//! a vertical bar, joined by a line, on a light grid (one line per 100 Elo). No text is drawn
//! (no font is needed); the numbers are in ratings.csv beside it.

use crate::elo::EloEstimate;
use plotters::prelude::*;
use std::path::Path;

/// Why a picture could not be drawn.
#[derive(Debug, thiserror::Error)]
#[error("cannot draw {path}: {message}")]
pub struct PlotError {
    /// The file.
    pub path: std::path::PathBuf,
    /// The drawing library's message.
    pub message: String,
}

/// Draws `ratings` of checkpoints `numbers` into the PNG file `path`.
pub fn ratings(path: &Path, numbers: &[u32], ratings: &[EloEstimate]) -> Result<(), PlotError> {
    draw_ratings(path, numbers, ratings).map_err(|e| PlotError {
        path: path.to_path_buf(),
        message: e.to_string(),
    })
}

fn draw_ratings(
    path: &Path,
    numbers: &[u32],
    ratings: &[EloEstimate],
) -> Result<(), Box<dyn std::error::Error>> {
    let (width, height) = (800i32, 500i32);
    let margin = 40;
    let root = BitMapBackend::new(path, (width as u32, height as u32)).into_drawing_area();
    root.fill(&WHITE)?;
    let low = ratings
        .iter()
        .map(|r| r.low)
        .fold(f64::INFINITY, f64::min)
        .min(0.0);
    let high = ratings
        .iter()
        .map(|r| r.high)
        .fold(f64::NEG_INFINITY, f64::max)
        .max(0.0);
    let span = (high - low).max(1.0);
    let first = f64::from(*numbers.first().unwrap_or(&0));
    let last = f64::from(*numbers.last().unwrap_or(&1)).max(first + 1.0);
    let x = |n: u32| {
        margin + ((f64::from(n) - first) / (last - first) * f64::from(width - 2 * margin)) as i32
    };
    let y =
        |elo: f64| height - margin - ((elo - low) / span * f64::from(height - 2 * margin)) as i32;
    let grid = RGBColor(225, 225, 225);
    let mut level = (low / 100.0).ceil() * 100.0;
    while level <= high {
        let style = if level == 0.0 {
            BLACK.stroke_width(1)
        } else {
            grid.stroke_width(1)
        };
        root.draw(&PathElement::new(
            vec![(margin, y(level)), (width - margin, y(level))],
            style,
        ))?;
        level += 100.0;
    }
    let blue = RGBColor(30, 90, 200);
    let points: Vec<(i32, i32)> = numbers
        .iter()
        .zip(ratings)
        .map(|(&n, r)| (x(n), y(r.elo)))
        .collect();
    root.draw(&PathElement::new(points.clone(), blue.stroke_width(2)))?;
    for ((&n, r), &point) in numbers.iter().zip(ratings).zip(&points) {
        root.draw(&PathElement::new(
            vec![(x(n), y(r.low)), (x(n), y(r.high))],
            blue.mix(0.5).stroke_width(2),
        ))?;
        root.draw(&Circle::new(point, 4, blue.filled()))?;
    }
    root.present()?;
    Ok(())
}
