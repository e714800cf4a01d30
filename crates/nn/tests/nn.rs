//! Encoding, network and checkpoint checks: colour symmetry of the input, policy indices of
//! every variant's moves, priors, and checkpoints that round-trip or refuse to load.

use damas_mcts::{Evaluator, Leaf};
use damas_nn::encoding::{encode, move_priors, policy_index, policy_target};
use damas_nn::{
    BoardShape, CheckpointError, CheckpointMeta, NetEvaluator, NetworkConfig, NetworkSize,
    load_network, save_checkpoint,
};
use damas_rules::variants::{English, International, Russian};
use damas_rules::{Game, Geometry, Piece, Position, Rules, Variant, VariantVisitor};
use std::collections::HashMap;

/// The same position seen by the other side: turned half a turn (not turned in a one-way game,
/// where both sides' men move up), colours swapped.
fn mirrored<V: Rules>(position: &Position<V::Geometry>) -> Position<V::Geometry> {
    let squares = V::Geometry::SQUARES;
    let mut flipped = Position::empty(!position.turn());
    for square in 0..squares {
        if let Some(piece) = position.piece_at(square) {
            let swapped = Piece {
                color: !piece.color,
                ..piece
            };
            let to = if V::ONE_WAY {
                square
            } else {
                squares - 1 - square
            };
            flipped.set(to, Some(swapped));
        }
    }
    flipped
}

struct EveryVariant;

impl VariantVisitor for EveryVariant {
    type Output = ();
    fn visit<V: Rules>(self) {
        let shape = BoardShape::of::<V>();
        for seed in 0..40 {
            let mut game = Game::<V>::new();
            game.play_random(seed, (seed % 50) as u32);
            if game.outcome().is_some() {
                continue;
            }
            let turn = game.position().turn();
            // Indices are in range, and equal exactly when start and end squares are.
            let mut seen: HashMap<usize, (u32, u32)> = HashMap::new();
            let moves = game.legal_moves();
            for mv in &moves {
                let index = policy_index::<V>(mv, turn);
                assert!(index < shape.policy_len(), "{}: index {index}", V::NAME);
                if let Some(&previous) = seen.get(&index) {
                    assert_eq!(previous, (mv.from(), mv.to()), "{}", V::NAME);
                }
                seen.insert(index, (mv.from(), mv.to()));
            }
            // The input is the same whichever colour is to move.
            let position = *game.position();
            let other = Game::<V>::from_position(mirrored::<V>(&position));
            let (mut a, mut b) = (vec![0.0; shape.input_len()], vec![0.0; shape.input_len()]);
            encode(&Game::<V>::from_position(position), &mut a);
            encode(&other, &mut b);
            assert_eq!(a, b, "{}: colour symmetry", V::NAME);
            let other_moves = other.legal_moves();
            let mut ours: Vec<usize> = moves.iter().map(|m| policy_index::<V>(m, turn)).collect();
            let mut theirs: Vec<usize> = other_moves
                .iter()
                .map(|m| policy_index::<V>(m, !turn))
                .collect();
            ours.sort_unstable();
            theirs.sort_unstable();
            assert_eq!(ours, theirs, "{}: same policy indices", V::NAME);
        }
    }
}

#[test]
fn every_variant_encodes_symmetrically_with_policy_indices_in_range() {
    for variant in Variant::ALL {
        variant.visit(EveryVariant);
    }
}

#[test]
fn input_planes_hold_the_pieces_and_the_rules() {
    let game = Game::<International>::new();
    let shape = BoardShape::of::<International>();
    let mut input = vec![0.0; shape.input_len()];
    encode(&game, &mut input);
    let area = 100;
    let plane = |p: usize| &input[p * area..(p + 1) * area];
    let count = |p: usize| plane(p).iter().filter(|&&x| x == 1.0).count();
    assert_eq!(
        (count(0), count(1), count(2), count(3), count(4)),
        (20, 0, 20, 0, 50)
    );
    // White's men fill the bottom four rows of the diagram: square 46 is row 9, column 0.
    assert_eq!(plane(0)[9 * 10], 1.0);
    assert_eq!(plane(2)[1], 1.0, "Black's square 1 is row 0, column 1");
    // Flying kings (plane 6) and majority capture (plane 9) are on, losing (plane 10) off.
    assert!(plane(6).iter().all(|&x| x == 1.0));
    assert!(plane(9).iter().all(|&x| x == 1.0));
    assert!(plane(10).iter().all(|&x| x == 0.0));
    let mut english = vec![0.0; BoardShape::of::<English>().input_len()];
    encode(&Game::<English>::new(), &mut english);
    assert!(
        english[6 * 64..7 * 64].iter().all(|&x| x == 0.0),
        "English kings are short"
    );
}

