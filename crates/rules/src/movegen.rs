//! Legal move generation, generic over the variant so that its rule flags fold away.
//!
//! Quiet moves of men are generated a direction at a time with shifts (Dameo's linear moves by
//! walking each line); captures by a depth-first search over each piece's jump sequences, in which
//! captured pieces stay on the board (they block and cannot be jumped twice) until the move ends,
//! unless the variant removes them at once. Every finished sequence is handed to a [`CaptureSink`]
//! together with its precedence key, so that move generation, path recovery and the "keep" perft
//! convention share one search. An opening of removals (Konane) comes before all of it: while it
//! lasts, its removals are the only moves, and they count as quiet moves.

use crate::bitboard::Bits;
use crate::color::Color;
use crate::geometry::{Direction, Geometry, blocked_wide};
use crate::moves::{Move, MoveList};
use crate::position::{Kind, Position};
use crate::squares::{last_row_sets, promotion_sets, removal_sets};
use crate::variant::{Precedence, Removal, Rules, Turns};

/// Most pieces one capture sequence can take (every opponent piece on the largest board).
pub(crate) const MAX_CAPTURES: usize = 32;

/// The squares on which men of `color` promote.
#[inline]
pub fn promotion_squares<V: Rules>(color: Color) -> <V::Geometry as Geometry>::Bits {
    let sets = const { promotion_sets::<V>() };
    Bits::from_wide(sets[color.index()])
}

/// The row the men of `color` move towards.
#[inline]
fn last_row<V: Rules>(color: Color) -> <V::Geometry as Geometry>::Bits {
    let sets = const { last_row_sets::<V>() };
    Bits::from_wide(sets[color.index()])
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
        Precedence::Frisian => {
            // dctl frisian.hpp: value (pieces + kings) * 64 - kings, so a king is worth a little
            // less than two men; equal values prefer a capture made by a king.
            let pieces = captured.count() as u64;
            let taken_kings = (captured & kings).count() as u64;
            (((pieces + taken_kings) * 64 - taken_kings) << 1) | by_king as u64
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

/// Whether `directions` need a guard against leaving from some square (see [`blocked_wide`]).
const fn any_blocked<G: Geometry>(directions: &[Direction]) -> bool {
    let mut i = 0;
    while i < directions.len() {
        if blocked_wide::<G>(directions[i]) != 0 {
            return true;
        }
        i += 1;
    }
    false
}

/// Whether any of the variant's capture directions needs the guard: rows on a diagonal board,
/// diagonals on a board of lines. Elsewhere a step off the board lands on a ghost bit by itself.
const fn needs_guard<V: Rules>() -> bool {
    type G<V> = <V as Rules>::Geometry;
    any_blocked::<G<V>>(V::MAN_CAPTURES)
        || any_blocked::<G<V>>(V::MAN_LATER_CAPTURES)
        || any_blocked::<G<V>>(V::KING_CAPTURES)
        || any_blocked::<G<V>>(V::PARACHUTIST_CAPTURES)
}

/// Whether two direction lists are the same.
const fn same_directions(a: &[Direction], b: &[Direction]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] as u8 != b[i] as u8 {
            return false;
        }
        i += 1;
    }
    true
}

/// One direction, oriented for the side to move, with its bit shift and the squares it cannot
/// leave from (as 128 bits whatever the board, so that tables are plain constants).
#[derive(Clone, Copy)]
struct Ray {
    direction: Direction,
    step: i32,
    blocked: u128,
}

/// Up to eight rays.
#[derive(Clone, Copy)]
struct Rays {
    list: [Ray; 8],
    len: usize,
}

impl Rays {
    /// The rays of `directions`, flipped for Black (`flip`); evaluated at compile time.
    const fn build<G: Geometry>(directions: &[Direction], flip: bool) -> Self {
        let blank = Ray {
            direction: Direction::Up,
            step: 0,
            blocked: 0,
        };
        let mut list = [blank; 8];
        let mut i = 0;
        while i < directions.len() {
            let direction = if flip {
                directions[i].flipped()
            } else {
                directions[i]
            };
            list[i] = Ray {
                direction,
                step: crate::geometry::step_on(G::WIDTH, G::DARK_ONLY, direction),
                blocked: blocked_wide::<G>(direction),
            };
            i += 1;
        }
        Rays {
            list,
            len: directions.len(),
        }
    }

