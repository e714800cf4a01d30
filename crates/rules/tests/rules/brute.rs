//! A second move generator for the variants that have no published perft table, written again
//! from the rule texts (shared/reference/brainking-variants.md) as plainly as possible: a board is
//! an array of cells addressed by (file, rank), every square and every direction is tried, nothing
//! is a bitboard and nothing is read from the rules crate's variant data. Its perft counts from its
//! own start positions and its move lists along random games must equal the rules crate's.
//!
//! The deep counts (depth 6) take minutes and are `#[ignore]`d: run them with
//! `cargo test -p damas-rules --release -- --ignored brute`.

use damas_rules::notation::algebraic_name;
use damas_rules::{
    Duplicates, Game, Geometry, Kind, MoveList, Position, Rules, Variant, VariantVisitor,
    legal_moves, perft,
};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Side {
    White,
    Black,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Piece {
    Man,
    King,
    Parachutist,
}

/// Which points play and where diagonal lines run.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Lines {
    /// Dark squares only (a1 dark), diagonals everywhere.
    Dark,
    /// Every square, diagonals everywhere.
    All,
    /// Every point, diagonals only through points with file + rank even (a1, c1, b2, ...).
    Alquerque,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Choice {
    Free,
    KingFirst,
    Most,
}

type Cell = Option<(Side, Piece)>;
type Step = (i32, i32);
type Point = (i32, i32);

/// One variant's rules, from the rule text. Steps are (files, ranks) as White sees them.
struct Spec {
    variant: Variant,
    size: i32,
    lines: Lines,
    first: Side,
    start: fn(i32, i32) -> Cell,
    man_steps: &'static [Step],
    men_run_along_lines: bool,
    men_rest_on_last_row: bool,
    one_way: bool,
    man_jumps: &'static [Step],
    man_later_jumps: &'static [Step],
    king_steps: &'static [Step],
    king_jumps: &'static [Step],
    flying: bool,
    parachutist_jumps: &'static [Step],
    crowns: fn(Side, i32, i32) -> bool,
    crowning_ends: bool,
    may_stop: bool,
    straight: bool,
    choice: Choice,
    konane_opening: bool,
}

const UP: Step = (0, 1);
const DOWN: Step = (0, -1);
const LEFT: Step = (-1, 0);
const RIGHT: Step = (1, 0);
const UP_LEFT: Step = (-1, 1);
const UP_RIGHT: Step = (1, 1);
const DOWN_LEFT: Step = (-1, -1);
const DOWN_RIGHT: Step = (1, -1);
const DIAGONAL: &[Step] = &[UP_LEFT, UP_RIGHT, DOWN_LEFT, DOWN_RIGHT];
const ORTHOGONAL: &[Step] = &[UP, DOWN, LEFT, RIGHT];
const EIGHT: &[Step] = &[
    UP, DOWN, LEFT, RIGHT, UP_LEFT, UP_RIGHT, DOWN_LEFT, DOWN_RIGHT,
];
const FORWARD_DIAGONALS: &[Step] = &[UP_LEFT, UP_RIGHT];
const FIVE: &[Step] = &[UP, UP_LEFT, UP_RIGHT, LEFT, RIGHT];

fn dark(x: i32, y: i32) -> bool {
    (x + y) % 2 == 0
}

/// Czech rules: men step and take diagonally forwards, flying kings, a king must take if it can.
const CZECH: Spec = Spec {
    variant: Variant::Czech,
    size: 8,
    lines: Lines::Dark,
    first: Side::White,
    start: |_, _| None,
    man_steps: FORWARD_DIAGONALS,
    men_run_along_lines: false,
    men_rest_on_last_row: false,
    one_way: false,
    man_jumps: FORWARD_DIAGONALS,
    man_later_jumps: FORWARD_DIAGONALS,
    king_steps: DIAGONAL,
    king_jumps: DIAGONAL,
    flying: true,
    parachutist_jumps: &[],
    crowns: |side, _, y| (side == Side::White && y == 7) || (side == Side::Black && y == 0),
    crowning_ends: false,
    may_stop: false,
    straight: false,
    choice: Choice::KingFirst,
    konane_opening: false,
};

fn specs() -> Vec<Spec> {
    vec![
        // Corner: triangles either side of the long diagonal; crowned on a7/b8, h2/g1.
        Spec {
            variant: Variant::Corner,
            start: |x, y| match x - y {
                2.. => Some((Side::White, Piece::Man)),
                ..=-2 => Some((Side::Black, Piece::Man)),
                _ => None,
            },
            crowns: |side, x, y| match side {
                Side::White => (x, y) == (0, 6) || (x, y) == (1, 7),
                Side::Black => (x, y) == (7, 1) || (x, y) == (6, 0),
            },
            ..CZECH
        },
        // One-way: White on files a-d, Black on e-h, ranks 1-6; everyone goes up and crowns on 8.
        Spec {
            variant: Variant::OneWay,
            start: |x, y| match (x, y) {
                (0..=3, 0..=5) => Some((Side::White, Piece::Man)),
                (4..=7, 0..=5) => Some((Side::Black, Piece::Man)),
                _ => None,
            },
            one_way: true,
            crowns: |_, _, y| y == 7,
            ..CZECH
        },
        // Parachute: men on two rows each, parachutists on the opponent's back row jumping back.
        Spec {
            variant: Variant::Parachute,
            start: |_, y| match y {
                1 | 2 => Some((Side::White, Piece::Man)),
                5 | 6 => Some((Side::Black, Piece::Man)),
                7 => Some((Side::White, Piece::Parachutist)),
                0 => Some((Side::Black, Piece::Parachutist)),
                _ => None,
            },
            parachutist_jumps: &[DOWN_LEFT, DOWN_RIGHT],
            ..CZECH
        },
        Spec {
            variant: Variant::Gothic,
            lines: Lines::All,
            start: |_, y| match y {
                0 | 1 => Some((Side::White, Piece::Man)),
                6 | 7 => Some((Side::Black, Piece::Man)),
                _ => None,
            },
            man_steps: FIVE,
            man_jumps: FIVE,
            man_later_jumps: FIVE,
            king_steps: EIGHT,
            king_jumps: EIGHT,
            flying: false,
            crowning_ends: true,
            choice: Choice::Free,
            ..CZECH
        },
        Spec {
            variant: Variant::Alquerque,
            size: 5,
            lines: Lines::Alquerque,
            start: |x, y| match (y, x) {
                (0 | 1, _) | (2, 3 | 4) => Some((Side::White, Piece::Man)),
                (3 | 4, _) | (2, 0 | 1) => Some((Side::Black, Piece::Man)),
                _ => None,
            },
            man_steps: FIVE,
            men_rest_on_last_row: true,
            man_jumps: FIVE,
            man_later_jumps: EIGHT,
            king_steps: &[],
            king_jumps: &[],
            flying: false,
            crowns: |_, _, _| false,
            choice: Choice::Free,
            ..CZECH
        },
        // Konane: White on the dark squares, Black on the light ones, Black first.
        Spec {
            variant: Variant::Hawaiian,
            lines: Lines::All,
            first: Side::Black,
            start: |x, y| {
                Some((
                    if dark(x, y) { Side::White } else { Side::Black },
                    Piece::Man,
                ))
            },
            man_steps: &[],
            man_jumps: ORTHOGONAL,
            man_later_jumps: ORTHOGONAL,
            king_steps: &[],
            king_jumps: &[],
            flying: false,
            crowns: |_, _, _| false,
            may_stop: true,
            straight: true,
            choice: Choice::Free,
            konane_opening: true,
            ..CZECH
        },
        // Dameo: the pyramid; linear moves; orthogonal captures; queen-like flying kings.
        Spec {
            variant: Variant::Dameo,
            lines: Lines::All,
            start: |x, y| {
                let (side, row) = if y < 4 {
                    (Side::White, y)
                } else {
                    (Side::Black, 7 - y)
                };
                (row < 3 && x >= row && x <= 7 - row).then_some((side, Piece::Man))
            },
            man_steps: &[UP, UP_LEFT, UP_RIGHT],
            men_run_along_lines: true,
            man_jumps: ORTHOGONAL,
            man_later_jumps: ORTHOGONAL,
            king_steps: EIGHT,
            king_jumps: ORTHOGONAL,
            flying: true,
            choice: Choice::Most,
            ..CZECH
        },
    ]
}

#[derive(Clone)]
struct Board {
    size: i32,
    cells: Vec<Cell>,
    turn: Side,
}

/// A move: from, to, the captured squares (sorted), whether a man is crowned, and whether it is a
/// removal.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Debug)]
struct BruteMove {
    from: (i32, i32),
    to: (i32, i32),
    captured: Vec<(i32, i32)>,
    crowned: bool,
    removal: bool,
}

impl Board {
    fn cell(&self, (x, y): (i32, i32)) -> Cell {
        self.cells[(y * self.size + x) as usize]
    }

    fn set(&mut self, (x, y): (i32, i32), cell: Cell) {
        self.cells[(y * self.size + x) as usize] = cell;
    }

    fn squares(&self, spec: &Spec) -> Vec<(i32, i32)> {
        let mut squares = Vec::new();
        for y in 0..self.size {
            for x in 0..self.size {
                if spec.lines != Lines::Dark || dark(x, y) {
                    squares.push((x, y));
                }
            }
        }
        squares
    }

    fn start(spec: &Spec) -> Board {
        let mut board = Board {
            size: spec.size,
            cells: vec![None; (spec.size * spec.size) as usize],
            turn: spec.first,
        };
        for square in board.squares(spec) {
            board.set(square, (spec.start)(square.0, square.1));
        }
        board
    }
}

/// `step` for `side`: Black's are upside down unless the game is one-way.
fn oriented(spec: &Spec, side: Side, (dx, dy): Step) -> Step {
    if side == Side::Black && !spec.one_way {
        (dx, -dy)
    } else {
        (dx, dy)
    }
}

/// The point one step from `at` along a line, if there is one.
fn next(spec: &Spec, (x, y): (i32, i32), (dx, dy): Step) -> Option<(i32, i32)> {
    let (nx, ny) = (x + dx, y + dy);
    let inside = nx >= 0 && ny >= 0 && nx < spec.size && ny < spec.size;
    let on_line = !(spec.lines == Lines::Alquerque && dx != 0 && dy != 0 && !dark(x, y));
    (inside && on_line).then_some((nx, ny))
}

fn last_row(spec: &Spec, side: Side) -> i32 {
    if side == Side::White || spec.one_way {
        spec.size - 1
    } else {
        0
    }
}

struct Search<'a> {
    spec: &'a Spec,
    side: Side,
    from: (i32, i32),
    by_king: bool,
    captured: Vec<(i32, i32)>,
    found: Vec<BruteMove>,
}

