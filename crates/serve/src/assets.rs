//! The page's files, built into the binary: nothing is loaded from outside the machine.

/// The page.
pub const INDEX: &str = include_str!("../assets/index.html");
/// Its script: the views, the board drawn in SVG from the API's geometry, the curve.
pub const SCRIPT: &str = include_str!("../assets/app.js");
/// Its style sheet.
pub const STYLE: &str = include_str!("../assets/style.css");
