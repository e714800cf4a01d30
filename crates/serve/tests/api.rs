//! The JSON API, called as the page calls it: every variant's board and start, moves legal and
//! illegal, searches, runs read while a run writes them, and the refusals of names that would
//! leave the runs directory.

use axum::body::Body;
use axum::http::{Request, StatusCode};
use damas_arena::PlayerSpec;
use damas_rules::{Bits, Game, Position, Rules, Variant, VariantVisitor, to_fen};
use damas_serve::{ServeOptions, Server, api::router};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tower::ServiceExt;

fn fresh_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("damas-serve-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn options(runs: Option<&Path>, players: &[&str]) -> ServeOptions {
    ServeOptions {
        listen: "127.0.0.1:0".parse().unwrap(),
        runs: runs.map(Path::to_path_buf),
        players: players
            .iter()
            .map(|p| p.parse::<PlayerSpec>().unwrap())
            .collect(),
        max_searches: 2,
        device: damas_nn::cpu(),
    }
}

fn server(runs: Option<&Path>, players: &[&str]) -> Arc<Server> {
    Arc::new(Server::new(&options(runs, players)).unwrap())
}

/// One request through the router; the answer's status and JSON body.
fn call(server: &Arc<Server>, method: &str, uri: &str, body: Option<Value>) -> (StatusCode, Value) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let request = Request::builder()
            .method(method)
            .uri(uri)
            .header("content-type", "application/json")
            .body(match body {
                Some(body) => Body::from(body.to_string()),
                None => Body::empty(),
            })
            .unwrap();
        let response = router(Arc::clone(server)).oneshot(request).await.unwrap();
        let status = response.status();
        let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
            .await
            .unwrap();
        let value = serde_json::from_slice(&bytes)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into()));
        (status, value)
    })
}

fn error_of(value: &Value) -> &str {
    value["error"].as_str().unwrap_or_default()
}

/// What the rules themselves say of a variant's start: squares, pieces, legal moves, FEN.
struct Start;
impl VariantVisitor for Start {
    type Output = (u32, u32, usize, String, String);
    fn visit<V: Rules>(self) -> Self::Output {
        let start = Position::<V::Geometry>::initial::<V>();
        (
            <V::Geometry as damas_rules::Geometry>::SQUARES,
            start.occupied().count(),
            Game::<V>::from_position(start).legal_moves().len(),
            to_fen::<V>(&start),
            start.turn().to_string(),
        )
    }
}

#[test]
fn every_variant_has_its_board_and_start() {
    let server = server(None, &[]);
    let (status, variants) = call(&server, "GET", "/api/variants", None);
    assert_eq!(status, StatusCode::OK);
    let variants = variants.as_array().unwrap();
    assert_eq!(variants.len(), Variant::ALL.len());
    for (info, variant) in variants.iter().zip(Variant::ALL) {
        let (squares, pieces, moves, fen, turn) = variant.visit(Start);
        assert_eq!(info["name"], variant.name());
        let listed = info["squares"].as_array().unwrap();
        assert_eq!(listed.len() as u32, squares, "{}", variant.name());
        let (width, height) = (
            info["width"].as_u64().unwrap(),
            info["height"].as_u64().unwrap(),
        );
        let mut cells: Vec<(u64, u64)> = listed
            .iter()
            .map(|s| (s["row"].as_u64().unwrap(), s["column"].as_u64().unwrap()))
            .collect();
        assert!(cells.iter().all(|&(r, c)| r < height && c < width));
        cells.sort_unstable();
        cells.dedup();
        assert_eq!(
            cells.len() as u32,
            squares,
            "{}: two squares drawn in one cell",
            variant.name()
        );
        if info["board_of_lines"] == true {
            assert!(!info["lines"].as_array().unwrap().is_empty());
        }
        assert_eq!(info["start_fen"], fen.as_str());
        let (status, state) = call(
            &server,
            "POST",
            "/api/state",
            Some(json!({"variant": variant.name()})),
        );
        assert_eq!(status, StatusCode::OK, "{}: {state}", variant.name());
        assert_eq!(
            state["pieces"].as_array().unwrap().len() as u32,
            pieces,
            "{}",
            variant.name()
        );
        assert_eq!(
            state["legal"].as_array().unwrap().len(),
            moves,
            "{}",
            variant.name()
        );
        assert_eq!(state["turn"], turn.as_str());
        assert!(state["outcome"].is_null());
    }
}