impl Search<'_> {
    fn jumps(&self, kind: Piece, depth: usize) -> Vec<Step> {
        let steps = match kind {
            Piece::King => self.spec.king_jumps,
            Piece::Parachutist => self.spec.parachutist_jumps,
            Piece::Man if depth == 0 => self.spec.man_jumps,
            Piece::Man => self.spec.man_later_jumps,
        };
        steps
            .iter()
            .map(|&s| oriented(self.spec, self.side, s))
            .collect()
    }

    /// The piece jumped from `at` along `step` and the free points behind it.
    fn jump(
        &self,
        board: &Board,
        at: (i32, i32),
        kind: Piece,
        step: Step,
    ) -> Option<(Point, Vec<Point>)> {
        let flying = kind == Piece::King && self.spec.flying;
        let mut over = next(self.spec, at, step)?;
        while flying && board.cell(over).is_none() {
            over = next(self.spec, over, step)?;
        }
        match board.cell(over) {
            Some((side, _)) if side != self.side && !self.captured.contains(&over) => {}
            _ => return None,
        }
        let mut landings = Vec::new();
        let mut landing = next(self.spec, over, step);
        while let Some(point) = landing {
            if board.cell(point).is_some() {
                break;
            }
            landings.push(point);
            if !flying {
                break;
            }
            landing = next(self.spec, point, step);
        }
        (!landings.is_empty()).then_some((over, landings))
    }

    fn allowed(&self, came: Option<Step>, step: Step) -> bool {
        !self.spec.straight || came.is_none() || came == Some(step)
    }

    fn can_go_on(&self, board: &Board, at: (i32, i32), kind: Piece, came: Step) -> bool {
        self.jumps(kind, self.captured.len())
            .into_iter()
            .any(|step| {
                self.allowed(Some(came), step) && self.jump(board, at, kind, step).is_some()
            })
    }

    fn record(&mut self, at: (i32, i32), kind: Piece) {
        let mut captured = self.captured.clone();
        captured.sort();
        let crowned =
            !self.by_king && (kind == Piece::King || (self.spec.crowns)(self.side, at.0, at.1));
        self.found.push(BruteMove {
            from: self.from,
            to: at,
            captured,
            crowned,
            removal: false,
        });
    }

    fn extend(&mut self, board: &Board, at: (i32, i32), kind: Piece, came: Option<Step>) {
        let mut extended = false;
        for step in self.jumps(kind, self.captured.len()) {
            if !self.allowed(came, step) {
                continue;
            }
            let Some((over, landings)) = self.jump(board, at, kind, step) else {
                continue;
            };
            extended = true;
            self.captured.push(over);
            if kind == Piece::King && self.spec.flying {
                let going_on: Vec<_> = landings
                    .iter()
                    .copied()
                    .filter(|&l| self.can_go_on(board, l, kind, step))
                    .collect();
                if going_on.is_empty() {
                    for landing in landings {
                        self.record(landing, kind);
                    }
                } else {
                    for landing in going_on {
                        if self.spec.may_stop {
                            self.record(landing, kind);
                        }
                        self.extend(board, landing, kind, Some(step));
                    }
                }
            } else {
                let landing = landings[0];
                let now = if kind == Piece::Parachutist {
                    Piece::Man
                } else {
                    kind
                };
                if kind == Piece::Man
                    && self.spec.crowning_ends
                    && (self.spec.crowns)(self.side, landing.0, landing.1)
                {
                    self.record(landing, now);
                } else {
                    if self.spec.may_stop {
                        self.record(landing, now);
                    }
                    self.extend(board, landing, now, Some(step));
                }
            }
            self.captured.pop();
        }
        if !extended && !self.captured.is_empty() && !self.spec.may_stop {
            self.record(at, kind);
        }
    }
}

