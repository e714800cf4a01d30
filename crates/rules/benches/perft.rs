//! Perft over a fixed set of positions per variant: the move generator's speed, one row per variant
//! and board geometry. Run with `cargo bench -p damas-rules`.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use damas_rules::{Duplicates, Position, Rules, Variant, VariantVisitor, parse_fen, perft};
use std::hint::black_box;

/// (variant, name, FEN or start, depth)
const POSITIONS: &[(Variant, &str, Option<&str>, u32)] = &[
    (Variant::International, "start", None, 6),
    (
        Variant::International,
        "woldouby",
        Some("W:W25,27,28,30,32,33,34,35,37,38:B12,13,14,16,18,19,21,23,24,26"),
        9,
    ),
    (
        Variant::International,
        "allkings",
        Some(
            "W:WK31,K32,K33,K34,K35,K36,K37,K38,K39,K40,K41,K42,K43,K44,K45,K46,K47,K48,K49,K50:BK1,K2,K3,K4,K5,K6,K7,K8,K9,K10,K11,K12,K13,K14,K15,K16,K17,K18,K19,K20",
        ),
        5,
    ),
    (Variant::Brazilian, "start", None, 7),
    (Variant::Russian, "start", None, 7),
    (Variant::English, "start", None, 7),
    (Variant::Spanish, "start", None, 7),
    (Variant::Portuguese, "start", None, 7),
    (Variant::Italian, "start", None, 7),
    (
        Variant::Italian,
        "gilbert3",
        Some("W:WK27,K28,17,20,9,K12,8:B21,24,K19,K13,14,K11,4"),
        5,
    ),
    (Variant::Czech, "start", None, 7),
    (Variant::Pool, "start", None, 7),
    (Variant::Thai, "start", None, 7),
    // One row per further geometry and capture geometry: 12x12 in 128 bits, orthogonal captures
    // on 10x10, and the all-squares orthogonal board.
    (Variant::Canadian, "start", None, 6),
    (
        Variant::Killer,
        "random178",
        Some("B:W6,9,10,11,20,21,22,23,30,K31,33,37,41,42,43,44,46:BK17,K24"),
        6,
    ),
    (Variant::Frisian, "start", None, 7),
    (Variant::Frysk, "start", None, 7),
    (Variant::Turkish, "start", None, 6),
    // The all-squares board with diagonal steps and Dameo's linear moves, and Gothic's men.
    (Variant::Dameo, "start", None, 4),
    (Variant::Gothic, "start", None, 5),
];

struct Count<'a>(Option<&'a str>, u32);

impl VariantVisitor for Count<'_> {
    type Output = u64;
    fn visit<V: Rules>(self) -> u64 {
        let position = match self.0 {
            Some(fen) => parse_fen::<V>(fen).expect("bench FEN parses"),
            None => Position::initial::<V>(),
        };
        perft::<V>(black_box(&position), self.1, Duplicates::Unique)
    }
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("perft");
    group.sample_size(10);
    for &(variant, name, fen, depth) in POSITIONS {
        let leaves = variant.visit(Count(fen, depth));
        group.throughput(Throughput::Elements(leaves));
        group.bench_function(format!("{variant}/{name}/d{depth}"), |b| {
            b.iter(|| variant.visit(Count(fen, depth)))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
