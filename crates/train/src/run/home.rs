//! Where a run lives: its files, and the object store it mirrors (if any).

use super::RunError;
use super::error::io_error;
use super::lease::{LEASE, Lease, LeaseError, LeasePolicy, LeaseRecord};
use super::reconcile::{Reconciled, reconcile};
use damas_nn::{checkpoint_dir, list_checkpoints};
use damas_store::{Location, RunStore};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The hidden file a learner of a local run keeps locked (see [`super::lease`]).
const LOCAL_LOCK: &str = ".learner.lock";

/// The hidden file of a local copy that names the store it copies.
const ORIGIN: &str = ".origin";

/// The store key that tells workers the run is over (it holds the last generation).
pub const FINISHED: &str = "finished";

/// The store folder workers upload their shards to.
pub const INCOMING: &str = "incoming";

/// The store folder the learner moves workers' shards it cannot use to (damaged, another
/// variant, another version), for a person to look at; never read by the loop.
pub const REJECTED: &str = "rejected";

/// The files of a run.
#[derive(Clone, Debug)]
pub struct RunPaths {
    /// `runs/<name>`.
    pub root: PathBuf,
    /// `checkpoints/`.
    pub checkpoints: PathBuf,
    /// `shards/`.
    pub shards: PathBuf,
    /// `games/`.
    pub games: PathBuf,
    /// `tensorboard/`.
    pub tensorboard: PathBuf,
}

impl RunPaths {
    /// The paths of run directory `root`.
    pub fn new(root: &Path) -> Self {
        RunPaths {
            root: root.to_path_buf(),
            checkpoints: root.join("checkpoints"),
            shards: root.join("shards"),
            games: root.join("games"),
            tensorboard: root.join("tensorboard"),
        }
    }

    /// Checkpoint directory of generation `generation`.
    pub fn checkpoint(&self, generation: u32) -> PathBuf {
        checkpoint_dir(&self.checkpoints, generation)
    }

    /// Generations with a complete checkpoint, in order.
    pub fn generations(&self) -> Result<Vec<u32>, RunError> {
        Ok(list_checkpoints(&self.checkpoints)?)
    }
}

/// Where a run is kept: the local directory the loop works in, and the store the run lives in,
/// which is that same directory or an object store the directory mirrors. Every file the loop
/// completes is published to the store in an order that keeps the store resumable (shards
/// before their generation's marker, a checkpoint's `meta.json` after its other files).
pub struct RunHome {
    /// The local directory (for a run on an object store: its local copy).
    pub root: PathBuf,
    /// Where the run lives.
    pub store: Arc<RunStore>,
    /// Whether a stale lease of another learner may be taken over.
    take_over: bool,
    /// The run's lease, once this learner holds it.
    lease: Option<Lease>,
}

impl RunHome {
    /// A run kept in the local directory `root`.
    pub fn local(root: &Path) -> Self {
        RunHome {
            root: root.to_path_buf(),
            store: Arc::new(
                RunStore::open(&Location::Local(root.to_path_buf()), &[])
                    .expect("a local store opens without contacting anything"),
            ),
            take_over: false,
            lease: None,
        }
    }

    /// A run in `store`, worked on in the local directory `cache` when the store is remote.
    pub fn new(store: RunStore, cache: &Path) -> Self {
        let root = store.local_root().unwrap_or(cache).to_path_buf();
        RunHome {
            root,
            store: Arc::new(store),
            take_over: false,
            lease: None,
        }
    }

    /// The same home, allowed (or not) to take over a stale lease of another learner
    /// (`damas train --take-over`).
    pub fn with_take_over(mut self, take_over: bool) -> Self {
        self.take_over = take_over;
        self
    }

    /// Takes the run's lease, so that no other learner trains it while this one does (see
    /// [`super::lease`]); a local run's directory is also locked for as long.
    pub fn take_lease(&mut self) -> Result<(), RunError> {
        let policy = LeasePolicy::default();
        let lock = match self.store.local_root() {
            None => None,
            Some(root) => {
                std::fs::create_dir_all(root).map_err(io_error(root))?;
                let path = root.join(LOCAL_LOCK);
                let file = std::fs::OpenOptions::new()
                    .create(true)
                    .truncate(false)
                    .write(true)
                    .open(&path)
                    .map_err(io_error(&path))?;
                match file.try_lock() {
                    Ok(()) => Some(file),
                    Err(std::fs::TryLockError::WouldBlock) => {
                        let holder = self
                            .store
                            .get(LEASE)?
                            .and_then(|b| serde_json::from_slice::<LeaseRecord>(&b).ok());
                        return Err(LeaseError::LockedHere {
                            dir: root.to_path_buf(),
                            holder: holder.map_or("unknown".into(), |r| r.describe()),
                        }
                        .into());
                    }
                    Err(std::fs::TryLockError::Error(source)) => {
                        return Err(RunError::Io { path, source });
                    }
                }
            }
        };
        self.lease = Some(Lease::acquire_locked(
            Arc::clone(&self.store),
            policy,
            self.take_over,
            lock,
        )?);
        Ok(())
    }

