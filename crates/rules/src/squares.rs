//! The square sets a rule set implies (start position, promotion squares, last rows, opening
//! removals), computed when a variant is compiled so that move generation reads them as constants.

use crate::geometry::{Geometry, algebraic_set, bit_at, turned_wide};
use crate::variant::{Promotion, Removal, Rules, Start};

/// The start position of a variant as 128-bit sets, White's first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StartSets {
    /// Every piece of each side.
    pub pieces: [u128; 2],
    /// The parachutists among them.
    pub parachutists: [u128; 2],
}

/// The start position of `V`, computed when the variant is compiled (a bad diagram fails to
/// compile).
pub const fn start_sets<V: Rules>() -> StartSets {
    type G<V> = <V as Rules>::Geometry;
    let mut sets = StartSets {
        pieces: [0; 2],
        parachutists: [0; 2],
    };
    match V::RULES.start {
        Start::Rows {
            rows,
            empty_back_rows,
        } => {
            let mut row = 0;
            while row < G::<V>::HEIGHT {
                let mut column = 0;
                while column < G::<V>::WIDTH {
                    if let Some(bit) = bit_at::<G<V>>(row, column) {
                        let from_bottom = G::<V>::HEIGHT - 1 - row;
                        if from_bottom >= empty_back_rows && from_bottom < empty_back_rows + rows {
                            sets.pieces[0] |= 1 << bit;
                        }
                        if row >= empty_back_rows && row < empty_back_rows + rows {
                            sets.pieces[1] |= 1 << bit;
                        }
                    }
                    column += 1;
                }
                row += 1;
            }
        }
        Start::Diagram(diagram) => {
            let bytes = diagram.as_bytes();
            let (mut row, mut shown, mut i) = (0, 0, 0);
            while i < bytes.len() {
                let c = bytes[i];
                i += 1;
                if c == b' ' {
                    continue;
                }
                if c == b'\n' {
                    if shown > 0 {
                        assert!(shown == G::<V>::WIDTH, "a diagram row has the wrong length");
                        row += 1;
                        shown = 0;
                    }
                    continue;
                }
                assert!(row < G::<V>::HEIGHT, "a diagram has too many rows");
                let column = if V::RULES.mirrored {
                    G::<V>::WIDTH - 1 - shown
                } else {
                    shown
                };
                shown += 1;
                let bit = match bit_at::<G<V>>(row, column) {
                    Some(bit) => {
                        assert!(c != b'-', "`-` on a square in play");
                        bit
                    }
                    None => {
                        assert!(c == b'-', "a piece or `.` on a square not in play");
                        continue;
                    }
                };
                let (side, parachutist) = match c {
                    b'w' => (0, false),
                    b'b' => (1, false),
                    b'p' => (0, true),
                    b'q' => (1, true),
                    b'.' => continue,
                    _ => panic!("a diagram square is one of w b p q . -"),
                };
                sets.pieces[side] |= 1 << bit;
                if parachutist {
                    sets.parachutists[side] |= 1 << bit;
                }
            }
            assert!(
                row + (shown > 0) as u32 == G::<V>::HEIGHT,
                "a diagram has the wrong number of rows"
            );
        }
    }
    // Parachutists are the uncrowned pieces on their owner's promotion squares.
    let promotion = promotion_sets::<V>();
    let mut side = 0;
    while side < 2 {
        let on_promotion = sets.pieces[side] & promotion[side];
        assert!(
            on_promotion == sets.parachutists[side]
                && (V::RULES.parachutists.is_some() || sets.parachutists[side] == 0),
            "parachutists must stand on exactly their owner's promotion squares, and no man there"
        );
        side += 1;
    }
    sets
}

/// The promotion squares of White and Black under `V`'s rules, as 128-bit sets.
pub const fn promotion_sets<V: Rules>() -> [u128; 2] {
    type G<V> = <V as Rules>::Geometry;
    let top = top_row::<G<V>>();
    let white = match V::RULES.promotion {
        Promotion::LastRow => top,
        Promotion::Squares(names) => algebraic_set::<G<V>>(names, V::RULES.mirrored),
        Promotion::Never => 0,
    };
    let black = if V::RULES.one_way {
        white
    } else {
        turned_wide::<G<V>>(white)
    };
    [white, black]
}

/// The squares of each side's last row (the row its men move towards), as 128-bit sets.
pub const fn last_row_sets<V: Rules>() -> [u128; 2] {
    type G<V> = <V as Rules>::Geometry;
    let top = top_row::<G<V>>();
    [
        top,
        if V::RULES.one_way {
            top
        } else {
            turned_wide::<G<V>>(top)
        },
    ]
}

/// The top row of `G`, as 128 bits.
const fn top_row<G: Geometry>() -> u128 {
    let mut set = 0u128;
    let mut column = 0;
    while column < G::WIDTH {
        if let Some(bit) = bit_at::<G>(0, column) {
            set |= 1 << bit;
        }
        column += 1;
    }
    set
}

/// Most removals an opening may have.
pub const MAX_OPENING: usize = 4;

/// The squares of each removal of the opening that names them ([`Removal::OnSquares`]; 0 for the
/// others), as 128-bit sets.
pub const fn removal_sets<V: Rules>() -> [u128; MAX_OPENING] {
    let opening = V::RULES.opening;
    assert!(
        opening.len() <= MAX_OPENING,
        "too many removals in the opening"
    );
    let mut sets = [0u128; MAX_OPENING];
    let mut step = 0;
    while step < opening.len() {
        if let Removal::OnSquares(names) = opening[step] {
            sets[step] = algebraic_set::<<V as Rules>::Geometry>(names, V::RULES.mirrored);
        }
        step += 1;
    }
    sets
}
