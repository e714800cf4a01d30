//! A near-perfect index of the positions of one signature: White's men among the squares a
//! White man can stand on, Black's men among Black's, then White's kings among the squares the
//! men left free and Black's kings among what is left. Only a White man and a Black man on the
//! same square make an index that is no position; kings never collide.

use crate::signature::Signature;
use damas_rules::movegen::promotion_squares;
use damas_rules::{Bits, Color, Geometry, Kind, Piece, Position, Rules};
use std::marker::PhantomData;

/// Most squares of any board (12x12's 72 dark squares).
const MAX_SQUARES: usize = 128;
/// Most pieces of one kind and colour in a table.
const MAX_GROUP: usize = 16;

/// Binomial coefficients `C(n, k)` for `n < MAX_SQUARES`, `k <= MAX_GROUP`.
struct Binomials([[u64; MAX_GROUP + 1]; MAX_SQUARES + 1]);

static BINOMIALS: Binomials = Binomials::new();

impl Binomials {
    const fn new() -> Self {
        let mut table = [[0u64; MAX_GROUP + 1]; MAX_SQUARES + 1];
        let mut n = 0;
        while n <= MAX_SQUARES {
            table[n][0] = 1;
            let mut k = 1;
            while k <= MAX_GROUP {
                table[n][k] = if n == 0 {
                    0
                } else {
                    table[n - 1][k - 1].saturating_add(table[n - 1][k])
                };
                k += 1;
            }
            n += 1;
        }
        Binomials(table)
    }
}

/// `C(n, k)`.
pub fn binomial(n: u32, k: u32) -> u64 {
    BINOMIALS.0[n as usize][k as usize]
}

/// The colex rank of `k` distinct sorted numbers: the sum of `C(c_i, i + 1)`.
fn rank(sorted: &[u32]) -> u64 {
    sorted
        .iter()
        .enumerate()
        .map(|(i, &c)| binomial(c, i as u32 + 1))
        .sum()
}

/// The `k` sorted numbers below `n` whose colex rank is `r`, into `out[..k]`.
fn unrank(mut r: u64, k: usize, n: u32, out: &mut [u32]) {
    let mut c = n;
    for i in (0..k).rev() {
        let kk = i as u32 + 1;
        c -= 1;
        while binomial(c, kk) > r {
            c -= 1;
        }
        r -= binomial(c, kk);
        out[i] = c;
    }
}

/// The squares a man of each colour may stand on under `V`: all but its promotion squares,
/// where it would have been crowned (unless the variant's parachutists stand there).
pub fn men_squares<V: Rules>(color: Color) -> Vec<u32> {
    let crowned = if V::RULES.parachutists.is_some() {
        <V::Geometry as Geometry>::Bits::EMPTY
    } else {
        promotion_squares::<V>(color)
    };
    (0..V::Geometry::SQUARES)
        .filter(|&sq| !crowned.has(V::Geometry::bit(sq)))
        .collect()
}

/// Indexes the positions of one signature under the rules `V`, for one side to move.
#[derive(Clone, Debug)]
pub struct Indexer<V: Rules> {
    signature: Signature,
    /// Allowed squares of each colour's men, ascending.
    men_squares: [Vec<u32>; 2],
    /// Square to its rank among a colour's allowed men squares (`u32::MAX`: not allowed).
    men_rank: [Vec<u32>; 2],
    /// Sizes of the four factors: White men, Black men, White kings, Black kings.
    factors: [u64; 4],
    _rules: PhantomData<V>,
}

impl<V: Rules> Indexer<V> {
    /// The index of `signature`'s positions.
    pub fn new(signature: Signature) -> Self {
        let men_squares = Color::ALL.map(men_squares::<V>);
        let men_rank = std::array::from_fn(|c| {
            let mut ranks = vec![u32::MAX; V::Geometry::SQUARES as usize];
            for (r, &sq) in men_squares[c].iter().enumerate() {
                ranks[sq as usize] = r as u32;
            }
            ranks
        });
        let squares = V::Geometry::SQUARES;
        let [wm, bm] = signature.men.map(u32::from);
        let [wk, bk] = signature.kings.map(u32::from);
        let free = squares.saturating_sub(wm + bm);
        let factors = [
            binomial(men_squares[0].len() as u32, wm),
            binomial(men_squares[1].len() as u32, bm),
            binomial(free, wk),
            binomial(free.saturating_sub(wk), bk),
        ];
        Indexer {
            signature,
            men_squares,
            men_rank,
            factors,
            _rules: PhantomData,
        }
    }

    /// Whether a man of `color` may stand on `square` (it is not on a square where it would
    /// have been crowned).
    #[inline]
    pub fn man_may_stand(&self, color: Color, square: u32) -> bool {
        self.men_rank[color.index()][square as usize] != u32::MAX
    }

    /// Whether every man of `position` stands where a man may stand, so that the position
    /// has an index.
    pub fn covers(&self, position: &Position<V::Geometry>) -> bool {
        Color::ALL.into_iter().all(|c| {
            position
                .men(c)
                .iter()
                .all(|bit| self.man_may_stand(c, V::Geometry::square(bit)))
        })
    }