    /// Renews the lease now: an error if another learner has taken it over, so that this one
    /// stops before it writes anything more.
    pub(super) fn renew_lease(&self) -> Result<(), RunError> {
        match &self.lease {
            Some(lease) => Ok(lease.renew()?),
            None => Ok(()),
        }
    }

    /// Whether the local directory is a copy of a remote store.
    pub(super) fn mirrored(&self) -> bool {
        self.store.local_root().is_none()
    }

    /// The store key of a file of the local directory.
    pub(super) fn key(&self, path: &Path) -> Option<String> {
        let relative = path.strip_prefix(&self.root).ok()?;
        let parts: Vec<_> = relative
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        Some(parts.join("/"))
    }

    /// Copies files of the local directory to the store, in the order given (nothing to do
    /// when the store is the directory).
    pub fn publish(&self, files: &[PathBuf]) -> Result<(), RunError> {
        if !self.mirrored() {
            return Ok(());
        }
        self.renew_lease()?;
        for path in files {
            let Some(key) = self.key(path) else { continue };
            let bytes = std::fs::read(path).map_err(io_error(path))?;
            self.store.put(&key, &bytes)?;
        }
        Ok(())
    }

    /// Publishes every file of directory `dir`, `meta.json` last (a checkpoint counts as
    /// published once its `meta.json` is).
    pub(super) fn publish_dir(&self, dir: &Path) -> Result<(), RunError> {
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
            .map_err(io_error(dir))?
            .flatten()
            .map(|entry| entry.path())
            .filter(|path| path.is_file())
            .collect();
        files.sort_by_key(|path| (path.ends_with("meta.json"), path.clone()));
        self.publish(&files)
    }

    /// Ties the local directory to the store it copies: a new or empty directory is marked as
    /// this store's copy; a directory marked for another store, or holding files without a
    /// mark (a local run of the same name), is refused, so that no stale or foreign file is
    /// ever taken for the store's.
    pub(super) fn check_copy(&self) -> Result<(), RunError> {
        if !self.mirrored() {
            return Ok(());
        }
        let location = self.store.location().to_string();
        let mark = self.root.join(ORIGIN);
        let foreign = |found: String| RunError::ForeignCopy {
            dir: self.root.clone(),
            found,
            location: location.clone(),
        };
        match std::fs::read_to_string(&mark) {
            Ok(found) if found.trim() == location => return Ok(()),
            Ok(found) => return Err(foreign(format!("a copy of {}", found.trim()))),
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(RunError::Io {
                    path: mark,
                    source: e,
                });
            }
            Err(_) => {}
        }
        let holds_files = std::fs::read_dir(&self.root).is_ok_and(|entries| {
            entries
                .flatten()
                .any(|e| !e.file_name().to_string_lossy().starts_with('.'))
        });
        if holds_files {
            return Err(foreign("a run directory that is no store's copy".into()));
        }
        damas_store::write_atomically(&mark, location.as_bytes()).map_err(io_error(&mark))
    }

    /// Brings the local copy and the store into agreement before a resume (see
    /// [`super::reconcile`]); nothing to do when the store is the directory.
    pub fn reconcile(&self) -> Result<Reconciled, RunError> {
        if !self.mirrored() {
            return Ok(Reconciled::default());
        }
        self.check_copy()?;
        reconcile(&self.root, &self.store)
    }

    /// Fetches every object of the store that the local directory lacks (but the workers'
    /// `incoming/` shards, the `rejected/` ones, the games' PDN files, which the loop never
    /// reads, and the lease), checkpoints' `meta.json` last; returns how many.
    pub fn pull(&self) -> Result<usize, RunError> {
        if !self.mirrored() {
            return Ok(0);
        }
        self.check_copy()?;
        Ok(self.store.fetch_missing("", &self.root, |key| {
            ["incoming/", "rejected/", "games/"]
                .iter()
                .any(|folder| key.starts_with(folder))
                || key == LEASE
        })?)
    }
}
