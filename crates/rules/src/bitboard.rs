//! Bit sets over the padded square layout of a board.
//!
//! A board family picks its integer width ([`u64`] for 8x8 and 10x10, [`u128`] for larger boards)
//! through [`Geometry::Bits`](crate::Geometry::Bits); everything else is written once against the
//! [`Bits`] trait and monomorphised, so no width costs anything at run time.

use std::fmt::Debug;
use std::hash::Hash;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not, Shl, Shr};

/// An unsigned integer used as a set of bit indices (the padded squares of a board).
pub trait Bits:
    Copy
    + Eq
    + Ord
    + Hash
    + Debug
    + Default
    + Send
    + Sync
    + 'static
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + BitXor<Output = Self>
    + Not<Output = Self>
    + BitAndAssign
    + BitOrAssign
    + BitXorAssign
    + Shl<u32, Output = Self>
    + Shr<u32, Output = Self>
{
    /// The empty set.
    const EMPTY: Self;
    /// How many bit indices the type holds.
    const WIDTH: u32;

    /// The set holding only `index`.
    fn single(index: u32) -> Self;
    /// Number of members.
    fn count(self) -> u32;
    /// Smallest member; meaningless on the empty set.
    fn lowest(self) -> u32;
    /// The members of a 128-bit set below [`Bits::WIDTH`] (sets built at compile time are `u128`
    /// whatever the board; converting a constant folds away).
    fn from_wide(wide: u128) -> Self;
    /// Whether the set has no members.
    #[inline]
    fn is_empty(self) -> bool {
        self == Self::EMPTY
    }
    /// Whether `index` is a member.
    #[inline]
    fn has(self, index: u32) -> bool {
        !(self & Self::single(index)).is_empty()
    }
    /// Shifts by a signed amount: positive towards higher indices.
    #[inline]
    fn shift(self, by: i32) -> Self {
        if by >= 0 {
            self << by as u32
        } else {
            self >> (-by) as u32
        }
    }
    /// The members in increasing order.
    #[inline]
    fn iter(self) -> BitIter<Self> {
        BitIter(self)
    }
}

macro_rules! impl_bits {
    ($t:ty) => {
        impl Bits for $t {
            const EMPTY: Self = 0;
            const WIDTH: u32 = <$t>::BITS;
            #[inline]
            fn single(index: u32) -> Self {
                1 << index
            }
            #[inline]
            fn count(self) -> u32 {
                self.count_ones()
            }
            #[inline]
            fn lowest(self) -> u32 {
                self.trailing_zeros()
            }
            #[inline]
            fn from_wide(wide: u128) -> Self {
                wide as $t
            }
        }
    };
}
impl_bits!(u64);
impl_bits!(u128);

/// Iterator over the members of a [`Bits`] set, lowest first.
#[derive(Clone, Copy, Debug)]
pub struct BitIter<B>(B);

impl<B: Bits> Iterator for BitIter<B> {
    type Item = u32;
    #[inline]
    fn next(&mut self) -> Option<u32> {
        if self.0.is_empty() {
            return None;
        }
        let index = self.0.lowest();
        self.0 ^= B::single(index);
        Some(index)
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count() as usize;
        (n, Some(n))
    }
}

impl<B: Bits> ExactSizeIterator for BitIter<B> {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iterates_members_in_order() {
        let set: u128 = (1 << 3) | (1 << 70) | (1 << 100);
        assert_eq!(set.iter().collect::<Vec<_>>(), vec![3, 70, 100]);
        assert_eq!(set.count(), 3);
        assert!(set.has(70) && !set.has(71));
        assert_eq!(0b1000u64.shift(-2), 0b10);
        assert_eq!(0b1000u64.shift(2), 0b100000);
    }
}
