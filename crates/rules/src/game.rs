//! A game in progress: the position plus what the draw rules need (repetitions, king-move and
//! endgame counters), with the Zobrist hash kept incrementally.

use crate::bitboard::Bits;
use crate::color::{ByColor, Color};
use crate::geometry::Geometry;
use crate::movegen;
use crate::moves::{Move, MoveList};
use crate::position::Position;
use crate::variant::{CapRule, DrawProgress, EndgameRule, Placement, Rules};
use std::fmt;

/// Why a game was drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DrawReason {
    /// The same position with the same side to move occurred this many times.
    Repetition(u32),
    /// This many plies of king moves in a row, without a capture or a man move.
    KingMoves(u32),
    /// This many plies in a row without a capture.
    NoCapture(u32),
    /// An ending drawn by a move limit (this many moves each).
    Endgame(u32),
    /// Declared drawn from outside the rules (a game-length cap, an arbiter, agreed scores).
    Adjudication,
}

/// Why a game was won.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WinReason {
    /// The loser had no legal move (no pieces left, or all blocked).
    OpponentCannotMove,
    /// Losing draughts: the winner had no legal move left.
    CannotMove,
    /// The loser resigned.
    Resignation,
    /// Declared won from outside the rules (agreed scores, an arbiter).
    Adjudication,
    /// The loser broke the rules of the match: an illegal or malformed move, a crash, a timeout.
    Forfeit,
}

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// A side won.
    Win {
        /// The side that won.
        winner: Color,
        /// Why.
        reason: WinReason,
    },
    /// A draw by rule.
    Draw(DrawReason),
}

impl Outcome {
    /// The PDN result string: `2-0`/`1-1`/`0-2` on 10x10 and larger, `1-0`/`1/2-1/2`/`0-1` on 8x8.
    pub fn pdn_result<G: Geometry>(self) -> &'static str {
        let large = G::WIDTH >= 10;
        match (self, large) {
            (
                Outcome::Win {
                    winner: Color::White,
                    ..
                },
                true,
            ) => "2-0",
            (
                Outcome::Win {
                    winner: Color::Black,
                    ..
                },
                true,
            ) => "0-2",
            (Outcome::Draw(_), true) => "1-1",
            (
                Outcome::Win {
                    winner: Color::White,
                    ..
                },
                false,
            ) => "1-0",
            (
                Outcome::Win {
                    winner: Color::Black,
                    ..
                },
                false,
            ) => "0-1",
            (Outcome::Draw(_), false) => "1/2-1/2",
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Win {
                winner,
                reason: WinReason::OpponentCannotMove,
            } => write!(f, "{winner} wins: {} has no legal move", !*winner),
            Outcome::Win {
                winner,
                reason: WinReason::CannotMove,
            } => write!(f, "{winner} wins: {winner} has no legal move left"),
            Outcome::Draw(DrawReason::Repetition(n)) => write!(f, "draw by {n}-fold repetition"),
            Outcome::Draw(DrawReason::KingMoves(n)) => {
                write!(f, "draw: {n} plies of king moves without capture")
            }
            Outcome::Draw(DrawReason::NoCapture(n)) => {
                write!(f, "draw: {n} plies without a capture")
            }
            Outcome::Draw(DrawReason::Endgame(n)) => {
                write!(f, "draw: ending not won within {n} moves")
            }
            Outcome::Win {
                winner,
                reason: WinReason::Resignation,
            } => write!(f, "{winner} wins: {} resigned", !*winner),
            Outcome::Win {
                winner,
                reason: WinReason::Adjudication,
            } => write!(f, "{winner} wins by adjudication"),
            Outcome::Win {
                winner,
                reason: WinReason::Forfeit,
            } => write!(f, "{winner} wins: {} forfeited", !*winner),
            Outcome::Draw(DrawReason::Adjudication) => write!(f, "draw by adjudication"),
        }
    }
}

/// A position with its history, as far as the draw rules of `V` need it.
#[derive(Clone, Debug)]
pub struct Game<V: Rules> {
    position: Position<V::Geometry>,
    start: Position<V::Geometry>,
    hash: u64,
    /// Hashes of the positions since the last irreversible move, the current one last.
    reversible: Vec<u64>,
    king_plies: u32,
    no_capture_plies: u32,
    /// The ply at which a drawn ending's count runs out, and its moves each.
    endgame_deadline: Option<(u32, u32)>,
    /// Per side, the king moved last without capturing (its bit) and how many times in a row.
    king_streak: ByColor<Option<(u32, u32)>>,
    moves: Vec<Move<V::Geometry>>,
}

impl<V: Rules> Default for Game<V> {
    fn default() -> Self {
        Game::from_position(Position::initial::<V>())
    }
}

impl<V: Rules> Game<V> {
    /// A game from the variant's starting position.
    pub fn new() -> Self {
        Self::default()
    }

    /// A game starting from `position`.
    pub fn from_position(position: Position<V::Geometry>) -> Self {
        let hash = position.hash();
        let mut game = Game {
            position,
            start: position,
            hash,
            reversible: vec![hash],
            king_plies: 0,
            no_capture_plies: 0,
            endgame_deadline: None,
            king_streak: ByColor::default(),
            moves: Vec::new(),
        };
        game.update_endgame();
        game
    }

