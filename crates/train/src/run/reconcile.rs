//! Bringing a learner's local copy and its object store into agreement before a run resumes.
//!
//! The store is what workers and later learners see; the local copy is where this learner
//! works. They disagree after two kinds of stop. A learner killed between writing a file and
//! uploading it leaves files only the copy has: they are uploaded (checkpoint `meta.json` and
//! self-play markers last, so that nothing counts as published before its parts are). A copy
//! left on a machine while another learner carried the run on holds generations the store has
//! in another form: from the newest generation down, the copy's networks are compared with the
//! store's, and every generation above the newest that agrees is dropped from the copy (the
//! pull then brings the store's). Where the copy has nothing of its own, the gating choice and
//! the log are the store's. Last, the newest marker's deletions of workers' shards are redone,
//! in case the stop came between the marker and them.

use super::RunError;
use super::error::io_error;
use super::records::SelfPlayDone;
use damas_nn::{checkpoint_dir, list_checkpoints};
use damas_store::RunStore;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// What reconciling did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reconciled {
    /// Files the copy had and the store lacked, now uploaded.
    pub uploaded: usize,
    /// Generations the copy held in another form than the store, dropped from the copy.
    pub dropped_generations: Vec<u32>,
    /// Files whose store version replaced the copy's (`best`, `log.txt`).
    pub refetched: usize,
    /// Workers' shards the newest marker had taken that were still in `incoming/`.
    pub redone_deletions: usize,
}

impl Reconciled {
    /// Whether anything was done.
    pub fn is_empty(&self) -> bool {
        *self == Reconciled::default()
    }
}

/// The folders of a copy that mirror the store (the rest is local scratch).
const MIRRORED: [&str; 4] = ["checkpoints", "shards", "games", "tensorboard"];

/// Files at the root of a copy that the loop rewrites (the store's wins unless the copy is
/// ahead of it).
const CHANGEABLE: [&str; 2] = ["best", "log.txt"];

/// The generation a run file belongs to: `checkpoints/NNNNNN/...`, `shards/genNNNNNN...`,
/// `games/genNNNNNN...`.
fn generation_of(key: &str) -> Option<u32> {
    let (folder, rest) = key.split_once('/')?;
    let digits = match folder {
        "checkpoints" => rest.get(..6)?,
        "shards" | "games" => rest.strip_prefix("gen")?.get(..6)?,
        _ => return None,
    };
    digits.parse().ok()
}

/// Every file of the copy under `MIRRORED` and the changeable root files, as store keys,
/// skipping hidden names (temporary files of atomic writes).
fn local_keys(root: &Path) -> Result<Vec<String>, RunError> {
    fn walk(root: &Path, dir: &Path, keys: &mut Vec<String>) -> Result<(), RunError> {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return Ok(());
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') {
                continue;
            }
            let path = entry.path();
            if path.is_dir() {
                walk(root, &path, keys)?;
            } else if let Ok(relative) = path.strip_prefix(root) {
                let parts: Vec<_> = relative
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect();
                keys.push(parts.join("/"));
            }
        }
        Ok(())
    }
    let mut keys = Vec::new();
    for folder in MIRRORED {
        walk(root, &root.join(folder), &mut keys)?;
    }
    keys.extend(
        CHANGEABLE
            .iter()
            .filter(|name| root.join(name).is_file())
            .map(|name| name.to_string()),
    );
    keys.sort();
    Ok(keys)
}

/// Removes every file of generation `generation` from the copy.
fn drop_generation(root: &Path, generation: u32) -> Result<(), RunError> {
    let dir = checkpoint_dir(&root.join("checkpoints"), generation);
    if dir.exists() {
        std::fs::remove_dir_all(&dir).map_err(io_error(&dir))?;
    }
    let prefix = format!("gen{generation:06}");
    for folder in ["shards", "games"] {
        let dir = root.join(folder);
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            if entry.file_name().to_string_lossy().starts_with(&prefix) {
                let path = entry.path();
                std::fs::remove_file(&path).map_err(io_error(&path))?;
            }
        }
    }
    Ok(())
}

