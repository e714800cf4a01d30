//! Export and exported models: safetensors, ONNX, model eval, Hub and arena play.

use crate::training::tiny_train_config;
use crate::{damas, fresh_dir, stderr, stdout};
use std::io::Write;
use std::process::{Command, Stdio};

#[test]
fn export_writes_safetensors_that_an_independent_reader_opens() {
    let dir = fresh_dir("export");
    let model = dir.join("model");
    let out = damas(
        &[
            "model",
            "init",
            "--variant",
            "english",
            "--blocks",
            "1",
            "--channels",
            "8",
            "--out",
            model.to_str().unwrap(),
        ],
        "",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let file = dir.join("english.safetensors");
    let out = damas(
        &[
            "export",
            "--model",
            model.to_str().unwrap(),
            "--format",
            "safetensors",
            "--out",
            file.to_str().unwrap(),
        ],
        "",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let bytes = std::fs::read(&file).unwrap();
    let (_, header) = safetensors::SafeTensors::read_metadata(&bytes).expect("a safetensors file");
    let metadata = header.metadata().as_ref().expect("metadata");
    assert_eq!(metadata["damas.variant"], "english");
    assert_eq!(metadata["damas.encoding_version"], "2");
    assert_eq!(metadata["damas.board"], "8x8");
    assert!(
        metadata["damas.policy"].contains("[batch, 1024]"),
        "{metadata:?}"
    );
    let tensors = safetensors::SafeTensors::deserialize(&bytes).unwrap();
    let names: Vec<String> = tensors.names().into_iter().map(String::from).collect();
    assert!(
        names.iter().any(|n| n.starts_with("stem.conv")),
        "{names:?}"
    );
    let policy = names
        .iter()
        .find(|n| n.starts_with("policy_fc.weight"))
        .expect("policy weights");
    assert_eq!(tensors.tensor(policy).unwrap().shape(), [4 * 64, 1024]);

    // Bad input: not a checkpoint, and a format that does not exist.
    let out = damas(
        &[
            "export",
            "--model",
            dir.to_str().unwrap(),
            "--out",
            file.to_str().unwrap(),
        ],
        "",
    );
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("is not a model: a directory with no meta.json"),
        "{}",
        stderr(&out)
    );
    // The older option name still works; a safetensors file is not taken for an ONNX model.
    let again = dir.join("again.safetensors");
    let out = damas(
        &[
            "export",
            "--checkpoint",
            model.to_str().unwrap(),
            "--format",
            "safetensors",
            "--out",
            again.to_str().unwrap(),
        ],
        "",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let out = damas(&["model", "eval", "--model", file.to_str().unwrap()], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("a safetensors export holds only weights"),
        "{}",
        stderr(&out)
    );
    let out = damas(
        &[
            "export",
            "--model",
            model.to_str().unwrap(),
            "--format",
            "pickle",
            "--out",
            file.to_str().unwrap(),
        ],
        "",
    );
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("[possible values: onnx, safetensors]"),
        "{}",
        stderr(&out)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A `damas hub` child driven one command at a time, waiting for its answers.
struct HubEngine {
    child: std::process::Child,
    lines: std::io::Lines<std::io::BufReader<std::process::ChildStdout>>,
}

impl HubEngine {
    fn start(args: &[&str]) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_damas"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        use std::io::BufRead;
        let lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
        HubEngine { child, lines }
    }

    /// Sends `line` (a command with no answer; an error shows up at the next `ask`).
    fn send(&mut self, line: &str) {
        writeln!(self.child.stdin.as_mut().unwrap(), "{line}").unwrap();
    }

    /// Sends `line`, then reads until a line starting with `answer` and returns it.
    fn ask(&mut self, line: &str, answer: &str) -> String {
        self.send(line);
        loop {
            let got = self.lines.next().expect("an answer").unwrap();
            assert!(!got.starts_with("error"), "{line}: {got}");
            if got.starts_with(answer) {
                return got;
            }
        }
    }

    /// The moves the engine plays against itself for `plies` plies at `nodes` simulations.
    fn self_play(&mut self, plies: usize, nodes: u32) -> Vec<String> {
        self.ask("hub", "wait");
        self.ask("init", "ready");
        let mut moves: Vec<String> = Vec::new();
        for _ in 0..plies {
            self.send(&format!("pos moves=\"{}\"", moves.join(" ")));
            self.send(&format!("level nodes={nodes}"));
            let done = self.ask("go", "done");
            moves.push(done.strip_prefix("done move=").expect(&done).to_string());
        }
        moves
    }
}

impl Drop for HubEngine {
    fn drop(&mut self) {
        let _ = writeln!(self.child.stdin.as_mut().unwrap(), "quit");
        let _ = self.child.wait();
    }
}

/// The numbers of `damas model eval` output: the value line and each move's probability.
fn eval_numbers(output: &str) -> Vec<f64> {
    output
        .split_whitespace()
        .filter_map(|word| word.parse::<f64>().ok())
        .collect()
}

#[test]
fn an_exported_onnx_model_plays_like_its_checkpoint() {
    let dir = fresh_dir("onnx");
    // A briefly trained network, so that batch norm's running statistics are not the identity.
    let config = tiny_train_config(&dir, "exported", 1);
    let runs = dir.join("runs");
    let out = damas(
        &[
            "train",
            "--config",
            config.to_str().unwrap(),
            "--runs",
            runs.to_str().unwrap(),
            "--quiet",
        ],
        "",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let checkpoint = runs.join("exported/checkpoints/000001");
    let checkpoint = checkpoint.to_str().unwrap();
    let file = dir.join("russian.onnx");
    let file = file.to_str().unwrap();
    // A run directory stands for its newest checkpoint.
    let run_dir = runs.join("exported");
    let out = damas(
        &[
            "export",
            "--model",
            run_dir.to_str().unwrap(),
            "--out",
            file,
        ],
        "",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains(&format!("from {checkpoint}")),
        "{}",
        stdout(&out)
    );

    // The same value and move probabilities, from burn and from tract.
    for fen in [
        None,
        Some("W:WKa1,c3,e3,g3,h4:Bb6,d6,f8,h6,Kg1"),
        Some("B:Wa3,c3,e3,f4,g3,h2:Ba7,b6,d6,e7,f8,g7"),
    ] {
        let eval = |model: &str| {
            let mut args = vec!["model", "eval", "--model", model];
            if let Some(fen) = fen {
                args.extend(["--fen", fen]);
            }
            let out = damas(&args, "");
            assert!(out.status.success(), "{}", stderr(&out));
            eval_numbers(&stdout(&out))
        };
        let (burn, tract) = (eval(checkpoint), eval(file));
        assert!(
            burn.len() > 5 && burn.len() == tract.len(),
            "{burn:?} {tract:?}"
        );
        for (a, b) in burn.iter().zip(&tract) {
            assert!((a - b).abs() <= 2e-4, "{fen:?}: {burn:?} vs {tract:?}");
        }
    }

    // The same moves through the Hub protocol at a fixed number of simulations.
    let moves_of = |model: &str| HubEngine::start(&["hub", "--model", model]).self_play(8, 48);
    let from_checkpoint = moves_of(checkpoint);
    assert_eq!(from_checkpoint.len(), 8);
    assert_eq!(from_checkpoint, moves_of(file));

    // The arena's `net:` player takes the file too.
    let out = damas(
        &[
            "match",
            "--variant",
            "russian",
            "--games",
            "2",
            "--out",
            dir.join("match").to_str().unwrap(),
            "--quiet",
            &format!("net:{file},sims=8"),
            "random",
        ],
        "",
    );
    assert!(out.status.success(), "{}", stderr(&out));

    // Bad input: not a model, and a model for another variant.
    let junk = dir.join("junk.onnx");
    std::fs::write(&junk, "not a model").unwrap();
    let out = damas(&["hub", "--model", junk.to_str().unwrap()], "");
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("not an ONNX model"),
        "{}",
        stderr(&out)
    );
    let out = damas(
        &[
            "match",
            "--variant",
            "english",
            "--games",
            "2",
            "--out",
            dir.join("wrong").to_str().unwrap(),
            &format!("net:{file}"),
            "random",
        ],
        "",
    );
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("model is for variant `russian`, not `english`"),
        "{}",
        stderr(&out)
    );
    let _ = std::fs::remove_dir_all(&dir);
}