#[test]
fn a_legal_move_is_played_and_bad_input_is_refused_by_name() {
    let server = server(None, &[]);
    let (_, start) = call(
        &server,
        "POST",
        "/api/state",
        Some(json!({"variant": "russian"})),
    );
    let first = start["legal"][0]["text"].as_str().unwrap().to_string();
    let (status, after) = call(
        &server,
        "POST",
        "/api/state",
        Some(json!({"variant": "russian", "moves": [first]})),
    );
    assert_eq!(status, StatusCode::OK);
    assert_eq!(after["ply"], 1);
    assert_eq!(after["turn"], "black");
    assert_eq!(after["history"][0], first.as_str());
    assert_eq!(after["last"]["text"], first.as_str());

    let refused = [
        (
            json!({"variant": "russian", "moves": ["a1-h8"]}),
            "move 1 `a1-h8`",
        ),
        (
            json!({"variant": "russian", "moves": [first, first]}),
            "move 2",
        ),
        (
            json!({"variant": "russian", "fen": "W:Wz9:B1"}),
            "fen `W:Wz9:B1`",
        ),
        (json!({"variant": "klingon"}), "variant"),
        (
            json!({"variant": "russian", "colour": "red"}),
            "unknown field `colour`",
        ),
        // White has no piece: the game is over before any move.
        (
            json!({"variant": "international", "fen": "W:W:B1", "moves": ["1-7"]}),
            "already over",
        ),
    ];
    for (body, expected) in refused {
        let (status, answer) = call(&server, "POST", "/api/state", Some(body.clone()));
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
        assert!(error_of(&answer).contains(expected), "{body}: {answer}");
    }
    let (status, answer) = call(&server, "POST", "/api/state", Some(json!("not an object")));
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(error_of(&answer).starts_with("request:"), "{answer}");
    let (status, _) = call(&server, "GET", "/api/nothing-here", None);
    assert_eq!(status, StatusCode::NOT_FOUND);
}

/// A limited ending's count is shown from its first ply: International's three kings against a
/// lone king (FMJD: 16 moves each).
#[test]
fn a_limited_endings_count_is_among_the_draw_counters() {
    let server = server(None, &[]);
    let fen = "W:WK46,K47,K48:BK5";
    let ending = |state: &Value| {
        state["draw_counters"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["rule"] == "plies of the limited ending")
            .cloned()
    };
    let (status, start) = call(
        &server,
        "POST",
        "/api/state",
        Some(json!({"variant": "international", "fen": fen})),
    );
    assert_eq!(status, StatusCode::OK, "{start}");
    let counter = ending(&start).expect("the ending's count runs");
    assert_eq!(counter["count"], 0);
    assert_eq!(counter["limit"], 32);
    let first = start["legal"][0]["text"].clone();
    let (_, after) = call(
        &server,
        "POST",
        "/api/state",
        Some(json!({"variant": "international", "fen": fen, "moves": [first]})),
    );
    assert_eq!(ending(&after).unwrap()["count"], 1);
    let (_, opening) = call(
        &server,
        "POST",
        "/api/state",
        Some(json!({"variant": "international"})),
    );
    assert!(ending(&opening).is_none());
}