fn generate(spec: &Spec, board: &Board) -> Vec<BruteMove> {
    let side = board.turn;
    let own: Vec<((i32, i32), Piece)> = board
        .squares(spec)
        .into_iter()
        .filter_map(|sq| match board.cell(sq) {
            Some((s, kind)) if s == side => Some((sq, kind)),
            _ => None,
        })
        .collect();
    let removal = |sq: (i32, i32)| BruteMove {
        from: sq,
        to: sq,
        captured: Vec::new(),
        crowned: false,
        removal: true,
    };
    if spec.konane_opening {
        let holes: Vec<(i32, i32)> = board
            .squares(spec)
            .into_iter()
            .filter(|&sq| board.cell(sq).is_none())
            .collect();
        match holes.as_slice() {
            // a8, h1, d5, e4
            [] => {
                return own
                    .iter()
                    .filter(|(sq, _)| [(0, 7), (7, 0), (3, 4), (4, 3)].contains(sq))
                    .map(|&(sq, _)| removal(sq))
                    .collect();
            }
            [(hx, hy)] => {
                return own
                    .iter()
                    .filter(|((x, y), _)| (x - hx).abs() + (y - hy).abs() == 1)
                    .map(|&(sq, _)| removal(sq))
                    .collect();
            }
            _ => {}
        }
    }
    let mut search = Search {
        spec,
        side,
        from: (0, 0),
        by_king: false,
        captured: Vec::new(),
        found: Vec::new(),
    };
    for &(square, kind) in &own {
        let mut vacated = board.clone();
        vacated.set(square, None);
        search.from = square;
        search.by_king = kind == Piece::King;
        search.extend(&vacated, square, kind, None);
    }
    let mut captures = search.found;
    if !captures.is_empty() {
        match spec.choice {
            Choice::Free => {}
            Choice::KingFirst => {
                let by_king =
                    |mv: &BruteMove| board.cell(mv.from).map(|c| c.1) == Some(Piece::King);
                if captures.iter().any(by_king) {
                    captures.retain(by_king);
                }
            }
            Choice::Most => {
                let most = captures.iter().map(|m| m.captured.len()).max().unwrap();
                captures.retain(|m| m.captured.len() == most);
            }
        }
        captures.sort();
        captures.dedup();
        return captures;
    }
    let mut quiet = Vec::new();
    let mut add = |from, to, crowned| {
        quiet.push(BruteMove {
            from,
            to,
            captured: Vec::new(),
            crowned,
            removal: false,
        })
    };
    for &(square, kind) in &own {
        match kind {
            Piece::Man => {
                if spec.men_rest_on_last_row && square.1 == last_row(spec, side) {
                    continue;
                }
                for &step in spec.man_steps {
                    let step = oriented(spec, side, step);
                    let Some(first) = next(spec, square, step) else {
                        continue;
                    };
                    let mut to = Some(first);
                    // Dameo: along a line of own men to the first square beyond it.
                    if spec.men_run_along_lines {
                        while let Some(point) = to
                            && board.cell(point) == Some((side, Piece::Man))
                        {
                            to = next(spec, point, step);
                        }
                    }
                    if let Some(to) = to
                        && board.cell(to).is_none()
                    {
                        add(square, to, (spec.crowns)(side, to.0, to.1));
                    }
                }
            }
            Piece::King => {
                for &step in spec.king_steps {
                    let mut to = next(spec, square, step);
                    while let Some(point) = to {
                        if board.cell(point).is_some() {
                            break;
                        }
                        add(square, point, false);
                        if !spec.flying {
                            break;
                        }
                        to = next(spec, point, step);
                    }
                }
            }
            Piece::Parachutist => {}
        }
    }
    quiet.sort();
    quiet.dedup();
    quiet
}