    #[inline]
    fn as_slice(&self) -> &[Ray] {
        &self.list[..self.len]
    }
}

/// The bit one step from `bit` along `ray` (off the board: a non-square bit or negative).
#[inline(always)]
fn advance<V: Rules>(bit: i32, ray: &Ray) -> i32 {
    if const { needs_guard::<V>() } && member(ray.blocked, bit) {
        -1
    } else {
        bit + ray.step
    }
}

/// The rays of `directions` for the side to move: Black's are flipped, unless the game is
/// one-way.
macro_rules! rays_for {
    ($V:ty, $us:expr, $directions:expr) => {
        match $us {
            Color::Black if !<$V as Rules>::ONE_WAY => {
                const { &Rays::build::<<$V as Rules>::Geometry>($directions, true) }
            }
            _ => const { &Rays::build::<<$V as Rules>::Geometry>($directions, false) },
        }
    };
}

/// The state of the depth-first capture search for one side.
struct CaptureSearch<'s, V: Rules, S> {
    targets: <V::Geometry as Geometry>::Bits,
    man_targets: <V::Geometry as Geometry>::Bits,
    kings: <V::Geometry as Geometry>::Bits,
    empty: <V::Geometry as Geometry>::Bits,
    promotion: <V::Geometry as Geometry>::Bits,
    man_rays: &'static Rays,
    king_rays: &'static Rays,
    /// The rays of the first jump of the piece being searched, if not a king (read only where
    /// [`Self::FIRST_JUMP_DIFFERS`]).
    first_rays: &'static Rays,
    us: Color,
    from: u32,
    by_king: bool,
    captured: <V::Geometry as Geometry>::Bits,
    order: [u8; MAX_CAPTURES],
    path: [u8; MAX_CAPTURES],
    depth: usize,
    sink: &'s mut S,
}

impl<'s, V: Rules, S: CaptureSink<<V::Geometry as Geometry>::Bits>> CaptureSearch<'s, V, S> {
    /// Whether a man's (or a parachutist's) first jump may go other ways than its later ones;
    /// elsewhere the depth is never looked at.
    const FIRST_JUMP_DIFFERS: bool = !V::PARACHUTIST_CAPTURES.is_empty()
        || !same_directions(V::MAN_CAPTURES, V::MAN_LATER_CAPTURES);

    fn new(position: &Position<V::Geometry>, sink: &'s mut S) -> Self {
        let us = position.turn();
        let them = !us;
        let targets = position.pieces(them);
        let kings = position.kings(them);
        let man_rays = rays_for!(V, us, V::MAN_CAPTURES);
        CaptureSearch {
            targets,
            man_targets: if V::MEN_CAPTURE_KINGS {
                targets
            } else {
                targets & !kings
            },
            kings,
            empty: position.empty_squares(),
            promotion: promotion_squares::<V>(us),
            man_rays,
            king_rays: rays_for!(V, us, V::KING_CAPTURES),
            first_rays: man_rays,
            us,
            from: 0,
            by_king: false,
            captured: Bits::EMPTY,
            order: [0; MAX_CAPTURES],
            path: [0; MAX_CAPTURES],
            depth: 0,
            sink,
        }
    }

    /// Searches every sequence of the piece of `kind` on `from`. A parachutist jumps like a man
    /// (it takes what men take), along its own rays, and is a man from the square it lands on.
    fn start(&mut self, from: u32, kind: Kind) {
        let bit = <V::Geometry as Geometry>::Bits::single(from);
        self.from = from;
        self.by_king = kind == Kind::King;
        if Self::FIRST_JUMP_DIFFERS {
            self.first_rays = if kind == Kind::Parachutist {
                rays_for!(V, self.us, V::PARACHUTIST_CAPTURES)
            } else {
                self.man_rays
            };
        }
        self.empty |= bit;
        self.extend(from, self.by_king, None);
        self.empty &= !bit;
    }