    /// The current position.
    pub fn position(&self) -> &Position<V::Geometry> {
        &self.position
    }

    /// The position the game started from.
    pub fn start(&self) -> &Position<V::Geometry> {
        &self.start
    }

    /// The moves played so far.
    pub fn moves(&self) -> &[Move<V::Geometry>] {
        &self.moves
    }

    /// Plies played so far.
    pub fn ply(&self) -> u32 {
        self.moves.len() as u32
    }

    /// The Zobrist hash of the current position, kept incrementally.
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// Consecutive plies of king moves without a capture.
    pub fn king_move_plies(&self) -> u32 {
        self.king_plies
    }

    /// Consecutive plies without a capture.
    pub fn plies_without_capture(&self) -> u32 {
        self.no_capture_plies
    }

    /// Hashes of the positions since the last irreversible move (a capture, a removal, a
    /// promotion or a man's move that cannot be undone), the current one last: what a search
    /// needs to see repetitions.
    pub fn reversible_hashes(&self) -> &[u64] {
        &self.reversible
    }

    /// How many times the current position has occurred (1 the first time).
    pub fn repetitions(&self) -> u32 {
        self.reversible.iter().filter(|&&h| h == self.hash).count() as u32
    }

    /// The draw counters as the variant's draw rules see them: what tells this position apart
    /// from the same squares reached another way.
    pub fn draw_progress(&self) -> DrawProgress {
        V::DRAW.progress(
            self.king_move_plies(),
            self.plies_without_capture(),
            self.repetitions(),
        )
    }

    /// A running endgame move limit: (plies played under it, plies it allows), if one of the
    /// variant's limited endings is on the board and its count has started.
    pub fn endgame_count(&self) -> Option<(u32, u32)> {
        self.endgame_deadline.map(|(deadline, moves)| {
            let allowed = 2 * moves;
            (
                allowed - deadline.saturating_sub(self.ply()).min(allowed),
                allowed,
            )
        })
    }

    /// Plays up to `plies` pseudo-random legal moves, stopping early if the game ends. The same
    /// seed always gives the same moves: a fixed way to reach varied openings and middle games
    /// for benchmarks, tests and matches.
    pub fn play_random(&mut self, seed: u64, plies: u32) {
        let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        for _ in 0..plies {
            if self.outcome().is_some() {
                break;
            }
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let legal = self.legal_moves();
            let mv = legal[(state % legal.len() as u64) as usize];
            self.play(&mv);
        }
    }

    /// The legal moves in the current position, history-dependent rules included (the limit on
    /// moving the same king again and again).
    pub fn legal_moves(&self) -> MoveList<V::Geometry> {
        let mut list = MoveList::new();
        movegen::legal_moves::<V>(&self.position, &mut list);
        if let Some(king) = self.tired_king() {
            list.retain(|mv| mv.is_capture() || mv.from_bit() != king);
        }
        list
    }

    /// The king of the side to move that may not make another non-capturing move, if any
    /// (Frisian: at most three in a row with the same king while the side also has men; dctl
    /// mrp_kings.hpp).
    fn tired_king(&self) -> Option<u32> {
        if V::MAX_SAME_KING_MOVES == 0 {
            return None;
        }
        let us = self.position.turn();
        let (king, count) = (*self.king_streak.get(us))?;
        let tracked = !self.position.men(us).is_empty() && !self.position.kings(us).is_empty();
        (tracked && count >= V::MAX_SAME_KING_MOVES).then_some(king)
    }

    /// Plays `mv`, which must be legal in the current position.
    pub fn play(&mut self, mv: &Move<V::Geometry>) {
        let us = self.position.turn();
        let them = !us;
        let was_king = self.position.king_at_bit(mv.from_bit());
        let hash = self.hash ^ self.position.hash_change(mv);
        if V::MAX_SAME_KING_MOVES > 0 {
            let streak = match *self.king_streak.get(us) {
                _ if !was_king || mv.is_capture() => None,
                Some((king, count)) if king == mv.from_bit() => Some((mv.to_bit(), count + 1)),
                _ => Some((mv.to_bit(), 1)),
            };
            *self.king_streak.get_mut(us) = streak;
            // A king captured by this move starts its owner's count afresh.
            if let Some((king, _)) = *self.king_streak.get(them)
                && mv.captured_bits().has(king)
            {
                *self.king_streak.get_mut(them) = None;
            }
        }
        self.position.play(mv);
        self.hash = hash;
        self.moves.push(*mv);
        let king_move = was_king && !mv.is_capture();
        // A man's sideways step can be stepped back: a repetition may span it.
        let sideways = V::MEN_MOVE_ALONG_ROWS
            && !was_king
            && !mv.is_capture()
            && !mv.is_removal()
            && !mv.promotes()
            && V::Geometry::row(mv.from()) == V::Geometry::row(mv.to());
        if !(king_move || sideways) {
            self.reversible.clear();
        }
        self.reversible.push(hash);
        self.king_plies = if king_move { self.king_plies + 1 } else { 0 };
        self.no_capture_plies = if mv.is_capture() {
            0
        } else {
            self.no_capture_plies + 1
        };
        self.update_endgame();
    }

