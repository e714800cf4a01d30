//! The browser API's request bodies (`damas serve`): a game's state (`POST /api/state`) and PDN
//! to replay (`POST /api/replay`), as the JSON the page sends, through the same functions the
//! routes call.

use super::{SeedMaker, Target, random_games, seeds_per_variant, split_variant, variant_input};
use damas_rules::notation::pdn;
use damas_rules::{Game, Rules, to_fen, write_game};
use damas_serve::board::{GameRequest, state};
use damas_serve::replay::{ReplayRequest, replay_pdn};
use rand::rngs::SmallRng;

/// JSON bodies of the state and replay routes, the input's first byte choosing which.
pub struct ServeApi {
    seeds: Vec<Vec<Vec<u8>>>,
}

struct ApiSeeds;
impl SeedMaker for ApiSeeds {
    fn make<V: Rules>(&self) -> Vec<Vec<u8>> {
        let mut seeds = Vec::new();
        for game in random_games::<V>(4, 40, 5) {
            let mut replayed = Game::<V>::from_position(*game.start());
            let mut moves = Vec::new();
            for mv in game.moves() {
                moves.push(pdn::<V>(replayed.position(), mv, &replayed.legal_moves()));
                replayed.play(mv);
            }
            let request = serde_json::json!({
                "variant": V::NAME,
                "fen": to_fen::<V>(game.start()),
                "moves": moves,
            });
            seeds.push(request.to_string().into_bytes());
            let replay = serde_json::json!({"variant": V::NAME, "pdn": write_game(&game, &[])});
            seeds.push(replay.to_string().into_bytes());
        }
        seeds
    }
}

impl ServeApi {
    /// Seeds: random games of every variant, as state and replay requests.
    pub fn new() -> Self {
        ServeApi {
            seeds: seeds_per_variant(&ApiSeeds),
        }
    }
}

impl Default for ServeApi {
    fn default() -> Self {
        Self::new()
    }
}

impl Target for ServeApi {
    fn name(&self) -> &'static str {
        "serve-api"
    }
    fn weight(&self) -> u64 {
        6
    }
    fn generate(&self, rng: &mut SmallRng) -> Vec<u8> {
        variant_input(rng, &self.seeds, false)
    }
    fn run(&self, input: &[u8]) -> bool {
        // The variant byte only picked the seeds; the body names its own variant.
        let (_, body) = split_variant(input);
        if let Ok(request) = serde_json::from_slice::<GameRequest>(body) {
            return state(&request).is_ok();
        }
        match serde_json::from_slice::<ReplayRequest>(body) {
            Ok(request) => replay_pdn(&request).is_ok(),
            Err(_) => false,
        }
    }
}