#[test]
fn priors_split_shared_indices_and_sum_to_one() {
    // Russian: a king on a1 with two different capture routes to the same square would share
    // an index; here we simply check sums and the even split on a crafted logit vector.
    let mut game = Game::<Russian>::new();
    game.play_random(3, 9);
    let moves = game.legal_moves();
    let turn = game.position().turn();
    let logits: Vec<f32> = (0..1024).map(|i| (i % 7) as f32 * 0.3).collect();
    let priors = move_priors::<Russian>(&logits, &moves, turn);
    let total: f32 = priors.iter().sum();
    assert!((total - 1.0).abs() < 1e-5);
    let target = policy_target::<Russian>(&moves, &priors, turn);
    let target_total: f32 = target.iter().map(|t| t.1).sum();
    assert!((target_total - 1.0).abs() < 1e-5);
}

#[test]
fn network_sizes_are_checked_against_one_range() {
    assert_eq!(NetworkSize::DEFAULT.validate("network"), Ok(()));
    let smallest = NetworkSize {
        blocks: 0,
        channels: 1,
    };
    assert_eq!(smallest.validate(""), Ok(()));
    let no_channels = NetworkSize {
        blocks: 0,
        channels: 0,
    };
    let error = no_channels.validate("network").unwrap_err();
    assert_eq!(
        (error.key.as_str(), error.value.as_str()),
        ("network.channels", "0")
    );
    assert_eq!(error.to_string(), "`network.channels` = 0: 1 to 1024");
    let too_deep = NetworkSize {
        blocks: 65,
        channels: 8,
    };
    assert_eq!(
        too_deep.validate("").unwrap_err().to_string(),
        "`blocks` = 65: 0 to 64"
    );
}

