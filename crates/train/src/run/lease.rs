//! One learner per run. A learner holds the run's lease, an object (`lease.json`) created with
//! the store's create-only write and renewed by a compare-and-swap on the version it last
//! wrote, on a heartbeat and before anything is published. A second learner finds the lease
//! and refuses, naming the holder and how long ago it renewed; a lease not renewed for
//! [`LeasePolicy::stale_after`] can be taken over, and the old holder, if it is still alive,
//! finds at its next renewal that the lease is no longer its own and stops before it publishes
//! anything. A run in a local directory also holds an exclusive lock on a hidden file there,
//! which the system drops when the process dies: a lease found while that lock is free is a
//! dead learner's, taken over at once. So is a lease whose holder ran on this machine (same
//! boot id, process-id namespace and host name) in a process that no longer exists.

use damas_store::{RunStore, StoreError, Version};
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{RecvTimeoutError, Sender, channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, SystemTime};

/// The store key of the lease.
pub const LEASE: &str = "lease.json";

/// How often a lease is renewed, and when an unrenewed one may be taken over.
#[derive(Clone, Copy, Debug)]
pub struct LeasePolicy {
    /// The heartbeat's period.
    pub renew_every: Duration,
    /// How long a lease must go unrenewed before `--take-over` may take it.
    pub stale_after: Duration,
}

impl Default for LeasePolicy {
    /// Renewed every 30 s, stale after 3 minutes: six missed heartbeats.
    fn default() -> Self {
        LeasePolicy {
            renew_every: Duration::from_secs(30),
            stale_after: Duration::from_secs(180),
        }
    }
}

/// What the lease object says.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeaseRecord {
    /// The holder's id, unique to one learner process.
    pub holder: String,
    /// The holder's machine.
    pub host: String,
    /// The holder's process id.
    pub pid: u32,
    /// When the holder took the lease (seconds since the Unix epoch).
    pub acquired: u64,
    /// When the holder last renewed it (seconds since the Unix epoch).
    pub renewed: u64,
    /// Where the holder's process id means something: the machine's boot id and the
    /// holder's process-id namespace (Linux's `/proc/sys/kernel/random/boot_id` and
    /// `/proc/self/ns/pid`; empty where either cannot be read). Equal, with the host name,
    /// the holder's process can be asked whether it still lives.
    #[serde(default)]
    pub pid_space: String,
}

impl LeaseRecord {
    /// Seconds since the last renewal (0 for a clock that went back).
    fn age(&self) -> u64 {
        unix_now().saturating_sub(self.renewed)
    }

    /// Whether the holder ran on this machine, since its last start, in this process-id
    /// namespace, and its process is gone: a learner killed here (SIGKILL, out of memory)
    /// whose lease can be taken at once. Containers that share the machine, and even its
    /// host name, have their own namespaces; the process is asked with a null signal, which
    /// only a missing process refuses with "no such process".
    fn died_here(&self) -> bool {
        !self.pid_space.is_empty()
            && self.pid_space == pid_space()
            && self.host == crate::tensorboard::host_name()
            && process_gone(self.pid)
    }

    /// The holder, its machine and process, for messages.
    pub fn describe(&self) -> String {
        format!("{} on {} (pid {})", self.holder, self.host, self.pid)
    }
}

