//! The search against the rules: forced wins found with a know-nothing evaluator, legality,
//! visit bookkeeping, Gumbel at tiny budgets, tree reuse and batching across games.

use damas_mcts::{
    Evaluation, Evaluator, Leaf, RootNoise, Search, SearchConfig, StaticEvaluator,
    UniformEvaluator, run_batched,
};
use damas_rules::variants::{English, International, Russian};
use damas_rules::{Game, Outcome, Rules};
use proptest::prelude::*;

/// Whether the side to move wins by force within `plies` plies (exhaustive).
fn wins_within<V: Rules>(game: &Game<V>, plies: u32) -> bool {
    let us = game.position().turn();
    if let Some(outcome) = game.outcome() {
        return matches!(outcome, Outcome::Win { winner, .. } if winner == us);
    }
    if plies == 0 {
        return false;
    }
    game.legal_moves().iter().any(|mv| {
        let mut next = game.clone();
        next.play(mv);
        loses_within(&next, plies - 1)
    })
}

/// Whether the side to move loses by force within `plies` plies.
fn loses_within<V: Rules>(game: &Game<V>, plies: u32) -> bool {
    let us = game.position().turn();
    if let Some(outcome) = game.outcome() {
        return matches!(outcome, Outcome::Win { winner, .. } if winner != us);
    }
    if plies == 0 {
        return false;
    }
    game.legal_moves().iter().all(|mv| {
        let mut next = game.clone();
        next.play(mv);
        wins_within(&next, plies - 1)
    })
}

/// Positions from seeded random games where exactly one of several moves wins by force within
/// three plies (the move, then any reply, then the win).
fn forced_wins<V: Rules>(wanted: usize) -> Vec<(Game<V>, usize)> {
    let mut found = Vec::new();
    for seed in 0..20_000u64 {
        let mut game = Game::<V>::new();
        game.play_random(seed, 200);
        // Walk back through the game's positions, looking near its end.
        let moves = game.moves().to_vec();
        let mut replay = Game::<V>::from_position(*game.start());
        for (ply, mv) in moves.iter().enumerate() {
            if ply + 6 >= moves.len() && replay.legal_moves().len() >= 3 {
                let winning: Vec<usize> = (0..replay.legal_moves().len())
                    .filter(|&i| {
                        let mut next = replay.clone();
                        next.play(&replay.legal_moves()[i]);
                        loses_within(&next, 2)
                    })
                    .collect();
                if winning.len() == 1 {
                    found.push((replay.clone(), winning[0]));
                    break;
                }
            }
            replay.play(mv);
        }
        if found.len() == wanted {
            break;
        }
    }
    assert_eq!(
        found.len(),
        wanted,
        "not enough forced wins in the random games"
    );
    found
}

fn config(simulations: u32, gumbel: bool) -> SearchConfig {
    SearchConfig {
        simulations,
        gumbel,
        ..SearchConfig::default()
    }
}

#[test]
fn puct_finds_the_only_forced_win_with_a_know_nothing_evaluator() {
    for (game, winning) in forced_wins::<Russian>(8) {
        let mut search = Search::new(game.clone(), config(800, false), 1);
        search.start_with_budget(800, RootNoise::Off);
        search.run(&UniformEvaluator);
        let chosen = search.choose(0.0);
        // The only win within three plies, or another forced win the search saw through
        // forced replies (walking through one-move positions reaches deeper).
        let mut after = game.clone();
        after.play(&game.legal_moves()[chosen]);
        assert!(
            chosen == winning || loses_within(&after, 6),
            "position {:?}: chose {chosen}, the win in three is {winning}",
            damas_rules::to_fen::<Russian>(game.position())
        );
        assert!(
            search.report().value > 0.5,
            "the win shows in the root value"
        );
    }
}

#[test]
fn gumbel_finds_the_only_forced_win_too() {
    for (game, winning) in forced_wins::<English>(6) {
        let mut search = Search::new(game.clone(), config(800, true), 1);
        search.start_with_budget(800, RootNoise::Off);
        search.run(&UniformEvaluator);
        assert_eq!(search.choose(0.0), winning);
        let report = search.report();
        let best = (0..report.policy.len())
            .max_by(|&a, &b| report.policy[a].total_cmp(&report.policy[b]))
            .unwrap();
        assert_eq!(best, winning, "the improved policy puts the win first");
    }
}