#[test]
fn checkpoints_round_trip_and_refuse_the_wrong_variant() {
    let dir = std::env::temp_dir().join(format!("damas-nn-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let device = damas_nn::cpu();
    let config = NetworkConfig::new(BoardShape::of::<Russian>())
        .with_blocks(1)
        .with_channels(8);
    let network = config.init(&device);
    let path = dir.join("000001");
    save_checkpoint(
        &path,
        &CheckpointMeta::new::<Russian>(config),
        &network,
        Vec::new(),
    )
    .unwrap();
    let (loaded, meta) = load_network::<Russian>(&path, &device).unwrap();
    assert_eq!(meta.variant, "russian");

    let games: Vec<Game<Russian>> = (0..5)
        .map(|seed| {
            let mut game = Game::new();
            game.play_random(seed, 7);
            game
        })
        .collect();
    let moves: Vec<Vec<_>> = games.iter().map(|g| g.legal_moves().to_vec()).collect();
    let leaves: Vec<Leaf<'_, Russian>> = games
        .iter()
        .zip(&moves)
        .map(|(game, moves)| Leaf { game, moves })
        .collect();
    let before = NetEvaluator::<Russian>::new(&network, &device).evaluate(&leaves);
    let after = NetEvaluator::<Russian>::new(&loaded, &device).evaluate(&leaves);
    for (a, b) in before.iter().zip(&after) {
        assert!((a.value - b.value).abs() < 1e-6);
        for (p, q) in a.priors.iter().zip(&b.priors) {
            assert!((p - q).abs() < 1e-6);
        }
        assert!(a.value.abs() <= 1.0);
        assert!((a.priors.iter().sum::<f32>() - 1.0).abs() < 1e-4);
    }

    let wrong = load_network::<English>(&path, &device).unwrap_err();
    assert!(
        matches!(wrong, CheckpointError::WrongVariant { .. }),
        "{wrong}"
    );
    assert!(wrong.to_string().contains("russian"));

    std::fs::write(path.join("model.bpk"), b"not a model").unwrap();
    let corrupt = load_network::<Russian>(&path, &device).unwrap_err();
    assert!(
        matches!(corrupt, CheckpointError::Weights { .. }),
        "{corrupt}"
    );

    let meta_path = path.join("meta.json");
    let text = std::fs::read_to_string(&meta_path).unwrap();
    std::fs::write(
        &meta_path,
        text.replace(
            &format!("\"encoding_version\": {}", damas_nn::ENCODING_VERSION),
            "\"encoding_version\": 99",
        ),
    )
    .unwrap();
    let version = load_network::<Russian>(&path, &device).unwrap_err();
    assert!(
        version.to_string().contains("encoding version 99"),
        "{version}"
    );
    // A checkpoint of the first encoding (before parachutists and the BrainKing boards) is
    // refused, not misread.
    std::fs::write(
        &meta_path,
        text.replace(
            &format!("\"encoding_version\": {}", damas_nn::ENCODING_VERSION),
            "\"encoding_version\": 1",
        ),
    )
    .unwrap();
    let old = load_network::<Russian>(&path, &device).unwrap_err();
    assert!(
        old.to_string()
            .contains("checkpoint uses encoding version 1, this program reads version 2"),
        "{old}"
    );

    // A size out of range in meta.json is named, not handed to burn to panic on.
    std::fs::write(
        &meta_path,
        text.replace("\"channels\": 8", "\"channels\": 0"),
    )
    .unwrap();
    let size = load_network::<Russian>(&path, &device).unwrap_err();
    assert!(matches!(size, CheckpointError::Meta { .. }), "{size}");
    assert!(
        size.to_string()
            .contains("`network.channels` = 0: 1 to 1024"),
        "{size}"
    );

    let missing = load_network::<Russian>(&dir.join("nothing"), &device).unwrap_err();
    assert!(missing.to_string().contains("meta.json"), "{missing}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_worked_example_of_the_model_format_page() {
    use damas_rules::parse_move;
    let mut game = Game::<International>::new();
    let mut input = vec![0.0; BoardShape::of::<International>().input_len()];
    encode(&game, &mut input);
    let plane = |input: &[f32], p: usize| input[p * 100..(p + 1) * 100].to_vec();
    let ones = |p: usize| plane(&input, p).iter().filter(|&&x| x == 1.0).count();
    assert_eq!([ones(0), ones(2), ones(4)], [20, 20, 50]);
    for p in [5, 6, 7, 9] {
        assert_eq!(ones(p), 100, "plane {p}");
    }
    for p in [1, 3, 8, 10, 11, 12, 13, 14, 15, 16, 17] {
        assert_eq!(ones(p), 0, "plane {p}");
    }
    // Plane 18: White's men are crowned on squares 1-5, the top row.
    assert_eq!(ones(18), 5);
    assert_eq!(plane(&input, 18)[1], 1.0, "square 1 is row 0, column 1");
    let white = parse_move::<International>(game.position(), "32-28").unwrap();
    assert_eq!(
        policy_index::<International>(&white, game.position().turn()),
        1577
    );
    game.play(&white);
    let black = parse_move::<International>(game.position(), "19-23").unwrap();
    assert_eq!(
        policy_index::<International>(&black, game.position().turn()),
        1577
    );
}

#[test]
fn new_boards_pieces_and_kinds_of_move_encode() {
    use damas_rules::variants::{Alquerque, Dameo, Hawaiian, Parachute};
    // Parachutists have planes of their own (15 own, 16 opponent's), four each at the start.
    let mut input = vec![0.0; BoardShape::of::<Parachute>().input_len()];
    encode(&Game::<Parachute>::new(), &mut input);
    let ones = |input: &[f32], area: usize, p: usize| {
        input[p * area..(p + 1) * area]
            .iter()
            .filter(|&&x| x == 1.0)
            .count()
    };
    assert_eq!(
        [
            ones(&input, 64, 0),
            ones(&input, 64, 15),
            ones(&input, 64, 16)
        ],
        [8, 4, 4]
    );
    // The 5x5 board: 25 playable points, no promotion squares.
    let shape = BoardShape::of::<Alquerque>();
    assert_eq!((shape.height, shape.width, shape.squares), (5, 5, 25));
    let mut input = vec![0.0; shape.input_len()];
    encode(&Game::<Alquerque>::new(), &mut input);
    assert_eq!([ones(&input, 25, 4), ones(&input, 25, 18)], [25, 0]);
    // A Konane removal is the only move from a square to itself: index from * 64 + from.
    let game = Game::<Hawaiian>::new();
    let turn = game.position().turn();
    for mv in &game.legal_moves() {
        assert!(mv.is_removal());
        let index = policy_index::<Hawaiian>(mv, turn);
        assert_eq!(index / 64, index % 64);
    }
    // Dameo's linear moves end on squares no step reaches: 52 distinct indices at the start.
    let game = Game::<Dameo>::new();
    let mut indices: Vec<usize> = game
        .legal_moves()
        .iter()
        .map(|mv| policy_index::<Dameo>(mv, game.position().turn()))
        .collect();
    indices.sort_unstable();
    indices.dedup();
    assert_eq!(indices.len(), 52);
}
