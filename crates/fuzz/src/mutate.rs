//! Mutations of valid inputs (bit flips, byte and token replacement, insertion, deletion,
//! duplication, splicing with another seed, number swaps, truncation) and random inputs.

use rand::Rng;
use rand::rngs::SmallRng;

/// Inputs longer than this are cut.
pub const MAX_LEN: usize = 1 << 16;

/// Tokens that parsers treat specially: numbers at and past their limits, separators, quotes,
/// piece letters, non-ASCII and control bytes.
const TOKENS: &[&[u8]] = &[
    b"0",
    b"1",
    b"-1",
    b"-0",
    b"255",
    b"256",
    b"65535",
    b"65536",
    b"4294967295",
    b"4294967296",
    b"18446744073709551615",
    b"18446744073709551616",
    b"99999999999999999999999",
    b"nan",
    b"inf",
    b"-inf",
    b"1e309",
    b"1e-320",
    b"0.0",
    b"1.5",
    b"0x10",
    b"+5",
    b"\"",
    b"\"\"\"",
    b"'",
    b"=",
    b",",
    b":",
    b";",
    b".",
    b"x",
    b"X",
    b"-",
    b"W",
    b"B",
    b"K",
    b"P",
    b"Z",
    b"z",
    b"[",
    b"]",
    b"{",
    b"}",
    b"(",
    b")",
    b"\n",
    b"\r\n",
    b"\0",
    b" ",
    b"\t",
    b"\xff",
    b"\xc3\xa9",
    b"\xe2\x80\x8b",
    b"true",
    b"false",
    b"#",
    b"*",
    b"1-0",
    b"0-1",
    b"1/2-1/2",
    b"a1",
    b"h8",
    b"j10",
    b"50",
    b"51",
    b"32",
    b"33",
    b"45",
    b"46",
    b"64",
    b"65",
    b"144",
    b"145",
];

/// A random token.
pub fn token(rng: &mut SmallRng) -> &'static [u8] {
    TOKENS[rng.random_range(0..TOKENS.len())]
}

fn range(rng: &mut SmallRng, len: usize) -> (usize, usize) {
    let start = rng.random_range(0..=len);
    let end = start + rng.random_range(0..=(len - start).min(64));
    (start, end)
}

/// Applies one to eight random mutations to `data`; `others` are seeds to splice from.
pub fn mutate(rng: &mut SmallRng, data: &mut Vec<u8>, others: &[&[u8]]) {
    let rounds = 1 + rng.random_range(0..8u32).min(rng.random_range(0..8));
    for _ in 0..rounds {
        let len = data.len();
        match rng.random_range(0..11) {
            0 if len > 0 => {
                let i = rng.random_range(0..len);
                data[i] ^= 1 << rng.random_range(0..8);
            }
            1 if len > 0 => {
                let i = rng.random_range(0..len);
                data[i] = rng.random();
            }
            2 if len > 0 => {
                let i = rng.random_range(0..len);
                let t = token(rng);
                data[i] = t.first().copied().unwrap_or(b' ');
            }
            3 => {
                let i = rng.random_range(0..=len);
                let t = token(rng);
                data.splice(i..i, t.iter().copied());
            }
            4 => {
                let (start, end) = range(rng, len);
                data.drain(start..end);
            }
            5 => {
                let (start, end) = range(rng, len);
                let copy = data[start..end].to_vec();
                let at = rng.random_range(0..=len);
                let times = if rng.random_range(0..8) == 0 { 50 } else { 1 };
                for _ in 0..times {
                    data.splice(at..at, copy.iter().copied());
                }
            }
            6 if !others.is_empty() => {
                let other = others[rng.random_range(0..others.len())];
                let (start, end) = range(rng, other.len());
                let at = rng.random_range(0..=len);
                let cut = rng.random_range(at..=len);
                data.splice(at..cut, other[start..end].iter().copied());
            }
            7 if len > 0 => data.truncate(rng.random_range(0..len)),
            8 => replace_number(rng, data),
            9 if len > 1 => {
                let (a, b) = (rng.random_range(0..len), rng.random_range(0..len));
                data.swap(a, b);
            }
            _ => {
                let i = rng.random_range(0..=len);
                let t = token(rng);
                let end = (i + t.len()).min(len);
                data.splice(i..end, t.iter().copied());
            }
        }
    }
    data.truncate(MAX_LEN);
}

/// Replaces one run of ASCII digits by a token.
fn replace_number(rng: &mut SmallRng, data: &mut Vec<u8>) {
    let digits: Vec<usize> = (0..data.len())
        .filter(|&i| data[i].is_ascii_digit() && (i == 0 || !data[i - 1].is_ascii_digit()))
        .collect();
    if digits.is_empty() {
        return;
    }
    let start = digits[rng.random_range(0..digits.len())];
    let mut end = start;
    while end < data.len() && data[end].is_ascii_digit() {
        end += 1;
    }
    let t = token(rng);
    data.splice(start..end, t.iter().copied());
}

/// Random bytes (any value, or printable text), up to `max` long.
pub fn random_bytes(rng: &mut SmallRng, max: usize) -> Vec<u8> {
    let len = rng.random_range(0..=max);
    if rng.random() {
        (0..len).map(|_| rng.random()).collect()
    } else {
        (0..len).map(|_| rng.random_range(b' '..=b'~')).collect()
    }
}

/// A seed mutated (most often), intact, or random bytes.
pub fn from_seeds(rng: &mut SmallRng, seeds: &[&[u8]]) -> Vec<u8> {
    match rng.random_range(0..20) {
        0 => random_bytes(rng, 256),
        1 if !seeds.is_empty() => seeds[rng.random_range(0..seeds.len())].to_vec(),
        _ if !seeds.is_empty() => {
            let mut data = seeds[rng.random_range(0..seeds.len())].to_vec();
            mutate(rng, &mut data, seeds);
            data
        }
        _ => random_bytes(rng, 256),
    }
}