/// Why a learner may not (or may no longer) train a run.
#[derive(Debug, thiserror::Error)]
pub enum LeaseError {
    /// Another learner holds the lease.
    #[error(
        "{location} is being trained by learner {holder}, whose lease was renewed {age_s} s ago; \
         stop that learner first, or, if it is gone, wait until its lease is {stale_s} s old and \
         give --take-over"
    )]
    Held {
        /// The run.
        location: String,
        /// The holder, its host and process.
        holder: String,
        /// Seconds since the holder renewed.
        age_s: u64,
        /// The age at which the lease may be taken over.
        stale_s: u64,
    },
    /// Another learner on this machine holds the local run's lock.
    #[error("{dir}: learner {holder} on this machine is training this run; stop it first")]
    LockedHere {
        /// The run's directory.
        dir: std::path::PathBuf,
        /// The holder, its host and process, as its lease says.
        holder: String,
    },
    /// The lease object is not a lease.
    #[error(
        "{location}/{LEASE} is not a learner's lease ({problem}); if no learner is running, give \
         --take-over"
    )]
    Unreadable {
        /// The run.
        location: String,
        /// What is wrong with it.
        problem: String,
    },
    /// Another learner took the lease over: this one must stop.
    #[error(
        "{location}: learner {holder} took this run's lease over; this learner stops without \
         publishing"
    )]
    Lost {
        /// The run.
        location: String,
        /// The new holder, its host and process.
        holder: String,
    },
    /// The store could not be read or written.
    #[error("the run's lease")]
    Store(#[from] StoreError),
}

/// The lease as its holder knows it: what it last wrote, and that write's version.
struct Held {
    record: LeaseRecord,
    version: Version,
}

/// The shared state of a held lease (the loop's renewals and the heartbeat's).
struct Shared {
    store: Arc<RunStore>,
    held: Mutex<Option<Held>>,
    lost: AtomicBool,
}

/// A lease this learner holds; dropped, it stops the heartbeat and deletes the lease if it is
/// still this learner's.
pub struct Lease {
    shared: Arc<Shared>,
    stop: Option<Sender<()>>,
    heartbeat: Option<JoinHandle<()>>,
    /// The local directory's lock, held for as long as the lease.
    _lock: Option<std::fs::File>,
}

/// This machine's boot id and this process's process-id namespace, empty where the system
/// has neither.
fn pid_space() -> String {
    let boot = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").unwrap_or_default();
    let namespace = std::fs::read_link("/proc/self/ns/pid")
        .map(|link| link.to_string_lossy().into_owned())
        .unwrap_or_default();
    if boot.trim().is_empty() || namespace.is_empty() {
        return String::new();
    }
    format!("{} {namespace}", boot.trim())
}

/// Whether no process `pid` exists in this namespace (a process of another user, which the
/// signal may not reach, exists).
#[cfg(unix)]
fn process_gone(pid: u32) -> bool {
    let Some(pid) = i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    else {
        return false;
    };
    // Signal 0 sends nothing; it only checks that the process exists.
    rustix::process::test_kill_process(pid) == Err(rustix::io::Errno::SRCH)
}

#[cfg(not(unix))]
fn process_gone(_pid: u32) -> bool {
    false
}

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// A new holder id: random, so that two learners never share one.
fn new_holder_id() -> String {
    format!("{:016x}", rand::random::<u64>())
}

/// Writes `bytes` as the lease if it is still the version `expected` (`None`: if there is
/// none), and returns the new version, or `None` if another learner's write came first. A
/// refused write is checked against what the store holds: if that is exactly `bytes`, the
/// write went through and what was refused was the client's repeat of it, sent because the
/// answer to the first attempt was lost (a reset connection, a 5xx after the store had
/// written); every lease holds its learner's random holder id, so no other learner's write
/// has the same bytes.
fn write_lease(
    store: &RunStore,
    bytes: &[u8],
    expected: Option<&Version>,
) -> Result<Option<Version>, StoreError> {
    if let Some(version) = store.put_if(LEASE, bytes, expected)? {
        return Ok(Some(version));
    }
    Ok(store
        .get_versioned(LEASE)?
        .filter(|(found, _)| found == bytes)
        .map(|(_, version)| version))
}

impl Lease {
    /// Takes the lease of the run in `store`: creates it where there is none; takes it over
    /// where it is stale (or unreadable) and `take_over` is given; otherwise refuses. With
    /// `policy.renew_every` non-zero, a heartbeat thread renews it.
    pub fn acquire(
        store: Arc<RunStore>,
        policy: LeasePolicy,
        take_over: bool,
    ) -> Result<Lease, LeaseError> {
        Self::acquire_locked(store, policy, take_over, None)
    }

