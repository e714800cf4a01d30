//! Zobrist keys: one random 64-bit key per (colour, kind, bit index) and one for Black to move.

use crate::color::Color;

const fn splitmix(mut state: u64) -> u64 {
    state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Enough bit indices for the widest layout (128-bit sets).
const INDICES: usize = 128;

const KEYS: [[u64; INDICES]; 4] = {
    let mut keys = [[0u64; INDICES]; 4];
    let mut kind = 0;
    while kind < 4 {
        let mut index = 0;
        while index < INDICES {
            keys[kind][index] = splitmix((kind * INDICES + index) as u64 * 0x1000_0001 + 7);
            index += 1;
        }
        kind += 1;
    }
    keys
};

/// The key toggled when Black is to move.
pub const SIDE: u64 = splitmix(0xDA3A_5000);

/// The key of a piece of `color` (a king if `king`) on bit index `bit`.
#[inline]
pub fn piece(color: Color, king: bool, bit: u32) -> u64 {
    KEYS[color.index() * 2 + king as usize][bit as usize]
}