    /// The signature indexed.
    pub fn signature(&self) -> Signature {
        self.signature
    }

    /// Indices for one side to move (some are no position: see [`Self::decode`]).
    pub fn size(&self) -> u64 {
        self.factors.iter().product()
    }

    /// Where `position` (which must have this signature) sits among both sides' indices: White
    /// to move first, then Black.
    pub fn slot(&self, position: &Position<V::Geometry>) -> usize {
        let turn = (position.turn() == Color::Black) as u64;
        (turn * self.size() + self.index(position)) as usize
    }

    /// The index of `position` (which must have this signature), the side to move not counted.
    pub fn index(&self, position: &Position<V::Geometry>) -> u64 {
        let mut buf = [0u32; MAX_GROUP];
        let mut occupied: u128 = 0;
        let squares_of = |bits: <V::Geometry as Geometry>::Bits, buf: &mut [u32]| {
            let mut n = 0;
            for bit in bits.iter() {
                buf[n] = V::Geometry::square(bit);
                n += 1;
            }
            n
        };
        let mut parts = [0u64; 4];
        for c in Color::ALL {
            let n = squares_of(position.men(c), &mut buf);
            for x in &mut buf[..n] {
                occupied |= 1u128 << *x;
                *x = self.men_rank[c.index()][*x as usize];
            }
            parts[c.index()] = rank(&buf[..n]);
        }
        for c in Color::ALL {
            let n = squares_of(position.kings(c), &mut buf);
            let below = occupied;
            for x in &mut buf[..n] {
                occupied |= 1u128 << *x;
                *x -= (below & ((1u128 << *x) - 1)).count_ones();
            }
            parts[2 + c.index()] = rank(&buf[..n]);
        }
        self.combine(parts)
    }

    fn combine(&self, parts: [u64; 4]) -> u64 {
        let f = &self.factors;
        ((parts[0] * f[1] + parts[1]) * f[2] + parts[2]) * f[3] + parts[3]
    }

    /// The position at `index` with `turn` to move, or `None` if a White and a Black man
    /// would share a square there.
    pub fn decode(&self, index: u64, turn: Color) -> Option<Position<V::Geometry>> {
        let f = &self.factors;
        let mut rest = index;
        let mut parts = [0u64; 4];
        for i in (0..4).rev() {
            parts[i] = rest % f[i];
            rest /= f[i];
        }
        let mut position = Position::empty(turn);
        let mut buf = [0u32; MAX_GROUP];
        let mut occupied: u128 = 0;
        for c in Color::ALL {
            let n = self.signature.men[c.index()] as usize;
            let allowed = self.men_squares[c.index()].len() as u32;
            unrank(parts[c.index()], n, allowed, &mut buf);
            for &r in &buf[..n] {
                let sq = self.men_squares[c.index()][r as usize];
                if occupied & (1u128 << sq) != 0 {
                    return None;
                }
                occupied |= 1u128 << sq;
                position.set(sq, Some(Piece::new(c, Kind::Man)));
            }
        }
        for c in Color::ALL {
            let n = self.signature.kings[c.index()] as usize;
            let before = occupied;
            let free = V::Geometry::SQUARES - before.count_ones();
            unrank(parts[2 + c.index()], n, free, &mut buf);
            for &r in &buf[..n] {
                let sq = nth_free(before, r);
                occupied |= 1u128 << sq;
                position.set(sq, Some(Piece::new(c, Kind::King)));
            }
        }
        Some(position)
    }
}

/// The `r`-th (from 0) square not in `occupied`.
fn nth_free(occupied: u128, r: u32) -> u32 {
    let mut free = !occupied;
    for _ in 0..r {
        free &= free - 1;
    }
    free.trailing_zeros()
}

#[cfg(test)]
mod tests {
    use super::*;
    use damas_rules::variants::{English, International, Turkish};

    #[test]
    fn ranks_round_trip() {
        let mut out = [0u32; 4];
        for r in 0..binomial(20, 3) {
            unrank(r, 3, 20, &mut out);
            assert!(out[0] < out[1] && out[1] < out[2] && out[2] < 20);
            assert_eq!(rank(&out[..3]), r);
        }
    }

    fn round_trip<V: Rules>(signature: Signature) -> u64 {
        let indexer = Indexer::<V>::new(signature);
        let mut valid = 0;
        for i in 0..indexer.size() {
            if let Some(p) = indexer.decode(i, Color::Black) {
                assert_eq!(Signature::of(&p), signature);
                assert_eq!(indexer.index(&p), i, "{signature} {i}");
                valid += 1;
            }
        }
        valid
    }

    #[test]
    fn every_index_that_is_a_position_round_trips() {
        for s in Signature::up_to(3) {
            round_trip::<English>(s);
            round_trip::<Turkish>(s);
        }
        let s = "w1.1-b1.0".parse().unwrap();
        // 45 squares for each side's man, minus shared ones, and a king on the 48 left.
        assert_eq!(round_trip::<International>(s), (45 * 45 - 40) * 48);
    }
}
