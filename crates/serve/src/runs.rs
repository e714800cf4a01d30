//! The runs under `--runs`: each directory (at most two levels down) that holds a run's
//! `checkpoints/`, read while its run may still be writing it. The browser names a run and a
//! game file only as this listing names them; anything else, a symlink that leads out of the
//! directory included, is not found.

use crate::error::ApiError;
use serde::Serialize;
use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};

/// The largest game file the server reads (a run's PDN files hold a few games each).
pub const MAX_GAME_FILE: u64 = 16 << 20;

/// How many of a run's newest game files are listed.
pub const LISTED_GAMES: usize = 200;

/// How deep under `--runs` runs are looked for (`runs/quick`, `bench/russian-60/russian-60`).
const DEPTH: usize = 3;

/// The directory of runs.
#[derive(Clone, Debug)]
pub struct Runs {
    root: PathBuf,
}

/// Why the runs directory cannot be served.
#[derive(Debug, thiserror::Error)]
#[error("--runs {}", path.display())]
pub struct RunsError {
    /// The directory given.
    pub path: PathBuf,
    /// Why it cannot be read.
    #[source]
    pub source: std::io::Error,
}

/// One run, as the listing shows it.
#[derive(Clone, Debug, Serialize)]
pub struct RunSummary {
    /// Its path under `--runs`, `/`-separated: the only name the API accepts for it.
    pub name: String,
    /// Its variant, from its newest checkpoint (`None` before the first).
    pub variant: Option<&'static str>,
    /// Its checkpoints' generations, oldest first.
    pub generations: Vec<u32>,
    /// The newest checkpoint's generation.
    pub newest: Option<u32>,
    /// Whether the run has finished (its `finished` file).
    pub finished: bool,
    #[serde(skip)]
    dir: PathBuf,
}

impl RunSummary {
    /// The newest checkpoint's directory.
    pub fn newest_checkpoint(&self) -> Option<PathBuf> {
        self.newest.map(|g| checkpoint_dir(&self.dir, g))
    }
}

fn checkpoint_dir(run: &Path, generation: u32) -> PathBuf {
    run.join("checkpoints").join(format!("{generation:06}"))
}

/// One generation of a run: its checkpoint's training metrics, its time split and its
/// evaluation, as the run wrote them (absent files are `null`).
#[derive(Clone, Debug, Serialize)]
pub struct GenerationRow {
    /// The generation.
    pub generation: u32,
    /// `meta.json`'s training metrics (losses, accuracy, samples).
    pub metrics: Value,
    /// `time.json`: where the generation's wall clock went, and the run's clock.
    pub time: Value,
    /// `eval.json`: the matches against the baseline and the previous network.
    pub eval: Value,
}

/// What the Runs view shows of one run.
#[derive(Clone, Debug, Serialize)]
pub struct RunData {
    /// The run's summary.
    pub summary: RunSummary,
    /// Its config as it runs (`config.toml`).
    pub config: Option<String>,
    /// Each checkpoint's figures.
    pub generations: Vec<GenerationRow>,
    /// The learning curve `damas bench learning` wrote for it, if any.
    pub curve: Option<Value>,
    /// Its self-play game files, newest first (at most [`LISTED_GAMES`]).
    pub games: Vec<String>,
    /// Its evaluations' game files (`eval-NNNNNN.pdn`, one per generation), newest first.
    pub evaluation_games: Vec<String>,
}

impl Runs {
    /// The runs under `root`, which must be a readable directory.
    pub fn open(root: &Path) -> Result<Self, RunsError> {
        let root = root.canonicalize().map_err(|source| RunsError {
            path: root.to_path_buf(),
            source,
        })?;
        fs::read_dir(&root).map_err(|source| RunsError {
            path: root.clone(),
            source,
        })?;
        Ok(Runs { root })
    }

    /// Every run, by name.
    pub fn list(&self) -> Vec<RunSummary> {
        let mut runs = Vec::new();
        self.scan(&self.root, 0, &mut runs);
        runs.sort_by(|a, b| a.name.cmp(&b.name));
        runs
    }