#[test]
fn a_search_answers_a_legal_move_and_only_listed_players_play() {
    let server = server(None, &[]);
    let (status, reply) = call(
        &server,
        "POST",
        "/api/think",
        Some(json!({"game": {"variant": "english"}, "player": "alphabeta:depth=2"})),
    );
    assert_eq!(status, StatusCode::OK, "{reply}");
    let (_, start) = call(
        &server,
        "POST",
        "/api/state",
        Some(json!({"variant": "english"})),
    );
    let legal: Vec<&str> = start["legal"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["text"].as_str().unwrap())
        .collect();
    assert!(legal.contains(&reply["text"].as_str().unwrap()), "{reply}");
    assert_eq!(reply["state"]["ply"], 1);
    // Searched to the depth the player names, no deeper.
    assert!(
        reply["info"].as_str().unwrap().starts_with("depth 2,"),
        "{reply}"
    );

    for player in [
        "net:/etc/passwd",
        "hub:\"rm -rf /\"",
        "alphabeta:depth=30",
        "run:../x",
    ] {
        let (status, answer) = call(
            &server,
            "POST",
            "/api/think",
            Some(json!({"game": {"variant": "english"}, "player": player})),
        );
        assert_eq!(status, StatusCode::NOT_FOUND, "{player}: {answer}");
        assert!(
            error_of(&answer).contains("not one this server offers"),
            "{answer}"
        );
    }
    let (status, answer) = call(
        &server,
        "POST",
        "/api/think",
        Some(json!({"game": {"variant": "english"}, "player": "random", "game_id": "../../x"})),
    );
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(error_of(&answer).contains("game_id"));
    let (status, answer) = call(
        &server,
        "POST",
        "/api/analyse",
        Some(json!({"game": {"variant": "english"}, "player": "random"})),
    );
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(error_of(&answer).contains("only a network"), "{answer}");
}

#[test]
fn an_outside_engine_that_fails_is_an_error_and_the_server_goes_on() {
    let server = server(None, &["hub:\"no-such-engine-here --hub\""]);
    let (status, answer) = call(
        &server,
        "POST",
        "/api/think",
        Some(
            json!({"game": {"variant": "international"}, "player": "hub:\"no-such-engine-here --hub\""}),
        ),
    );
    assert_eq!(status, StatusCode::INTERNAL_SERVER_ERROR, "{answer}");
    assert!(error_of(&answer).contains("the player failed"), "{answer}");
    let (status, _) = call(
        &server,
        "POST",
        "/api/state",
        Some(json!({"variant": "international"})),
    );
    assert_eq!(status, StatusCode::OK);
}

fn tiny_config(dir: &Path) -> PathBuf {
    let path = dir.join("tiny.toml");
    std::fs::write(
        &path,
        r#"name = "tiny"
variant = "russian"
generations = 3
games_per_generation = 4
[network]
blocks = 1
channels = 8
[selfplay]
fast_simulations = 4
full_search_fraction = 0.5
max_plies = 60
games_per_worker = 2
games_per_shard = 2
[selfplay.search]
simulations = 8
[training]
batch_size = 16
window_min = 40
[evaluation]
baseline_games = 2
previous_games = 2
simulations = 4
"#,
    )
    .unwrap();
    path
}