#[test]
fn visits_add_up_and_policy_is_a_distribution() {
    for leaves_per_batch in [1, 8] {
        for gumbel in [false, true] {
            let mut game = Game::<International>::new();
            game.play_random(7, 10);
            let cfg = SearchConfig {
                leaves_per_batch,
                ..config(300, gumbel)
            };
            let mut search = Search::new(game, cfg, 3);
            search.start_with_budget(300, RootNoise::On);
            search.run(&StaticEvaluator::default());
            let report = search.report();
            let root = search.tree().node(0);
            assert_eq!(root.in_flight, 0);
            // The first simulation expands the root itself; every other one goes through a move.
            assert_eq!(report.visits.iter().sum::<u32>() + 1, root.visits);
            assert!(root.visits <= 300);
            if !gumbel {
                assert_eq!(root.visits, 300, "PUCT spends its whole budget");
            }
            let total: f32 = report.policy.iter().sum();
            assert!((total - 1.0).abs() < 1e-4, "policy sums to {total}");
            assert!(report.policy.iter().all(|p| p.is_finite() && *p >= 0.0));
            assert!(search.tree().nodes.iter().all(|n| n.in_flight == 0));
        }
    }
}

#[test]
fn gumbel_moves_legally_at_two_simulations() {
    let mut game = Game::<Russian>::new();
    for seed in 0..20 {
        if game.outcome().is_some() {
            game = Game::new();
        }
        let mut search = Search::new(game.clone(), config(2, true), seed);
        search.start_with_budget(2, RootNoise::On);
        search.run(&UniformEvaluator);
        let index = search.choose(1.0);
        let report = search.report();
        assert!(game.legal_moves().contains(&report.moves[index]));
        game.play(&report.moves[index]);
    }
}

#[test]
fn gumbel_without_a_simulation_budget_stops_when_told_and_answers() {
    // A search bounded by time or a stop flag starts with `u32::MAX` simulations; here the stop
    // comes after a fixed number of simulations (several rounds of the plan), so the test does
    // not depend on the clock. Planning the phases of that budget used to allocate gigabytes.
    let mut searched = 0;
    for seed in 0..8u64 {
        let mut game = Game::<Russian>::new();
        game.play_random(seed, 3 * seed as u32);
        if game.outcome().is_some() || game.legal_moves().len() < 2 {
            continue;
        }
        searched += 1;
        for stop_at in [1, 1_500] {
            let mut search = Search::new(game.clone(), config(64, true), seed);
            search.start_with_budget(u32::MAX, RootNoise::Off);
            search.run_while(&StaticEvaluator::default(), |s| {
                s.tree().node(0).visits < stop_at
            });
            assert!(!search.is_finished(), "only the stop ends it");
            let report = search.report();
            let leaves = SearchConfig::default().leaves_per_batch;
            assert!((stop_at..stop_at + leaves).contains(&report.simulations));
            let total: f32 = report.policy.iter().sum();
            assert!((total - 1.0).abs() < 1e-4, "policy sums to {total}");
            assert!(report.policy.iter().all(|p| p.is_finite() && *p >= 0.0));
            let index = search.choose(0.0);
            assert!(game.legal_moves().contains(&report.moves[index]));
            if stop_at > 1 {
                assert!(report.visits[index] > 0, "the choice was searched");
            }
        }
    }
    assert!(searched >= 4);
}

#[test]
fn a_single_legal_move_is_answered_without_search() {
    // Russian: the man on c3 must take d4.
    let game = Game::<Russian>::from_position(
        damas_rules::parse_fen::<Russian>("W:Wc3:Bd4,h8").expect("valid FEN"),
    );
    let mut search = Search::new(game, config(100, false), 0);
    search.start_with_budget(100, RootNoise::Off);
    assert!(search.is_finished());
    assert_eq!(search.report().moves.len(), 1);
    assert_eq!(search.choose(0.0), 0);
}

