//! The variants, as constant data. Each flag cites the rule it encodes; seeds are the rule texts in
//! `shared/seeds/` (000 and 002: international, 001: Spanish, 003: the BrainKing table, 004: Russian),
//! and "perft.md" is the published perft table the variant is tested against.
//!
//! Draw rules: the seeds give them for international, Russian and Spanish. The other variants take
//! threefold repetition plus 40 moves each of kings only without a capture, the common
//! tournament form, applied automatically so that self-play games always end.

use crate::color::Color;
use crate::geometry::{Board8, Board10, Board12, Direction, Orthogonal8};
use crate::variant::{
    DIAGONAL_FORWARD, DIAGONALS, DrawRules, EVERY_DIRECTION, EndgameRule, ORTHOGONALS, Precedence,
    Rules, SquareNotation,
};

/// Threefold repetition and 40 king-only moves each: the default where no seed gives draw rules.
const DEFAULT_DRAW: DrawRules = DrawRules {
    repetitions: 3,
    king_move_plies: 80,
    endgames: &[],
};

/// FMJD international draughts on 10x10.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct International;

impl Rules for International {
    type Geometry = Board10;
    const NAME: &'static str = "international";
    const SUMMARY: &'static str = "10x10, 20 men each, White first, men capture backwards, flying kings, \
         majority capture, promotion only at the end of a move";
    const GAME_TYPE: &'static str = "20";
    // Seed 002: "O jogador com as peças brancas move-se primeiro."
    const FIRST_MOVER: Color = Color::White;
    // Seed 000: pieces on "as quatro primeiras linhas mais próximas de cada jogador".
    const INITIAL_ROWS: u32 = 4;
    // Seed 002: "A captura pode ir para a frente ou para trás".
    const MAN_CAPTURES: &'static [Direction] = DIAGONALS;
    // Seed 002: "Uma dama vale uma peça, assim como uma pedra" (men take kings like men).
    const MEN_CAPTURE_KINGS: bool = true;
    // Seed 002: "A dama anda qualquer distância por uma diagonal livre".
    const FLYING_KINGS: bool = true;
    // Seed 002: the king "pode pousar em qualquer casa livre adiante".
    const KING_STOPS_BEHIND: bool = false;
    // Seed 002, "11x13": a man touching the last row mid-capture "ainda é pedra quando o lance termina".
    const PROMOTE_MID_CAPTURE: bool = false;
    // Seed 002: "você precisa escolher uma que tome o maior número de peças ... a escolha é livre".
    const PRECEDENCE: Precedence = Precedence::Quantity;
    // Seed 002, FMJD Annex 1: repetition, 25 king moves each, the 16-move and 5-move endings.
    const DRAW: DrawRules = DrawRules {
        repetitions: 3,
        king_move_plies: 50,
        endgames: &[
            // "Três damas, duas damas e uma pedra, ou uma dama e duas pedras contra uma dama": 16 moves.
            EndgameRule {
                strong_pieces: (3, 3),
                strong_min_kings: 1,
                moves: 16,
            },
            // "Duas damas, dama e pedra, ou uma dama contra uma dama": 5 moves.
            EndgameRule {
                strong_pieces: (1, 2),
                strong_min_kings: 1,
                moves: 5,
            },
        ],
    };
    // Seed 000: "os 50 quadrados escuros, numerados de 1 a 50".
    const NOTATION: SquareNotation = SquareNotation::Numeric;
    const MIRRORED: bool = false;
}

/// Brazilian draughts: the international rules on 8x8 (seed 003: long kings, backward capture,
/// quantity rule), written algebraically.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Brazilian;

