//! A generation's evaluation: matches against the baseline and the previous network, gating.

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
use damas_rules::Rules;
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

    /// A match between two checkpoints under MCTS; results for the first.
    pub(super) fn net_match(
        &mut self,
        first: u32,
        second: u32,
        games: u32,
        what: &str,
    ) -> Result<Wdl, RunError> {
        let a = self.mcts_factory(first)?;
        let b = self.mcts_factory(second)?;
        Ok(self.play(&*a, &*b, games, what))
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

    pub(super) fn play(
        &mut self,
        first: PlayerFactory<'_, V>,
        second: PlayerFactory<'_, V>,
        games: u32,
        what: &str,
    ) -> Wdl {
        let mut total = Wdl::default();
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
            self.config.seed,
            |game| {
                total += game.first_result();
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
        total
    }

    pub(super) fn evaluate(&mut self, generation: u32) -> Result<Evaluation, RunError> {
        let evaluation_config = self.config.evaluation.clone();
        let mut evaluation = Evaluation::default();
        let step = u64::from(generation);
        if evaluation_config.baseline_games > 0 {
            let net = self.mcts_factory(generation)?;
            let depth = evaluation_config.baseline_depth;
            let baseline = move |seed| {
                Box::new(AlphaBetaPlayer::<V>::new(Limits::depth(depth), seed))
                    as Box<dyn Player<V>>
            };
            let wdl = self.play(
                &*net,
                &baseline,
                evaluation_config.baseline_games,
                "vs baseline",
            );
            let elo = elo_estimate(wdl);
            self.board
                .scalar("eval/score_vs_baseline", wdl.score(), step);
            self.board.scalar("eval/elo_vs_baseline", elo.elo, step);
            evaluation.baseline = Some(wdl);
            evaluation.baseline_elo = Some(elo);
        }
        let current = self.self_play_generation(generation - 1);
        if evaluation_config.previous_games > 0 {
            let wdl = self.net_match(
                generation,
                current,
                evaluation_config.previous_games,
                "vs previous",
            )?;
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
        let path = self.paths.checkpoint(generation).join("eval.json");
        let text = serde_json::to_string_pretty(&evaluation).expect("serializable");
        write_atomically(&path, text.as_bytes()).map_err(io_error(&path))?;
        Ok(evaluation)
    }
}