/// Brings the copy at `root` and `store` into agreement; see the module documentation.
pub fn reconcile(root: &Path, store: &RunStore) -> Result<Reconciled, RunError> {
    let mut done = Reconciled::default();
    let stored: BTreeSet<String> = store
        .list("")?
        .into_iter()
        .filter(|key| MIRRORED.iter().any(|f| key.starts_with(&format!("{f}/"))))
        .chain(
            CHANGEABLE
                .iter()
                .map(|name| name.to_string())
                .filter(|name| store.get(name).ok().flatten().is_some()),
        )
        .collect();
    let stored_generations: BTreeSet<u32> = stored
        .iter()
        .filter(|key| key.ends_with("/meta.json"))
        .filter_map(|key| generation_of(key))
        .collect();

    // From the newest generation both hold down to the first whose network agrees: any that
    // disagrees means this copy was left behind while the run went on elsewhere.
    let local_generations = list_checkpoints(&root.join("checkpoints"))?;
    let mut agreed = None;
    let mut disagreed = false;
    for &generation in local_generations.iter().rev() {
        if !stored_generations.contains(&generation) {
            continue;
        }
        let key = format!("checkpoints/{generation:06}/model.bpk");
        let path = root.join(&key);
        let ours = std::fs::read(&path).map_err(io_error(&path))?;
        if store.get(&key)?.as_deref() == Some(ours.as_slice()) {
            agreed = Some(generation);
            break;
        }
        disagreed = true;
    }
    if disagreed {
        // Everything above the newest generation that agrees (all of it, if none does) is
        // another history than the store's.
        let kept = |generation: u32| agreed.is_some_and(|a| generation <= a);
        let drop: BTreeSet<u32> = local_keys(root)?
            .iter()
            .filter_map(|key| generation_of(key))
            .filter(|&generation| !kept(generation))
            .collect();
        for &generation in &drop {
            drop_generation(root, generation)?;
        }
        done.dropped_generations = drop.into_iter().collect();
    }

    // Files only the copy has: this learner's own unpublished work, uploaded in an order that
    // publishes nothing before its parts.
    let newest_stored = stored_generations.last().copied();
    let ahead = list_checkpoints(&root.join("checkpoints"))?
        .last()
        .is_some_and(|&g| newest_stored.is_none_or(|s| g > s));
    // Ahead of the store, the copy's gating choice and log are the newer ones.
    let mut missing: Vec<String> = local_keys(root)?
        .into_iter()
        .filter(|key| {
            let changeable = CHANGEABLE.contains(&key.as_str());
            if changeable {
                ahead
            } else {
                !stored.contains(key)
            }
        })
        .collect();
    missing.sort_by_key(|key| {
        (
            key.ends_with(".done"),
            key.ends_with("/meta.json"),
            key.clone(),
        )
    });
    for key in &missing {
        let path = root.join(key);
        let bytes = std::fs::read(&path).map_err(io_error(&path))?;
        store.put(key, &bytes)?;
    }
    done.uploaded = missing.len();

    // The gating choice and the log: the store's, unless this copy is ahead of it.
    if !ahead {
        for name in CHANGEABLE {
            let Some(bytes) = store.get(name)? else {
                continue;
            };
            let path = root.join(name);
            if std::fs::read(&path).ok().as_deref() != Some(bytes.as_slice()) {
                damas_store::write_atomically(&path, &bytes).map_err(io_error(&path))?;
                done.refetched += 1;
            }
        }
    }

    // The newest marker's deletions, redone.
    if let Some(marker) = newest_marker(root) {
        let text = std::fs::read_to_string(&marker).map_err(io_error(&marker))?;
        if let Ok(marked) = serde_json::from_str::<SelfPlayDone>(&text) {
            // Only workers' uploads are ever taken; anything else in a marker is not acted on.
            for key in marked
                .consumed
                .iter()
                .filter(|k| k.starts_with("incoming/"))
            {
                if store.get(key)?.is_some() {
                    store.delete(key)?;
                    done.redone_deletions += 1;
                }
            }
        }
    }
    Ok(done)
}

/// The copy's newest self-play marker (`shards/genNNNNNN.done`).
fn newest_marker(root: &Path) -> Option<PathBuf> {
    std::fs::read_dir(root.join("shards"))
        .ok()?
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| {
            path.file_name()
                .is_some_and(|n| n.to_string_lossy().ends_with(".done"))
        })
        .max()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_files_name_their_generation() {
        assert_eq!(generation_of("checkpoints/000012/model.bpk"), Some(12));
        assert_eq!(generation_of("shards/gen000003-000001.shard"), Some(3));
        assert_eq!(generation_of("shards/gen000003.done"), Some(3));
        assert_eq!(
            generation_of("games/gen000004-g000003-w1-000002.pdn"),
            Some(4)
        );
        assert_eq!(generation_of("tensorboard/events.out"), None);
        assert_eq!(generation_of("best"), None);
    }
}