impl Rules for Brazilian {
    type Geometry = Board8;
    const NAME: &'static str = "brazilian";
    const SUMMARY: &'static str = "8x8, 12 men each, White first, international rules: men capture backwards, \
         flying kings, majority capture, promotion only at the end of a move";
    const GAME_TYPE: &'static str = "26";
    const FIRST_MOVER: Color = International::FIRST_MOVER;
    const INITIAL_ROWS: u32 = 3;
    const MAN_CAPTURES: &'static [Direction] = International::MAN_CAPTURES;
    const MEN_CAPTURE_KINGS: bool = International::MEN_CAPTURE_KINGS;
    const FLYING_KINGS: bool = International::FLYING_KINGS;
    const KING_STOPS_BEHIND: bool = International::KING_STOPS_BEHIND;
    // Seed 002: "As regras de captura e coroação são as mesmas das damas brasileiras".
    const PROMOTE_MID_CAPTURE: bool = International::PROMOTE_MID_CAPTURE;
    const PRECEDENCE: Precedence = International::PRECEDENCE;
    const DRAW: DrawRules = International::DRAW;
    // protocols.md: Brazilian PDN uses algebraic squares (GameType 26, A0).
    const NOTATION: SquareNotation = SquareNotation::Algebraic;
    const MIRRORED: bool = false;
}

/// Russian draughts (shashki), seed 004.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Russian;

impl Rules for Russian {
    type Geometry = Board8;
    const NAME: &'static str = "russian";
    const SUMMARY: &'static str = "8x8, 12 men each, White first, men capture backwards, flying kings, \
         free choice of capture, a man promoted mid-capture goes on as a king";
    const GAME_TYPE: &'static str = "25";
    // Seed 004: "O jogador com as peças brancas faz o primeiro movimento."
    const FIRST_MOVER: Color = Color::White;
    // Seed 004: "12 peças nas três linhas mais próximas do seu lado".
    const INITIAL_ROWS: u32 = 3;
    // Seed 003 table: "Pedras podem capturar para trás" is marked for Russian.
    const MAN_CAPTURES: &'static [Direction] = DIAGONALS;
    const MEN_CAPTURE_KINGS: bool = true;
    // Seed 004: the king "é livre para parar em qualquer quadrado livre ao longo da diagonal".
    const FLYING_KINGS: bool = true;
    const KING_STOPS_BEHIND: bool = false;
    // Seed 004: "Se uma peça atinge a fileira das rainhas durante uma captura e pode continuar a
    // capturar, ela salta para trás como uma rainha."
    const PROMOTE_MID_CAPTURE: bool = true;
    // Seed 004: "o jogador pode escolher qual sequência seguir, não necessariamente aquela que
    // resulta no maior número de capturas".
    const PRECEDENCE: Precedence = Precedence::Free;
    // Seed 004: threefold repetition; 15 moves of kings only by both players; three kings or more
    // against a lone king not won by the 15th move.
    const DRAW: DrawRules = DrawRules {
        repetitions: 3,
        king_move_plies: 30,
        endgames: &[EndgameRule {
            strong_pieces: (3, 12),
            strong_min_kings: 3,
            moves: 15,
        }],
    };
    // Seed 004: "As colunas verticais são rotuladas de A a H, e as linhas ... de 1 a 8."
    const NOTATION: SquareNotation = SquareNotation::Algebraic;
    const MIRRORED: bool = false;
}

/// English draughts / American checkers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct English;

impl Rules for English {
    type Geometry = Board8;
    const NAME: &'static str = "english";
    const SUMMARY: &'static str = "8x8, 12 men each, Black first, men capture forwards only, short kings, \
         free choice of capture";
    // protocols.md: GameType `21,B,8,8,N1,0`, Black moves first.
    const GAME_TYPE: &'static str = "21";
    const FIRST_MOVER: Color = Color::Black;
    const INITIAL_ROWS: u32 = 3;
    // Seed 003 table: neither long kings nor backward capture by men for "Anglo-Americanas".
    const MAN_CAPTURES: &'static [Direction] = DIAGONAL_FORWARD;
    const MEN_CAPTURE_KINGS: bool = true;
    const FLYING_KINGS: bool = false;
    const KING_STOPS_BEHIND: bool = false;
    const PROMOTE_MID_CAPTURE: bool = false;
    // Seed 003 table: no quantity, quality or preference rule.
    const PRECEDENCE: Precedence = Precedence::Free;
    const DRAW: DrawRules = DEFAULT_DRAW;
    const NOTATION: SquareNotation = SquareNotation::Numeric;
    const MIRRORED: bool = false;
}

