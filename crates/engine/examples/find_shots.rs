//! Finds small positions with exactly one winning first move (the opponent left without a legal
//! move within a few plies), proved by exhaustive minimax; used to pick the tactical test positions.
use damas_rules::{
    Game, MoveList, Position, Rules, Variant, VariantVisitor, legal_moves, notation::pdn,
    parse_fen, to_fen,
};

fn wins<V: Rules>(p: &Position<V::Geometry>, plies: u32) -> bool {
    // Side to move can force the opponent to have no legal move within `plies` plies.
    let mut list = MoveList::new();
    legal_moves::<V>(p, &mut list);
    if list.is_empty() || plies == 0 {
        return false;
    }
    list.iter().any(|m| loses::<V>(&p.after(m), plies - 1))
}
fn loses<V: Rules>(p: &Position<V::Geometry>, plies: u32) -> bool {
    let mut list = MoveList::new();
    legal_moves::<V>(p, &mut list);
    if list.is_empty() {
        return true;
    }
    if plies == 0 {
        return false;
    }
    list.iter().all(|m| wins::<V>(&p.after(m), plies - 1))
}
struct Find(u64);
impl VariantVisitor for Find {
    type Output = ();
    fn visit<V: Rules>(self) {
        let mut state = self.0;
        let mut rnd = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let n = <V::Geometry as damas_rules::Geometry>::SQUARES as u64;
        let mut found = 0;
        for _ in 0..200000 {
            let mut w = vec![];
            let mut b = vec![];
            let nw = 3 + rnd() % 3;
            let nb = 2 + rnd() % 3;
            for _ in 0..nw {
                w.push(1 + rnd() % n);
            }
            for _ in 0..nb {
                b.push(1 + rnd() % n);
            }
            let fen = format!(
                "W:W{}:B{}",
                w.iter()
                    .map(|s| s.to_string())
                    .collect::<Vec<_>>()
                    .join(","),
                b.iter()
                    .map(|s| s.to_string())
                    .collect::<Vec<_>>()
                    .join(",")
            );
            let Ok(p) = parse_fen::<V>(&fen) else {
                continue;
            };
            let mut list = MoveList::new();
            legal_moves::<V>(&p, &mut list);
            if list.len() < 4 || list[0].is_capture() {
                continue;
            }
            let plies = 7;
            let winners: Vec<_> = list
                .iter()
                .filter(|m| loses::<V>(&p.after(m), plies - 1))
                .collect();
            // Not winnable faster than 5 plies, exactly one winning move.
            if winners.len() == 1 && !list.iter().any(|m| loses::<V>(&p.after(m), 3)) {
                println!(
                    "{} {} {}",
                    V::NAME,
                    to_fen::<V>(&p),
                    pdn::<V>(&p, winners[0], &list)
                );
                found += 1;
                if found == 4 {
                    break;
                }
            }
        }
        let _ = Game::<V>::new();
    }
}
fn main() {
    for v in [
        Variant::International,
        Variant::Russian,
        Variant::English,
        Variant::Italian,
        Variant::Frisian,
        Variant::Turkish,
        Variant::Canadian,
    ] {
        v.visit(Find(0x1234_5678_9abc_def1));
    }
}
