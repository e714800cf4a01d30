//! Rating arithmetic against hand-computed values, how it is written, player strings, default
//! results directories, the crosstable, and a tournament of alpha-beta depths that must come out
//! in order.

use damas_arena::{
    AlphaBetaPlayer, BoxedFactory, EloEstimate, GameRules, Player, PlayerSpec, Sprt, SprtVerdict,
    TournamentSummary, Wdl, default_results_dir, elo_estimate, elo_from_score, fit_ratings,
    round_robin, run_schedule, signed_elo,
};
use damas_engine::Limits;
use damas_rules::variants::Russian;
use damas_rules::{Color, Outcome};
use std::path::{Path, PathBuf};

fn wdl(wins: u32, draws: u32, losses: u32) -> Wdl {
    Wdl {
        wins,
        draws,
        losses,
    }
}

#[test]
fn elo_from_a_score() {
    // 75%: -400 log10(1/0.75 - 1) = 400 log10(3) = 190.85.
    assert!((elo_from_score(0.75) - 190.848).abs() < 0.01);
    assert_eq!(elo_from_score(0.5), 0.0);
    assert!((elo_from_score(0.25) + 190.848).abs() < 0.01);
    let estimate = elo_estimate(wdl(75, 0, 25));
    assert!((estimate.elo - 190.848).abs() < 0.01);
    // Per-game variance 0.1875, standard error sqrt(0.1875/100) = 0.0433: score 0.6651..0.8349.
    assert!((estimate.low - elo_from_score(0.75 - 1.959964 * 0.0433013)).abs() < 0.1);
    assert!((estimate.high - elo_from_score(0.75 + 1.959964 * 0.0433013)).abs() < 0.1);
    assert!(estimate.low > 115.0 && estimate.high < 285.0, "{estimate}");
    // Draws narrow the interval.
    let drawish = elo_estimate(wdl(50, 50, 0));
    assert!((drawish.elo - 190.848).abs() < 0.01);
    assert!(drawish.high - drawish.low < estimate.high - estimate.low);
}

#[test]
fn sprt_log_likelihood_ratio_by_hand() {
    // W/D/L 60/20/20: w = 0.6, d = 0.2, score 0.7, variance 0.6 + 0.05 - 0.49 = 0.16.
    // s0 = 0.5 (0 Elo), s1 = 1 / (1 + 10^(-10/400)) = 0.514387.
    // LLR = (s1 - s0)(2s - s0 - s1) / (2 var / n) = 0.014387 x 0.385613 / 0.0032 = 1.7337.
    let sprt = Sprt {
        elo0: 0.0,
        elo1: 10.0,
        alpha: 0.05,
        beta: 0.05,
    };
    let llr = sprt.llr(wdl(60, 20, 20));
    assert!((llr - 1.7337).abs() < 0.001, "LLR {llr}");
    // Bounds ln(0.05/0.95) = -2.944 and ln(0.95/0.05) = 2.944.
    let (low, high) = sprt.bounds();
    assert!((low + 2.9444).abs() < 1e-3 && (high - 2.9444).abs() < 1e-3);
    assert_eq!(sprt.verdict(wdl(60, 20, 20)), SprtVerdict::Continue);
    assert_eq!(
        sprt.verdict(wdl(120, 40, 40)),
        SprtVerdict::AcceptH1,
        "twice the games, twice the LLR"
    );
    // 40/40/120: score 0.3, variance 0.16, LLR 0.014387 x (0.6 - 1.014387) / 0.0016 = -3.73.
    assert!((sprt.llr(wdl(40, 40, 120)) + 3.726).abs() < 0.01);
    assert_eq!(sprt.verdict(wdl(40, 40, 120)), SprtVerdict::AcceptH0);
}

#[test]
fn joint_fit_matches_a_two_player_match_and_orders_a_chain() {
    // Two players, no prior: the fit is the match's own Elo.
    let table = vec![
        vec![Wdl::default(), wdl(70, 10, 20)],
        vec![wdl(20, 10, 70), Wdl::default()],
    ];
    let ratings = fit_ratings(&table, 1, 0.0);
    assert!((ratings[0].elo - elo_from_score(0.75)).abs() < 0.01);
    assert_eq!(ratings[1].elo, 0.0);
    // A chain A > B > C with 75% each, C anchored: A about +381, B about +191.
    let n = 3;
    let mut chain = vec![vec![Wdl::default(); n]; n];
    for (i, j) in [(0, 1), (1, 2)] {
        chain[i][j] = wdl(75, 0, 25);
        chain[j][i] = wdl(25, 0, 75);
    }
    let ratings = fit_ratings(&chain, 2, 0.0);
    assert!((ratings[1].elo - 190.85).abs() < 0.5, "{:?}", ratings[1]);
    assert!((ratings[0].elo - 381.7).abs() < 1.0, "{:?}", ratings[0]);
    assert!(ratings[0].low < ratings[0].elo && ratings[0].elo < ratings[0].high);
}

