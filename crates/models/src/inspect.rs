//! What a model makes of one position: its input planes, its raw outputs, and its probability for
//! each legal move, the same numbers the search gets (`damas model eval`).

use crate::{Model, ModelError, model_variant};
use damas_nn::encoding::{encode, move_priors, policy_index};
use damas_nn::{BoardShape, Device, PredictError};
use damas_rules::notation::pdn;
use damas_rules::{Game, ParseFenError, Position, Rules, VariantVisitor, parse_fen, to_fen};
use std::path::Path;

/// Why a position could not be inspected.
#[derive(Debug, thiserror::Error)]
pub enum InspectError {
    /// The model does not open.
    #[error(transparent)]
    Model(#[from] ModelError),
    /// The position given is not a FEN of the model's variant.
    #[error("bad --fen `{fen}`")]
    Fen {
        /// The text given.
        fen: String,
        /// What is wrong with it.
        #[source]
        source: ParseFenError,
    },
    /// The random plies ended the game.
    #[error("the game is over after {0} random plies: nothing to evaluate")]
    GameOver(u32),
    /// The network failed to run.
    #[error(transparent)]
    Predict(#[from] PredictError),
}

/// Which position to inspect.
#[derive(Clone, Debug, Default)]
pub struct PositionChoice {
    /// A FEN of the model's variant; its start position if none.
    pub fen: Option<String>,
    /// Random plies played from there first (varied positions for checks).
    pub random_plies: u32,
    /// Seed of those plies.
    pub seed: u64,
}

/// One legal move and what the model thinks of it.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveReport {
    /// The move in PDN.
    pub pdn: String,
    /// Its policy index.
    pub index: usize,
    /// The network's logit at that index.
    pub logit: f32,
    /// The prior the search gets for the move.
    pub probability: f32,
}

/// What a model makes of a position.
#[derive(Clone, Debug, PartialEq)]
pub struct PositionReport {
    /// The variant's name.
    pub variant: &'static str,
    /// The position as FEN.
    pub fen: String,
    /// The input tensor's shape, `[1, planes, height, width]`.
    pub input_shape: [usize; 4],
    /// The input tensor.
    pub input: Vec<f32>,
    /// Every policy logit.
    pub policy_logits: Vec<f32>,
    /// Win, draw and loss probabilities for the side to move.
    pub wdl: [f32; 3],
    /// The legal moves, most probable first.
    pub moves: Vec<MoveReport>,
}

/// Runs the model at `path` (its variant is its own) on the position `choice` names.
pub fn inspect(
    path: &Path,
    choice: &PositionChoice,
    device: &Device,
) -> Result<PositionReport, InspectError> {
    struct Inspect<'a>(&'a Path, &'a PositionChoice, &'a Device);
    impl VariantVisitor for Inspect<'_> {
        type Output = Result<PositionReport, InspectError>;
        fn visit<V: Rules>(self) -> Self::Output {
            let Inspect(path, choice, device) = self;
            let model = Model::<V>::open_path(path, device)?;
            let start = match &choice.fen {
                Some(fen) => parse_fen::<V>(fen).map_err(|source| InspectError::Fen {
                    fen: fen.clone(),
                    source,
                })?,
                None => Position::initial::<V>(),
            };
            let mut game = Game::<V>::from_position(start);
            game.play_random(choice.seed, choice.random_plies);
            if game.outcome().is_some() {
                return Err(InspectError::GameOver(choice.random_plies));
            }
            inspect_game(&model, &game)
        }
    }
    model_variant(path)?.visit(Inspect(path, choice, device))
}

/// What `model` makes of the position `game` stands at (its history gives the draw counters the
/// encoding reads). The game must not be over.
pub fn inspect_game<V: Rules>(
    model: &Model<V>,
    game: &Game<V>,
) -> Result<PositionReport, InspectError> {
    let position = *game.position();
    let shape = BoardShape::of::<V>();
    let mut input = vec![0.0; shape.input_len()];
    encode(game, &mut input);
    let outputs = model.predictor()?.predict(input.clone(), 1)?;
    let moves = game.legal_moves();
    let turn = position.turn();
    // The same priors the search gets, from the logits already computed.
    let priors = move_priors::<V>(&outputs.policy_logits, &moves, turn);
    let mut rows: Vec<MoveReport> = moves
        .iter()
        .zip(&priors)
        .map(|(mv, &probability)| {
            let index = policy_index::<V>(mv, turn);
            MoveReport {
                pdn: pdn::<V>(&position, mv, &moves),
                index,
                logit: outputs.policy_logits[index],
                probability,
            }
        })
        .collect();
    rows.sort_by(|a, b| b.probability.total_cmp(&a.probability));
    Ok(PositionReport {
        variant: V::NAME,
        fen: to_fen::<V>(&position),
        input_shape: [1, damas_nn::INPUT_PLANES, shape.height, shape.width],
        input,
        wdl: [outputs.wdl[0], outputs.wdl[1], outputs.wdl[2]],
        policy_logits: outputs.policy_logits,
        moves: rows,
    })
}
