//! What the egdb integration tests share.

use std::path::PathBuf;

/// A fresh directory under the system's temporary directory, removed when dropped.
pub struct TempDir(pub PathBuf);

impl TempDir {
    /// `damas-egdb-<name>-<pid>`, emptied first.
    pub fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("damas-egdb-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
