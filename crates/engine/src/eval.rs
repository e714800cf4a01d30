//! The hand-made evaluation: weights in a config struct, chosen per board family from the rule
//! flags (never from a variant's name), and precomputed square tables per geometry.

use damas_rules::{Bits, Color, Geometry, Position, Rules};

/// Evaluation weights, in hundredths of a man.
#[derive(Clone, Debug, PartialEq)]
pub struct Weights {
    /// A man.
    pub man: i32,
    /// A king that moves any distance (international, Russian, Spanish, ...).
    pub flying_king: i32,
    /// A king that steps one square (English, Italian).
    pub short_king: i32,
    /// Per row a man has advanced from its own back row (tempo).
    pub advance: i32,
    /// A man on one of the central squares.
    pub centre: i32,
    /// A man still guarding its own back row while the opponent has no king.
    pub back_rank: i32,
    /// A man whose way to promotion no opponent piece can block, per row already advanced.
    pub runaway: i32,
    /// Once material is unequal, this much per missing piece is added for the stronger side, so
    /// that it trades down and a won ending is actually won.
    pub trade_down: i32,
    /// Against a side left with kings only, per row or column the lone kings stand from the
    /// centre (driven to the edge) ...
    pub hunt_edge: i32,
    /// ... and per step the hunting kings are closer to them.
    pub hunt_near: i32,
}

impl Weights {
    /// The default weights for the family of variant `V` (board size and king range).
    pub fn for_rules<V: Rules>() -> Self {
        let large = V::Geometry::WIDTH >= 10;
        Weights {
            man: 100,
            flying_king: if large { 320 } else { 260 },
            short_king: 150,
            advance: if large { 3 } else { 4 },
            centre: 6,
            back_rank: 8,
            runaway: 12,
            trade_down: 6,
            hunt_edge: 8,
            hunt_near: 4,
        }
    }
}

/// Square tables of one geometry, computed once per searcher.
#[derive(Clone, Debug)]
pub struct Tables<G: Geometry> {
    /// Rows advanced from its own back row, per bit index and colour.
    advance: [[u8; 128]; 2],
    /// Per colour, the squares `k` rows from its own back row, for k = 0.. (one mask per row).
    rows_advanced: [Vec<G::Bits>; 2],
    /// Per colour, the squares in the half of the board nearer its promotion row.
    forward_half: [G::Bits; 2],
    /// Squares in the middle half of the board (rows and columns).
    centre: G::Bits,
    /// Each side's back row.
    back: [G::Bits; 2],
    /// For each bit and colour, the squares in front of a man there up to the promotion row
    /// (the cone any blocker must come from).
    cone: Vec<[G::Bits; 2]>,
}

impl<G: Geometry> Tables<G> {
    /// Builds the tables.
    pub fn new() -> Self {
        let mut advance = [[0u8; 128]; 2];
        let mut cone = vec![[G::Bits::EMPTY; 2]; 128];
        let mut centre = G::Bits::EMPTY;
        let height = G::HEIGHT;
        for square in 0..G::SQUARES {
            let bit = G::bit(square);
            let row = G::row(square);
            let column = G::column(square);
            advance[0][bit as usize] = (height - 1 - row) as u8;
            advance[1][bit as usize] = row as u8;
            let middle = |x: u32, n: u32| x >= n / 4 && x < n - n / 4;
            if middle(row, height) && middle(column, G::WIDTH) {
                centre |= G::Bits::single(bit);
            }
            for other in 0..G::SQUARES {
                let (r, c) = (G::row(other), G::column(other));
                let spread = c.abs_diff(column);
                // White's cone: rows above, widening by one column per row.
                if r < row && spread <= row - r {
                    cone[bit as usize][0] |= G::Bits::single(G::bit(other));
                }
                if r > row && spread <= r - row {
                    cone[bit as usize][1] |= G::Bits::single(G::bit(other));
                }
            }
        }
        let mut rows_advanced = [
            vec![G::Bits::EMPTY; height as usize],
            vec![G::Bits::EMPTY; height as usize],
        ];
        let mut forward_half = [G::Bits::EMPTY; 2];
        for square in 0..G::SQUARES {
            let bit = G::bit(square);
            for side in 0..2 {
                let advanced = advance[side][bit as usize] as usize;
                rows_advanced[side][advanced] |= G::Bits::single(bit);
                if advanced >= height as usize / 2 {
                    forward_half[side] |= G::Bits::single(bit);
                }
            }
        }
        Tables {
            advance,
            rows_advanced,
            forward_half,
            centre,
            back: [G::BOTTOM_ROW, G::TOP_ROW],
            cone,
        }
    }
}

