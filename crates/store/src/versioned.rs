//! Conditional writes: an object read with its version, and a write that happens only if the
//! object is still at that version (or, for a create, still absent). Object stores do this
//! themselves (S3's `If-Match` / `If-None-Match`); a local directory does it under an exclusive
//! lock on a hidden file beside the object, held across the compare and the write.

use crate::write_atomically;
use std::fs;
use std::path::Path;

/// The version of an object, as read by [`crate::RunStore::get_versioned`], to compare a
/// conditional write against.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Version(pub(crate) Inner);

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Inner {
    /// A local file's whole contents (the objects written conditionally are small).
    Contents(Vec<u8>),
    /// An object store's entity tag and version id.
    #[cfg_attr(not(feature = "object-store"), allow(dead_code))]
    Remote {
        e_tag: Option<String>,
        version: Option<String>,
    },
}

/// The lock file that serialises conditional writes of the local file `path`.
fn lock_path(path: &Path) -> std::path::PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    path.with_file_name(format!(".{name}.lock"))
}

/// Reads the local file `path` with its version.
pub(crate) fn get_local(path: &Path) -> std::io::Result<Option<(Vec<u8>, Version)>> {
    match fs::read(path) {
        Ok(bytes) => Ok(Some((bytes.clone(), Version(Inner::Contents(bytes))))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// Writes `bytes` to the local file `path` if it is at version `expected` (`None`: absent),
/// holding the lock beside it across the compare and the write; the new version, or `None`
/// when the file was not at `expected`.
pub(crate) fn put_local_if(
    path: &Path,
    bytes: &[u8],
    expected: Option<&Version>,
) -> std::io::Result<Option<Version>> {
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir)?;
    }
    let lock = fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(lock_path(path))?;
    lock.lock()?;
    let current = get_local(path)?.map(|(_, version)| version);
    if current.as_ref() != expected {
        return Ok(None);
    }
    write_atomically(path, bytes)?;
    Ok(Some(Version(Inner::Contents(bytes.to_vec()))))
}