fn play(board: &Board, mv: &BruteMove) -> Board {
    let mut next = board.clone();
    let moving = board.cell(mv.from).expect("a piece moves");
    next.set(mv.from, None);
    if !mv.removal {
        for &square in &mv.captured {
            next.set(square, None);
        }
        let kind = match moving.1 {
            _ if mv.crowned => Piece::King,
            Piece::Parachutist => Piece::Man,
            kind => kind,
        };
        next.set(mv.to, Some((moving.0, kind)));
    }
    next.turn = match board.turn {
        Side::White => Side::Black,
        Side::Black => Side::White,
    };
    next
}

fn brute_perft(spec: &Spec, board: &Board, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let moves = generate(spec, board);
    if depth == 1 {
        return moves.len() as u64;
    }
    moves
        .iter()
        .map(|mv| brute_perft(spec, &play(board, mv), depth - 1))
        .sum()
}

fn name((x, y): (i32, i32)) -> String {
    format!("{}{}", (b'a' + x as u8) as char, y + 1)
}

fn written(mv: &BruteMove) -> String {
    let mut captured: Vec<String> = mv.captured.iter().map(|&sq| name(sq)).collect();
    captured.sort();
    format!(
        "{}{}{}x{}{}",
        name(mv.from),
        if mv.removal { "!" } else { "-" },
        name(mv.to),
        captured.join(","),
        if mv.crowned { "=K" } else { "" }
    )
}

