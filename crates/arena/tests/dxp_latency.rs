//! DXP reply latency over loopback: a benchmark, not a test. It prints how long the DXP server
//! takes to answer each of our moves and asserts nothing about time; run it with
//!
//! ```text
//! cargo test -p damas-arena --test dxp_latency -- --ignored --nocapture
//! ```
//!
//! Our side is a bare [`Link`] playing the alpha-beta engine at depth 1 (microseconds a move),
//! so a reply's time is the server's thinking plus the transport both ways.
//!
//! Measured 2026-12-04 (2 cores, debug test profile): `alphabeta:depth=2` answered in 87.9 ms
//! median (84.7 to 88.1, a 40-reply game in 3.59 s) before TCP_NODELAY and one write per
//! message, 0.1 ms median (max 2.6, the game in 0.02 s) after; `alphabeta:time=0.2` at most
//! 258.4 ms before, 200.4 ms after.

use damas_arena::dxp::server::{DxpOptions, DxpServer};
use damas_arena::dxp::{Link, find_move, game_request, move_message};
use damas_arena::{AlphaBetaPlayer, Player, PlayerSettings};
use damas_engine::Limits;
use damas_rules::variants::International;
use damas_rules::{Color, Game, Position, Variant};
use std::net::TcpStream;
use std::time::{Duration, Instant};

/// Plays one game against a DXP server running `engine` and returns each reply's time.
fn reply_times(engine: &str, max_plies: u32) -> Vec<Duration> {
    let server = DxpServer::bind(0).expect("a free port");
    let address = server.address().expect("an address").to_string();
    let options = DxpOptions {
        engine: engine.parse().expect("a player string"),
        settings: PlayerSettings::default(),
        variant: Variant::International,
        name: "listener".into(),
        max_plies,
        games: 1,
    };
    let serving = std::thread::spawn(move || server.serve(&options, &mut |_| {}));
    let mut link = Link::new(TcpStream::connect(&address).expect("connects"), false).unwrap();
    // The server follows with Black; we open.
    link.send(&game_request::<International>(
        "timer",
        Color::Black,
        10,
        0,
        &Position::initial::<International>(),
    ))
    .unwrap();
    while !link.receive().unwrap().expect("GAMEACC").starts_with('A') {}
    let mut ours = AlphaBetaPlayer::<International>::new(Limits::depth(1), 0);
    let mut game = Game::<International>::new();
    let mut times = Vec::new();
    while game.outcome().is_none() && game.ply() < max_plies {
        if game.position().turn() == Color::White {
            let mv = ours.play(&game).expect("a move").mv;
            link.send(&move_message::<International>(&mv, 0)).unwrap();
            game.play(&mv);
            continue;
        }
        let sent = Instant::now();
        let message = link.receive().unwrap().expect("a reply");
        times.push(sent.elapsed());
        let mv = find_move(&game, &message).expect("a legal move");
        game.play(&mv);
    }
    // The side to move announces the end; the other side echoes it.
    let announce = game.position().turn() == Color::White;
    if announce {
        link.send("E00").unwrap();
    }
    while let Ok(Some(message)) = link.receive() {
        if message.starts_with('E') {
            if !announce {
                link.send("E00").unwrap();
            }
            break;
        }
    }
    drop(link);
    let _ = serving.join();
    times
}

#[test]
#[ignore = "a benchmark: prints DXP reply times, asserts nothing about them"]
fn dxp_reply_latency_on_loopback() {
    for (engine, max_plies) in [("alphabeta:depth=2", 80), ("alphabeta:time=0.2", 20)] {
        let started = Instant::now();
        let mut ms: Vec<f64> = reply_times(engine, max_plies)
            .iter()
            .map(|t| t.as_secs_f64() * 1e3)
            .collect();
        let game = started.elapsed().as_secs_f64();
        ms.sort_by(f64::total_cmp);
        let mean = ms.iter().sum::<f64>() / ms.len() as f64;
        println!(
            "{engine}: {} replies in a {game:.2} s game; reply ms: min {:.1}, median {:.1}, \
             mean {mean:.1}, max {:.1}",
            ms.len(),
            ms[0],
            ms[ms.len() / 2],
            ms[ms.len() - 1],
        );
    }
}