/// Spanish draughts, seed 001.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Spanish;

impl Rules for Spanish {
    type Geometry = Board8;
    const NAME: &'static str = "spanish";
    const SUMMARY: &'static str = "8x8 mirrored board, 12 men each, White first, men capture forwards only, \
         flying kings, most pieces then most kings";
    // protocols.md: `24,W,8,8,N1,1` (inverted board).
    const GAME_TYPE: &'static str = "24";
    // Seed 001: "O jogador com as peças brancas começa o jogo."
    const FIRST_MOVER: Color = Color::White;
    // Seed 001: "12 peças ... nas três linhas mais baixas".
    const INITIAL_ROWS: u32 = 3;
    // Seed 001: men "não podem se mover para trás"; seed 003 table leaves backward capture unmarked.
    const MAN_CAPTURES: &'static [Direction] = DIAGONAL_FORWARD;
    const MEN_CAPTURE_KINGS: bool = true;
    // Seed 001: kings "podem se mover pulando sobre vários quadrados vazios".
    const FLYING_KINGS: bool = true;
    const KING_STOPS_BEHIND: bool = false;
    const PROMOTE_MID_CAPTURE: bool = false;
    // Seed 001: "Regra da quantidade" then "Regra de qualidade" (most kings).
    const PRECEDENCE: Precedence = Precedence::QuantityThenKings;
    // Seed 001: third repetition; 40 successive king moves without capture; three kings against
    // one not won in 13 moves. (The seed also asks that one of the three stand on the main diagonal;
    // that condition is not encoded.)
    const DRAW: DrawRules = DrawRules {
        repetitions: 3,
        king_move_plies: 40,
        endgames: &[EndgameRule {
            strong_pieces: (3, 3),
            strong_min_kings: 3,
            moves: 13,
        }],
    };
    const NOTATION: SquareNotation = SquareNotation::Numeric;
    // Seed 001: played on the light squares, so the diagram is mirrored.
    const MIRRORED: bool = true;
}

/// Portuguese draughts: the Spanish rules (seed 003 table: long kings, quantity and quality rules).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Portuguese;

impl Rules for Portuguese {
    type Geometry = Board8;
    const NAME: &'static str = "portuguese";
    const SUMMARY: &'static str = "8x8 mirrored board, 12 men each, White first, men capture forwards only, \
         flying kings, most pieces then most kings";
    // protocols.md: `28,W,8,8,N1,1`.
    const GAME_TYPE: &'static str = "28";
    const FIRST_MOVER: Color = Spanish::FIRST_MOVER;
    const INITIAL_ROWS: u32 = Spanish::INITIAL_ROWS;
    const MAN_CAPTURES: &'static [Direction] = Spanish::MAN_CAPTURES;
    const MEN_CAPTURE_KINGS: bool = Spanish::MEN_CAPTURE_KINGS;
    const FLYING_KINGS: bool = Spanish::FLYING_KINGS;
    const KING_STOPS_BEHIND: bool = Spanish::KING_STOPS_BEHIND;
    const PROMOTE_MID_CAPTURE: bool = Spanish::PROMOTE_MID_CAPTURE;
    const PRECEDENCE: Precedence = Spanish::PRECEDENCE;
    const DRAW: DrawRules = Spanish::DRAW;
    const NOTATION: SquareNotation = SquareNotation::Numeric;
    const MIRRORED: bool = Spanish::MIRRORED;
}

/// Italian draughts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Italian;

impl Rules for Italian {
    type Geometry = Board8;
    const NAME: &'static str = "italian";
    const SUMMARY: &'static str = "8x8 mirrored board, 12 men each, White first, men capture forwards only and \
         never kings, short kings, most pieces, then with a king, then most kings, then kings first";
    // protocols.md: `22,W,8,8,N2,1`.
    const GAME_TYPE: &'static str = "22";
    const FIRST_MOVER: Color = Color::White;
    const INITIAL_ROWS: u32 = 3;
    // Seed 003 table: Italian has neither long kings nor backward capture by men.
    const MAN_CAPTURES: &'static [Direction] = DIAGONAL_FORWARD;
    // Italian rules (issue 2, dctl italian.hpp): "men cannot capture kings".
    const MEN_CAPTURE_KINGS: bool = false;
    const FLYING_KINGS: bool = false;
    const KING_STOPS_BEHIND: bool = false;
    const PROMOTE_MID_CAPTURE: bool = false;
    // Seed 003 table: quantity and quality rules, "Regras de qualidade mais complicadas".
    const PRECEDENCE: Precedence = Precedence::Italian;
    const DRAW: DrawRules = DEFAULT_DRAW;
    const NOTATION: SquareNotation = SquareNotation::Numeric;
    const MIRRORED: bool = true;
}