/// The rules crate's position as a brute-force board.
fn board_of<V: Rules>(position: &Position<V::Geometry>) -> Board {
    let size = V::Geometry::WIDTH as i32;
    let mut board = Board {
        size,
        cells: vec![None; (size * size) as usize],
        turn: match position.turn() {
            damas_rules::Color::White => Side::White,
            damas_rules::Color::Black => Side::Black,
        },
    };
    for square in 0..V::Geometry::SQUARES {
        let x = V::Geometry::column(square) as i32;
        let y = size - 1 - V::Geometry::row(square) as i32;
        let cell = position.piece::<V>(square).map(|piece| {
            let side = match piece.color {
                damas_rules::Color::White => Side::White,
                damas_rules::Color::Black => Side::Black,
            };
            let kind = match piece.kind {
                Kind::Man => Piece::Man,
                Kind::King => Piece::King,
                Kind::Parachutist => Piece::Parachutist,
            };
            (side, kind)
        });
        board.set((x, y), cell);
    }
    board
}

/// A move of the rules crate, written as [`written`] writes the brute force's.
fn crate_written<V: Rules>(mv: &damas_rules::Move<V::Geometry>) -> String {
    let mut captured: Vec<String> = mv.captured().map(algebraic_name::<V>).collect();
    captured.sort();
    format!(
        "{}{}{}x{}{}",
        algebraic_name::<V>(mv.from()),
        if mv.is_removal() { "!" } else { "-" },
        algebraic_name::<V>(mv.to()),
        captured.join(","),
        if mv.promotes() { "=K" } else { "" }
    )
}

/// The rules crate's legal moves, written as [`written`] writes the brute force's, sorted.
fn crate_moves<V: Rules>(position: &Position<V::Geometry>) -> Vec<String> {
    let mut list = MoveList::new();
    legal_moves::<V>(position, &mut list);
    let mut moves: Vec<String> = list.iter().map(crate_written::<V>).collect();
    moves.sort();
    moves
}

fn brute_moves(spec: &Spec, board: &Board) -> Vec<String> {
    let mut moves: Vec<String> = generate(spec, board).iter().map(written).collect();
    moves.sort();
    moves
}

/// Compares both generators' move lists along `games` random games of `plies` plies.
struct Lockstep<'a>(&'a Spec, u64, u32);