    /// The rays a piece may capture along at the current depth.
    #[inline]
    fn rays(&self, king: bool) -> &'static Rays {
        if king {
            self.king_rays
        } else if Self::FIRST_JUMP_DIFFERS {
            if self.depth == 0 {
                self.first_rays
            } else {
                rays_for!(V, self.us, V::MAN_LATER_CAPTURES)
            }
        } else {
            self.man_rays
        }
    }

    /// The square of the piece a capture from `at` along `ray` would jump, if one can.
    #[inline]
    fn jump(&self, at: u32, king: bool, ray: &Ray) -> Option<i32> {
        let mut over = advance::<V>(at as i32, ray);
        if king && V::FLYING_KINGS {
            while member(self.empty, over) {
                over = advance::<V>(over, ray);
            }
        }
        let targets = if king { self.targets } else { self.man_targets };
        (member(targets, over)
            && !member(self.captured, over)
            && member(self.empty, advance::<V>(over, ray)))
        .then_some(over)
    }

    /// Whether a turn from `came` to `direction` is allowed between two captures.
    #[inline]
    fn may_turn(came: Option<Direction>, direction: Direction) -> bool {
        match V::CAPTURE_TURNS {
            Turns::Any => true,
            Turns::NotBack => came != Some(direction.opposite()),
            Turns::Straight => came.is_none() || came == Some(direction),
        }
    }

    /// Whether the piece could go on capturing from `at`, having arrived going `came`.
    fn can_continue(&self, at: u32, king: bool, came: Option<Direction>) -> bool {
        self.rays(king)
            .as_slice()
            .iter()
            .any(|ray| Self::may_turn(came, ray.direction) && self.jump(at, king, ray).is_some())
    }

    /// Extends the sequence whose piece stands on `at`; finishes it there if it cannot go on.
    fn extend(&mut self, at: u32, king: bool, came: Option<Direction>) {
        let mut extended = false;
        for ray in self.rays(king).as_slice() {
            let direction = ray.direction;
            if !Self::may_turn(came, direction) {
                continue;
            }
            let Some(over) = self.jump(at, king, ray) else {
                continue;
            };
            extended = true;
            let over_bit = <V::Geometry as Geometry>::Bits::single(over as u32);
            self.captured |= over_bit;
            if V::REMOVE_WHILE_CAPTURING {
                self.empty |= over_bit;
            }
            self.order[self.depth] = over as u8;
            self.depth += 1;
            let first_landing = advance::<V>(over, ray);
            if king && V::FLYING_KINGS && !V::KING_STOPS_BEHIND {
                // A flying king may stop on any free square past the piece, but must stop on one
                // from which it can go on capturing if there is such a square.
                let mut landing = first_landing;
                let mut any_continues = false;
                while member(self.empty, landing) {
                    if self.can_continue(landing as u32, true, Some(direction)) {
                        any_continues = true;
                        self.land(landing as u32, true, direction);
                    }
                    landing = advance::<V>(landing, ray);
                }
                if !any_continues {
                    let mut landing = first_landing;
                    while member(self.empty, landing) {
                        self.path[self.depth - 1] = landing as u8;
                        self.finish(landing as u32, true);
                        // Killer: after taking a king last, the king stops right behind it.
                        if V::KING_HALTS_BEHIND_KING && self.kings.has(over as u32) {
                            break;
                        }
                        landing = advance::<V>(landing, ray);
                    }
                }
            } else if !king && V::CROWNING_ENDS_CAPTURE && member(self.promotion, first_landing) {
                // Crowned on the way: the move ends here.
                self.path[self.depth - 1] = first_landing as u8;
                self.finish(first_landing as u32, false);
            } else {
                let crowned =
                    !king && V::PROMOTE_MID_CAPTURE && member(self.promotion, first_landing);
                self.land(first_landing as u32, king || crowned, direction);
            }
            self.depth -= 1;
            if V::REMOVE_WHILE_CAPTURING {
                self.empty &= !over_bit;
            }
            self.captured ^= over_bit;
        }
        if !extended && self.depth > 0 && !V::CAPTURES_MAY_STOP {
            self.finish(at, king);
        }
    }

    /// Lands the piece on `at` after a jump and goes on from there (where captures may stop,
    /// each landing also ends a move of its own).
    #[inline]
    fn land(&mut self, at: u32, king: bool, direction: Direction) {
        self.path[self.depth - 1] = at as u8;
        if V::CAPTURES_MAY_STOP {
            self.finish(at, king);
        }
        self.extend(at, king, Some(direction));
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
    if opening_step::<V>(position).is_some() {
        return;
    }
    let us = position.turn();
    let (candidates, parachutists) = match us {
        Color::Black if !V::ONE_WAY => capture_candidates::<V, true>(position),
        _ => capture_candidates::<V, false>(position),
    };
    let kings = position.kings(us);
    let restrict = |set: B<V>| match only_from {
        Some(bit) => set & B::<V>::single(bit),
        None => set,
    };
    let (candidates, parachutists, kings) = (
        restrict(candidates),
        restrict(parachutists),
        restrict(kings),
    );
    // Most positions have no capture: decide that with a few shifts before setting up a search.
    if candidates.is_empty() && kings.is_empty() && parachutists.is_empty() {
        return;
    }
    let mut search = CaptureSearch::<V, S>::new(position, sink);
    for from in candidates.iter() {
        search.start(from, Kind::Man);
    }
    for from in parachutists.iter() {
        search.start(from, Kind::Parachutist);
    }
    for from in kings.iter() {
        search.start(from, Kind::King);
    }
}