#[test]
fn runs_are_read_while_a_run_writes_them_and_their_games_replay() {
    let dir = fresh_dir("runs");
    let runs = dir.join("runs");
    std::fs::create_dir_all(&runs).unwrap();
    let config = damas_train::ConfigFile::read(&tiny_config(&dir)).unwrap();
    let server = server(Some(&runs), &[]);
    let training = {
        let runs = runs.clone();
        std::thread::spawn(move || {
            damas_train::train(&config, &runs, &mut damas_train::Silent).unwrap();
        })
    };
    let mut reads = 0;
    while !training.is_finished() || reads == 0 {
        let (status, listed) = call(&server, "GET", "/api/runs", None);
        assert_eq!(status, StatusCode::OK);
        if listed
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["name"] == "tiny")
        {
            let (status, data) = call(&server, "GET", "/api/run?name=tiny", None);
            assert_eq!(status, StatusCode::OK, "{data}");
            assert!(data["generations"].is_array());
            reads += 1;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    training.join().unwrap();
    let (_, data) = call(&server, "GET", "/api/run?name=tiny", None);
    assert_eq!(data["summary"]["generations"], json!([0, 1, 2, 3]));
    assert_eq!(data["summary"]["variant"], "russian");
    assert_eq!(data["summary"]["finished"], true);
    assert!(
        data["generations"][3]["metrics"]["policy_loss"].is_number(),
        "{data}"
    );
    assert!(data["generations"][3]["time"]["selfplay"].is_number());
    assert_eq!(
        data["evaluation_games"],
        json!(["eval-000003.pdn", "eval-000002.pdn", "eval-000001.pdn"])
    );
    for file in [&data["games"][0], &data["evaluation_games"][0]] {
        let (status, games) = call(
            &server,
            "GET",
            &format!("/api/run/game?name=tiny&file={}", file.as_str().unwrap()),
            None,
        );
        assert_eq!(status, StatusCode::OK, "{games}");
        for game in games.as_array().unwrap() {
            let moves = game["moves"].as_array().unwrap().len();
            assert_eq!(game["positions"].as_array().unwrap().len(), moves + 1);
        }
    }

    // The run's newest checkpoint is a player, and a network shows its policy.
    let (_, players) = call(&server, "GET", "/api/players", None);
    let run_player = players
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["id"] == "run:tiny")
        .expect("the run's network is listed");
    assert_eq!(run_player["variant"], "russian");
    let (status, reply) = call(
        &server,
        "POST",
        "/api/think",
        Some(json!({"game": {"variant": "russian"}, "player": "run:tiny"})),
    );
    assert_eq!(status, StatusCode::OK, "{reply}");
    let (status, wrong) = call(
        &server,
        "POST",
        "/api/think",
        Some(json!({"game": {"variant": "english"}, "player": "run:tiny"})),
    );
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(error_of(&wrong).contains("plays russian"), "{wrong}");
    let (status, analysis) = call(
        &server,
        "POST",
        "/api/analyse",
        Some(json!({"game": {"variant": "russian"}, "player": "run:tiny"})),
    );
    assert_eq!(status, StatusCode::OK, "{analysis}");
    let total: f64 = analysis["wdl"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_f64().unwrap())
        .sum();
    assert!((total - 1.0).abs() < 1e-3);
    assert_eq!(analysis["moves"].as_array().unwrap().len(), 7);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn names_from_the_browser_never_leave_the_runs_directory() {
    let dir = fresh_dir("escape");
    let runs = dir.join("runs");
    let outside = dir.join("outside");
    // A run-like directory outside, reachable through a symlink inside.
    for run in [runs.join("real"), outside.join("secret")] {
        std::fs::create_dir_all(run.join("checkpoints")).unwrap();
        std::fs::create_dir_all(run.join("games")).unwrap();
    }
    std::fs::write(outside.join("secret.pdn"), "[Event \"secret\"]\n*\n").unwrap();
    std::fs::write(runs.join("real/games/ok.pdn"), "1. 9-13 *\n").unwrap();
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(outside.join("secret"), runs.join("link")).unwrap();
        std::os::unix::fs::symlink(outside.join("secret.pdn"), runs.join("real/games/leak.pdn"))
            .unwrap();
    }
    let server = server(Some(&runs), &[]);
    let (_, listed) = call(&server, "GET", "/api/runs", None);
    let names: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["real"]);
    for name in [
        "link",
        "../outside/secret",
        "/etc",
        "real/..",
        "real/../../outside/secret",
    ] {
        let (status, answer) = call(
            &server,
            "GET",
            &format!("/api/run?name={}", name.replace('/', "%2F")),
            None,
        );
        assert_eq!(status, StatusCode::NOT_FOUND, "{name}: {answer}");
    }
    let (_, data) = call(&server, "GET", "/api/run?name=real", None);
    assert_eq!(data["games"], json!(["ok.pdn"]));
    assert!(data["curve"].is_null());
    // `damas bench learning --out DIR` keeps the run in DIR/<name> and its curve in DIR.
    std::fs::write(
        runs.join("curve.json"),
        r#"{"label": "real", "points": []}"#,
    )
    .unwrap();
    let (_, data) = call(&server, "GET", "/api/run?name=real", None);
    assert_eq!(data["curve"]["label"], "real");
    for file in [
        "leak.pdn",
        "../../outside/secret.pdn",
        "%2Fetc%2Fpasswd",
        "..%2Fconfig.toml",
    ] {
        let (status, answer) = call(
            &server,
            "GET",
            &format!("/api/run/game?name=real&file={file}"),
            None,
        );
        assert_eq!(status, StatusCode::NOT_FOUND, "{file}: {answer}");
        assert!(error_of(&answer).contains("not listed"), "{answer}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn pdn_is_replayed_and_oversized_uploads_are_refused() {
    let server = server(None, &[]);
    let pdn = "[White \"a\"]\n[Black \"b\"]\n1. c3-d4 f6-g5 2. d4-e5 *\n";
    let (status, games) = call(
        &server,
        "POST",
        "/api/replay",
        Some(json!({"variant": "russian", "pdn": pdn})),
    );
    assert_eq!(status, StatusCode::OK, "{games}");
    assert_eq!(games[0]["moves"].as_array().unwrap().len(), 3);
    assert_eq!(games[0]["positions"].as_array().unwrap().len(), 4);
    assert_eq!(games[0]["tags"][0], json!(["White", "a"]));
    let (status, answer) = call(
        &server,
        "POST",
        "/api/replay",
        Some(json!({"variant": "russian", "pdn": "1. c3-d4 c3-d4 *"})),
    );
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(error_of(&answer).contains("PDN line 1"), "{answer}");
    let huge = "x".repeat(damas_serve::api::MAX_BODY + 1);
    let (status, _) = call(
        &server,
        "POST",
        "/api/replay",
        Some(json!({"variant": "russian", "pdn": huge})),
    );
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
}

/// The page is served from the binary, and names only files the server serves.
#[test]
fn the_page_and_its_files_are_served() {
    let server = server(None, &[]);
    let (status, page) = call(&server, "GET", "/", None);
    assert_eq!(status, StatusCode::OK);
    let page = page.as_str().unwrap();
    assert!(page.contains("src=\"/app.js\"") && page.contains("href=\"/style.css\""));
    assert!(!page.contains("http://") && !page.contains("https://"));
    for path in ["/app.js", "/style.css"] {
        let (status, _) = call(&server, "GET", path, None);
        assert_eq!(status, StatusCode::OK, "{path}");
    }
}

/// A search whose request is dropped stops: with one search at a time, the next request is
/// answered long before the first search's minute is up.
#[test]
fn a_closed_connection_stops_its_search() {
    use std::io::{Read, Write};
    let mut options = options(None, &["alphabeta:time=60"]);
    options.max_searches = 1;
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        damas_serve::serve(&options, |address| sender.send(address).unwrap()).unwrap();
    });
    let address = receiver.recv().unwrap();
    let request = |player: &str| {
        let body = json!({"game": {"variant": "russian"}, "player": player}).to_string();
        format!(
            "POST /api/think HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
    };
    let mut long = std::net::TcpStream::connect(address).unwrap();
    long.write_all(request("alphabeta:time=60").as_bytes())
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(500));
    drop(long);
    let started = std::time::Instant::now();
    let mut short = std::net::TcpStream::connect(address).unwrap();
    short
        .set_read_timeout(Some(std::time::Duration::from_secs(50)))
        .unwrap();
    short
        .write_all(request("alphabeta:depth=2").as_bytes())
        .unwrap();
    let mut answer = String::new();
    short.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(20),
        "the second search waited {:?}: the first was not stopped",
        started.elapsed()
    );
}
