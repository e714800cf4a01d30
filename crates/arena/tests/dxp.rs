//! The arena's DXP client against a scripted peer that behaves like real DXP engines (Moby Dam
//! among them): it chats before accepting, refuses a GAMEREQ while its last game is not ended
//! by a GAMEEND, answers GAMEEND with GAMEEND, and serves each connection on its own thread, so
//! a new connection may be read before the old one's last message.

use damas_arena::dxp::{Link, find_move, move_message};
use damas_arena::{
    ArenaOptions, GameRules, MatchOptions, PlayerSettings, TournamentOptions, play_match,
    play_tournament,
};
use damas_rules::variants::International;
use damas_rules::{Color, Game, Variant, parse_hub};
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How a scripted peer misbehaves.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Behaviour {
    /// Plays random legal moves.
    Good,
    /// Sends an illegal move on its first turn.
    Illegal,
    /// Sends garbage on its first turn.
    Garbage,
    /// Closes the connection on its first turn.
    Crash,
    /// Never answers on its first turn.
    Hang,
}

/// What the peer saw.
#[derive(Default)]
struct Seen {
    /// Whether a game is open (accepted and not ended by a GAMEEND).
    in_game: Mutex<bool>,
    /// Games accepted.
    accepted: AtomicU32,
    /// Games refused because one was still open.
    refused: AtomicU32,
    /// GAMEENDs received.
    ends: AtomicU32,
    /// The time control fields of the last GAMEREQ.
    time_control: Mutex<String>,
    stop: AtomicBool,
}

fn serve(listener: TcpListener, seen: Arc<Seen>, behaviour: Behaviour) {
    listener.set_nonblocking(true).unwrap();
    let mut seed = 0;
    while !seen.stop.load(Ordering::SeqCst) {
        match listener.accept() {
            Ok((stream, _)) => {
                stream.set_nonblocking(false).unwrap();
                seed += 1;
                let seen = Arc::clone(&seen);
                std::thread::spawn(move || connection(stream, &seen, behaviour, seed));
            }
            Err(_) => std::thread::sleep(Duration::from_millis(5)),
        }
    }
}

fn connection(stream: TcpStream, seen: &Seen, behaviour: Behaviour, seed: u64) {
    let mut link = Link::new(stream, false).unwrap();
    let mut rng = StdRng::seed_from_u64(seed);
    let mut game: Option<(Game<International>, Color)> = None;
    let mut misbehaved = false;
    loop {
        // Our move, when it is our turn (a misbehaving peer misbehaves once, then listens).
        if let Some((current, ours)) = &mut game
            && current.position().turn() == *ours
            && current.outcome().is_none()
            && !misbehaved
        {
            misbehaved = behaviour != Behaviour::Good;
            let reply = match behaviour {
                Behaviour::Good => {
                    let mv = *current.legal_moves().choose(&mut rng).unwrap();
                    current.play(&mv);
                    move_message::<International>(&mv, 0)
                }
                Behaviour::Illegal => "M0000464100".to_string(),
                Behaviour::Garbage => "Mxyz".to_string(),
                Behaviour::Crash => return,
                Behaviour::Hang => {
                    std::thread::sleep(Duration::from_secs(30));
                    return;
                }
            };
            if link.send(&reply).is_err() {
                return;
            }
            continue;
        }
        let Ok(Some(message)) = link.receive() else {
            return;
        };
        match message.chars().next() {
            Some('R') => {
                let _ = link.send("Chello from the scripted peer");
                let mut open = seen.in_game.lock().unwrap();
                if *open {
                    seen.refused.fetch_add(1, Ordering::SeqCst);
                    let _ = link.send(&format!("A{:<32}2", "peer"));
                    continue;
                }
                *open = true;
                seen.accepted.fetch_add(1, Ordering::SeqCst);
                *seen.time_control.lock().unwrap() = message[36..42].to_string();
                let ours = if &message[35..36] == "W" {
                    Color::White
                } else {
                    Color::Black
                };
                let start = match &message[42..43] {
                    "A" => Game::new(),
                    _ => {
                        // DXP writes Black as `z`; the Hub form this crate reads uses `b`.
                        let hub: String = message[43..94]
                            .chars()
                            .map(|c| match c {
                                'z' => 'b',
                                'Z' => 'B',
                                other => other,
                            })
                            .collect();
                        Game::from_position(parse_hub::<International>(&hub).unwrap())
                    }
                };
                game = Some((start, ours));
                let _ = link.send(&format!("A{:<32}0", "peer"));
            }
            Some('M') => {
                let Some((current, _)) = &mut game else {
                    continue;
                };
                match find_move(current, &message) {
                    Some(mv) => current.play(&mv),
                    None => return,
                }
            }
            Some('E') => {
                seen.ends.fetch_add(1, Ordering::SeqCst);
                game = None;
                *seen.in_game.lock().unwrap() = false;
                let _ = link.send("E00");
            }
            _ => {}
        }
    }
}