#[test]
fn player_strings_parse_and_reject_nonsense() {
    let net: PlayerSpec = "net:runs/russian/checkpoints/000120,sims=400,gumbel"
        .parse()
        .unwrap();
    assert_eq!(
        net.to_string(),
        "net:runs/russian/checkpoints/000120,sims=400,gumbel"
    );
    let timed: PlayerSpec = "net:x,time=0.5".parse().unwrap();
    assert!(matches!(timed, PlayerSpec::Net { time: Some(_), .. }));
    assert_eq!(
        "alphabeta:depth=6"
            .parse::<PlayerSpec>()
            .unwrap()
            .to_string(),
        "alphabeta:depth=6"
    );
    assert_eq!("random".parse::<PlayerSpec>().unwrap(), PlayerSpec::Random);
    assert_eq!(
        "hub:\"/usr/bin/scan hub\"".parse::<PlayerSpec>().unwrap(),
        PlayerSpec::Hub("/usr/bin/scan hub".into())
    );
    assert!("dxp:localhost:27531".parse::<PlayerSpec>().is_ok());
    for bad in [
        "",
        "net:",
        "net:x,sims=0",
        "alphabeta:depth=x",
        "alphabeta:speed=3",
        "dxp:host",
        "hub:",
        "chess",
    ] {
        let error = bad.parse::<PlayerSpec>().unwrap_err();
        assert!(error.to_string().contains(&format!("`{bad}`")), "{error}");
    }
}

#[test]
fn player_string_values_are_checked_like_config_values() {
    for (bad, named) in [
        ("alphabeta:depth=0", "depth=0: depth must be at least 1"),
        ("alphabeta:nodes=0", "nodes=0: nodes must be at least 1"),
        ("alphabeta:depth=-3", "depth=-3: `-3` is not a whole number"),
        ("alphabeta:time=0", "time=0: seconds must be positive"),
        ("alphabeta:time=-1", "time=-1: seconds must be positive"),
        ("alphabeta:time=nan", "time=nan: seconds must be positive"),
        (
            "alphabeta:time=1e300",
            "time=1e300: seconds must be positive and at most 86400",
        ),
        ("net:x,sims=0", "sims=0: sims must be at least 1"),
        (
            "net:x,sims=4294967296",
            "sims=4294967296: `4294967296` is not a whole number",
        ),
        ("net:x,time=inf", "time=inf: seconds must be positive"),
    ] {
        let error = bad.parse::<PlayerSpec>().unwrap_err().to_string();
        assert!(error.contains(named), "{bad}: {error}");
        assert!(error.contains(&format!("`{bad}`")), "{error}");
    }
}

#[test]
fn a_tournament_of_depths_ranks_them_in_order() {
    let depths = [1u32, 2, 3, 4];
    let factories: Vec<BoxedFactory<Russian>> = depths
        .iter()
        .map(|&depth| {
            Box::new(move |seed| {
                Box::new(AlphaBetaPlayer::<Russian>::new(Limits::depth(depth), seed))
                    as Box<dyn Player<Russian>>
            }) as BoxedFactory<Russian>
        })
        .collect();
    let refs: Vec<_> = factories.iter().map(|f| f.as_ref()).collect();
    let openings = damas_arena::balanced_openings::<Russian>(10, 4, 60, 1);
    let pairings = round_robin(depths.len(), 10);
    let mut table = vec![vec![Wdl::default(); depths.len()]; depths.len()];
    let rules = GameRules {
        max_plies: 200,
        ..GameRules::default()
    };
    run_schedule(&refs, &pairings, &openings, 2, &rules, None, 7, |game| {
        let (w, b) = (game.pairing.white, game.pairing.black);
        match game.played.outcome {
            Outcome::Win {
                winner: Color::White,
                ..
            } => {
                table[w][b].wins += 1;
                table[b][w].losses += 1;
            }
            Outcome::Win { .. } => {
                table[w][b].losses += 1;
                table[b][w].wins += 1;
            }
            Outcome::Draw(_) => {
                table[w][b].draws += 1;
                table[b][w].draws += 1;
            }
        }
        true
    });
    let games: u32 = table.iter().flatten().map(Wdl::games).sum();
    assert_eq!(games, 2 * pairings.len() as u32);
    let ratings = fit_ratings(&table, 0, 1.0);
    for pair in ratings.windows(2) {
        assert!(
            pair[0].elo < pair[1].elo,
            "ratings not in depth order: {ratings:?}"
        );
    }
}

