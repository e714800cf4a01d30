//! Legal move generation, generic over the variant so that its rule flags fold away.
//!
//! Quiet moves of men are generated a direction at a time with shifts; captures by a depth-first
//! search over each piece's jump sequences, in which captured pieces stay on the board (they block
//! and cannot be jumped twice) until the move ends. Every finished sequence is handed to a
//! [`CaptureSink`] together with its precedence key, so that move generation, path recovery and the
//! "keep" perft convention share one search.

use crate::bitboard::Bits;
use crate::color::Color;
use crate::geometry::{Direction, Geometry};
use crate::moves::{Move, MoveList};
use crate::position::Position;
use crate::variant::{Precedence, Rules};

/// Most pieces one capture sequence can take (every opponent piece on the largest board).
pub(crate) const MAX_CAPTURES: usize = 32;

/// The directions in which men of `color` move.
#[inline]
pub(crate) fn forward(color: Color) -> [Direction; 2] {
    match color {
        Color::White => [Direction::UpLeft, Direction::UpRight],
        Color::Black => [Direction::DownLeft, Direction::DownRight],
    }
}

/// The row on which men of `color` promote.
#[inline]
pub(crate) fn promotion_row<G: Geometry>(color: Color) -> G::Bits {
    match color {
        Color::White => G::TOP_ROW,
        Color::Black => G::BOTTOM_ROW,
    }
}

/// Whether `bit` (possibly negative or past the layout) is a member of `set`.
#[inline]
fn member<B: Bits>(set: B, bit: i32) -> bool {
    (bit as u32) < B::WIDTH && set.has(bit as u32)
}

/// A finished capture sequence.
pub(crate) struct Sequence<'a, B> {
    /// Bit index of the start square.
    pub from: u32,
    /// Bit index of the final landing square.
    pub to: u32,
    /// The captured pieces.
    pub captured: B,
    /// Whether the piece ends as a king having started as a man.
    pub promotes: bool,
    /// The captured pieces' bit indices in the order they were jumped.
    pub order: &'a [u8],
    /// Every landing square's bit index, the last one included.
    pub path: &'a [u8],
}

/// Receives the capture sequences of a position with their precedence keys (higher wins).
pub(crate) trait CaptureSink<B> {
    /// One finished sequence.
    fn sequence(&mut self, sequence: &Sequence<'_, B>, key: u64);
}

/// The precedence key of a sequence: legal captures are those with the highest key.
#[inline]
fn precedence_key<V: Rules>(
    captured: <V::Geometry as Geometry>::Bits,
    order: &[u8],
    kings: <V::Geometry as Geometry>::Bits,
    by_king: bool,
) -> u64 {
    match V::PRECEDENCE {
        Precedence::Free => 0,
        Precedence::KingFirst => by_king as u64,
        Precedence::Quantity => captured.count() as u64,
        Precedence::QuantityThenKings => {
            ((captured.count() as u64) << 8) | (captured & kings).count() as u64
        }
        Precedence::Italian => {
            // Kings met earlier weigh more: the i-th capture sets bit 31 - i when it takes a king.
            let mut earliest = 0u64;
            for (i, &bit) in order.iter().enumerate().take(32) {
                if kings.has(bit as u32) {
                    earliest |= 1 << (31 - i);
                }
            }
            ((captured.count() as u64) << 40)
                | ((by_king as u64) << 39)
                | (((captured & kings).count() as u64) << 32)
                | earliest
        }
    }
}

/// The state of the depth-first capture search for one side.
struct CaptureSearch<'s, V: Rules, S> {
    targets: <V::Geometry as Geometry>::Bits,
    man_targets: <V::Geometry as Geometry>::Bits,
    kings: <V::Geometry as Geometry>::Bits,
    empty: <V::Geometry as Geometry>::Bits,
    promotion: <V::Geometry as Geometry>::Bits,
    man_directions: [Direction; 4],
    man_direction_count: usize,
    from: u32,
    by_king: bool,
    captured: <V::Geometry as Geometry>::Bits,
    order: [u8; MAX_CAPTURES],
    path: [u8; MAX_CAPTURES],
    depth: usize,
    sink: &'s mut S,
}