/// Czech draughts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Czech;

impl Rules for Czech {
    type Geometry = Board8;
    const NAME: &'static str = "czech";
    const SUMMARY: &'static str = "8x8, 12 men each, White first, men capture forwards only, flying kings, \
         a king must capture if it can";
    // protocols.md: `29,W,8,8,A0,0`.
    const GAME_TYPE: &'static str = "29";
    const FIRST_MOVER: Color = Color::White;
    const INITIAL_ROWS: u32 = 3;
    // Seed 003 table: long kings marked, backward capture by men not.
    const MAN_CAPTURES: &'static [Direction] = DIAGONAL_FORWARD;
    const MEN_CAPTURE_KINGS: bool = true;
    const FLYING_KINGS: bool = true;
    const KING_STOPS_BEHIND: bool = false;
    const PROMOTE_MID_CAPTURE: bool = false;
    // Seed 003 table: "Regra de Preferência": "É obrigatório capturar com uma Dama se possível".
    const PRECEDENCE: Precedence = Precedence::KingFirst;
    const DRAW: DrawRules = DEFAULT_DRAW;
    const NOTATION: SquareNotation = SquareNotation::Algebraic;
    const MIRRORED: bool = false;
}

/// American pool checkers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Pool;

impl Rules for Pool {
    type Geometry = Board8;
    const NAME: &'static str = "pool";
    const SUMMARY: &'static str = "8x8, 12 men each, Black first, men capture backwards, flying kings, \
         free choice of capture, promotion only at the end of a move";
    // protocols.md: `23,B,8,8,N1,0`, Black moves first.
    const GAME_TYPE: &'static str = "23";
    const FIRST_MOVER: Color = Color::Black;
    const INITIAL_ROWS: u32 = 3;
    // Pool rules (issue 2): men capture backwards, flying kings, free choice, no promotion mid-capture.
    const MAN_CAPTURES: &'static [Direction] = DIAGONALS;
    const MEN_CAPTURE_KINGS: bool = true;
    const FLYING_KINGS: bool = true;
    const KING_STOPS_BEHIND: bool = false;
    const PROMOTE_MID_CAPTURE: bool = false;
    const PRECEDENCE: Precedence = Precedence::Free;
    const DRAW: DrawRules = DEFAULT_DRAW;
    const NOTATION: SquareNotation = SquareNotation::Numeric;
    const MIRRORED: bool = false;
}

/// Thai draughts (makhos).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Thai;

impl Rules for Thai {
    type Geometry = Board8;
    const NAME: &'static str = "thai";
    const SUMMARY: &'static str = "8x8, 8 men each on two rows, Black first, men capture forwards only, \
         flying kings that land right behind the captured piece, free choice of capture";
    // protocols.md: `31,B,8,8,N2,0`, Black moves first.
    const GAME_TYPE: &'static str = "31";
    const FIRST_MOVER: Color = Color::Black;
    // Seed 003 table: Thai is played with 8 pieces each.
    const INITIAL_ROWS: u32 = 2;
    // Seed 003 table: only long kings are marked for Thai.
    const MAN_CAPTURES: &'static [Direction] = DIAGONAL_FORWARD;
    const MEN_CAPTURE_KINGS: bool = true;
    const FLYING_KINGS: bool = true;
    // Seed 003 table: "A Dama deve saltar para a casa imediatamente a seguir à peça capturada".
    const KING_STOPS_BEHIND: bool = true;
    const PROMOTE_MID_CAPTURE: bool = false;
    const PRECEDENCE: Precedence = Precedence::Free;
    const DRAW: DrawRules = DEFAULT_DRAW;
    const NOTATION: SquareNotation = SquareNotation::Numeric;
    const MIRRORED: bool = false;
}

