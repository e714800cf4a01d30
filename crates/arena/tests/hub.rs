//! The Hub server outlives its GUI: whatever it is sent, the end of the input ends the session
//! (a running search is stopped), and bad values are `error` lines.

use damas_arena::hub::server::{Lines, ServerOptions, serve};
use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use std::io::Write;
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

/// The server's output, kept for the test.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Serves `input` and returns the output; fails if the session is not over within 20 seconds
/// of the end of its input.
fn session(input: &str) -> String {
    session_with(input, None)
}

/// [`session`] with an endgame database root for the alpha-beta engine.
fn session_with(input: &str, egdb: Option<std::path::PathBuf>) -> String {
    let captured = Captured::default();
    let lines = Lines::new(captured.clone());
    let input = input.to_string();
    let (done, finished) = mpsc::channel();
    std::thread::spawn(move || {
        let options = ServerOptions {
            tt_megabytes: 1,
            model: None,
            device: damas_nn::cpu(),
            egdb,
        };
        let result = serve(input.as_bytes(), &lines, &options);
        let _ = done.send(result.is_ok());
    });
    let ok = finished
        .recv_timeout(Duration::from_secs(20))
        .unwrap_or_else(|_| panic!("the session did not end"));
    assert!(ok, "the session failed");
    String::from_utf8(captured.0.lock().unwrap().clone()).unwrap()
}

#[test]
fn the_end_of_the_input_stops_a_search_without_limits() {
    for input in [
        "hub\ninit\ngo ponder\n",
        "hub\ninit\ngo analyze\n",
        "init\nlevel infinite\ngo think\n",
        "init\nlevel nodes=abc\ngo\n",
    ] {
        session(input);
    }
}

#[test]
fn a_malformed_level_is_an_error_line() {
    // The last two were found by the fuzzer (scripts/fuzz.sh, hub-server): times too large
    // for a Duration panicked the session.
    let output = session(
        "init\nlevel nodes=abc\nlevel move-time=-1\nlevel depth=x\n\
         level move-time=18446744073709551616.01\nlevel time=1e300\n",
    );
    let errors: Vec<&str> = output.lines().filter(|l| l.starts_with("error")).collect();
    assert_eq!(errors.len(), 5, "{output}");
    assert!(
        errors[3].contains("move-time=18446744073709551616.01"),
        "{output}"
    );
    assert!(
        errors[0].contains("`nodes=abc` is not a number"),
        "{output}"
    );
}

#[test]
fn a_stop_right_after_go_is_never_lost() {
    // The stop may arrive before the search thread has started: it must still stop it.
    let mut input = String::from("init\n");
    for _ in 0..50 {
        input += "go analyze\nstop\nping\n";
    }
    let output = session(&input);
    assert_eq!(output.matches("pong").count(), 50, "{output}");
}

#[test]
fn random_sessions_end_and_never_crash() {
    let words = [
        "hub",
        "init",
        "new-game",
        "ping",
        "stop",
        "ponder-hit",
        "go",
        "go think",
        "go ponder",
        "go analyze",
        "go nonsense",
        "level depth=3",
        "level nodes=500",
        "level nodes=abc",
        "level move-time=0.01",
        "level time=1 inc=0.1 moves=10",
        "level infinite",
        "level frobs=3",
        "pos moves=\"32-28 19-23\"",
        "pos pos=Wbbbb",
        "pos pos=\"unterminated",
        "set-param name=variant value=russian",
        "set-param name=variant value=klingon",
        "set-param name=tt-size value=0",
        "set-param name=tt-size value=2",
        "\u{0}\u{1}garbage\u{7f}",
        "=",
        "\"",
        "",
    ];
    let mut rng = StdRng::seed_from_u64(7);
    for _ in 0..60 {
        let mut input = String::new();
        for _ in 0..rng.random_range(1..25) {
            input += words.choose(&mut rng).unwrap();
            input.push('\n');
        }
        // Half the sessions end without a newline, as a killed GUI would.
        if rng.random_bool(0.5) {
            input.pop();
        }
        session(&input);
    }
}

#[test]
fn an_endgame_database_is_used_or_its_absence_said() {
    let script = "hub\nset-param name=variant value=english\ninit\nlevel depth=2\ngo think\n";
    let missing = session_with(script, Some("/nonexistent/egdb".into()));
    assert!(
        missing.contains("error message=\"no endgame database: /nonexistent/egdb/english"),
        "{missing}"
    );
    assert!(missing.contains("done move="), "{missing}");
    let root = std::env::temp_dir().join(format!("damas-hub-egdb-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let signatures = damas_egdb::Signature::up_to(2);
    damas_egdb::build::build::<damas_rules::variants::English>(&root, &signatures, |_, _, _| {})
        .unwrap();
    let found = session_with(script, Some(root.clone()));
    let _ = std::fs::remove_dir_all(&root);
    assert!(!found.contains("error"), "{found}");
    assert!(found.contains("done move="), "{found}");
}

/// Flips bits in the last byte of every block of the table file at `path` (format 2: the mark,
/// the header's length and the JSON header, then 12 bytes a block whose first 8 give the end of
/// its zstd frame from the first frame's start).
fn damage_every_block(path: &std::path::Path) {
    let mut bytes = std::fs::read(path).unwrap();
    let header_len = u32::from_le_bytes(bytes[8..12].try_into().unwrap()) as usize;
    let header: serde_json::Value = serde_json::from_slice(&bytes[12..12 + header_len]).unwrap();
    let slots = 2 * header["indices"].as_u64().unwrap() as usize;
    let blocks = slots.div_ceil(header["block_positions"].as_u64().unwrap() as usize);
    let index = 12 + header_len;
    let frames = index + 12 * blocks;
    for block in 0..blocks {
        let entry = index + 12 * block;
        let end = u64::from_le_bytes(bytes[entry..entry + 8].try_into().unwrap()) as usize;
        bytes[frames + end - 1] ^= 0x55;
    }
    std::fs::write(path, &bytes).unwrap();
}

#[test]
fn a_damaged_table_met_in_a_search_is_said_in_an_error_line() {
    let root = std::env::temp_dir().join(format!("damas-hub-damaged-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let signatures = damas_egdb::Signature::up_to(2);
    damas_egdb::build::build::<damas_rules::variants::English>(&root, &signatures, |_, _, _| {})
        .unwrap();
    // King against king: damage every block, whichever the search meets.
    damage_every_block(&root.join("english").join("w0.1-b0.1.egdb"));
    // A white king on 22 and a black one on 11: every position below the root is in that table.
    let mut squares = vec!['e'; 32];
    squares[21] = 'W';
    squares[10] = 'B';
    let position: String = std::iter::once('W').chain(squares).collect();
    let script = format!(
        "hub\nset-param name=variant value=english\ninit\npos pos={position}\nlevel depth=3\n\
         go think\n"
    );
    let output = session_with(&script, Some(root.clone()));
    let _ = std::fs::remove_dir_all(&root);
    let errors: Vec<&str> = output.lines().filter(|l| l.starts_with("error")).collect();
    assert_eq!(errors.len(), 1, "{output}");
    assert!(
        errors[0].contains("w0.1-b0.1.egdb: block") && errors[0].contains("searched instead"),
        "{output}"
    );
    // The search still answers, after the error.
    let done = output.find("done move=").expect(&output);
    assert!(output.find("error").unwrap() < done, "{output}");
}