impl<'s, V: Rules, S: CaptureSink<<V::Geometry as Geometry>::Bits>> CaptureSearch<'s, V, S> {
    fn new(position: &Position<V::Geometry>, sink: &'s mut S) -> Self {
        let us = position.turn();
        let them = !us;
        let [a, b] = forward(us);
        let [c, d] = forward(them);
        let targets = position.pieces(them);
        let kings = position.kings(them);
        CaptureSearch {
            targets,
            man_targets: if V::MEN_CAPTURE_KINGS {
                targets
            } else {
                targets & !kings
            },
            kings,
            empty: position.empty_squares(),
            promotion: promotion_row::<V::Geometry>(us),
            man_directions: [a, b, c, d],
            man_direction_count: if V::MEN_CAPTURE_BACKWARD { 4 } else { 2 },
            from: 0,
            by_king: false,
            captured: Bits::EMPTY,
            order: [0; MAX_CAPTURES],
            path: [0; MAX_CAPTURES],
            depth: 0,
            sink,
        }
    }

    /// Searches every sequence of the piece on `from`.
    fn start(&mut self, from: u32, king: bool) {
        let bit = <V::Geometry as Geometry>::Bits::single(from);
        self.from = from;
        self.by_king = king;
        self.empty |= bit;
        self.extend(from, king);
        self.empty &= !bit;
    }

    /// The directions a piece may capture in.
    #[inline]
    fn directions(&self, king: bool) -> &[Direction] {
        if king {
            &Direction::ALL
        } else {
            &self.man_directions[..self.man_direction_count]
        }
    }

    /// The square of the piece a capture from `at` towards `direction` would jump, if one can.
    #[inline]
    fn jump(&self, at: u32, king: bool, direction: Direction) -> Option<i32> {
        let step = V::Geometry::step(direction);
        let mut over = at as i32 + step;
        if king && V::FLYING_KINGS {
            while member(self.empty, over) {
                over += step;
            }
        }
        let targets = if king { self.targets } else { self.man_targets };
        (member(targets, over) && !member(self.captured, over) && member(self.empty, over + step))
            .then_some(over)
    }

    /// Whether the piece could go on capturing from `at`.
    fn can_continue(&self, at: u32, king: bool) -> bool {
        self.directions(king)
            .iter()
            .any(|&direction| self.jump(at, king, direction).is_some())
    }

    /// Extends the sequence whose piece stands on `at`; finishes it there if it cannot go on.
    fn extend(&mut self, at: u32, king: bool) {
        let mut extended = false;
        let directions = if king {
            Direction::ALL
        } else {
            self.man_directions
        };
        let count = if king { 4 } else { self.man_direction_count };
        for &direction in &directions[..count] {
            let Some(over) = self.jump(at, king, direction) else {
                continue;
            };
            extended = true;
            let step = V::Geometry::step(direction);
            let over_bit = <V::Geometry as Geometry>::Bits::single(over as u32);
            self.captured |= over_bit;
            self.order[self.depth] = over as u8;
            self.depth += 1;
            let first_landing = over + step;
            if king && V::FLYING_KINGS && !V::KING_STOPS_BEHIND {
                // A flying king may stop on any free square past the piece, but must stop on one
                // from which it can go on capturing if there is such a square.
                let mut landing = first_landing;
                let mut any_continues = false;
                while member(self.empty, landing) {
                    if self.can_continue(landing as u32, true) {
                        any_continues = true;
                        self.land(landing as u32, true);
                    }
                    landing += step;
                }
                if !any_continues {
                    let mut landing = first_landing;
                    while member(self.empty, landing) {
                        self.path[self.depth - 1] = landing as u8;
                        self.finish(landing as u32, true);
                        landing += step;
                    }
                }
            } else {
                let crowned =
                    !king && V::PROMOTE_MID_CAPTURE && member(self.promotion, first_landing);
                self.land(first_landing as u32, king || crowned);
            }
            self.depth -= 1;
            self.captured ^= over_bit;
        }
        if !extended && self.depth > 0 {
            self.finish(at, king);
        }
    }

    #[inline]
    fn land(&mut self, at: u32, king: bool) {
        self.path[self.depth - 1] = at as u8;
        self.extend(at, king);
    }

    fn finish(&mut self, at: u32, king: bool) {
        let promotes = !self.by_king && (king || self.promotion.has(at));
        let order = &self.order[..self.depth];
        let key = precedence_key::<V>(self.captured, order, self.kings, self.by_king);
        self.sink.sequence(
            &Sequence {
                from: self.from,
                to: at,
                captured: self.captured,
                promotes,
                order,
                path: &self.path[..self.depth],
            },
            key,
        );
    }
}