/// Canadian draughts: the international rules on 12x12 with 30 men each (seed 003 table: long
/// kings, backward capture by men, quantity rule).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Canadian;

impl Rules for Canadian {
    type Geometry = Board12;
    const NAME: &'static str = "canadian";
    const SUMMARY: &'static str = "12x12, 30 men each, White first, international rules: men capture backwards, \
         flying kings, majority capture";
    // protocols.md: `27,W,12,12,N2,0`.
    const GAME_TYPE: &'static str = "27";
    const FIRST_MOVER: Color = International::FIRST_MOVER;
    // Seed 003 table: 30 pieces each, five rows of six.
    const INITIAL_ROWS: u32 = 5;
    const MAN_CAPTURES: &'static [Direction] = International::MAN_CAPTURES;
    const MEN_CAPTURE_KINGS: bool = International::MEN_CAPTURE_KINGS;
    const FLYING_KINGS: bool = International::FLYING_KINGS;
    const KING_STOPS_BEHIND: bool = International::KING_STOPS_BEHIND;
    const PROMOTE_MID_CAPTURE: bool = International::PROMOTE_MID_CAPTURE;
    const PRECEDENCE: Precedence = International::PRECEDENCE;
    const DRAW: DrawRules = International::DRAW;
    const NOTATION: SquareNotation = SquareNotation::Numeric;
    const MIRRORED: bool = false;
}

/// Killer draughts: international rules, except that a king whose last capture takes a king must
/// land right behind it (dctl killer.hpp `is_halt_behind_king`, after mindsports.nl's rules).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Killer;

impl Rules for Killer {
    type Geometry = Board10;
    const NAME: &'static str = "killer";
    const SUMMARY: &'static str =
        "international rules, but a king taking a king last must land right behind it";
    const GAME_TYPE: &'static str = International::GAME_TYPE;
    const FIRST_MOVER: Color = International::FIRST_MOVER;
    const INITIAL_ROWS: u32 = International::INITIAL_ROWS;
    const MAN_CAPTURES: &'static [Direction] = International::MAN_CAPTURES;
    const MEN_CAPTURE_KINGS: bool = International::MEN_CAPTURE_KINGS;
    const FLYING_KINGS: bool = International::FLYING_KINGS;
    const KING_STOPS_BEHIND: bool = International::KING_STOPS_BEHIND;
    const KING_HALTS_BEHIND_KING: bool = true;
    const PROMOTE_MID_CAPTURE: bool = International::PROMOTE_MID_CAPTURE;
    const PRECEDENCE: Precedence = International::PRECEDENCE;
    const DRAW: DrawRules = International::DRAW;
    const NOTATION: SquareNotation = International::NOTATION;
    const MIRRORED: bool = International::MIRRORED;
}

/// Antidraughts (losing draughts): the international move rules; a side with no legal move (no
/// pieces left, or all blocked) wins.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Antidraughts;

impl Rules for Antidraughts {
    type Geometry = Board10;
    const NAME: &'static str = "antidraughts";
    const SUMMARY: &'static str =
        "international move rules; the side that cannot move (no pieces, or blocked) wins";
    const GAME_TYPE: &'static str = International::GAME_TYPE;
    const FIRST_MOVER: Color = International::FIRST_MOVER;
    const INITIAL_ROWS: u32 = International::INITIAL_ROWS;
    const MAN_CAPTURES: &'static [Direction] = International::MAN_CAPTURES;
    const MEN_CAPTURE_KINGS: bool = International::MEN_CAPTURE_KINGS;
    const FLYING_KINGS: bool = International::FLYING_KINGS;
    const KING_STOPS_BEHIND: bool = International::KING_STOPS_BEHIND;
    const PROMOTE_MID_CAPTURE: bool = International::PROMOTE_MID_CAPTURE;
    const PRECEDENCE: Precedence = International::PRECEDENCE;
    // Losing draughts: "a side with no legal move or no pieces wins" (issue 3).
    const LOSING: bool = true;
    const DRAW: DrawRules = International::DRAW;
    const NOTATION: SquareNotation = International::NOTATION;
    const MIRRORED: bool = International::MIRRORED;
}