    fn scan(&self, dir: &Path, depth: usize, runs: &mut Vec<RunSummary>) {
        if depth > DEPTH || !self.inside(dir) {
            return;
        }
        if dir.join("checkpoints").is_dir() && dir != self.root {
            if let Some(summary) = self.summary(dir) {
                runs.push(summary);
            }
            return;
        }
        let Ok(entries) = fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let hidden = name.to_string_lossy().starts_with('.');
            if !hidden && entry.path().is_dir() {
                self.scan(&entry.path(), depth + 1, runs);
            }
        }
    }

    /// Whether `path`, symlinks resolved, lies under the runs directory.
    fn inside(&self, path: &Path) -> bool {
        path.canonicalize()
            .is_ok_and(|real| real.starts_with(&self.root))
    }

    fn summary(&self, dir: &Path) -> Option<RunSummary> {
        let name = dir
            .strip_prefix(&self.root)
            .ok()?
            .components()
            .map(|c| c.as_os_str().to_str())
            .collect::<Option<Vec<_>>>()?
            .join("/");
        let generations = generations(dir);
        let newest = generations.last().copied();
        let variant = newest.and_then(|g| {
            let meta = read_json(&checkpoint_dir(dir, g).join("meta.json"))?;
            let name = meta.get("variant")?.as_str()?;
            name.parse::<damas_rules::Variant>()
                .ok()
                .map(damas_rules::Variant::name)
        });
        Some(RunSummary {
            name,
            variant,
            generations,
            newest,
            finished: dir.join("finished").exists(),
            dir: dir.to_path_buf(),
        })
    }

    /// The run the listing names `name`.
    pub fn find(&self, name: &str) -> Result<RunSummary, ApiError> {
        self.list()
            .into_iter()
            .find(|run| run.name == name)
            .ok_or_else(|| ApiError::not_found(format!("run `{name}`: no such run is listed")))
    }

    /// The figures of run `name`.
    pub fn data(&self, name: &str) -> Result<RunData, ApiError> {
        let summary = self.find(name)?;
        let dir = summary.dir.clone();
        let rows = summary
            .generations
            .iter()
            .map(|&generation| {
                let checkpoint = checkpoint_dir(&dir, generation);
                let meta = read_json(&checkpoint.join("meta.json"));
                GenerationRow {
                    generation,
                    metrics: meta
                        .and_then(|m| m.get("metrics").cloned())
                        .unwrap_or(Value::Null),
                    time: read_json(&checkpoint.join("time.json")).unwrap_or(Value::Null),
                    eval: read_json(&checkpoint.join("eval.json")).unwrap_or(Value::Null),
                }
            })
            .collect();
        Ok(RunData {
            config: fs::read_to_string(dir.join("config.toml")).ok(),
            generations: rows,
            curve: curve_of(&dir, &summary.name),
            games: names(game_files(&dir)),
            evaluation_games: names(evaluation_files(&dir, &summary.generations)),
            summary,
        })
    }

    /// The text of game file `file` of run `name`, both as listed.
    pub fn game(&self, name: &str, file: &str) -> Result<(RunSummary, String), ApiError> {
        let summary = self.find(name)?;
        let not_found =
            || ApiError::not_found(format!("game file `{file}` of run `{name}`: not listed"));
        let path = game_files(&summary.dir)
            .into_iter()
            .chain(evaluation_files(&summary.dir, &summary.generations))
            .find(|(listed, _)| listed == file)
            .map(|(_, path)| path)
            .ok_or_else(not_found)?;
        let meta = fs::symlink_metadata(&path).map_err(|_| not_found())?;
        if !meta.is_file() || !self.inside(&path) {
            return Err(not_found());
        }
        if meta.len() > MAX_GAME_FILE {
            return Err(ApiError::bad_request(format!(
                "game file `{file}`: {} bytes, more than the {MAX_GAME_FILE} the server reads",
                meta.len()
            )));
        }
        let text = fs::read_to_string(&path)
            .map_err(|error| ApiError::internal(format!("game file `{file}`: {error}")))?;
        Ok((summary, text))
    }
}

/// The generations of a run's complete checkpoints (directories named by six digits: the
/// run writes each under a temporary name and renames it whole).
fn generations(run: &Path) -> Vec<u32> {
    let Ok(entries) = fs::read_dir(run.join("checkpoints")) else {
        return Vec::new();
    };
    let mut found: Vec<u32> = entries
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name().into_string().ok()?;
            if name.len() == 6 && name.bytes().all(|b| b.is_ascii_digit()) {
                name.parse().ok()
            } else {
                None
            }
        })
        .collect();
    found.sort_unstable();
    found
}

/// A listing's names.
fn names(files: Vec<(String, PathBuf)>) -> Vec<String> {
    files.into_iter().map(|(name, _)| name).collect()
}

/// The run's self-play `.pdn` files in `games/`, newest first by name (the run numbers them):
/// (name, path).
fn game_files(run: &Path) -> Vec<(String, PathBuf)> {
    let Ok(entries) = fs::read_dir(run.join("games")) else {
        return Vec::new();
    };
    let mut files: Vec<(String, PathBuf)> = entries
        .flatten()
        .filter(|entry| entry.file_type().is_ok_and(|t| t.is_file()))
        .filter_map(|entry| Some((entry.file_name().into_string().ok()?, entry.path())))
        .filter(|(name, _)| name.ends_with(".pdn") && !name.starts_with('.'))
        .collect();
    files.sort_unstable_by(|a, b| b.0.cmp(&a.0));
    files.truncate(LISTED_GAMES);
    files
}

/// The evaluations' games (`checkpoints/N/eval.pdn`), newest first, named `eval-N.pdn`.
fn evaluation_files(run: &Path, generations: &[u32]) -> Vec<(String, PathBuf)> {
    generations
        .iter()
        .rev()
        .map(|&g| {
            (
                format!("eval-{g:06}.pdn"),
                checkpoint_dir(run, g).join("eval.pdn"),
            )
        })
        .filter(|(_, path)| path.is_file())
        .take(LISTED_GAMES)
        .collect()
}

/// `curve.json` beside the run (as `damas bench learning` writes it, one level up and labelled
/// with the run's name) or inside it.
fn curve_of(run: &Path, name: &str) -> Option<Value> {
    let label = name.rsplit('/').next().unwrap_or(name);
    [run.join("curve.json"), run.parent()?.join("curve.json")]
        .iter()
        .filter_map(|path| read_json(path))
        .find(|curve| {
            curve
                .get("label")
                .and_then(Value::as_str)
                .is_none_or(|l| l == label)
        })
}

/// A JSON file, or `None` if it is absent or not JSON (a run writes each file whole, so a
/// file read mid-run is either the old one or the new one).
fn read_json(path: &Path) -> Option<Value> {
    let text = fs::read(path).ok()?;
    serde_json::from_slice(&text).ok()
}
