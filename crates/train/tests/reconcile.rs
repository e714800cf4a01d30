//! A learner's local copy and its store brought into agreement on resume: what a killed
//! learner never uploaded is uploaded and its marker's deletions redone; a copy left behind
//! while the run went on elsewhere drops its other history and takes the store's. The store
//! here is a second directory (the reconciling is the same for any store).

use damas_store::{Location, RunStore};
use damas_train::run::reconcile::reconcile;
use std::path::{Path, PathBuf};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("damas-reconcile-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn write(root: &Path, key: &str, bytes: &[u8]) {
    let path = root.join(key);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

/// Generation `g`'s files, its network holding `model`, its marker naming `consumed`.
fn generation(root: &Path, g: u32, model: &[u8], consumed: &str) {
    write(root, &format!("checkpoints/{g:06}/model.bpk"), model);
    write(root, &format!("checkpoints/{g:06}/meta.json"), b"{}");
    if g > 0 {
        write(root, &format!("shards/gen{g:06}-w-000000.shard"), model);
        let marker = format!(
            r#"{{"games": 2, "samples": 10, "plies": 10, "results": [1, 0, 1], "resignations": [0, 0, 0], "seconds": 1.0, "network_share": 0.5, "consumed": ["{consumed}"]}}"#
        );
        write(root, &format!("shards/gen{g:06}.done"), marker.as_bytes());
    }
}

#[test]
fn a_killed_learners_unpublished_generation_is_uploaded_and_its_deletions_redone() {
    let (copy, stored) = (scratch("killed-copy"), scratch("killed-store"));
    for root in [&copy, &stored] {
        generation(root, 0, b"m0", "");
        generation(root, 1, b"m1", "incoming/g000000-w-000000.shard");
        write(root, "best", b"1\n");
    }
    // Killed after generation 2's files, before their upload and the deletion of the workers'
    // shard its marker took.
    generation(&copy, 2, b"m2", "incoming/g000001-w-000001.shard");
    write(&copy, "checkpoints/000002/eval.json", b"{}");
    write(&copy, "best", b"2\n");
    write(&copy, "log.txt", b"generation 2\n");
    write(&stored, "incoming/g000001-w-000001.shard", b"taken");
    write(&stored, "incoming/g000002-w-000002.shard", b"not taken");

    let store = RunStore::open(&Location::Local(stored.clone()), &[]).unwrap();
    let done = reconcile(&copy, &store).expect("reconciles");
    assert_eq!(done.dropped_generations, Vec::<u32>::new());
    assert_eq!(done.redone_deletions, 1);
    for key in [
        "checkpoints/000002/model.bpk",
        "checkpoints/000002/meta.json",
        "checkpoints/000002/eval.json",
        "shards/gen000002-w-000000.shard",
        "shards/gen000002.done",
    ] {
        assert_eq!(
            store.get(key).unwrap(),
            Some(std::fs::read(copy.join(key)).unwrap()),
            "{key} uploaded"
        );
    }
    assert_eq!(
        store.get("best").unwrap().unwrap(),
        b"2\n",
        "the copy is ahead"
    );
    assert_eq!(store.get("log.txt").unwrap().unwrap(), b"generation 2\n");
    assert_eq!(done.uploaded, 7);
    assert_eq!(store.get("incoming/g000001-w-000001.shard").unwrap(), None);
    assert!(
        store
            .get("incoming/g000002-w-000002.shard")
            .unwrap()
            .is_some()
    );
    // Once agreed, there is nothing left to do.
    assert!(reconcile(&copy, &store).unwrap().is_empty());
    for root in [&copy, &stored] {
        let _ = std::fs::remove_dir_all(root);
    }
}

#[test]
fn a_copy_left_behind_drops_its_other_history_and_takes_the_stores() {
    let (copy, stored) = (scratch("behind-copy"), scratch("behind-store"));
    for root in [&copy, &stored] {
        generation(root, 0, b"m0", "");
        generation(root, 1, b"m1", "");
    }
    // This copy trained a generation 2 it never uploaded; meanwhile another learner trained
    // its own generations 2 and 3 into the store.
    generation(&copy, 2, b"m2 of this copy", "");
    write(&copy, "best", b"2\n");
    generation(&stored, 2, b"m2 of the store", "");
    generation(&stored, 3, b"m3", "");
    write(&stored, "best", b"3\n");
    write(&stored, "log.txt", b"the store's log\n");

    let store = RunStore::open(&Location::Local(stored.clone()), &[]).unwrap();
    let done = reconcile(&copy, &store).expect("reconciles");
    assert_eq!(done.dropped_generations, vec![2]);
    assert_eq!(
        done.uploaded, 0,
        "nothing of the other history reaches the store"
    );
    assert_eq!(done.refetched, 2);
    assert!(!copy.join("checkpoints/000002").exists());
    assert!(!copy.join("shards/gen000002.done").exists());
    assert!(copy.join("checkpoints/000001/model.bpk").exists());
    assert_eq!(std::fs::read(copy.join("best")).unwrap(), b"3\n");
    assert_eq!(
        store.get("checkpoints/000002/model.bpk").unwrap().unwrap(),
        b"m2 of the store"
    );
    for root in [&copy, &stored] {
        let _ = std::fs::remove_dir_all(root);
    }
}
