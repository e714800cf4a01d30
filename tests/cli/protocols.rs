//! The engine protocols: a Hub session line by line, DXP games on loopback.

use crate::{stderr, stdout};
use std::io::Write;
use std::process::{Command, Stdio};

/// A Hub session driven line by line: each command is sent only after the previous reply arrived.
#[test]
fn hub_session_line_by_line() {
    let mut hub = HubChild::start();

    hub.send("hub");
    assert!(hub.next().starts_with("id name=damas "));
    let variant = hub.next();
    assert!(
        variant.starts_with("param name=variant value=normal type=enum values=\"normal "),
        "{variant}"
    );
    assert!(hub.next().starts_with("param name=tt-size"));
    assert_eq!(hub.next(), "wait");
    hub.send("set-param name=variant value=checkerz");
    assert!(
        hub.next()
            .starts_with("error message=\"unknown variant `checkerz`")
    );
    hub.send("set-param name=variant value=normal");
    hub.send("init");
    assert_eq!(hub.next(), "ready");
    hub.send("set-param name=variant value=russian");
    assert_eq!(
        hub.next(),
        "error message=\"the variant can only be set before init\""
    );
    hub.send("new-game");
    hub.send("pos pos=Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww moves=\"32-28 19-23\"");
    hub.send("ping");
    assert_eq!(hub.next(), "pong");
    hub.send("pos moves=\"32-28 33-29\"");
    assert!(
        hub.next()
            .starts_with("error message=\"bad move: `33-29` is not a legal move"),
        "a move in the wrong turn"
    );
    hub.send("pos pos=Wbbbb");
    assert!(
        hub.next()
            .starts_with("error message=\"bad position: a Hub position needs")
    );
    hub.send("frobnicate now");
    assert_eq!(hub.next(), "error message=\"unknown command `frobnicate`\"");
    hub.send("level nonsense=3");
    assert_eq!(hub.next(), "error message=\"unknown level `nonsense`\"");
    hub.send("pos moves=\"32-28 19-23\"");
    hub.send("level depth=4");
    hub.send("go think");
    let mut infos = 0;
    let done = loop {
        let line = hub.next();
        if line.starts_with("info ") {
            assert!(
                line.contains(" score=") && line.contains(" nodes=") && line.contains(" pv=\""),
                "{line}"
            );
            infos += 1;
        } else {
            break line;
        }
    };
    assert_eq!(infos, 4);
    // White must take: 28x19 capturing 23 is the only legal move.
    assert!(done.starts_with("done move=28x19x23"), "{done}");
    // An analysis runs until stopped.
    hub.send("go analyze");
    std::thread::sleep(std::time::Duration::from_millis(200));
    hub.send("stop");
    let done = loop {
        let line = hub.next();
        if !line.starts_with("info ") {
            break line;
        }
    };
    assert!(done.starts_with("done move="), "{done}");
    hub.send("quit");
    assert!(hub.child.wait().unwrap().success());
}

/// A `damas hub` child driven line by line, every read bounded so that a missing reply fails the
/// test instead of hanging it.
struct HubChild {
    child: std::process::Child,
    input: std::process::ChildStdin,
    lines: std::sync::mpsc::Receiver<String>,
}