#[test]
fn tree_reuse_keeps_the_chosen_subtree() {
    let game = Game::<English>::new();
    let mut search = Search::new(game, config(400, false), 0);
    search.start_with_budget(400, RootNoise::Off);
    search.run(&StaticEvaluator::default());
    let report = search.report();
    let index = search.choose(0.0);
    let kept = report.visits[index];
    let mv = report.moves[index];
    search.advance(&mv);
    assert_eq!(search.tree().node(0).visits, kept);
    assert_eq!(search.game().moves().last(), Some(&mv));
    search.start_with_budget(100, RootNoise::On);
    search.run(&StaticEvaluator::default());
    assert_eq!(search.tree().node(0).visits, kept + 100);
}

/// Counts the batches and their sizes, to see that games share them.
struct CountingEvaluator(std::sync::Mutex<Vec<usize>>);

impl<V: Rules> Evaluator<V> for CountingEvaluator {
    fn evaluate(&self, leaves: &[Leaf<'_, V>]) -> Vec<Evaluation> {
        self.0.lock().unwrap().push(leaves.len());
        UniformEvaluator.evaluate(leaves)
    }
}

#[test]
fn many_searches_share_each_batch() {
    let cfg = SearchConfig {
        leaves_per_batch: 4,
        ..config(64, false)
    };
    let mut searches: Vec<Search<International>> = (0..16)
        .map(|seed| {
            let mut game = Game::new();
            game.play_random(seed, 6);
            let mut search = Search::new(game, cfg.clone(), seed);
            search.start_with_budget(64, RootNoise::On);
            search
        })
        .collect();
    // Forced moves (a single legal capture) need no search.
    let searching = searches.iter().filter(|s| !s.is_finished()).count();
    assert!(searching >= 10);
    let evaluator = CountingEvaluator(Default::default());
    run_batched(&mut searches, &evaluator);
    let batches = evaluator.0.into_inner().unwrap();
    assert!(searches.iter().all(Search::is_finished));
    assert_eq!(batches[0], searching, "the first batch holds every root");
    let mean = batches.iter().sum::<usize>() as f32 / batches.len() as f32;
    assert!(
        mean > 2.0 * searching as f32,
        "batches average {mean} leaves"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn the_chosen_move_is_always_legal(seed in 0u64..10_000, plies in 0u32..60, gumbel: bool, sims in 1u32..40) {
        let mut game = Game::<International>::new();
        game.play_random(seed, plies);
        prop_assume!(game.outcome().is_none());
        let mut search = Search::new(game.clone(), config(sims, gumbel), seed);
        search.start_with_budget(sims, RootNoise::On);
        search.run(&StaticEvaluator::default());
        let index = search.choose(1.0);
        prop_assert!(game.legal_moves().contains(&search.report().moves[index]));
    }
}

/// Counts the leaves it is sent, and how many of them had a single legal move.
#[derive(Default)]
struct LeafCounter {
    leaves: std::sync::atomic::AtomicUsize,
    forced: std::sync::atomic::AtomicUsize,
}

impl<V: Rules> Evaluator<V> for LeafCounter {
    fn evaluate(&self, leaves: &[Leaf<'_, V>]) -> Vec<Evaluation> {
        use std::sync::atomic::Ordering::Relaxed;
        self.leaves.fetch_add(leaves.len(), Relaxed);
        let forced = leaves.iter().filter(|leaf| leaf.moves.len() == 1).count();
        self.forced.fetch_add(forced, Relaxed);
        UniformEvaluator.evaluate(leaves)
    }
}

#[test]
fn positions_with_one_legal_move_are_walked_through_not_evaluated() {
    use std::sync::atomic::Ordering::Relaxed;
    // Searches from positions along random Russian games, where forced captures are common.
    let run = |walk: bool| {
        let counter = LeafCounter::default();
        for seed in 0..12u64 {
            let mut game = Game::<Russian>::new();
            game.play_random(seed, 2 * seed as u32);
            if game.outcome().is_some() {
                continue;
            }
            let mut search = Search::new(
                game,
                SearchConfig {
                    walk_forced_moves: walk,
                    ..config(200, false)
                },
                seed,
            );
            search.start(RootNoise::Off);
            search.run(&counter);
            let report = search.report();
            let visits: u32 = report.visits.iter().sum();
            assert!(visits > 0 || report.moves.len() == 1);
        }
        (counter.leaves.load(Relaxed), counter.forced.load(Relaxed))
    };
    let (leaves, forced) = run(true);
    assert!(leaves > 0);
    assert_eq!(forced, 0, "{forced} of {leaves} leaves had one legal move");
    // Without the walk the same searches do send such positions: the test can tell.
    let (_, forced_without) = run(false);
    assert!(forced_without > 0);
}

#[test]
fn the_cache_returns_the_stored_evaluation_and_a_counter_change_misses() {
    use damas_mcts::CachedEvaluator;
    use std::sync::atomic::Ordering::Relaxed;
    let inner = LeafCounter::default();
    let cache = CachedEvaluator::new(&inner, 1_000);
    let mut game = Game::<Russian>::new();
    game.play_random(3, 6);
    let moves = game.legal_moves().to_vec();
    let leaf = || Leaf {
        game: &game,
        moves: &moves,
    };
    let first = Evaluator::<Russian>::evaluate(&cache, &[leaf()]);
    let again = Evaluator::<Russian>::evaluate(&cache, &[leaf(), leaf()]);
    assert_eq!(again, vec![first[0].clone(), first[0].clone()]);
    assert_eq!(inner.leaves.load(Relaxed), 1, "answered from the cache");
    assert_eq!(cache.stats().hits, 2);
    assert_eq!(cache.stats().lookups, 3);
    // The same squares reached with another draw counter (a king move played and undone by
    // both sides leaves the position as it was, one repetition and four king plies later) are
    // a different input to the network: the cache must not answer.
    let kings = "W:WK31:BK2";
    let start = damas_rules::parse_fen::<Russian>(kings).unwrap();
    let mut shuffled = Game::<Russian>::from_position(start);
    for text in ["31-27", "2-6", "27-31", "6-2"] {
        let mv = damas_rules::parse_move::<Russian>(shuffled.position(), text).unwrap();
        shuffled.play(&mv);
    }
    let fresh = Game::<Russian>::from_position(start);
    assert_eq!(shuffled.position(), fresh.position());
    assert_ne!(shuffled.king_move_plies(), fresh.king_move_plies());
    let (a, b) = (
        fresh.legal_moves().to_vec(),
        shuffled.legal_moves().to_vec(),
    );
    let before = inner.leaves.load(Relaxed);
    Evaluator::<Russian>::evaluate(
        &cache,
        &[Leaf {
            game: &fresh,
            moves: &a,
        }],
    );
    Evaluator::<Russian>::evaluate(
        &cache,
        &[Leaf {
            game: &shuffled,
            moves: &b,
        }],
    );
    assert_eq!(
        inner.leaves.load(Relaxed),
        before + 2,
        "both went to the network"
    );
}

/// Counters the draw rules do not read are not part of the key: Russian has no rule on plies
/// without a capture, so the same position after two men moves and set up afresh (two plies
/// without a capture against none) is one network input and one cache entry.
#[test]
fn the_cache_keys_the_counters_as_the_draw_rules_see_them() {
    use damas_mcts::CachedEvaluator;
    use damas_mcts::cache::leaf_key;
    use std::sync::atomic::Ordering::Relaxed;
    assert_eq!(
        Russian::DRAW.no_capture_plies,
        0,
        "the case needs a variant without the rule"
    );
    let mut played = Game::<Russian>::new();
    for text in ["c3-d4", "f6-g5"] {
        let mv = damas_rules::parse_move::<Russian>(played.position(), text).unwrap();
        played.play(&mv);
    }
    let set_up = Game::<Russian>::from_position(*played.position());
    assert_eq!(played.plies_without_capture(), 2);
    assert_eq!(set_up.plies_without_capture(), 0);
    assert_eq!(played.draw_progress(), set_up.draw_progress());
    let moves = played.legal_moves().to_vec();
    let leaf = |game| Leaf {
        game,
        moves: &moves,
    };
    assert_eq!(
        leaf_key::<Russian>(&leaf(&played)),
        leaf_key::<Russian>(&leaf(&set_up))
    );
    let inner = LeafCounter::default();
    let cache = CachedEvaluator::new(&inner, 1_000);
    Evaluator::<Russian>::evaluate(&cache, &[leaf(&played)]);
    Evaluator::<Russian>::evaluate(&cache, &[leaf(&set_up)]);
    assert_eq!(
        inner.leaves.load(Relaxed),
        1,
        "the second was answered from the cache"
    );
    // Where the rule exists the counter still tells positions apart (the test above covers
    // king plies); here: the same squares one king ply on.
    let mut kings =
        Game::<Russian>::from_position(damas_rules::parse_fen::<Russian>("W:WK31:BK2").unwrap());
    let before = kings.draw_progress();
    let mv = damas_rules::parse_move::<Russian>(kings.position(), "31-27").unwrap();
    kings.play(&mv);
    assert_eq!(
        kings.draw_progress().king_move_plies,
        before.king_move_plies + 1
    );
}

#[test]
fn forced_playouts_visit_every_move_and_the_pruned_target_sums_to_one() {
    for seed in 0..6u64 {
        let mut game = Game::<International>::new();
        game.play_random(seed, 6 + seed as u32);
        if game.legal_moves().len() < 3 {
            continue;
        }
        let cfg = SearchConfig {
            forced_playouts: 2.0,
            leaves_per_batch: 1,
            ..config(400, false)
        };
        let mut search = Search::new(game.clone(), cfg, seed);
        search.start(RootNoise::On);
        search.run(&StaticEvaluator::default());
        let report = search.report();
        let total: u32 = report.visits.iter().sum();
        // Forced playouts: every move got about sqrt(2 x prior x visits) visits at least.
        let priors: Vec<f32> = search.tree().edges(0).iter().map(|e| e.prior).collect();
        for (visits, prior) in report.visits.iter().zip(&priors) {
            let owed = (2.0 * prior * total as f32).sqrt().floor() as u32;
            assert!(*visits + 1 >= owed, "{visits} visits, {owed} owed");
        }
        // The target: a distribution, the best move kept whole, the others pruned, never raised.
        let sum: f32 = report.policy.iter().sum();
        assert!((sum - 1.0).abs() < 1e-4, "pruned target sums to {sum}");
        let kept = search.pruned_visits();
        let best = report.most_visited().unwrap();
        assert_eq!(kept[best], report.visits[best]);
        assert!(kept.iter().zip(&report.visits).all(|(k, v)| k <= v));
        assert!(kept.iter().sum::<u32>() < total, "something was pruned");
        // Without noise (evaluation games) nothing is forced and the target is the visit share.
        let mut quiet = Search::new(game, search.config().clone(), seed);
        quiet.start(RootNoise::Off);
        quiet.run(&StaticEvaluator::default());
        let report = quiet.report();
        let total: u32 = report.visits.iter().sum();
        for (p, v) in report.policy.iter().zip(&report.visits) {
            assert!((p - *v as f32 / total as f32).abs() < 1e-6);
        }
    }
}

/// One simulation expands the root and visits nothing: its policy target is the network's own
/// priors, not the priors with self-play's Dirichlet noise mixed in.
#[test]
fn a_single_simulation_reports_the_priors_without_noise() {
    let game = Game::<Russian>::new();
    let evaluator = damas_mcts::StaticEvaluator::<Russian>::default();
    let moves = game.legal_moves().to_vec();
    assert!(moves.len() > 1);
    let priors = Evaluator::<Russian>::evaluate(
        &evaluator,
        &[Leaf {
            game: &game,
            moves: &moves,
        }],
    )[0]
    .priors
    .clone();
    let mut search = Search::new(game.clone(), config(1, false), 3);
    search.start(RootNoise::On);
    search.run(&evaluator);
    let report = search.report();
    assert_eq!(report.visits.iter().sum::<u32>(), 0);
    assert_eq!(report.policy, priors);
}