impl<G: Geometry> Default for Tables<G> {
    fn default() -> Self {
        Self::new()
    }
}

/// The static score of `position` for the side to move (positive: better for it).
pub fn evaluate<V: Rules>(
    position: &Position<V::Geometry>,
    weights: &Weights,
    tables: &Tables<V::Geometry>,
) -> i32 {
    let us = position.turn();
    let (ours, theirs) = (
        material::<V>(position, us, weights),
        material::<V>(position, !us, weights),
    );
    let placement = placement_score::<V>(position, us, weights, tables)
        - placement_score::<V>(position, !us, weights, tables);
    // Trading down when ahead: the fewer pieces left, the more the lead is worth.
    let pieces = (position.pieces(us).count() + position.pieces(!us).count()) as i32;
    let full = 2 * V::INITIAL_ROWS as i32 * V::Geometry::PER_ROW as i32;
    let lead = (ours - theirs).signum() * weights.trade_down * (full - pieces).max(0);
    let hunting = if ours > theirs {
        hunt::<V>(position, us, weights)
    } else if theirs > ours {
        -hunt::<V>(position, !us, weights)
    } else {
        0
    };
    let total = ours - theirs + placement + lead + hunting;
    if V::LOSING { -total } else { total }
}

/// The bonus of `hunter`, which has more material, for chasing an opponent left with at most two
/// kings and no men with kings of its own: drive them to the edge, and come close.
fn hunt<V: Rules>(position: &Position<V::Geometry>, hunter: Color, weights: &Weights) -> i32 {
    let prey = !hunter;
    let (hunters, prey_kings) = (position.kings(hunter), position.kings(prey));
    let prey_count = position.pieces(prey).count();
    if hunters.is_empty() || prey_count > 2 || position.men(prey).count() > 0 {
        return 0;
    }
    let place = |bit: u32| {
        let square = V::Geometry::square(bit);
        (
            V::Geometry::row(square) as i32,
            V::Geometry::column(square) as i32,
        )
    };
    let (height, width) = (V::Geometry::HEIGHT as i32, V::Geometry::WIDTH as i32);
    let mut bonus = 0;
    for target in prey_kings.iter() {
        let (row, column) = place(target);
        // Twice the distance from the centre lines, so both board parities count alike.
        let edge = (2 * row - (height - 1))
            .abs()
            .max((2 * column - (width - 1)).abs());
        bonus += weights.hunt_edge * edge / 2;
        for king in hunters.iter() {
            let (r, c) = place(king);
            let distance = (r - row).abs().max((c - column).abs());
            bonus -= weights.hunt_near * distance;
        }
    }
    bonus
}

fn material<V: Rules>(position: &Position<V::Geometry>, color: Color, weights: &Weights) -> i32 {
    let king = if V::FLYING_KINGS {
        weights.flying_king
    } else {
        weights.short_king
    };
    position.men(color).count() as i32 * weights.man + position.kings(color).count() as i32 * king
}

/// Everything but material: advancement, runaways, centre, back rank.
fn placement_score<V: Rules>(
    position: &Position<V::Geometry>,
    color: Color,
    weights: &Weights,
    tables: &Tables<V::Geometry>,
) -> i32 {
    let men = position.men(color);
    let side = color.index();
    let mut score = 0;
    let blockers = position.occupied();
    let opponent_kings = position.kings(!color);
    for (rows, &mask) in tables.rows_advanced[side].iter().enumerate() {
        score += weights.advance * rows as i32 * (men & mask).count() as i32;
    }
    // Only men in the forward half can have a free path worth counting, and only while the
    // opponent has no king to stop them.
    if opponent_kings.is_empty() {
        for bit in (men & tables.forward_half[side]).iter() {
            if (tables.cone[bit as usize][side] & blockers).is_empty() {
                let advanced = tables.advance[side][bit as usize] as i32;
                score += weights.runaway * (advanced + 1);
            }
        }
    }
    score += weights.centre * (men & tables.centre).count() as i32;
    if opponent_kings.is_empty() {
        score += weights.back_rank * (men & tables.back[side]).count() as i32;
    }
    score
}
