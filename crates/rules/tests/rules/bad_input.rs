//! Bad input gets a precise error naming what is wrong.

use damas_rules::variants::{International, Russian};
use damas_rules::{
    ParseFenError, ParseMoveError, Position, Variant, parse_fen, parse_hub, parse_move,
};

fn fen_error(fen: &str) -> ParseFenError {
    parse_fen::<International>(fen).expect_err(fen)
}

#[test]
fn malformed_fens_are_named() {
    assert_eq!(fen_error(""), ParseFenError::Empty);
    assert_eq!(fen_error("X:W31:B1"), ParseFenError::Turn("X".into()));
    assert_eq!(fen_error("W:Q31:B1"), ParseFenError::Field("Q31".into()));
    assert!(
        matches!(fen_error("W:W31,abc:B1"), ParseFenError::Entry { entry, .. } if entry == "abc")
    );
    assert!(matches!(fen_error("W:W51:B1"), ParseFenError::Entry { entry, .. } if entry == "51"));
    assert!(
        matches!(fen_error("W:W40-31:B1"), ParseFenError::Entry { reason, .. } if reason.contains("backwards"))
    );
    assert!(
        matches!(fen_error("W:W45-55:B1"), ParseFenError::Entry { reason, .. } if reason.contains("51"))
    );
    let message = fen_error("W:W31,x:B1").to_string();
    assert!(
        message.contains("`x`") && message.contains("white"),
        "{message}"
    );
}

#[test]
fn impossible_positions_are_refused() {
    assert_eq!(
        fen_error("W:W31,31:B1"),
        ParseFenError::Overlap("31".into())
    );
    assert_eq!(fen_error("W:W31:B31"), ParseFenError::Overlap("31".into()));
    assert!(
        matches!(fen_error("W:W3:B40"), ParseFenError::ManOnPromotionRow(damas_rules::Color::White, s) if s == "3")
    );
    assert!(
        matches!(fen_error("W:W31:B48"), ParseFenError::ManOnPromotionRow(damas_rules::Color::Black, s) if s == "48")
    );
    assert!(matches!(
        fen_error("W:W6-26:B1"),
        ParseFenError::TooManyPieces {
            count: 21,
            max: 20,
            ..
        }
    ));
    // Algebraic boards name the square the same way.
    let err = parse_fen::<Russian>("W:Wa1,b2:Bb1").expect_err("b1 is a light square");
    assert_eq!(
        err.to_string(),
        "bad entry `b1` in the black piece list: `b1` is not a playable square of this board"
    );
}

#[test]
fn bad_hub_positions_are_named() {
    let short = parse_hub::<International>("Wbbb");
    assert!(matches!(
        short,
        Err(ParseFenError::HubLength {
            squares: 50,
            found: 4,
            ..
        })
    ));
    let mut text = String::from("W");
    text.push_str(&"e".repeat(49));
    text.push('q');
    assert_eq!(
        parse_hub::<International>(&text),
        Err(ParseFenError::HubChar('q', 50))
    );
}

#[test]
fn unknown_variants_list_the_known_ones() {
    let err = "checkerz".parse::<Variant>().unwrap_err();
    assert!(err.to_string().contains("checkerz") && err.to_string().contains("international"));
    assert_eq!("Normal".parse::<Variant>(), Ok(Variant::International));
}

#[test]
fn illegal_and_malformed_moves_are_named() {
    let start = Position::initial::<International>();
    assert!(matches!(
        parse_move::<International>(&start, "31-22"),
        Err(ParseMoveError::Illegal { .. })
    ));
    let err = parse_move::<International>(&start, "31-22")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("31-26"),
        "the error lists the legal moves: {err}"
    );
    assert!(matches!(
        parse_move::<International>(&start, "31"),
        Err(ParseMoveError::Syntax { .. })
    ));
    assert!(matches!(
        parse_move::<International>(&start, "31-99"),
        Err(ParseMoveError::Syntax { .. })
    ));
    assert!(matches!(
        parse_move::<International>(&start, "e2-e4"),
        Err(ParseMoveError::Syntax { .. } | ParseMoveError::Illegal { .. })
    ));
    assert!(parse_move::<International>(&start, "32-28").is_ok());
}
