//! The variants, as constant data. Each rule cites the text it encodes; seeds are the rule texts in
//! `shared/seeds/` (000 and 002: international, 001: Spanish, 003: the BrainKing table, 004: Russian),
//! and "perft.md" is the published perft table the variant is tested against.
//!
//! A variant is one [`RuleSet`] constant. A root variant starts from [`RuleSet::new`] (the common
//! rules, see there) and states the rules that make it; a derived variant starts from its base's
//! rules under a new name and states only what differs.
//!
//! Draw rules: the seeds give them for international, Russian and Spanish. The other variants take
//! [`crate::variant::DEFAULT_DRAW`] (threefold repetition plus 40 moves each of kings only without
//! a capture), the common tournament form, applied automatically so that self-play games always
//! end.

use crate::color::Color;
use crate::geometry::{Board8, Board10, Board12, Direction, Full8, Lines5};
use crate::variant::{
    CapRule, DEFAULT_DRAW, DIAGONAL_BACKWARD, DIAGONALS, DrawRules, EVERY_DIRECTION, EndgameRule,
    FORWARD_AND_SIDEWAYS, FORWARD_THREE, ORTHOGONALS, Parachutists, Placement, Precedence,
    Promotion, Removal, RuleSet, Rules, SquareNotation, Start, Turns,
};