impl HubChild {
    fn start() -> Self {
        use std::io::{BufRead, BufReader};
        let mut child = Command::new(env!("CARGO_BIN_EXE_damas"))
            .args(["hub", "--tt", "4"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("damas hub starts");
        let input = child.stdin.take().unwrap();
        let output = child.stdout.take().unwrap();
        let (sender, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(output).lines() {
                let Ok(line) = line else { break };
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        HubChild {
            child,
            input,
            lines,
        }
    }

    fn send(&mut self, line: &str) {
        writeln!(self.input, "{line}").unwrap();
        self.input.flush().unwrap();
    }

    /// The next line; a guard against hangs only, far above any reply's time.
    fn next(&self) -> String {
        self.lines
            .recv_timeout(std::time::Duration::from_secs(120))
            .expect("a reply from damas hub")
    }

    /// Reads a search's `info` lines up to its `done`; returns the depths reported and `done`.
    fn search(&self) -> (Vec<u32>, String) {
        let mut depths = Vec::new();
        loop {
            let line = self.next();
            let Some(info) = line.strip_prefix("info ") else {
                return (depths, line);
            };
            let depth = info
                .split_whitespace()
                .find_map(|word| word.strip_prefix("depth="))
                .expect("an alpha-beta info line has a depth");
            depths.push(depth.parse().unwrap());
        }
    }

    /// Asserts that the commands sent so far printed nothing more (no error line).
    fn quiet(&mut self) {
        self.send("ping");
        assert_eq!(self.next(), "pong");
    }
}

/// The Hub details a new user meets: a level lasts until the next one (so a second `go think`
/// ends by itself), a rejected `pos` is counted as typed and leaves no position to search
/// silently, and `pos start` is the start position while `start=...` is refused.
#[test]
fn hub_levels_last_and_bad_positions_are_not_searched() {
    let mut hub = HubChild::start();
    hub.send("hub");
    while hub.next() != "wait" {}
    hub.send("init");
    assert_eq!(hub.next(), "ready");

    // Before any level, `go think` refuses instead of searching until `stop`.
    hub.send("go think");
    let refused = hub.next();
    assert!(
        refused.starts_with("error message=\"go think needs a level first"),
        "{refused}"
    );

    // A FEN where a Hub position belongs: 9 characters as typed, and the position is gone.
    hub.send("pos pos=W:W28:B23");
    let error = hub.next();
    assert!(
        error.starts_with("error message=\"bad position: a Hub position needs")
            && error.contains("50 squares (51 characters), found 9 characters in `W:W28:B23`"),
        "{error}"
    );
    hub.send("level depth=2");
    hub.quiet();
    for go in ["go think", "go analyze"] {
        hub.send(go);
        let refused = hub.next();
        assert!(
            refused.starts_with("error message=\"no position to search"),
            "{go} after a rejected pos: {refused}"
        );
    }

    // `start` is a flag; with a value it is refused, not ignored.
    hub.send("pos start=Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww");
    let refused = hub.next();
    assert!(
        refused.starts_with("error message=\"`start=Wbbbb") && refused.contains("takes no value"),
        "{refused}"
    );
    hub.send("pos pos=Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww start");
    assert!(hub.next().contains("send one of them"));
    hub.send("pos start moves=\"32-28 19-23\"");
    hub.quiet();

    // One level, two searches: the second ends by itself under the same level.
    hub.send("level depth=3");
    hub.quiet();
    for _ in 0..2 {
        hub.send("go think");
        let (depths, done) = hub.search();
        assert_eq!(depths, [1, 2, 3]);
        // White must take: 28x19 capturing 23 is the only legal move.
        assert!(done.starts_with("done move=28x19x23"), "{done}");
    }

    // A rejected level leaves none: `go think` refuses rather than use the old one.
    hub.send("level move-time=soon");
    assert_eq!(
        hub.next(),
        "error message=\"`move-time=soon` is not a time in seconds\""
    );
    hub.send("go think");
    let refused = hub.next();
    assert!(refused.contains("the last level was rejected"), "{refused}");
    hub.send("level");
    assert!(hub.next().starts_with("error message=\"level needs"));
    hub.send("level inc=2");
    assert!(hub.next().contains("need `time=`"));

    hub.send("quit");
    assert!(hub.child.wait().unwrap().success());
}

/// Starts `damas dxp --listen 0` and returns the child with the address it printed.
fn dxp_listener(extra: &[&str]) -> (std::process::Child, String) {
    use std::io::{BufRead, BufReader};
    let mut args = vec!["dxp", "--listen", "0"];
    args.extend_from_slice(extra);
    let mut child = Command::new(env!("CARGO_BIN_EXE_damas"))
        .args(&args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("listener starts");
    let mut first = String::new();
    BufReader::new(child.stdout.as_mut().unwrap())
        .read_line(&mut first)
        .unwrap();
    let address = first
        .trim()
        .strip_prefix("listening on ")
        .expect("address line")
        .to_string();
    (child, address)
}

#[test]
fn dxp_game_on_loopback_ends_with_gameend() {
    let (listener, address) = dxp_listener(&[
        "--engine",
        "alphabeta:depth=2",
        "--games",
        "1",
        "--max-plies",
        "120",
    ]);
    let out = Command::new(env!("CARGO_BIN_EXE_damas"))
        .args([
            "dxp",
            "--connect",
            &address,
            "--engine",
            "alphabeta:depth=1",
            "--max-plies",
            "120",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let log = stderr(&out);
    assert!(log.contains("dxp > R01damas"), "GAMEREQ sent:\n{log}");
    assert!(
        log.contains("dxp < Adamas                           0"),
        "GAMEACC received:\n{log}"
    );
    assert!(
        log.lines().any(|l| l.starts_with("dxp > M"))
            && log.lines().any(|l| l.starts_with("dxp < M"))
    );
    // Both GAMEEND messages: one sent, one received.
    assert!(log.lines().any(|l| l.starts_with("dxp > E")), "{log}");
    assert!(log.lines().any(|l| l.starts_with("dxp < E")), "{log}");
    assert!(stdout(&out).starts_with("game over: "), "{}", stdout(&out));
    let listener = listener.wait_with_output().unwrap();
    assert!(listener.status.success());
    assert!(String::from_utf8_lossy(&listener.stdout).contains("game over: "));
}

#[test]
fn dxp_refuses_a_bad_gamereq_and_stays_up() {
    use std::io::Read;
    let (mut listener, address) = dxp_listener(&["--engine", "random", "--games", "1"]);
    let mut stream = std::net::TcpStream::connect(&address).unwrap();
    stream.write_all(b"R99nobody\0").unwrap();
    let mut reply = Vec::new();
    let mut byte = [0u8];
    // The CHAT with the reason, then GAMEACC with code 2.
    let mut messages = Vec::new();
    while messages.len() < 2 {
        stream.read_exact(&mut byte).unwrap();
        if byte[0] == 0 {
            messages.push(String::from_utf8(std::mem::take(&mut reply)).unwrap());
        } else {
            reply.push(byte[0]);
        }
    }
    assert!(
        messages[0].starts_with("Crefused: GAMEREQ too short"),
        "{messages:?}"
    );
    assert!(
        messages[1].starts_with('A') && messages[1].ends_with('2'),
        "{messages:?}"
    );
    // Still up: a proper request is accepted on the same connection.
    stream
        .write_all(format!("R01{:<32}Z005000A\0", "tester").as_bytes())
        .unwrap();
    let mut accepted = Vec::new();
    loop {
        stream.read_exact(&mut byte).unwrap();
        if byte[0] == 0 {
            break;
        }
        accepted.push(byte[0]);
    }
    let accepted = String::from_utf8(accepted).unwrap();
    assert!(
        accepted.starts_with('A') && accepted.ends_with('0'),
        "{accepted}"
    );
    listener.kill().unwrap();
    let _ = listener.wait();
}