    /// [`Lease::acquire`] with the local directory's lock already held (`lock`), which makes
    /// any lease found a dead learner's.
    pub(super) fn acquire_locked(
        store: Arc<RunStore>,
        policy: LeasePolicy,
        take_over: bool,
        lock: Option<std::fs::File>,
    ) -> Result<Lease, LeaseError> {
        let location = store.location().to_string();
        let now = unix_now();
        let record = LeaseRecord {
            holder: new_holder_id(),
            host: crate::tensorboard::host_name(),
            pid: std::process::id(),
            acquired: now,
            renewed: now,
            pid_space: pid_space(),
        };
        let bytes = serde_json::to_vec_pretty(&record).expect("a lease serialises");
        let expected = match store.get_versioned(LEASE)? {
            None => None,
            Some((found, version)) => {
                let may_take = take_over || lock.is_some();
                match serde_json::from_slice::<LeaseRecord>(&found) {
                    Ok(other) if other.died_here() => {}
                    Ok(other) if may_take && other.age() >= policy.stale_after.as_secs() => {}
                    Ok(other) if lock.is_some() => drop(other),
                    Ok(other) => {
                        return Err(LeaseError::Held {
                            location,
                            holder: other.describe(),
                            age_s: other.age(),
                            stale_s: policy.stale_after.as_secs(),
                        });
                    }
                    Err(_) if may_take => {}
                    Err(e) => {
                        return Err(LeaseError::Unreadable {
                            location,
                            problem: e.to_string(),
                        });
                    }
                }
                Some(version)
            }
        };
        let Some(version) = write_lease(&store, &bytes, expected.as_ref())? else {
            // Another learner wrote the lease between our read and our write.
            let holder = store
                .get(LEASE)?
                .and_then(|b| serde_json::from_slice::<LeaseRecord>(&b).ok());
            return Err(LeaseError::Held {
                location,
                holder: holder
                    .as_ref()
                    .map_or("unknown".into(), LeaseRecord::describe),
                age_s: holder.as_ref().map_or(0, LeaseRecord::age),
                stale_s: policy.stale_after.as_secs(),
            });
        };
        let shared = Arc::new(Shared {
            store,
            held: Mutex::new(Some(Held { record, version })),
            lost: AtomicBool::new(false),
        });
        let (stop, heartbeat) = if policy.renew_every.is_zero() {
            (None, None)
        } else {
            let (stop, stopped) = channel::<()>();
            let beat = Arc::clone(&shared);
            let handle = std::thread::spawn(move || {
                loop {
                    match stopped.recv_timeout(policy.renew_every) {
                        Err(RecvTimeoutError::Timeout) => {}
                        _ => return,
                    }
                    // A store fault is retried at the next beat; a lost lease ends the beat.
                    if let Err(LeaseError::Lost { .. }) = beat.renew() {
                        return;
                    }
                }
            });
            (Some(stop), Some(handle))
        };
        Ok(Lease {
            shared,
            stop,
            heartbeat,
            _lock: lock,
        })
    }

    /// Renews the lease now: an error if another learner has taken it over (then this learner
    /// must stop) or the store failed.
    pub fn renew(&self) -> Result<(), LeaseError> {
        self.shared.renew()
    }

    /// What this learner last wrote into the lease.
    pub fn record(&self) -> Option<LeaseRecord> {
        let held = self.shared.held.lock().unwrap_or_else(|e| e.into_inner());
        held.as_ref().map(|h| h.record.clone())
    }
}