#[test]
fn elo_is_written_with_a_sign_and_a_perfect_score_as_a_bound() {
    assert_eq!(signed_elo(-0.3), "+0");
    assert_eq!(signed_elo(0.0), "+0");
    assert_eq!(signed_elo(-12.6), "-13");
    assert_eq!(signed_elo(7.0), "+7");
    let even = elo_estimate(wdl(1, 2, 1)).to_string();
    assert!(even.starts_with("+0 Elo (95%: -"), "{even}");
    // 2-0: the point estimate is the arithmetic's cap, not a measurement.
    let perfect = elo_estimate(wdl(2, 0, 0));
    assert!(perfect.is_perfect_win());
    let text = perfect.to_string();
    assert!(!text.contains("2400"), "{text}");
    assert_eq!(
        text,
        format!(
            "> {} Elo (95% lower bound; perfect score: no upper bound)",
            signed_elo(perfect.low)
        )
    );
    let zero = elo_estimate(wdl(0, 0, 3));
    assert!(zero.is_perfect_loss());
    assert!(zero.to_string().starts_with("< "), "{zero}");
    assert!(!elo_estimate(wdl(19, 1, 0)).is_perfect_win());
}

#[test]
fn default_results_directories_name_variant_and_players() {
    let root = Path::new("runs/arena/match");
    let dir = |players: &[&str]| {
        let players: Vec<String> = players.iter().map(|p| p.to_string()).collect();
        default_results_dir(root, "russian", &players).unwrap()
    };
    assert_eq!(
        dir(&["alphabeta:depth=2", "alphabeta:depth=1"]),
        PathBuf::from("runs/arena/match/russian/alphabeta-depth-2_vs_alphabeta-depth-1")
    );
    // Two spellings of one player share a directory; the order of the players matters.
    assert_eq!(
        dir(&["alphabeta", "random"]),
        dir(&["alphabeta:depth=6", "random"])
    );
    assert_ne!(dir(&["random", "alphabeta"]), dir(&["alphabeta", "random"]));
    // Free text (paths) gets a hash of the exact strings: readable, but never shared by
    // accident, and always one file-system-safe component.
    let a = dir(&["net:runs/a b/checkpoints/000010", "random"]);
    let b = dir(&["net:runs/a-b/checkpoints/000010", "random"]);
    assert_ne!(a, b);
    for path in [&a, &b] {
        let name = path.file_name().unwrap().to_str().unwrap();
        assert!(
            name.starts_with("net-runs-a-b-checkpoints-000010_vs_random_"),
            "{name}"
        );
        assert!(
            name.chars()
                .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c)),
            "{name}"
        );
        assert_eq!(path.parent(), Some(root.join("russian").as_path()));
    }
    // Many players: the name stays short.
    let many: Vec<String> = (1..=12).map(|d| format!("alphabeta:depth={d}")).collect();
    let long = default_results_dir(root, "russian", &many).unwrap();
    assert!(long.file_name().unwrap().len() <= 100, "{long:?}");
    assert!(default_results_dir(root, "russian", &["nonsense".to_string()]).is_err());
}

#[test]
fn the_crosstable_heads_its_opponent_columns() {
    let rating = |elo: f64| EloEstimate {
        elo,
        low: elo - 50.0,
        high: elo + 50.0,
    };
    let summary = TournamentSummary {
        names: vec!["random".into(), "alphabeta:depth=1".into()],
        table: vec![
            vec![Wdl::default(), wdl(0, 1, 1)],
            vec![wdl(1, 1, 0), Wdl::default()],
        ],
        ratings: vec![
            EloEstimate {
                elo: 0.0,
                low: 0.0,
                high: 0.0,
            },
            rating(190.0),
        ],
        checkpoints: None,
        out: PathBuf::from("x"),
    };
    let table = summary.crosstable();
    let lines: Vec<&str> = table.lines().collect();
    assert!(lines[0].ends_with("#1    #2"), "{table}");
    assert!(
        lines[1].contains("alphabeta:depth=1") && lines[1].contains("+190"),
        "{table}"
    );
    assert!(lines[1].ends_with("    - 1.5/2"), "{table}");
    assert!(lines[2].ends_with("0.5/2     -"), "{table}");
    assert!(
        lines[2].contains("(anchor)") && lines[2].contains("+0"),
        "{table}"
    );
}