    /// Starts, keeps or stops the endgame move limit after a move. A count starts when the
    /// material and the placement of one of the variant's endings first stand; it runs while the
    /// material still makes one of them, and a count already running is never extended: when a
    /// capture turns one limited ending into another, the earlier deadline stands (FMJD Annex 1,
    /// seed 002).
    fn update_endgame(&mut self) {
        let endgames = V::DRAW.endgames;
        if !endgames.iter().any(|rule| self.strong_side(rule).is_some()) {
            self.endgame_deadline = None;
            return;
        }
        let starting = endgames
            .iter()
            .filter(|rule| {
                self.strong_side(rule)
                    .is_some_and(|strong| self.placed(rule, strong))
            })
            .map(|rule| (self.ply() + 2 * rule.moves, rule.moves))
            .min();
        self.endgame_deadline = match (self.endgame_deadline, starting) {
            (Some(running), Some(new)) => Some(running.min(new)),
            (running, new) => running.or(new),
        };
    }

    /// The stronger side, if the material is `rule`'s ending (a lone king against it).
    fn strong_side(&self, rule: &EndgameRule) -> Option<Color> {
        let p = &self.position;
        Color::ALL.into_iter().find(|&strong| {
            let weak = !strong;
            let pieces = p.pieces(strong).count();
            p.pieces(weak).count() == 1
                && p.kings(weak).count() == 1
                && (rule.strong_pieces.0..=rule.strong_pieces.1).contains(&pieces)
                && p.kings(strong).count() >= rule.strong_min_kings
        })
    }

    /// Whether the pieces stand as `rule` asks for its count to start.
    fn placed(&self, rule: &EndgameRule, strong: Color) -> bool {
        let p = &self.position;
        let diagonal = V::Geometry::LONG_DIAGONAL;
        match rule.when {
            Placement::Anywhere => true,
            Placement::LoneKingAloneOnLongDiagonal => {
                let lone = p.kings(!strong);
                (p.occupied() & diagonal) == lone && !(lone & diagonal).is_empty()
            }
            Placement::StrongKingOnLongDiagonal => !(p.kings(strong) & diagonal).is_empty(),
        }
    }

    /// What the game is worth if it is stopped now by a move cap (which the caller applies):
    /// its outcome if it has ended, else what the variant's [`CapRule`] says (seed 000: "Ganha o
    /// jogador com mais peças. Em caso de empate no número de peças, a vencedora será a que tiver
    /// mais rainhas", else a draw).
    pub fn outcome_at_cap(&self) -> Outcome {
        if let Some(outcome) = self.outcome() {
            return outcome;
        }
        let drawn = Outcome::Draw(DrawReason::Adjudication);
        match V::AT_MOVE_CAP {
            CapRule::Draw => drawn,
            CapRule::Material => {
                let p = &self.position;
                let score = |c: Color| (p.pieces(c).count(), p.kings(c).count());
                let (white, black) = (score(Color::White), score(Color::Black));
                match white.cmp(&black) {
                    std::cmp::Ordering::Equal => drawn,
                    order => Outcome::Win {
                        winner: if order.is_gt() {
                            Color::White
                        } else {
                            Color::Black
                        },
                        reason: WinReason::Adjudication,
                    },
                }
            }
        }
    }

    /// How the game has ended, if it has. A side without a legal move loses (wins in losing
    /// variants), and that takes priority over a draw reached on the same move.
    pub fn outcome(&self) -> Option<Outcome> {
        let stuck = if V::MAX_SAME_KING_MOVES > 0 {
            self.legal_moves().is_empty()
        } else {
            movegen::count_legal_moves::<V>(&self.position) == 0
        };
        if stuck {
            let turn = self.position.turn();
            return Some(if V::LOSING {
                Outcome::Win {
                    winner: turn,
                    reason: WinReason::CannotMove,
                }
            } else {
                Outcome::Win {
                    winner: !turn,
                    reason: WinReason::OpponentCannotMove,
                }
            });
        }
        let draw = &V::DRAW;
        let repetitions = self.repetitions();
        if draw.repetitions > 0 && repetitions >= draw.repetitions {
            return Some(Outcome::Draw(DrawReason::Repetition(repetitions)));
        }
        if draw.king_move_plies > 0 && self.king_plies >= draw.king_move_plies {
            return Some(Outcome::Draw(DrawReason::KingMoves(self.king_plies)));
        }
        if draw.no_capture_plies > 0 && self.no_capture_plies >= draw.no_capture_plies {
            return Some(Outcome::Draw(DrawReason::NoCapture(self.no_capture_plies)));
        }
        if let Some((deadline, moves)) = self.endgame_deadline
            && self.ply() >= deadline
        {
            return Some(Outcome::Draw(DrawReason::Endgame(moves)));
        }
        None
    }
}