/// Anti-American checkers (BrainKing's "Anti Damas Anglo-Americanas", seed 003 table): the English
/// move rules; the side that cannot move wins.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct AntiEnglish;

impl Rules for AntiEnglish {
    type Geometry = Board8;
    const NAME: &'static str = "antienglish";
    const SUMMARY: &'static str =
        "English move rules; the side that cannot move (no pieces, or blocked) wins";
    const GAME_TYPE: &'static str = English::GAME_TYPE;
    const FIRST_MOVER: Color = English::FIRST_MOVER;
    const INITIAL_ROWS: u32 = English::INITIAL_ROWS;
    const MAN_CAPTURES: &'static [Direction] = English::MAN_CAPTURES;
    const MEN_CAPTURE_KINGS: bool = English::MEN_CAPTURE_KINGS;
    const FLYING_KINGS: bool = English::FLYING_KINGS;
    const KING_STOPS_BEHIND: bool = English::KING_STOPS_BEHIND;
    const PROMOTE_MID_CAPTURE: bool = English::PROMOTE_MID_CAPTURE;
    const PRECEDENCE: Precedence = English::PRECEDENCE;
    const LOSING: bool = true;
    const DRAW: DrawRules = English::DRAW;
    const NOTATION: SquareNotation = English::NOTATION;
    const MIRRORED: bool = English::MIRRORED;
}

/// Frisian draughts (dctl frisian.hpp, after friesdammen.nl): men and kings also capture along
/// rows and columns; the most valuable capture is compulsory.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Frisian;

impl Rules for Frisian {
    type Geometry = Board10;
    const NAME: &'static str = "frisian";
    const SUMMARY: &'static str = "10x10, 20 men each, White first, men and kings also capture orthogonally, \
         flying kings, most valuable capture (a king worth less than two men), \
         at most three king moves in a row with the same king";
    // protocols.md: `40,W,10,10,N2,0`.
    const GAME_TYPE: &'static str = "40";
    const FIRST_MOVER: Color = Color::White;
    const INITIAL_ROWS: u32 = 4;
    // Frisian rules: men move diagonally forward, but capture diagonally and orthogonally, forwards
    // and backwards (the orthogonal neighbour is two squares along the row or column).
    const MAN_CAPTURES: &'static [Direction] = EVERY_DIRECTION;
    const KING_MOVES: &'static [Direction] = DIAGONALS;
    const KING_CAPTURES: &'static [Direction] = EVERY_DIRECTION;
    const MEN_CAPTURE_KINGS: bool = true;
    const FLYING_KINGS: bool = true;
    const KING_STOPS_BEHIND: bool = false;
    const PROMOTE_MID_CAPTURE: bool = false;
    // dctl frisian.hpp: value (pieces + kings) * N - kings, then a capture by a king.
    const PRECEDENCE: Precedence = Precedence::Frisian;
    // dctl frisian.hpp `max_same_king_move = 3` (mindsports.nl: not "more than three times in
    // succession with the same king", not for a player who has only kings).
    const MAX_SAME_KING_MOVES: u32 = 3;
    // lidraughts Frisian: two kings against one king, 7 moves each; one king against one, 2 moves
    // each. Threefold repetition and the 40-move king rule are kept as for every variant, so that
    // games always end.
    const DRAW: DrawRules = DrawRules {
        repetitions: 3,
        king_move_plies: 80,
        endgames: &[
            EndgameRule {
                strong_pieces: (2, 2),
                strong_min_kings: 2,
                moves: 7,
            },
            EndgameRule {
                strong_pieces: (1, 1),
                strong_min_kings: 1,
                moves: 2,
            },
        ],
    };
    const NOTATION: SquareNotation = SquareNotation::Numeric;
    const MIRRORED: bool = false;
}

/// Frysk!: Frisian rules with five men each, on the back rows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Frysk;