/// Runs the capture search for every piece of the side to move (only `only_from` if given).
pub(crate) fn search_captures<V: Rules, S: CaptureSink<<V::Geometry as Geometry>::Bits>>(
    position: &Position<V::Geometry>,
    only_from: Option<u32>,
    sink: &mut S,
) {
    type B<V> = <<V as Rules>::Geometry as Geometry>::Bits;
    let us = position.turn();
    let mut search = CaptureSearch::<V, S>::new(position, sink);
    let men = position.men(us);
    // Men with a capturable piece next to them and a free square behind it.
    let mut candidates = B::<V>::EMPTY;
    for &direction in search.directions(false) {
        let step = V::Geometry::step(direction);
        candidates |= (search.empty.shift(-step) & search.man_targets).shift(-step) & men;
    }
    let kings = position.kings(us);
    let restrict = |set: B<V>| match only_from {
        Some(bit) => set & B::<V>::single(bit),
        None => set,
    };
    for from in restrict(candidates).iter() {
        search.start(from, false);
    }
    for from in restrict(kings).iter() {
        search.start(from, true);
    }
}

/// Keeps the best-keyed captures, one per (from, to, captured set, promotion).
struct UniqueCaptures<'a, G: Geometry> {
    list: &'a mut MoveList<G>,
    best: u64,
}

impl<G: Geometry> CaptureSink<G::Bits> for UniqueCaptures<'_, G> {
    #[inline]
    fn sequence(&mut self, s: &Sequence<'_, G::Bits>, key: u64) {
        if key < self.best {
            return;
        }
        if key > self.best {
            self.list.clear();
            self.best = key;
        }
        let mv = Move::new(s.from, s.to, s.captured, s.promotes);
        if !self.list.contains(&mv) {
            self.list.push(mv);
        }
    }
}

/// Fills `list` with the captures allowed by the precedence rule; empty if there are none.
pub fn captures<V: Rules>(position: &Position<V::Geometry>, list: &mut MoveList<V::Geometry>) {
    list.clear();
    let mut sink = UniqueCaptures { list, best: 0 };
    search_captures::<V, _>(position, None, &mut sink);
}

/// Appends the non-capturing moves to `list`.
pub fn quiet_moves<V: Rules>(position: &Position<V::Geometry>, list: &mut MoveList<V::Geometry>) {
    let us = position.turn();
    let empty = position.empty_squares();
    let promotion = promotion_row::<V::Geometry>(us);
    let men = position.men(us);
    for direction in forward(us) {
        let step = V::Geometry::step(direction);
        for to in (men.shift(step) & empty).iter() {
            let from = (to as i32 - step) as u32;
            list.push(Move::new(from, to, Bits::EMPTY, promotion.has(to)));
        }
    }
    for from in position.kings(us).iter() {
        for direction in Direction::ALL {
            let step = V::Geometry::step(direction);
            let mut to = from as i32 + step;
            while member(empty, to) {
                list.push(Move::new(from, to as u32, Bits::EMPTY, false));
                if !V::FLYING_KINGS {
                    break;
                }
                to += step;
            }
        }
    }
}

/// Fills `list` with every legal move: the allowed captures if there are any, else the quiet moves.
pub fn legal_moves<V: Rules>(position: &Position<V::Geometry>, list: &mut MoveList<V::Geometry>) {
    captures::<V>(position, list);
    if list.is_empty() {
        quiet_moves::<V>(position, list);
    }
}

/// Number of quiet moves, counted without listing them.
pub fn count_quiet_moves<V: Rules>(position: &Position<V::Geometry>) -> u64 {
    let us = position.turn();
    let empty = position.empty_squares();
    let men = position.men(us);
    let mut count = 0;
    for direction in forward(us) {
        count += (men.shift(V::Geometry::step(direction)) & empty).count() as u64;
    }
    for from in position.kings(us).iter() {
        for direction in Direction::ALL {
            let step = V::Geometry::step(direction);
            let mut to = from as i32 + step;
            while member(empty, to) {
                count += 1;
                if !V::FLYING_KINGS {
                    break;
                }
                to += step;
            }
        }
    }
    count
}

/// Number of legal moves.
pub fn count_legal_moves<V: Rules>(position: &Position<V::Geometry>) -> u64 {
    let mut list = MoveList::new();
    captures::<V>(position, &mut list);
    if list.is_empty() {
        count_quiet_moves::<V>(position)
    } else {
        list.len() as u64
    }
}