impl VariantVisitor for Lockstep<'_> {
    type Output = usize;
    fn visit<V: Rules>(self) -> usize {
        let Lockstep(spec, games, plies) = self;
        let mut compared = 0;
        for seed in 0..games {
            let mut game = Game::<V>::new();
            for ply in 0..plies {
                let position = *game.position();
                let board = board_of::<V>(&position);
                assert_eq!(
                    crate_moves::<V>(&position),
                    brute_moves(spec, &board),
                    "{} seed {seed} ply {ply}: {}",
                    V::NAME,
                    damas_rules::to_fen::<V>(&position)
                );
                compared += 1;
                if game.outcome().is_some() {
                    break;
                }
                game.play_random(seed * 1000 + ply as u64, 1);
            }
        }
        compared
    }
}

/// The rules crate's perft from its start, and whether its start is the brute force's.
struct CratePerft(u32, Board);

impl VariantVisitor for CratePerft {
    type Output = (u64, bool);
    fn visit<V: Rules>(self) -> (u64, bool) {
        let start = Position::initial::<V>();
        let same = board_of::<V>(&start).cells == self.1.cells
            && board_of::<V>(&start).turn == self.1.turn;
        (perft::<V>(&start, self.0, Duplicates::Unique), same)
    }
}

/// Compares perft from the start with the brute force's for every depth up to `max_depth` whose
/// count is at most `max_leaves`; returns how many counts were compared.
fn check_perft(max_depth: u32, max_leaves: u64) -> usize {
    let mut compared = 0;
    for spec in specs() {
        let start = Board::start(&spec);
        for depth in 1..=max_depth {
            let (ours, same_start) = spec.variant.visit(CratePerft(depth, start.clone()));
            assert!(same_start, "{}: the start positions differ", spec.variant);
            if ours > max_leaves {
                eprintln!(
                    "{} perft {depth}: {ours} (not cross-checked: over {max_leaves})",
                    spec.variant
                );
                break;
            }
            let started = std::time::Instant::now();
            let brute = brute_perft(&spec, &start, depth);
            eprintln!(
                "{} perft {depth}: {ours} (brute force {brute}, {:.1?})",
                spec.variant,
                started.elapsed()
            );
            assert_eq!(ours, brute, "{} perft {depth}", spec.variant);
            compared += 1;
        }
    }
    compared
}

#[test]
fn brute_force_agrees_along_random_games() {
    for spec in specs() {
        let compared = spec.variant.visit(Lockstep(&spec, 12, 150));
        assert!(
            compared > 100,
            "{}: only {compared} positions",
            spec.variant
        );
    }
}

#[test]
fn brute_force_agrees_on_shallow_perft() {
    assert!(check_perft(6, 60_000) >= 30);
}

/// The rules crate's perft below each move of the start, depth `depth`, as (move, count).
struct CrateDivide(u32);

impl VariantVisitor for CrateDivide {
    type Output = Vec<(String, u64)>;
    fn visit<V: Rules>(self) -> Vec<(String, u64)> {
        let start = Position::initial::<V>();
        damas_rules::divide::<V>(&start, self.0, Duplicates::Unique)
            .into_iter()
            .map(|(mv, count)| (crate_written::<V>(&mv), count))
            .collect()
    }
}

/// Every count to depth 6 but the largest (`DAMAS_BRUTE_MAX` leaves, default 3e8), and Dameo's
/// depth 6 (11 billion leaves, hours for the brute force) on every eighth move of the start.
#[test]
#[ignore = "slow (minutes): run with --ignored brute"]
fn brute_force_agrees_on_perft_to_depth_6() {
    let max = std::env::var("DAMAS_BRUTE_MAX")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300_000_000);
    check_perft(6, max);
    let dameo = specs()
        .into_iter()
        .find(|spec| spec.variant == Variant::Dameo)
        .unwrap();
    let start = Board::start(&dameo);
    let ours = Variant::Dameo.visit(CrateDivide(6));
    let theirs = generate(&dameo, &start);
    assert_eq!(ours.len(), theirs.len());
    for (written_move, count) in ours.iter().step_by(8) {
        let mv = theirs
            .iter()
            .find(|m| &written(m) == written_move)
            .expect("same first moves");
        let started = std::time::Instant::now();
        let brute = brute_perft(&dameo, &play(&start, mv), 5);
        eprintln!(
            "dameo perft 6 below {written_move}: {count} (brute force {brute}, {:.1?})",
            started.elapsed()
        );
        assert_eq!(*count, brute, "dameo perft 6 below {written_move}");
    }
}
