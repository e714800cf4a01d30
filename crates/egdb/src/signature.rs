//! Material signatures: how many men and kings each side has. One table per signature.

use damas_rules::{Bits, Color, Geometry, Position};
use std::fmt;
use std::str::FromStr;

/// The material of one table: men and kings per side, White first (a parachutist counts as a
/// man: it is stored as one, see [`damas_rules::Kind::Parachutist`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Signature {
    /// Men of White and Black.
    pub men: [u8; 2],
    /// Kings of White and Black.
    pub kings: [u8; 2],
}

impl Signature {
    /// The signature of `position`'s material.
    pub fn of<G: Geometry>(position: &Position<G>) -> Self {
        let count = |bits: G::Bits| bits.count() as u8;
        Signature {
            men: Color::ALL.map(|c| count(position.men(c))),
            kings: Color::ALL.map(|c| count(position.kings(c))),
        }
    }

    /// Pieces on the board.
    pub fn pieces(self) -> u32 {
        (self.men[0] + self.men[1] + self.kings[0] + self.kings[1]) as u32
    }

    /// Men on the board, both sides.
    pub fn men_total(self) -> u32 {
        (self.men[0] + self.men[1]) as u32
    }

    /// A number every capture and every promotion lowers (twice the pieces plus the men), so
    /// that a game's conversions can be counted down: a capture takes 2 or 3 off, a promotion 1.
    pub fn rank(self) -> u32 {
        2 * self.pieces() + self.men_total()
    }

    /// Every signature with 1 to `pieces` pieces, in build order.
    pub fn up_to(pieces: u32) -> Vec<Signature> {
        let mut all = Vec::new();
        let n = pieces as u8;
        for wm in 0..=n {
            for wk in 0..=n - wm {
                for bm in 0..=n - wm - wk {
                    for bk in 0..=n - wm - wk - bm {
                        let s = Signature {
                            men: [wm, bm],
                            kings: [wk, bk],
                        };
                        if s.pieces() > 0 {
                            all.push(s);
                        }
                    }
                }
            }
        }
        sort_for_build(&mut all);
        all
    }

    /// This signature and every one a game can reach from it (captures remove pieces, men
    /// become kings, kings stay kings), in build order: each comes after all it can reach.
    pub fn closure(self) -> Vec<Signature> {
        let side = |c: usize| {
            let (m, k) = (self.men[c], self.kings[c]);
            let mut out = Vec::new();
            for m2 in 0..=m {
                for k2 in 0..=(m + k - m2) {
                    out.push((m2, k2));
                }
            }
            out
        };
        let mut all = Vec::new();
        for &(wm, wk) in &side(0) {
            for &(bm, bk) in &side(1) {
                let s = Signature {
                    men: [wm, bm],
                    kings: [wk, bk],
                };
                if s.pieces() > 0 {
                    all.push(s);
                }
            }
        }
        sort_for_build(&mut all);
        all
    }

    /// The same material with the colours exchanged.
    pub fn swapped(self) -> Self {
        Signature {
            men: [self.men[1], self.men[0]],
            kings: [self.kings[1], self.kings[0]],
        }
    }
}

/// Build order: fewer pieces first (a capture removes some), then fewer men (a promotion turns
/// one into a king), so every move out of a table lands in a table built before it.
fn sort_for_build(all: &mut [Signature]) {
    all.sort_by_key(|s| (s.pieces(), s.men_total(), *s));
}

impl fmt::Display for Signature {
    /// `w<men>.<kings>-b<men>.<kings>`, e.g. `w1.2-b0.1`: one man and two kings against a king.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "w{}.{}-b{}.{}",
            self.men[0], self.kings[0], self.men[1], self.kings[1]
        )
    }
}

/// A signature that does not read as `w<men>.<kings>-b<men>.<kings>`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "`{0}` is not a material signature (expected w<men>.<kings>-b<men>.<kings>, e.g. w0.3-b0.1)"
)]
pub struct ParseSignatureError(String);

impl FromStr for Signature {
    type Err = ParseSignatureError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let bad = || ParseSignatureError(text.to_string());
        let (white, black) = text.split_once('-').ok_or_else(bad)?;
        let side = |part: &str, letter: char| -> Option<(u8, u8)> {
            let (m, k) = part.strip_prefix(letter)?.split_once('.')?;
            let (m, k) = (m.parse::<u8>().ok()?, k.parse::<u8>().ok()?);
            (m <= 32 && k <= 32).then_some((m, k))
        };
        let (wm, wk) = side(white, 'w').ok_or_else(bad)?;
        let (bm, bk) = side(black, 'b').ok_or_else(bad)?;
        let s = Signature {
            men: [wm, bm],
            kings: [wk, bk],
        };
        if s.pieces() == 0 {
            return Err(bad());
        }
        Ok(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn build_order_puts_every_reachable_signature_first() {
        let all = Signature::up_to(4);
        for (i, s) in all.iter().enumerate() {
            for reached in s.closure() {
                let at = all.iter().position(|x| *x == reached).unwrap();
                assert!(at <= i, "{reached} after {s}");
            }
        }
        // 1 to 4 pieces of four kinds: C(4+4, 4) - 1 multisets.
        assert_eq!(all.len(), 69);
    }

    #[test]
    fn names_round_trip_and_bad_names_are_refused() {
        for s in Signature::up_to(3) {
            assert_eq!(s.to_string().parse::<Signature>(), Ok(s));
        }
        for bad in [
            "",
            "w1.0",
            "w1.0-b",
            "x1.0-b0.1",
            "w0.0-b0.0",
            "w1.x-b0.1",
            "w99.0-b0.1",
        ] {
            let err = bad.parse::<Signature>().unwrap_err();
            assert!(err.to_string().contains(bad), "{err}");
        }
    }
}
