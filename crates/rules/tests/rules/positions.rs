//! The expected move lists of positions.json: short PDN, full path and Hub forms.

use crate::common::{moves_of, sorted};
use damas_rules::Variant;
use std::str::FromStr;

#[test]
fn expected_move_lists() {
    let json: serde_json::Value =
        serde_json::from_str(include_str!("../data/positions.json")).unwrap();
    let mut checked = 0;
    for entry in json["positions"].as_array().unwrap() {
        let name = entry["name"].as_str().unwrap();
        let Ok(variant) = Variant::from_str(entry["variant"].as_str().unwrap()) else {
            eprintln!("skipped (variant not supported yet): {name}");
            continue;
        };
        let fen = entry["fen"].as_str().unwrap();
        let moves = moves_of(variant, fen).unwrap_or_else(|e| panic!("{name}: {e}"));
        let strings = |key: &str| -> Option<Vec<String>> {
            entry[key]
                .as_array()
                .map(|a| sorted(a.iter().map(|m| m.as_str().unwrap().to_string())))
        };
        if let Some(expected) = strings("moves") {
            assert_eq!(
                sorted(moves.iter().map(|m| m.pdn.clone())),
                expected,
                "{name}: PDN"
            );
            checked += 1;
        }
        if let Some(expected) = strings("moves_full") {
            assert_eq!(
                sorted(moves.iter().map(|m| m.full.clone())),
                expected,
                "{name}: full path"
            );
        }
        if let Some(expected) = strings("hub") {
            assert_eq!(
                sorted(moves.iter().map(|m| m.hub.clone())),
                expected,
                "{name}: Hub"
            );
        }
        if let Some(count) = entry["count"].as_u64() {
            assert_eq!(moves.len() as u64, count, "{name}: count");
        }
    }
    assert!(checked >= 8, "only {checked} move lists checked");
}
