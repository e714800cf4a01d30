//! Where a run lives: a local directory (the default) or an object store (`s3://bucket/prefix`
//! for AWS S3 and S3-compatible stores such as MinIO, `gs://`, `az://`) through Apache Arrow's
//! `object_store` crate, behind the `object-store` feature.
//!
//! A [`RunStore`] is a flat map from keys (`checkpoints/000003/meta.json`, `incoming/...`) to
//! whole objects. Every write is atomic: an object PUT replaces the object at once, and the local
//! directory writes a temporary file that is synced and renamed. Listings skip the local
//! temporary names (any path component starting with `.`), so a reader never sees part of an
//! object.

use std::fmt;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

#[cfg(feature = "object-store")]
mod remote;
mod retry;
mod versioned;

pub use retry::RetrySettings;
pub use versioned::Version;

/// Writes `contents` to `path` through a temporary file in the same directory, synced and
/// renamed, so readers see the old file or the whole new one, never a part; the directory is
/// synced after the rename (on Unix), so that the new name survives a power cut before
/// anything that relies on it (a marker before the deletions it records).
pub fn write_atomically(path: &Path, contents: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir)?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temp = dir.join(format!(".{name}.tmp"));
    let mut file = fs::File::create(&temp)?;
    file.write_all(contents)?;
    file.sync_all()?;
    fs::rename(&temp, path)?;
    #[cfg(unix)]
    fs::File::open(dir)?.sync_all()?;
    Ok(())
}

/// A run's location as the user wrote it: a local path or an object-store URL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    /// A directory on this machine (or a shared file system).
    Local(PathBuf),
    /// An object-store URL: `s3://`, `s3a://`, `gs://`, `az://`, `abfs://` and the like.
    Url(String),
}

/// URL schemes read as object stores (`memory://`: object_store's in-process store, for tests).
const SCHEMES: [&str; 8] = [
    "s3://",
    "s3a://",
    "gs://",
    "az://",
    "adl://",
    "abfs://",
    "abfss://",
    "memory://",
];

impl Location {
    /// `text` as a location: a URL of a known object-store scheme, else a local path.
    pub fn parse(text: &str) -> Location {
        if SCHEMES.iter().any(|scheme| text.starts_with(scheme)) {
            Location::Url(text.trim_end_matches('/').to_string())
        } else {
            Location::Local(PathBuf::from(text))
        }
    }

    /// Whether the location is a local directory.
    pub fn is_local(&self) -> bool {
        matches!(self, Location::Local(_))
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Local(path) => write!(f, "{}", path.display()),
            Location::Url(url) => f.write_str(url),
        }
    }
}

/// Why the store could not be opened, read or written.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// An object-store URL in a build without the `object-store` feature.
    #[error(
        "{url}: this build keeps runs in local directories only; rebuild with \
         `--features object-store` for object stores"
    )]
    NotCompiled {
        /// The URL.
        url: String,
    },
    /// The URL does not name a usable store (bad URL, missing credentials or region).
    #[error("{url}: cannot open the object store")]
    Open {
        /// The URL.
        url: String,
        /// The object-store client's reason.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// A key that cannot name an object (empty, absolute, or with `.`/`..` parts).
    #[error("{key:?} is not a valid key in a run store")]
    BadKey {
        /// The key.
        key: String,
    },
    /// A local file could not be read or written.
    #[error("{path}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The system's reason.
        #[source]
        source: std::io::Error,
    },
    /// The store cannot write an object only if it is unchanged (on S3, conditional puts are
    /// on unless `AWS_CONDITIONAL_PUT` turns them off; the server must honour `If-Match`).
    #[error(
        "{location}/{key}: the store does not support conditional writes, which the run's lease \
         needs (on S3 leave AWS_CONDITIONAL_PUT unset or set it to etag; the server must honour \
         If-Match and If-None-Match)"
    )]
    NoConditionalWrites {
        /// The store.
        location: String,
        /// The object's key.
        key: String,
    },
    /// An object could not be read, written, listed or deleted.
    #[error("{location}/{key}")]
    Remote {
        /// The store.
        location: String,
        /// The object's key.
        key: String,
        /// The object-store client's reason.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
}

/// A run's objects, in a local directory or an object store; see the crate documentation.
pub struct RunStore {
    location: Location,
    backend: Backend,
}

enum Backend {
    Local(PathBuf),
    #[cfg(feature = "object-store")]
    Remote(Box<remote::Remote>),
}

