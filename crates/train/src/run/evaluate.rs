//! A generation's evaluation: matches against the baseline and the previous network, gating.
//! Its games are kept beside its results (`checkpoints/N/eval.pdn`, written before
//! `eval.json`), so that they can be replayed.

use super::error::io_error;
use super::records::Evaluation;
use super::{Run, RunError};
use damas_arena::{
    AlphaBetaPlayer, BoxedFactory, GameRules, MctsPlayer, Player, PlayerFactory, Wdl, elo_estimate,
    run_match,
};
use damas_engine::Limits;
use damas_mcts::Evaluator;
use damas_models::Model;
use damas_nn::write_atomically;
use damas_rules::{Rules, write_game_with_outcome};
use std::path::Path;
use std::sync::Arc;

impl<V: Rules> Run<'_, V> {
    /// The network of checkpoint `generation` as an evaluator.
    pub(super) fn load_evaluator(
        &self,
        generation: u32,
    ) -> Result<Arc<dyn Evaluator<V>>, RunError> {
        let model = Model::<V>::open_path(&self.paths.checkpoint(generation), &self.device)?;
        Ok(model.evaluator())
    }

    /// A match between two checkpoints under MCTS; results for the first, and the games as
    /// PDN.
    pub(super) fn net_match(
        &mut self,
        first: u32,
        second: u32,
        games: u32,
        what: &str,
    ) -> Result<(Wdl, String), RunError> {
        let a = self.mcts_factory(first)?;
        let b = self.mcts_factory(second)?;
        let names = [
            format!("generation {first}"),
            format!("generation {second}"),
        ];
        Ok(self.play(&*a, &*b, games, what, &names))
    }

    /// The search the network players of the evaluation use (and the checkpoints carry).
    pub(super) fn evaluation_search(&self) -> damas_mcts::SearchConfig {
        self.config.evaluation.search(&self.config.selfplay)
    }

    pub(super) fn mcts_factory(&self, generation: u32) -> Result<BoxedFactory<V>, RunError> {
        self.mcts_factory_at(&self.paths.checkpoint(generation))
    }

    /// The evaluation's MCTS player over the checkpoint in `dir`.
    pub(super) fn mcts_factory_at(&self, dir: &Path) -> Result<BoxedFactory<V>, RunError> {
        let model = Model::<V>::open_path(dir, &self.device)?;
        Ok(MctsPlayer::factory(
            model.evaluator(),
            self.evaluation_search(),
            None,
        ))
    }

    /// A match of `games` games between two players named `names`: results for the first,
    /// and the games as PDN (the match's name as their event).
    pub(super) fn play(
        &mut self,
        first: PlayerFactory<'_, V>,
        second: PlayerFactory<'_, V>,
        games: u32,
        what: &str,
        names: &[String; 2],
    ) -> (Wdl, String) {
        let mut total = Wdl::default();
        let mut pdn = String::new();
        self.progress.start(what, u64::from(games));
        let rules = GameRules {
            max_plies: self.config.selfplay.max_plies,
            ..GameRules::default()
        };
        let progress = &mut *self.progress;
        run_match(
            first,
            second,
            &self.openings,
            games,
            &[],
            self.config.evaluation.concurrency,
            &rules,
            None,
            self.config.seed,
            |game| {
                total += game.first_result();
                let (white, black) = if game.first_is_white {
                    (&names[0], &names[1])
                } else {
                    (&names[1], &names[0])
                };
                let round = (game.index + 1).to_string();
                pdn.push_str(&write_game_with_outcome(
                    &game.played.game,
                    &[
                        ("Event", what),
                        ("Round", &round),
                        ("White", white),
                        ("Black", black),
                    ],
                    Some(game.played.outcome),
                ));
                pdn.push('\n');
                progress.update(
                    u64::from(total.games()),
                    &format!(
                        "{:.1}% ({}/{}/{})",
                        100.0 * total.score(),
                        total.wins,
                        total.draws,
                        total.losses
                    ),
                );
                true
            },
        );
        self.progress.finish();
        (total, pdn)
    }

    pub(super) fn evaluate(&mut self, generation: u32) -> Result<Evaluation, RunError> {
        let evaluation_config = self.config.evaluation.clone();
        let mut evaluation = Evaluation::default();
        let mut games = String::new();
        let step = u64::from(generation);
        if evaluation_config.baseline_games > 0 {
            let net = self.mcts_factory(generation)?;
            let depth = evaluation_config.baseline_depth;
            let baseline = move |seed| {
                Box::new(AlphaBetaPlayer::<V>::new(Limits::depth(depth), seed))
                    as Box<dyn Player<V>>
            };
            let names = [
                format!("generation {generation}"),
                format!("alphabeta:depth={depth}"),
            ];
            let (wdl, pdn) = self.play(
                &*net,
                &baseline,
                evaluation_config.baseline_games,
                "vs baseline",
                &names,
            );
            games.push_str(&pdn);
            let elo = elo_estimate(wdl);
            self.board
                .scalar("eval/score_vs_baseline", wdl.score(), step);
            self.board.scalar("eval/elo_vs_baseline", elo.elo, step);
            evaluation.baseline = Some(wdl);
            evaluation.baseline_elo = Some(elo);
        }
        let current = self.self_play_generation(generation - 1);
        if evaluation_config.previous_games > 0 {
            let (wdl, pdn) = self.net_match(
                generation,
                current,
                evaluation_config.previous_games,
                "vs previous",
            )?;
            games.push_str(&pdn);
            let elo = elo_estimate(wdl);
            self.board
                .scalar("eval/score_vs_previous", wdl.score(), step);
            self.board.scalar("eval/elo_vs_previous", elo.elo, step);
            evaluation.previous = Some(wdl);
            evaluation.previous_elo = Some(elo);
        }
        evaluation.promoted = !evaluation_config.gating
            || evaluation
                .previous
                .is_none_or(|wdl| wdl.score() >= evaluation_config.gate_score);
        if evaluation_config.gating {
            let best = if evaluation.promoted {
                generation
            } else {
                current
            };
            let path = self.paths.root.join("best");
            write_atomically(&path, format!("{best}\n").as_bytes()).map_err(io_error(&path))?;
        }
        if !games.is_empty() {
            let path = self.paths.checkpoint(generation).join("eval.pdn");
            write_atomically(&path, games.as_bytes()).map_err(io_error(&path))?;
        }
        let path = self.paths.checkpoint(generation).join("eval.json");
        let text = serde_json::to_string_pretty(&evaluation).expect("serializable");
        write_atomically(&path, text.as_bytes()).map_err(io_error(&path))?;
        Ok(evaluation)
    }
}