/// `direction` (as White sees it) for the side whose directions are flipped when `FLIP`, folded
/// at compile time.
#[inline(always)]
fn side<const FLIP: bool>(direction: Direction) -> Direction {
    if FLIP { direction.flipped() } else { direction }
}

/// Of the side to move, the men and the parachutists with a capturable piece next to them and a
/// free square behind it, in one of their first-jump directions.
#[inline]
fn capture_candidates<V: Rules, const FLIP: bool>(
    position: &Position<V::Geometry>,
) -> (
    <V::Geometry as Geometry>::Bits,
    <V::Geometry as Geometry>::Bits,
) {
    let us = position.turn();
    let targets = if V::MEN_CAPTURE_KINGS {
        position.pieces(!us)
    } else {
        position.men(!us)
    };
    let empty = position.empty_squares();
    let men = position.plain_men::<V>(us);
    let mut candidates = Bits::EMPTY;
    for &direction in V::MAN_CAPTURES {
        let back = side::<FLIP>(direction).opposite();
        let jumpable = V::Geometry::shift(empty, back) & targets;
        candidates |= V::Geometry::shift(jumpable, back) & men;
    }
    let mut parachutists = Bits::EMPTY;
    if const { !V::PARACHUTIST_CAPTURES.is_empty() } {
        let own = position.parachutists::<V>(us);
        for &direction in V::PARACHUTIST_CAPTURES {
            let back = side::<FLIP>(direction).opposite();
            let jumpable = V::Geometry::shift(empty, back) & targets;
            parachutists |= V::Geometry::shift(jumpable, back) & own;
        }
    }
    (candidates, parachutists)
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

/// The step of the opening the position is in, if any: while the board has `i` empty squares
/// and the variant's opening has an `i`-th removal, that removal is the move.
#[inline]
fn opening_step<V: Rules>(position: &Position<V::Geometry>) -> Option<usize> {
    if const { V::OPENING.is_empty() } {
        return None;
    }
    let empty = position.empty_squares().count() as usize;
    (empty < V::OPENING.len()).then_some(empty)
}

/// The pieces the side to move may take off the board at step `step` of the opening.
fn removable<V: Rules>(
    position: &Position<V::Geometry>,
    step: usize,
) -> <V::Geometry as Geometry>::Bits {
    let own = position.pieces(position.turn());
    match V::OPENING[step] {
        Removal::OnSquares(_) => {
            let sets = const { removal_sets::<V>() };
            own & Bits::from_wide(sets[step])
        }
        Removal::NextToEmpty(directions) => {
            let empty = position.empty_squares();
            let mut next_to_empty = Bits::EMPTY;
            for &direction in directions {
                next_to_empty |= V::Geometry::shift(empty, direction.opposite());
            }
            own & next_to_empty
        }
    }
}

/// Appends the non-capturing moves to `list` (in the opening, its removals).
pub fn quiet_moves<V: Rules>(position: &Position<V::Geometry>, list: &mut MoveList<V::Geometry>) {
    if let Some(step) = opening_step::<V>(position) {
        let own = position.pieces(position.turn());
        for bit in removable::<V>(position, step).iter() {
            let others = own & !<V::Geometry as Geometry>::Bits::single(bit);
            debug_assert!(!others.is_empty(), "an opening removes one piece of many");
            list.push(Move::removal(bit, others.lowest()));
        }
        return;
    }
    match position.turn() {
        Color::Black if !V::ONE_WAY => quiet_moves_of::<V, true>(position, list),
        _ => quiet_moves_of::<V, false>(position, list),
    }
}

/// The men of the side to move that may make non-capturing moves.
#[inline]
fn movable_men<V: Rules>(position: &Position<V::Geometry>) -> <V::Geometry as Geometry>::Bits {
    let us = position.turn();
    if V::MEN_REST_ON_LAST_ROW {
        position.plain_men::<V>(us) & !last_row::<V>(us)
    } else {
        position.plain_men::<V>(us)
    }
}

/// Calls `found(from, to)` for each linear move of a man (Dameo): from the rear of an unbroken
/// line of its own men in `direction`, to the first empty square beyond it. Kings break a line.
#[inline]
fn linear_moves<G: Geometry>(
    movable: G::Bits,
    men: G::Bits,
    empty: G::Bits,
    direction: Direction,
    mut found: impl FnMut(u32, u32),
) {
    let behind_a_man = G::shift(men, direction.opposite());
    for from in (movable & behind_a_man).iter() {
        let mut to = G::next(G::next(from as i32, direction), direction);
        while member(men, to) {
            to = G::next(to, direction);
        }
        if member(empty, to) {
            found(from, to as u32);
        }
    }
}

fn quiet_moves_of<V: Rules, const FLIP: bool>(
    position: &Position<V::Geometry>,
    list: &mut MoveList<V::Geometry>,
) {
    let us = position.turn();
    let empty = position.empty_squares();
    let promotion = promotion_squares::<V>(us);
    let men = movable_men::<V>(position);
    for &direction in V::MAN_MOVES {
        let direction = side::<FLIP>(direction);
        let step = V::Geometry::step(direction);
        for to in (V::Geometry::shift(men, direction) & empty).iter() {
            let from = (to as i32 - step) as u32;
            list.push(Move::new(from, to, Bits::EMPTY, promotion.has(to)));
        }
        if V::MEN_MOVE_ALONG_LINES {
            linear_moves::<V::Geometry>(
                men,
                position.plain_men::<V>(us),
                empty,
                direction,
                |from, to| {
                    list.push(Move::new(from, to, Bits::EMPTY, promotion.has(to)));
                },
            );
        }
    }
    for from in position.kings(us).iter() {
        for &direction in V::KING_MOVES {
            let mut to = V::Geometry::next(from as i32, direction);
            while member(empty, to) {
                list.push(Move::new(from, to as u32, Bits::EMPTY, false));
                if !V::FLYING_KINGS {
                    break;
                }
                to = V::Geometry::next(to, direction);
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
    if let Some(step) = opening_step::<V>(position) {
        return removable::<V>(position, step).count() as u64;
    }
    match position.turn() {
        Color::Black if !V::ONE_WAY => count_quiet_moves_of::<V, true>(position),
        _ => count_quiet_moves_of::<V, false>(position),
    }
}

fn count_quiet_moves_of<V: Rules, const FLIP: bool>(position: &Position<V::Geometry>) -> u64 {
    let us = position.turn();
    let empty = position.empty_squares();
    let men = movable_men::<V>(position);
    let mut count = 0;
    for &direction in V::MAN_MOVES {
        let direction = side::<FLIP>(direction);
        count += (V::Geometry::shift(men, direction) & empty).count() as u64;
        if V::MEN_MOVE_ALONG_LINES {
            linear_moves::<V::Geometry>(
                men,
                position.plain_men::<V>(us),
                empty,
                direction,
                |_, _| count += 1,
            );
        }
    }
    for from in position.kings(us).iter() {
        for &direction in V::KING_MOVES {
            let mut to = V::Geometry::next(from as i32, direction);
            while member(empty, to) {
                count += 1;
                if !V::FLYING_KINGS {
                    break;
                }
                to = V::Geometry::next(to, direction);
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