/// Checks that `key` is a relative, normal `/`-separated name.
fn check_key(key: &str) -> Result<(), StoreError> {
    let bad = key.is_empty()
        || key.starts_with('/')
        || key
            .split('/')
            .any(|part| part.is_empty() || part == "." || part == ".." || part.contains('\\'));
    if bad {
        return Err(StoreError::BadKey {
            key: key.to_string(),
        });
    }
    Ok(())
}

impl RunStore {
    /// Opens `location`. `options` configure object stores (`aws_endpoint`,
    /// `aws_access_key_id`, `aws_allow_http`, `google_service_account`, ...: the keys of
    /// object_store's builders, case-insensitive; the binary passes the environment). Nothing
    /// is contacted yet.
    pub fn open(location: &Location, options: &[(String, String)]) -> Result<Self, StoreError> {
        let backend = match location {
            Location::Local(path) => Backend::Local(path.clone()),
            #[cfg(feature = "object-store")]
            Location::Url(url) => Backend::Remote(Box::new(remote::Remote::open(
                url,
                options,
                &RetrySettings::default(),
            )?)),
            #[cfg(not(feature = "object-store"))]
            Location::Url(url) => {
                let _ = options;
                return Err(StoreError::NotCompiled { url: url.clone() });
            }
        };
        Ok(RunStore {
            location: location.clone(),
            backend,
        })
    }

    /// The same store with `retry` for its failed requests (a directory: the same directory).
    pub fn with_retry(&self, retry: &RetrySettings) -> Result<Self, StoreError> {
        let backend = match &self.backend {
            Backend::Local(path) => {
                let _ = retry;
                Backend::Local(path.clone())
            }
            #[cfg(feature = "object-store")]
            Backend::Remote(remote) => Backend::Remote(Box::new(remote.with_retry(retry)?)),
        };
        Ok(RunStore {
            location: self.location.clone(),
            backend,
        })
    }

    /// Where the store is.
    pub fn location(&self) -> &Location {
        &self.location
    }

    /// The directory, when the store is a local one.
    pub fn local_root(&self) -> Option<&Path> {
        match &self.backend {
            Backend::Local(root) => Some(root),
            #[cfg(feature = "object-store")]
            Backend::Remote(_) => None,
        }
    }

    /// The object at `key`, or `None` if there is none.
    pub fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        check_key(key)?;
        match &self.backend {
            Backend::Local(root) => {
                let path = root.join(key);
                match fs::read(&path) {
                    Ok(bytes) => Ok(Some(bytes)),
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
                    Err(source) => Err(StoreError::Io { path, source }),
                }
            }
            #[cfg(feature = "object-store")]
            Backend::Remote(remote) => remote.get(key),
        }
    }

    /// Writes the object at `key` atomically, replacing any object there.
    pub fn put(&self, key: &str, bytes: &[u8]) -> Result<(), StoreError> {
        check_key(key)?;
        match &self.backend {
            Backend::Local(root) => {
                let path = root.join(key);
                write_atomically(&path, bytes).map_err(|source| StoreError::Io { path, source })
            }
            #[cfg(feature = "object-store")]
            Backend::Remote(remote) => remote.put(key, bytes),
        }
    }

    /// The object at `key` with its version, or `None` if there is none.
    pub fn get_versioned(&self, key: &str) -> Result<Option<(Vec<u8>, Version)>, StoreError> {
        check_key(key)?;
        match &self.backend {
            Backend::Local(root) => {
                let path = root.join(key);
                versioned::get_local(&path).map_err(|source| StoreError::Io { path, source })
            }
            #[cfg(feature = "object-store")]
            Backend::Remote(remote) => remote.get_versioned(key),
        }
    }

    /// Writes the object at `key` only if it is still at version `expected` (`None`: only if
    /// there is no object), atomically with the check. Returns the written object's version,
    /// or `None` when the object was not at `expected` (nothing was written).
    pub fn put_if(
        &self,
        key: &str,
        bytes: &[u8],
        expected: Option<&Version>,
    ) -> Result<Option<Version>, StoreError> {
        check_key(key)?;
        match &self.backend {
            Backend::Local(root) => {
                let path = root.join(key);
                versioned::put_local_if(&path, bytes, expected)
                    .map_err(|source| StoreError::Io { path, source })
            }
            #[cfg(feature = "object-store")]
            Backend::Remote(remote) => remote.put_if(key, bytes, expected),
        }
    }

    /// Removes the object at `key`; a missing object is not an error.
    pub fn delete(&self, key: &str) -> Result<(), StoreError> {
        check_key(key)?;
        match &self.backend {
            Backend::Local(root) => {
                let path = root.join(key);
                match fs::remove_file(&path) {
                    Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                        Err(StoreError::Io { path, source: e })
                    }
                    _ => Ok(()),
                }
            }
            #[cfg(feature = "object-store")]
            Backend::Remote(remote) => remote.delete(key, true),
        }
    }

    /// Deletes `key` with one request, never repeated after a lost answer (a repeat could
    /// delete what another process wrote there since); a directory deletes as [`Self::delete`].
    pub fn delete_once(&self, key: &str) -> Result<(), StoreError> {
        match &self.backend {
            Backend::Local(_) => self.delete(key),
            #[cfg(feature = "object-store")]
            Backend::Remote(remote) => {
                check_key(key)?;
                remote.delete(key, false)
            }
        }
    }

    /// The keys under the folder `prefix` (`"checkpoints"`, `"incoming"`; empty: all), with
    /// the prefix, sorted.
    pub fn list(&self, prefix: &str) -> Result<Vec<String>, StoreError> {
        self.list_from(prefix, None)
    }

    /// The keys under the folder `prefix` that sort after `after` (a full key, such as
    /// `shards/gen000012`), sorted: on an object store the listing starts there, so it costs
    /// what it returns, not the whole folder.
    pub fn list_after(&self, prefix: &str, after: &str) -> Result<Vec<String>, StoreError> {
        check_key(after)?;
        self.list_from(prefix, Some(after))
    }

    fn list_from(&self, prefix: &str, after: Option<&str>) -> Result<Vec<String>, StoreError> {
        if !prefix.is_empty() {
            check_key(prefix)?;
        }
        let mut keys = match &self.backend {
            Backend::Local(root) => {
                let mut keys = Vec::new();
                list_local(root, &root.join(prefix), &mut keys)?;
                keys
            }
            #[cfg(feature = "object-store")]
            Backend::Remote(remote) => remote.list(prefix, after)?,
        };
        // Some stores start a listing at the key itself (Azure's `startFrom`), some not at all.
        keys.retain(|key| after.is_none_or(|after| key.as_str() > after));
        keys.sort();
        Ok(keys)
    }
}

