//! One learner per run: a second learner is refused with the holder named, a stale lease is
//! taken over, the old holder stops at its next renewal, and a local run is locked for as long
//! as its learner lives. The lease protocol runs over the local store here and, with the
//! `object-store` feature, over object_store's in-memory store.

use damas_store::{Location, RunStore};
use damas_train::run::lease::{LEASE, Lease, LeaseError, LeasePolicy, LeaseRecord};
use damas_train::{ConfigChanges, ConfigFile, RunError, RunHome, Silent, TrainConfig, train_in};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// No heartbeat (renewals only when asked), stale after `stale_s` seconds.
fn policy(stale_s: u64) -> LeasePolicy {
    LeasePolicy {
        renew_every: Duration::ZERO,
        stale_after: Duration::from_secs(stale_s),
    }
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("damas-lease-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn holder(store: &RunStore) -> LeaseRecord {
    serde_json::from_slice(&store.get(LEASE).unwrap().expect("a lease")).unwrap()
}

/// The protocol over any store: refuse, take over when stale, the old holder stops, and each
/// holder deletes only its own lease.
fn protocol(store: Arc<RunStore>) {
    let first = Lease::acquire(Arc::clone(&store), policy(180), false).expect("no lease yet");
    let first_id = first.record().unwrap().holder;
    assert_eq!(holder(&store).holder, first_id);

    // A second learner is refused, with the holder and the lease's age named; --take-over
    // does not take a fresh lease.
    for take_over in [false, true] {
        let error = Lease::acquire(Arc::clone(&store), policy(180), take_over)
            .err()
            .expect("a second learner is refused");
        let LeaseError::Held {
            holder, stale_s, ..
        } = &error
        else {
            panic!("{error}");
        };
        assert!(holder.contains(&first_id), "{error}");
        assert_eq!(*stale_s, 180);
        let text = error.to_string();
        assert!(
            text.contains("renewed 0 s ago") || text.contains("renewed 1 s ago"),
            "{text}"
        );
        assert!(text.contains("--take-over"), "{text}");
    }
    first.renew().expect("the holder renews");

    // Stale (here: after 0 s) and asked to: taken over.
    let second = Lease::acquire(Arc::clone(&store), policy(0), true).expect("a stale lease");
    let second_id = second.record().unwrap().holder;
    assert_ne!(second_id, first_id);
    assert_eq!(holder(&store).holder, second_id);

    // The old holder finds out at its next renewal, and keeps failing after.
    let error = first.renew().expect_err("the old holder lost the lease");
    assert!(
        matches!(&error, LeaseError::Lost { holder, .. } if holder.contains(&second_id)),
        "{error}"
    );
    assert!(first.renew().is_err());
    // Stopping, it leaves the new holder's lease alone.
    drop(first);
    assert_eq!(holder(&store).holder, second_id);
    second.renew().expect("the new holder renews");
    drop(second);
    assert_eq!(
        store.get(LEASE).unwrap(),
        None,
        "a holder deletes its lease"
    );

    // A lease that is not one is refused, and taken over when asked.
    store.put(LEASE, b"not json").unwrap();
    let error = Lease::acquire(Arc::clone(&store), policy(180), false)
        .err()
        .expect("an unreadable lease is refused");
    assert!(matches!(error, LeaseError::Unreadable { .. }), "{error}");
    let third = Lease::acquire(Arc::clone(&store), policy(180), true).expect("taken over");
    assert_eq!(holder(&store).holder, third.record().unwrap().holder);
}

#[test]
fn the_lease_protocol_over_a_local_store() {
    let dir = scratch("protocol");
    protocol(Arc::new(
        RunStore::open(&Location::Local(dir.clone()), &[]).unwrap(),
    ));
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(feature = "object-store")]
#[test]
fn the_lease_protocol_over_an_object_store() {
    protocol(Arc::new(
        RunStore::open(&Location::parse("memory:///runs/lease"), &[]).unwrap(),
    ));
}

#[test]
fn a_local_run_is_locked_while_its_learner_lives() {
    let dir = scratch("local");
    let mut first = RunHome::local(&dir);
    first.take_lease().expect("the first learner");
    let mut second = RunHome::local(&dir);
    let error = second.take_lease().expect_err("locked");
    let text = error.to_string();
    assert!(
        matches!(error, RunError::Lease(LeaseError::LockedHere { .. })),
        "{text}"
    );
    assert!(
        text.contains(&format!("pid {}", std::process::id())),
        "the holder is named: {text}"
    );
    // The holder dies: its lock goes with the process, its lease stays behind (here: put back
    // after a clean drop deleted it). A fresh lease with a free lock is a dead learner's:
    // taken over at once.
    let store = RunStore::open(&Location::Local(dir.clone()), &[]).unwrap();
    let left = store
        .get(LEASE)
        .unwrap()
        .expect("the first learner's lease");
    let before = holder(&store).holder;
    drop(first);
    assert_eq!(store.get(LEASE).unwrap(), None);
    store.put(LEASE, &left).unwrap();
    let mut third = RunHome::local(&dir);
    third.take_lease().expect("the holder is gone");
    assert_ne!(holder(&store).holder, before);
    let _ = std::fs::remove_dir_all(&dir);
}

const TINY: &str = r#"
name = "leased"
variant = "russian"
generations = 1000
games_per_generation = 2

[network]
blocks = 1
channels = 8

[selfplay]
fast_simulations = 4
full_search_fraction = 0.5
max_plies = 40
games_per_worker = 2
games_per_shard = 2
inference_threads = 1
[selfplay.search]
simulations = 4

[training]
batch_size = 16
window_min = 20
threads = 1

[evaluation]
baseline_games = 0
previous_games = 0
"#;

#[test]
fn a_learner_whose_lease_was_taken_stops() {
    let dir = scratch("run");
    let file = ConfigFile {
        config: TrainConfig::parse(TINY).expect("valid config"),
        text: TINY.to_string(),
    };
    let learner = std::thread::spawn({
        let dir = dir.clone();
        move || {
            train_in(
                &file,
                RunHome::local(&dir),
                ConfigChanges::Refuse,
                &mut Silent,
            )
        }
    });
    // Once the learner has a generation, another learner's lease appears in its place (what a
    // take-over on an object store does).
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while !dir.join("checkpoints/000001/meta.json").exists() {
        assert!(
            std::time::Instant::now() < deadline,
            "no generation in 60 s"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // Written as a take-over writes it: over the version read, under the store's lock (a plain
    // write could race the learner's renewal).
    let store = RunStore::open(&Location::Local(dir.clone()), &[]).unwrap();
    loop {
        let (bytes, version) = store.get_versioned(LEASE).unwrap().expect("a lease");
        let mut intruder: LeaseRecord = serde_json::from_slice(&bytes).unwrap();
        intruder.holder = "intruder".into();
        let written = store
            .put_if(
                LEASE,
                &serde_json::to_vec(&intruder).unwrap(),
                Some(&version),
            )
            .unwrap();
        if written.is_some() {
            break;
        }
    }
    let result = learner.join().unwrap();
    let error = result.expect_err("the learner stops");
    assert!(
        matches!(&error, RunError::Lease(LeaseError::Lost { holder, .. }) if holder.contains("intruder")),
        "{error}"
    );
    let last = std::fs::read_dir(dir.join("checkpoints")).unwrap().count();
    assert!(last < 1000, "stopped long before its 1000 generations");
    assert_eq!(
        holder(&store).holder,
        "intruder",
        "the intruder's lease stays"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