/// A scripted peer on a free port: its address, what it saw, and its thread.
fn peer(behaviour: Behaviour) -> (String, Arc<Seen>, std::thread::JoinHandle<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap().to_string();
    let seen = Arc::new(Seen::default());
    let handle = {
        let seen = Arc::clone(&seen);
        std::thread::spawn(move || serve(listener, seen, behaviour))
    };
    (address, seen, handle)
}

fn arena(out: &str, engine_time: f64) -> ArenaOptions {
    let out = std::env::temp_dir().join(format!("damas-dxp-{out}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    ArenaOptions {
        variant: Variant::International,
        openings: None,
        opening_plies: 2,
        concurrency: 1,
        settings: PlayerSettings {
            engine_time: Duration::from_secs_f64(engine_time),
            ..PlayerSettings::default()
        },
        rules: GameRules {
            max_plies: 40,
            ..GameRules::default()
        },
        out,
        seed: 3,
    }
}

#[test]
fn every_game_is_closed_by_the_gameend_handshake() {
    let (address, seen, handle) = peer(Behaviour::Good);
    let options = MatchOptions {
        arena: arena("handshake", 0.5),
        players: ["random".into(), format!("dxp:{address}")],
        games: 6,
        sprt: None,
    };
    let summary = play_match(&options, &mut |_| {}).unwrap();
    seen.stop.store(true, Ordering::SeqCst);
    handle.join().unwrap();
    let results: serde_json::Value =
        serde_json::from_slice(&std::fs::read(options.arena.out.join("results.json")).unwrap())
            .unwrap();
    for game in results["games"].as_array().unwrap() {
        let reason = game["reason"].as_str().unwrap();
        assert!(!reason.contains("forfeits"), "{reason}");
    }
    assert_eq!(summary.first.games(), 6);
    assert_eq!(seen.refused.load(Ordering::SeqCst), 0, "no game refused");
    assert_eq!(seen.accepted.load(Ordering::SeqCst), 6);
    // The last game too was ended, so the engine is free for the next match.
    assert_eq!(seen.ends.load(Ordering::SeqCst), 6);
    assert!(!*seen.in_game.lock().unwrap());
    // Half a second per move: one minute for 120 moves.
    assert_eq!(*seen.time_control.lock().unwrap(), "001120");
    assert!(
        results["time_controls"][1]
            .as_str()
            .unwrap()
            .contains("0.50 s/move"),
        "{results}"
    );
    let _ = std::fs::remove_dir_all(&options.arena.out);
}

#[test]
fn misbehaving_dxp_engines_forfeit_and_the_tournament_goes_on() {
    let peers: Vec<_> = [
        Behaviour::Illegal,
        Behaviour::Garbage,
        Behaviour::Crash,
        Behaviour::Hang,
    ]
    .into_iter()
    .map(|b| (b, peer(b)))
    .collect();
    for (behaviour, (address, seen, handle)) in peers {
        let options = TournamentOptions {
            arena: arena(&format!("{behaviour:?}"), 0.2),
            players: vec!["random".into(), format!("dxp:{address}")],
            checkpoints: None,
            rounds: 1,
            schedule: damas_arena::Schedule::RoundRobin,
            anchor: 0,
        };
        let summary = play_tournament(&options, &mut |_| {}).unwrap();
        seen.stop.store(true, Ordering::SeqCst);
        handle.join().unwrap();
        // Both games played to a result: the engine lost each by forfeit, with the reason.
        assert_eq!(summary.total(0).games(), 2, "{behaviour:?}");
        assert_eq!(summary.total(0).wins, 2, "{behaviour:?}");
        let results = std::fs::read_to_string(options.arena.out.join("results.json")).unwrap();
        let expected = match behaviour {
            Behaviour::Illegal | Behaviour::Garbage => "illegal or malformed move",
            Behaviour::Crash => "closed the connection",
            _ => "timed out",
        };
        assert!(results.contains(expected), "{behaviour:?}: {results}");
        let _ = std::fs::remove_dir_all(&options.arena.out);
    }
}