impl RunStore {
    /// Copies every object under the folder `prefix` (empty: all) that `dir` lacks to the same
    /// relative path in `dir`, except keys `skip` names; `meta.json` objects come last, so a
    /// local checkpoint directory counts as complete only once everything else of it is there.
    /// Returns how many objects it copied.
    pub fn fetch_missing(
        &self,
        prefix: &str,
        dir: &Path,
        skip: impl Fn(&str) -> bool,
    ) -> Result<usize, StoreError> {
        let mut keys: Vec<String> = self
            .list(prefix)?
            .into_iter()
            .filter(|key| !skip(key))
            .collect();
        keys.sort_by_key(|key| (key.ends_with("meta.json"), key.clone()));
        let mut fetched = 0;
        for key in keys {
            let path = dir.join(&key);
            if path.exists() {
                continue;
            }
            if let Some(bytes) = self.get(&key)? {
                write_atomically(&path, &bytes)
                    .map_err(|source| StoreError::Io { path, source })?;
                fetched += 1;
            }
        }
        Ok(fetched)
    }
}

/// Adds the files under `dir` to `keys`, as paths relative to `root`, skipping hidden names
/// (the temporary files of atomic writes).
fn list_local(root: &Path, dir: &Path, keys: &mut Vec<String>) -> Result<(), StoreError> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(source) => {
            return Err(StoreError::Io {
                path: dir.to_path_buf(),
                source,
            });
        }
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if name.starts_with('.') {
            continue;
        }
        let path = entry.path();
        if path.is_dir() {
            list_local(root, &path, keys)?;
        } else if let Ok(relative) = path.strip_prefix(root) {
            let parts: Vec<_> = relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect();
            keys.push(parts.join("/"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations_are_urls_only_for_object_store_schemes() {
        assert_eq!(
            Location::parse("s3://bucket/runs/a/"),
            Location::Url("s3://bucket/runs/a".into())
        );
        assert!(Location::parse("runs/a").is_local());
        assert!(Location::parse("/data/s3:/x").is_local());
    }

    /// What every backend must do: puts, a sorted listing under a folder (`between` runs after
    /// the puts, before the listing), gets, idempotent deletes and refused keys.
    fn exercise(store: &RunStore, between: impl FnOnce()) {
        store.put("incoming/b.shard", b"two").unwrap();
        store.put("incoming/a.shard", b"one").unwrap();
        store.put("checkpoints/000001/meta.json", b"{}").unwrap();
        between();
        assert_eq!(
            store.list("incoming").unwrap(),
            ["incoming/a.shard", "incoming/b.shard"]
        );
        assert_eq!(store.list("").unwrap().len(), 3);
        assert_eq!(store.get("incoming/a.shard").unwrap().unwrap(), b"one");
        assert_eq!(store.get("missing").unwrap(), None);
        store.delete("incoming/a.shard").unwrap();
        store.delete("incoming/a.shard").unwrap();
        assert_eq!(store.list("incoming").unwrap(), ["incoming/b.shard"]);
        for key in [
            "gen000001-a",
            "gen000002-a",
            "gen000002.done",
            "gen000010-a",
        ] {
            store.put(&format!("shards/{key}"), b"s").unwrap();
        }
        assert_eq!(
            store.list_after("shards", "shards/gen000002").unwrap(),
            [
                "shards/gen000002-a",
                "shards/gen000002.done",
                "shards/gen000010-a"
            ]
        );
        let retried = RetrySettings {
            retries: 2,
            ..RetrySettings::default()
        };
        let again = store.with_retry(&retried).unwrap();
        assert_eq!(again.get("incoming/b.shard").unwrap().unwrap(), b"two");
        for key in again.list("shards").unwrap() {
            again.delete(&key).unwrap();
        }
        for bad in ["", "/etc/passwd", "a/../b", "a//b"] {
            assert!(
                matches!(store.get(bad), Err(StoreError::BadKey { .. })),
                "{bad}"
            );
        }
        conditional_writes(store);
    }

    /// Conditional writes: a create only where nothing is, an update only over the version
    /// read, and a conflict (nothing written) otherwise.
    fn conditional_writes(store: &RunStore) {
        let created = store.put_if("lease.json", b"a", None).unwrap();
        assert!(created.is_some());
        assert_eq!(store.put_if("lease.json", b"b", None).unwrap(), None);
        let (bytes, first) = store.get_versioned("lease.json").unwrap().unwrap();
        assert_eq!(bytes, b"a");
        assert_eq!(
            created.as_ref(),
            Some(&first),
            "a write returns what a read sees"
        );
        let second = store.put_if("lease.json", b"c", Some(&first)).unwrap();
        assert!(second.is_some());
        assert_eq!(
            store.put_if("lease.json", b"d", Some(&first)).unwrap(),
            None
        );
        let (bytes, read) = store.get_versioned("lease.json").unwrap().unwrap();
        assert_eq!(bytes, b"c");
        assert_eq!(second.as_ref(), Some(&read));
        assert!(
            store
                .put_if("lease.json", b"e", second.as_ref())
                .unwrap()
                .is_some()
        );
        assert_eq!(store.get("lease.json").unwrap().unwrap(), b"e");
        assert!(
            !store
                .list("")
                .unwrap()
                .iter()
                .any(|key| key.contains("lock")),
            "the local lock file is hidden from listings"
        );
        store.delete("lease.json").unwrap();
        assert_eq!(store.get_versioned("lease.json").unwrap(), None);
    }

    #[test]
    fn a_local_store_puts_lists_gets_and_deletes() {
        let dir = std::env::temp_dir().join(format!("damas-store-{}", std::process::id()));
        let store = RunStore::open(&Location::Local(dir.clone()), &[]).unwrap();
        // A temporary file of an interrupted write is never listed.
        exercise(&store, || {
            fs::write(dir.join("incoming/.c.shard.tmp"), b"part").unwrap()
        });
        fs::remove_dir_all(dir).unwrap();
    }

    /// The object-store backend over object_store's in-memory store: keys under the run's
    /// prefix only, relative to it, sorted.
    #[cfg(feature = "object-store")]
    #[test]
    fn an_object_store_puts_lists_gets_and_deletes_under_its_prefix() {
        let store = RunStore::open(&Location::parse("memory:///runs/a"), &[]).unwrap();
        assert!(store.local_root().is_none());
        exercise(&store, || {});
    }

    #[cfg(not(feature = "object-store"))]
    #[test]
    fn an_object_store_url_without_the_feature_names_it() {
        let error = RunStore::open(&Location::parse("s3://bucket/run"), &[])
            .err()
            .unwrap();
        assert!(
            error.to_string().contains("--features object-store"),
            "{error}"
        );
    }
}