impl Shared {
    fn renew(&self) -> Result<(), LeaseError> {
        let location = || self.store.location().to_string();
        let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        let lost = |held: &mut Option<Held>, holder: String| {
            self.lost.store(true, Ordering::SeqCst);
            *held = None;
            Err(LeaseError::Lost {
                location: location(),
                holder,
            })
        };
        if self.lost.load(Ordering::SeqCst) {
            return Err(LeaseError::Lost {
                location: location(),
                holder: "another learner".into(),
            });
        }
        let Some(current) = held.as_ref() else {
            return lost(&mut held, "another learner".into());
        };
        let mut record = current.record.clone();
        record.renewed = unix_now();
        let bytes = serde_json::to_vec_pretty(&record).expect("a lease serialises");
        match write_lease(&self.store, &bytes, Some(&current.version))? {
            Some(version) => {
                *held = Some(Held { record, version });
                Ok(())
            }
            None => {
                let holder = self
                    .store
                    .get(LEASE)?
                    .and_then(|b| serde_json::from_slice::<LeaseRecord>(&b).ok())
                    .map_or("unknown (the lease was deleted)".into(), |r| r.describe());
                lost(&mut held, holder)
            }
        }
    }

    /// Deletes the lease if it is still this learner's.
    fn release(&self) {
        let held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        let Some(held) = held.as_ref() else { return };
        if let Ok(Some((_, version))) = self.store.get_versioned(LEASE)
            && version == held.version
        {
            // One attempt: a repeat after a lost answer could delete a successor's lease.
            let _ = self.store.delete_once(LEASE);
        }
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(handle) = self.heartbeat.take() {
            let _ = handle.join();
        }
        self.shared.release();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use damas_store::Location;

    /// A retried write refused because its first attempt went through is recognised as ours;
    /// another learner's lease is not.
    #[test]
    fn a_refused_retry_of_our_own_write_counts_as_written() {
        let dir = std::env::temp_dir().join(format!("damas-own-write-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let store = RunStore::open(&Location::Local(dir.clone()), &[]).unwrap();
        let ours = br#"{"holder":"a"}"#;
        let written = store.put_if(LEASE, ours, None).unwrap().expect("created");
        // The retry of the create is refused (the object exists), yet counts as written.
        assert_eq!(store.put_if(LEASE, ours, None).unwrap(), None);
        assert_eq!(
            write_lease(&store, ours, None).unwrap(),
            Some(written.clone())
        );
        assert_eq!(
            write_lease(&store, br#"{"holder":"b"}"#, None).unwrap(),
            None
        );
        std::fs::remove_dir_all(dir).unwrap();
    }

    /// A lease left by a learner process of this machine that no longer exists is taken at
    /// once, without --take-over; one whose process lives is not.
    #[test]
    fn a_lease_of_a_dead_process_on_this_machine_is_taken_at_once() {
        if pid_space().is_empty() {
            return; // no boot id or namespace on this system: the rule cannot apply
        }
        let dir = std::env::temp_dir().join(format!("damas-died-here-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let store = Arc::new(RunStore::open(&Location::Local(dir.clone()), &[]).unwrap());
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let dead = child.id();
        child.wait().unwrap();
        let lease_of = |pid: u32| {
            let record = LeaseRecord {
                holder: "old".into(),
                host: crate::tensorboard::host_name(),
                pid,
                acquired: unix_now(),
                renewed: unix_now(),
                pid_space: pid_space(),
            };
            store
                .put(LEASE, &serde_json::to_vec(&record).unwrap())
                .unwrap();
        };
        let policy = LeasePolicy {
            renew_every: Duration::ZERO,
            stale_after: Duration::from_secs(180),
        };
        lease_of(std::process::id());
        assert!(matches!(
            Lease::acquire(Arc::clone(&store), policy, false),
            Err(LeaseError::Held { .. })
        ));
        lease_of(dead);
        let lease = Lease::acquire(Arc::clone(&store), policy, false).expect("taken at once");
        assert_ne!(lease.record().unwrap().holder, "old");
        drop(lease);
        std::fs::remove_dir_all(dir).unwrap();
    }
}