/// Declares a variant: a zero-sized type, its board and its rules.
macro_rules! variant {
    ($(#[$doc:meta])* $name:ident on $geometry:ty = $rules:expr) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct $name;

        impl Rules for $name {
            type Geometry = $geometry;
            const RULES: RuleSet = $rules;
        }
    };
}

variant! {
    /// FMJD international draughts on 10x10.
    International on Board10 = RuleSet {
        // Hub protocol (shared/reference/protocols.md): `param name=variant value=normal`.
        hub_name: Some("normal"),
        // Seed 002: "O jogador com as peças brancas move-se primeiro."
        first_mover: Color::White,
        // Seed 000: pieces on "as quatro primeiras linhas mais próximas de cada jogador".
        start: Start::Rows { rows: 4, empty_back_rows: 0 },
        // Seed 002: "A captura pode ir para a frente ou para trás".
        man_captures: DIAGONALS,
        // Seed 002: "Uma dama vale uma peça, assim como uma pedra" (men take kings like men).
        men_capture_kings: true,
        // Seed 002: "A dama anda qualquer distância por uma diagonal livre"; she "pode pousar em
        // qualquer casa livre adiante".
        flying_kings: true,
        // Seed 002, "11x13": a man touching the last row mid-capture "ainda é pedra quando o
        // lance termina".
        promote_mid_capture: false,
        // Seed 002: "você precisa escolher uma que tome o maior número de peças ... a escolha é
        // livre".
        precedence: Precedence::Quantity,
        // Seed 002, FMJD Annex 1: repetition, 25 king moves each, and the endings below.
        draw: DrawRules {
            king_move_plies: 50,
            endgames: &FMJD_ENDGAMES,
            ..DEFAULT_DRAW
        },
        // Seed 000: "os 50 quadrados escuros, numerados de 1 a 50".
        notation: SquareNotation::Numeric,
        ..RuleSet::new(
            "international",
            "10x10, 20 men each, White first, men capture backwards, flying kings, \
             majority capture, promotion only at the end of a move",
            "20",
        )
    }
}

/// The endings FMJD Annex 1 draws after a number of moves (seed 002).
const FMJD_ENDGAMES: [EndgameRule; 3] = [
    // "Três damas, duas damas e uma pedra, ou uma dama e duas pedras contra uma dama": 16 moves.
    EndgameRule::new((3, 3), 1, 16),
    // "Duas damas, dama e pedra, ou uma dama contra uma dama": 5 moves.
    EndgameRule::new((1, 2), 1, 5),
    // "Quando a dama solitária passa a ser a única peça na grande diagonal, da casa 46 à casa 5,
    // restam no máximo mais cinco lances de cada lado" ("esta é a leitura que o site faz", and
    // ours): in the 16-move endings, from the first position where the lone king is the only
    // piece on the long diagonal, "mesmo que a dama saia da diagonal depois".
    EndgameRule::new((3, 3), 1, 5).when(Placement::LoneKingAloneOnLongDiagonal),
];

variant! {
    /// Brazilian draughts: the international rules on 8x8 (seed 003: long kings, backward
    /// capture, quantity rule; seed 002: "As regras de captura e coroação são as mesmas das damas
    /// brasileiras"), written algebraically.
    Brazilian on Board8 = RuleSet {
        start: Start::Rows { rows: 3, empty_back_rows: 0 },
        // protocols.md: Brazilian PDN uses algebraic squares (GameType 26, A0).
        notation: SquareNotation::Algebraic,
        game_type: "26",
        ..International::RULES.named(
            "brazilian",
            "8x8, 12 men each, White first, international rules: men capture backwards, \
             flying kings, majority capture, promotion only at the end of a move",
        )
    }
}

variant! {
    /// Russian draughts (shashki), seed 004.
    Russian on Board8 = RuleSet {
        // Seed 004: "O jogador com as peças brancas faz o primeiro movimento."
        first_mover: Color::White,
        // Seed 004: "12 peças nas três linhas mais próximas do seu lado".
        start: Start::Rows { rows: 3, empty_back_rows: 0 },
        // Seed 003 table: "Pedras podem capturar para trás" is marked for Russian.
        man_captures: DIAGONALS,
        // Seed 004: the king "é livre para parar em qualquer quadrado livre ao longo da diagonal".
        flying_kings: true,
        // Seed 004: "Se uma peça atinge a fileira das rainhas durante uma captura e pode continuar
        // a capturar, ela salta para trás como uma rainha."
        promote_mid_capture: true,
        // Seed 004: "o jogador pode escolher qual sequência seguir, não necessariamente aquela que
        // resulta no maior número de capturas".
        precedence: Precedence::Free,
        // Seed 004: threefold repetition; 15 moves of kings only by both players; three kings or
        // more against a lone king not won by the 15th move.
        draw: DrawRules {
            king_move_plies: 30,
            endgames: &[EndgameRule::new((3, 12), 3, 15)],
            ..DEFAULT_DRAW
        },
        // Seed 004: "As colunas verticais são rotuladas de A a H, e as linhas ... de 1 a 8."
        notation: SquareNotation::Algebraic,
        ..RuleSet::new(
            "russian",
            "8x8, 12 men each, White first, men capture backwards, flying kings, \
             free choice of capture, a man promoted mid-capture goes on as a king",
            "25",
        )
    }
}

variant! {
    /// English draughts / American checkers.
    English on Board8 = RuleSet {
        // protocols.md: GameType `21,B,8,8,N1,0`, Black moves first.
        first_mover: Color::Black,
        // Seed 003 table: neither long kings nor backward capture by men for "Anglo-Americanas",
        // and no quantity, quality or preference rule (the defaults).
        ..RuleSet::new(
            "english",
            "8x8, 12 men each, Black first, men capture forwards only, short kings, \
             free choice of capture",
            "21",
        )
    }
}

variant! {
    /// Spanish draughts, seed 001.
    Spanish on Board8 = RuleSet {
        // Seed 001: "O jogador com as peças brancas começa o jogo."
        first_mover: Color::White,
        // Seed 001: "12 peças ... nas três linhas mais baixas".
        start: Start::Rows { rows: 3, empty_back_rows: 0 },
        // Seed 001: men "não podem se mover para trás"; seed 003 table leaves backward capture
        // unmarked (the default: forwards only).
        // Seed 001: kings "podem se mover pulando sobre vários quadrados vazios".
        flying_kings: true,
        // Seed 001: "Regra da quantidade" then "Regra de qualidade" (most kings).
        precedence: Precedence::QuantityThenKings,
        // Seed 001: third repetition; 40 successive king moves without capture; "três rainhas,
        // uma delas na diagonal principal (8 quadrados), contra uma única rainha, e não consegue
        // vencer em 13 movimentos": counted from the first position with one of the three on the
        // main diagonal.
        draw: DrawRules {
            king_move_plies: 40,
            endgames: &[EndgameRule::new((3, 3), 3, 13).when(Placement::StrongKingOnLongDiagonal)],
            ..DEFAULT_DRAW
        },
        // Seed 001: played on the light squares, so the diagram is mirrored.
        mirrored: true,
        ..RuleSet::new(
            "spanish",
            "8x8 mirrored board, 12 men each, White first, men capture forwards only, \
             flying kings, most pieces then most kings",
            // protocols.md: `24,W,8,8,N1,1` (inverted board).
            "24",
        )
    }
}

variant! {
    /// Portuguese draughts: the Spanish rules (seed 003 table: long kings, quantity and quality
    /// rules).
    Portuguese on Board8 = RuleSet {
        // protocols.md: `28,W,8,8,N1,1`.
        game_type: "28",
        ..Spanish::RULES.named("portuguese", Spanish::RULES.summary)
    }
}

variant! {
    /// Italian draughts.
    Italian on Board8 = RuleSet {
        // Seed 003 table: Italian has neither long kings nor backward capture by men (defaults).
        // Italian rules (issue 2, dctl italian.hpp): "men cannot capture kings".
        men_capture_kings: false,
        // Seed 003 table: quantity and quality rules, "Regras de qualidade mais complicadas".
        precedence: Precedence::Italian,
        mirrored: true,
        ..RuleSet::new(
            "italian",
            "8x8 mirrored board, 12 men each, White first, men capture forwards only and \
             never kings, short kings, most pieces, then with a king, then most kings, then kings \
             first",
            // protocols.md: `22,W,8,8,N2,1`.
            "22",
        )
    }
}

variant! {
    /// Czech draughts.
    Czech on Board8 = RuleSet {
        // Seed 003 table: long kings marked, backward capture by men not.
        flying_kings: true,
        // Seed 003 table: "Regra de Preferência": "É obrigatório capturar com uma Dama se
        // possível".
        precedence: Precedence::KingFirst,
        notation: SquareNotation::Algebraic,
        ..RuleSet::new(
            "czech",
            "8x8, 12 men each, White first, men capture forwards only, flying kings, \
             a king must capture if it can",
            // protocols.md: `29,W,8,8,A0,0`.
            "29",
        )
    }
}

variant! {
    /// American pool checkers.
    Pool on Board8 = RuleSet {
        // protocols.md: `23,B,8,8,N1,0`, Black moves first.
        first_mover: Color::Black,
        // Pool rules (issue 2): men capture backwards, flying kings, free choice, no promotion
        // mid-capture.
        man_captures: DIAGONALS,
        flying_kings: true,
        precedence: Precedence::Free,
        ..RuleSet::new(
            "pool",
            "8x8, 12 men each, Black first, men capture backwards, flying kings, \
             free choice of capture, promotion only at the end of a move",
            "23",
        )
    }
}

variant! {
    /// Thai draughts (makhos).
    Thai on Board8 = RuleSet {
        // protocols.md: `31,B,8,8,N2,0`, Black moves first.
        first_mover: Color::Black,
        // Seed 003 table: Thai is played with 8 pieces each.
        start: Start::Rows { rows: 2, empty_back_rows: 0 },
        // Seed 003 table: only long kings are marked for Thai.
        flying_kings: true,
        // Seed 003 table: "A Dama deve saltar para a casa imediatamente a seguir à peça
        // capturada".
        king_stops_behind: true,
        ..RuleSet::new(
            "thai",
            "8x8, 8 men each on two rows, Black first, men capture forwards only, \
             flying kings that land right behind the captured piece, free choice of capture",
            "31",
        )
    }
}

variant! {
    /// Canadian draughts: the international rules on 12x12 with 30 men each (seed 003 table: long
    /// kings, backward capture by men, quantity rule).
    Canadian on Board12 = RuleSet {
        // Seed 003 table: 30 pieces each, five rows of six.
        start: Start::Rows { rows: 5, empty_back_rows: 0 },
        // protocols.md: `27,W,12,12,N2,0`.
        game_type: "27",
        ..International::RULES.named(
            "canadian",
            "12x12, 30 men each, White first, international rules: men capture backwards, \
             flying kings, majority capture",
        )
    }
}

variant! {
    /// Killer draughts: international rules, except that a king whose last capture takes a king
    /// must land right behind it (dctl killer.hpp `is_halt_behind_king`, after mindsports.nl's
    /// rules).
    Killer on Board10 = RuleSet {
        king_halts_behind_king: true,
        ..International::RULES.named(
            "killer",
            "international rules, but a king taking a king last must land right behind it",
        )
    }
}

variant! {
    /// Antidraughts (losing draughts): the international move rules; a side with no legal move
    /// (no pieces left, or all blocked) wins.
    Antidraughts on Board10 = RuleSet {
        // Losing draughts: "a side with no legal move or no pieces wins" (issue 3).
        losing: true,
        // Hub protocol (shared/reference/protocols.md): the variant values include `losing`.
        hub_name: Some("losing"),
        ..International::RULES.named(
            "antidraughts",
            "international move rules; the side that cannot move (no pieces, or blocked) wins",
        )
    }
}

variant! {
    /// Anti-American checkers (BrainKing's "Anti Damas Anglo-Americanas", seed 003 table): the
    /// English move rules; the side that cannot move wins.
    AntiEnglish on Board8 = RuleSet {
        losing: true,
        ..English::RULES.named(
            "antienglish",
            "English move rules; the side that cannot move (no pieces, or blocked) wins",
        )
    }
}

variant! {
    /// Frisian draughts (dctl frisian.hpp, after friesdammen.nl): men and kings also capture along
    /// rows and columns; the most valuable capture is compulsory.
    Frisian on Board10 = RuleSet {
        start: Start::Rows { rows: 4, empty_back_rows: 0 },
        // Frisian rules: men move diagonally forward, but capture diagonally and orthogonally,
        // forwards and backwards (the orthogonal neighbour is two squares along the row or
        // column).
        man_captures: EVERY_DIRECTION,
        king_captures: EVERY_DIRECTION,
        flying_kings: true,
        // dctl frisian.hpp: value (pieces + kings) * N - kings, then a capture by a king.
        precedence: Precedence::Frisian,
        // dctl frisian.hpp `max_same_king_move = 3` (mindsports.nl: not "more than three times in
        // succession with the same king", not for a player who has only kings).
        max_same_king_moves: 3,
        // lidraughts Frisian: two kings against one king, 7 moves each; one king against one, 2
        // moves each. Threefold repetition and the 40-move king rule are kept as for every
        // variant, so that games always end.
        draw: DrawRules {
            endgames: &[
                EndgameRule::new((2, 2), 2, 7),
                EndgameRule::new((1, 1), 1, 2),
            ],
            ..DEFAULT_DRAW
        },
        ..RuleSet::new(
            "frisian",
            "10x10, 20 men each, White first, men and kings also capture orthogonally, \
             flying kings, most valuable capture (a king worth less than two men), \
             at most three king moves in a row with the same king",
            // protocols.md: `40,W,10,10,N2,0`.
            "40",
        )
    }
}

variant! {
    /// Frysk!: Frisian rules with five men each, on the back rows.
    Frysk on Board10 = RuleSet {
        // Frysk! (lidraughts): "only five men per side on the back rows".
        start: Start::Rows { rows: 1, empty_back_rows: 0 },
        ..Frisian::RULES.named("frysk", "Frisian rules with five men each on the back rows")
    }
}

variant! {
    /// Turkish draughts (dama): every square of an 8x8 board, men and kings move orthogonally.
    Turkish on Full8 = RuleSet {
        // Seed 003 table: 16 pieces each; they stand on the second and third rows (perft.md).
        start: Start::Rows { rows: 2, empty_back_rows: 1 },
        man_moves: TURKISH_MAN,
        man_captures: TURKISH_MAN,
        king_moves: ORTHOGONALS,
        king_captures: ORTHOGONALS,
        // Seed 003 table: "Damas com movimentos longos" is marked for Turkish.
        flying_kings: true,
        promote_mid_capture: TURKISH_PROMOTE_MID_CAPTURE,
        // Turkish rules: each captured piece leaves the board at once, and a king may not turn
        // back 180 degrees between two captures.
        remove_while_capturing: true,
        capture_turns: Turns::NotBack,
        // Seed 003 table: the quantity rule is marked for Turkish.
        precedence: Precedence::Quantity,
        notation: SquareNotation::Algebraic,
        ..RuleSet::new(
            "turkish",
            "8x8 all squares, 16 men each on rows 2-3, White first, men move and capture \
             forwards and sideways, flying orthogonal kings, pieces removed as they are taken, \
             majority capture",
            // protocols.md: `30,W,8,8,A0,0`.
            "30",
        )
    }
}

/// Turkish men step forwards or sideways, never backwards.
const TURKISH_MAN: &[Direction] = &[Direction::Up, Direction::Left, Direction::Right];

/// Whether a Turkish man reaching the last row mid-capture goes on as a king. The rule texts
/// disagree (Wikipedia: promoted "at the end of the move"; some pages let it continue); both
/// published implementations (kish actiongen.rs, pydraughts board.py) keep capturing as a man and
/// promote at the end, and so do we. It rarely matters: having arrived going forwards, a king could
/// only go on sideways.
const TURKISH_PROMOTE_MID_CAPTURE: bool = false;

// The rest of seed 003's table (BrainKing, brainking.com/en/GameRules?tp=N), collected cell by
// cell in shared/reference/brainking-variants.md. BrainKing's pages do not say who moves first;
// White does unless a page says otherwise, as in the project's Czech variant. No FMJD GameType
// exists for these games: the PDN tag names the variant.

variant! {
    /// Corner checkers (tp=30): Czech rules in full, except promotion: "A pawn can promote to a
    /// queen only if it reaches one of two fields at the top-left board corner (from each
    /// player's point of view)": a7 or b8 for White, g1 or h2 for Black. A man on the last row
    /// elsewhere stays a man. The start, two triangles either side of the empty long diagonal, is
    /// that of two public implementations (piecepackr/ppdf's corner checkers and another engine).
    Corner on Board8 = RuleSet {
        promotion: Promotion::Squares("a7, b8"),
        start: Start::Diagram(
            "-b-b-b-.
             b-b-b-.-
             -b-b-.-w
             b-b-.-w-
             -b-.-w-w
             b-.-w-w-
             -.-w-w-w
             .-w-w-w-",
        ),
        game_type: "corner",
        ..Czech::RULES.named(
            "corner",
            "Czech rules, but men promote only on the two far corner squares on their left \
             (a7, b8 for White; h2, g1 for Black); the sides start in two triangles",
        )
    }
}

variant! {
    /// One-way checkers (tp=31): "Another variant of Czech checkers ... all pawns (black and
    /// white) move in the same direction and both players see the board oriented the same way":
    /// men of both sides step and capture towards rank 8 and promote there. The start is not
    /// written on BrainKing's page; this is ppdf's (White on files a-d, Black on e-h, ranks 1-6).
    /// Another engine swaps the colours, but then White's only first move would be a forced
    /// capture, so ppdf's is the likelier (unconfirmed; see the test naming it).
    OneWay on Board8 = RuleSet {
        one_way: true,
        start: Start::Diagram(
            "-.-.-.-.
             .-.-.-.-
             -w-w-b-b
             w-w-b-b-
             -w-w-b-b
             w-w-b-b-
             -w-w-b-b
             w-w-b-b-",
        ),
        game_type: "oneway",
        ..Czech::RULES.named(
            "oneway",
            "Czech rules, but the men of both sides move and capture up the board (towards \
             rank 8) and promote there; White on files a-d, Black on e-h",
        )
    }
}

variant! {
    /// Parachute checkers (tp=32): "Each player starts a game with eight pawns and four
    /// parachutists located on the opponent's first row ... the only valid move of a parachutist
    /// is to capture a piece at seventh (white parachutist) or second (black parachutist) row.
    /// After the jump the parachutist must land directly behind the captured piece (like a king
    /// in normal checkers) and immediately turns to a pawn." Everything else is Czech. Its capture
    /// is compulsory like any other, and "parachutists have no capture preference" (seed 003
    /// table): the Czech rule that a king must capture when it can does not favour them. Whether
    /// the new man goes on capturing is not stated; it does (as a Czech man, forwards), the
    /// reading that fits "immediately turns to a pawn" plus Czech rules (see the test naming it).
    Parachute on Board8 = RuleSet {
        parachutists: Some(Parachutists { captures: DIAGONAL_BACKWARD }),
        start: Start::Diagram(
            "-p-p-p-p
             b-b-b-b-
             -b-b-b-b
             .-.-.-.-
             -.-.-.-.
             w-w-w-w-
             -w-w-w-w
             q-q-q-q-",
        ),
        game_type: "parachute",
        ..Czech::RULES.named(
            "parachute",
            "Czech rules, 8 men and 4 parachutists each; a parachutist stands on the opponent's \
             back row, moves only by capturing the piece in front of it and lands as a man",
        )
    }
}

variant! {
    /// Gothic checkers (tp=35): "Pieces are placed on both dark and light fields ... A pawn can
    /// move (and jump) in five directions: the standard Checkers diagonally-forward moves are
    /// extended by horizontally-left, horizontally-right and directly forward moves. When a pawn
    /// reaches the last row, it turns to a king that can move (and jump) one space in any
    /// direction ... The other rules are the same as for Checkers": captures compulsory, any
    /// sequence may be chosen, a multiple capture is completed, reaching the last row ends the
    /// move. White on ranks 1-2, Black on ranks 7-8. BrainKing's rules, not the old German game's.
    Gothic on Full8 = RuleSet {
        start: Start::Rows { rows: 2, empty_back_rows: 0 },
        man_moves: FORWARD_AND_SIDEWAYS,
        man_captures: FORWARD_AND_SIDEWAYS,
        king_moves: EVERY_DIRECTION,
        king_captures: EVERY_DIRECTION,
        flying_kings: false,
        crowning_ends_capture: true,
        precedence: Precedence::Free,
        notation: SquareNotation::Algebraic,
        ..RuleSet::new(
            "gothic",
            "8x8 all squares, 16 men each, men move and capture forwards, diagonally forwards \
             and sideways, kings one square in any direction, free choice of capture, crowning \
             ends the move",
            "gothic",
        )
    }
}

variant! {
    /// Alquerque (tp=53) on the points of the 5x5 board of lines: "Pawns can move only one space
    /// up, diagonally forward or horizontally, they cannot move backward", along the lines.
    /// "Jumping is mandatory"; the first jump must go in a direction the man may move in, "the
    /// second and next jumps can be done in any direction, even backward"; any sequence may be
    /// chosen, and it goes on while it can, as in checkers (see the test naming it). No promotion:
    /// "if a pawn reaches the last row, it cannot make any more moves (unless it can jump)".
    /// BrainKing gives no draw rule, yet men can step sideways for ever: threefold repetition (a
    /// sideways step can be undone, so a repetition may span it) and 40 moves each without a
    /// capture, the project's king-move limit applied to every move since there are no kings.
    Alquerque on Lines5 = RuleSet {
        start: Start::Diagram(
            "bbbbb
             bbbbb
             bb.ww
             wwwww
             wwwww",
        ),
        man_moves: FORWARD_AND_SIDEWAYS,
        man_captures: FORWARD_AND_SIDEWAYS,
        man_later_captures: Some(EVERY_DIRECTION),
        men_rest_on_last_row: true,
        promotion: Promotion::Never,
        precedence: Precedence::Free,
        draw: DrawRules {
            no_capture_plies: 80,
            ..DEFAULT_DRAW
        },
        notation: SquareNotation::Algebraic,
        ..RuleSet::new(
            "alquerque",
            "5x5 points joined by lines, 12 men each, men step forwards, diagonally forwards \
             (where lines run) and sideways, jumps compulsory, later jumps in any direction, \
             no promotion",
            "alquerque",
        )
    }
}

variant! {
    /// Hawaiian checkers (tp=94), that is Konane: "Each player has 32 pieces ... white pieces on
    /// black squares and black pieces on white squares". "Black player starts ... must remove a
    /// piece ... on the longest diagonal (A8 to H1) ... corner piece (A8 or H1) or a central one
    /// (D5 or E4). White player follows by removing a piece which is orthogonally adjacent to the
    /// empty square." Then every move is an orthogonal jump over an adjacent enemy piece onto the
    /// empty square behind it; "the multiple captures are not mandatory ... a multiple jump must
    /// be done in a horizontal or vertical line, it is not allowed to change the direction"
    /// (each stop is a move of its own). No promotion; the side that cannot move loses, and since
    /// every move takes a piece the game always ends: no draw rule.
    Hawaiian on Full8 = RuleSet {
        first_mover: Color::Black,
        start: Start::Diagram(
            "bwbwbwbw
             wbwbwbwb
             bwbwbwbw
             wbwbwbwb
             bwbwbwbw
             wbwbwbwb
             bwbwbwbw
             wbwbwbwb",
        ),
        opening: &[Removal::OnSquares("a8, h1, d5, e4"), Removal::NextToEmpty(ORTHOGONALS)],
        man_moves: &[],
        man_captures: ORTHOGONALS,
        capture_turns: Turns::Straight,
        captures_may_stop: true,
        promotion: Promotion::Never,
        precedence: Precedence::Free,
        draw: DrawRules {
            repetitions: 0,
            king_move_plies: 0,
            endgames: &[],
            no_capture_plies: 0,
        },
        notation: SquareNotation::Algebraic,
        ..RuleSet::new(
            "hawaiian",
            "Konane: the full 8x8 board, two opening removals, then orthogonal jumps only; a \
             multiple jump keeps its line and may stop after any jump; no promotion",
            "hawaiian",
        )
    }
}

variant! {
    /// Dameo (tp=123; rules by Christian Freeling, mindsports.net): all 64 squares, 18 men each
    /// in a pyramid (PlayStrategy's FEN). Men move one square forward or diagonally forward, or
    /// make the linear move: along an unbroken line of their own men in one of those directions
    /// to the first empty square beyond it (kings do not count as part of a line; any man of the
    /// line may move, the published 52 opening moves count them all). Kings move like chess
    /// queens. Captures are orthogonal only: men jump an adjacent piece forwards, backwards or
    /// sideways, kings fly along ranks and files; the most pieces must be taken, kings counting
    /// as men; jumped pieces stay until the move ends; a man crossing the last row during a
    /// capture goes on as a man. Draws as PlayStrategy: threefold repetition, 25 king moves each
    /// without a capture, and 4 moves each in king against king.
    Dameo on Full8 = RuleSet {
        start: Start::Diagram(
            "bbbbbbbb
             .bbbbbb.
             ..bbbb..
             ........
             ........
             ..wwww..
             .wwwwww.
             wwwwwwww",
        ),
        man_moves: FORWARD_THREE,
        men_move_along_lines: true,
        man_captures: ORTHOGONALS,
        king_moves: EVERY_DIRECTION,
        king_captures: ORTHOGONALS,
        flying_kings: true,
        promote_mid_capture: false,
        precedence: Precedence::Quantity,
        draw: DrawRules {
            king_move_plies: 50,
            endgames: &[EndgameRule::new((1, 1), 1, 4)],
            ..DEFAULT_DRAW
        },
        notation: SquareNotation::Algebraic,
        ..RuleSet::new(
            "dameo",
            "8x8 all squares, 18 men each, men step forwards or diagonally forwards or along a \
             line of their own men, queen-like kings, orthogonal captures only (flying for \
             kings), majority capture",
            "dameo",
        )
    }
}

variant! {
    /// International draughts with the site's own rules of seed 000, on top of the FMJD rules:
    /// "Um final de jogo com uma rainha contra outra rainha é automaticamente declarado um
    /// empate" (one king against one king is a draw at once), and a game stopped before its end
    /// (by a move cap, applied by the caller) goes to "o jogador com mais peças. Em caso de empate
    /// no número de peças, a vencedora será a que tiver mais rainhas", else a draw. Seed 000's
    /// tournament rules (25 king moves, the 16-move endings) are the FMJD ones, kept.
    InternationalSite on Board10 = RuleSet {
        draw: DrawRules {
            endgames: &[
                EndgameRule::new((1, 1), 1, 0),
                FMJD_ENDGAMES[0],
                FMJD_ENDGAMES[1],
                FMJD_ENDGAMES[2],
            ],
            ..International::RULES.draw
        },
        at_move_cap: CapRule::Material,
        ..International::RULES.named(
            "international-site",
            "international draughts with seed 000's site rules: king against king is a draw at \
             once, a game stopped by the move cap goes to more pieces, then more kings",
        )
    }
}