impl Rules for Frysk {
    type Geometry = Board10;
    const NAME: &'static str = "frysk";
    const SUMMARY: &'static str = "Frisian rules with five men each on the back rows";
    const GAME_TYPE: &'static str = Frisian::GAME_TYPE;
    const FIRST_MOVER: Color = Frisian::FIRST_MOVER;
    // Frysk! (lidraughts): "only five men per side on the back rows".
    const INITIAL_ROWS: u32 = 1;
    const MAN_CAPTURES: &'static [Direction] = Frisian::MAN_CAPTURES;
    const KING_MOVES: &'static [Direction] = Frisian::KING_MOVES;
    const KING_CAPTURES: &'static [Direction] = Frisian::KING_CAPTURES;
    const MEN_CAPTURE_KINGS: bool = Frisian::MEN_CAPTURE_KINGS;
    const FLYING_KINGS: bool = Frisian::FLYING_KINGS;
    const KING_STOPS_BEHIND: bool = Frisian::KING_STOPS_BEHIND;
    const PROMOTE_MID_CAPTURE: bool = Frisian::PROMOTE_MID_CAPTURE;
    const PRECEDENCE: Precedence = Frisian::PRECEDENCE;
    const MAX_SAME_KING_MOVES: u32 = Frisian::MAX_SAME_KING_MOVES;
    const DRAW: DrawRules = Frisian::DRAW;
    const NOTATION: SquareNotation = Frisian::NOTATION;
    const MIRRORED: bool = Frisian::MIRRORED;
}

/// Turkish draughts (dama): every square of an 8x8 board, men and kings move orthogonally.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Turkish;

impl Rules for Turkish {
    type Geometry = Orthogonal8;
    const NAME: &'static str = "turkish";
    const SUMMARY: &'static str = "8x8 all squares, 16 men each on rows 2-3, White first, men move and capture \
         forwards and sideways, flying orthogonal kings, pieces removed as they are taken, \
         majority capture";
    // protocols.md: `30,W,8,8,A0,0`.
    const GAME_TYPE: &'static str = "30";
    const FIRST_MOVER: Color = Color::White;
    // Seed 003 table: 16 pieces each; they stand on the second and third rows (perft.md).
    const INITIAL_ROWS: u32 = 2;
    const EMPTY_BACK_ROWS: u32 = 1;
    const MAN_MOVES: &'static [Direction] = TURKISH_MAN;
    const MAN_CAPTURES: &'static [Direction] = TURKISH_MAN;
    const KING_MOVES: &'static [Direction] = ORTHOGONALS;
    const KING_CAPTURES: &'static [Direction] = ORTHOGONALS;
    const MEN_CAPTURE_KINGS: bool = true;
    // Seed 003 table: "Damas com movimentos longos" is marked for Turkish.
    const FLYING_KINGS: bool = true;
    const KING_STOPS_BEHIND: bool = false;
    const PROMOTE_MID_CAPTURE: bool = TURKISH_PROMOTE_MID_CAPTURE;
    // Turkish rules: each captured piece leaves the board at once, and a king may not turn back
    // 180 degrees between two captures.
    const REMOVE_WHILE_CAPTURING: bool = true;
    const NO_REVERSE_IN_CAPTURE: bool = true;
    // Seed 003 table: the quantity rule is marked for Turkish.
    const PRECEDENCE: Precedence = Precedence::Quantity;
    const DRAW: DrawRules = DEFAULT_DRAW;
    const NOTATION: SquareNotation = SquareNotation::Algebraic;
    const MIRRORED: bool = false;
}

/// Turkish men step forwards or sideways, never backwards.
const TURKISH_MAN: &[Direction] = &[Direction::Up, Direction::Left, Direction::Right];

/// Whether a Turkish man reaching the last row mid-capture goes on as a king. The rule texts
/// disagree (Wikipedia: promoted "at the end of the move"; some pages let it continue); both
/// published implementations (kish actiongen.rs, pydraughts board.py) keep capturing as a man and
/// promote at the end, and so do we. It rarely matters: having arrived going forwards, a king could
/// only go on sideways.
const TURKISH_PROMOTE_MID_CAPTURE: bool = false;
