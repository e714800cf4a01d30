//! Tables probed from their files: the same answers as in memory, and damaged, truncated or
//! foreign files refused by name.

use damas_egdb::build::build;
use damas_egdb::{Egdb, Signature, Storage, Table};
use damas_rules::variants::{English, Russian};
use damas_rules::{Color, Rules};
use std::path::PathBuf;

mod common;
use common::TempDir;

/// Every position of every table in `memory`, probed in `other`, answers the same.
fn assert_same_answers<V: Rules>(memory: &Egdb<V>, other: &Egdb<V>) -> u64 {
    let mut probed = 0;
    for signature in memory.signatures() {
        let indexer = memory.indexer(signature).unwrap();
        for turn in [Color::White, Color::Black] {
            for index in 0..indexer.size() {
                if let Some(position) = indexer.decode(index, turn) {
                    assert_eq!(
                        memory.probe(&position),
                        other.probe(&position),
                        "{signature}"
                    );
                    probed += 1;
                }
            }
        }
    }
    probed
}

fn english_three_pieces(dir: &TempDir) -> Egdb<English> {
    build::<English>(&dir.0, &Signature::up_to(3), |_, _, _| {})
        .unwrap()
        .0
}

fn table_path(dir: &TempDir, variant: &str, signature: &str) -> PathBuf {
    dir.0.join(variant).join(format!("{signature}.egdb"))
}

#[test]
fn tables_on_disk_answer_as_in_memory_with_any_cache() {
    let dir = TempDir::new("files-same");
    let built = english_three_pieces(&dir);
    let memory = Egdb::<English>::open(&dir.0).unwrap();
    let files = Egdb::<English>::open_with(&dir.0, Storage::default()).unwrap();
    // The smallest cache (64 blocks) holds fewer blocks than the tables have, so blocks are
    // evicted and read again.
    let tiny = Egdb::<English>::open_with(&dir.0, Storage::Files { cache_bytes: 0 }).unwrap();
    assert_eq!(files.signatures(), built.signatures());
    assert_eq!(files.complete_pieces(), 3);
    let probed = assert_same_answers(&built, &memory);
    assert_eq!(probed, 2 * (120 + 6_972 + 261_224));
    assert_same_answers(&built, &files);
    assert_same_answers(&built, &tiny);
    // An emptied cache unpacks its blocks again, to the same answers.
    files.clear_cache();
    assert_same_answers(&built, &files);
    assert!(files.faults().is_empty() && tiny.faults().is_empty());
    // Tables on disk are not handed out whole.
    let signature = built.signatures()[0];
    assert!(files.table(signature).is_none() && memory.table(signature).is_some());
}

#[test]
fn a_damaged_block_is_named_when_read() {
    let dir = TempDir::new("files-damaged");
    let built = english_three_pieces(&dir);
    let path = table_path(&dir, "english", "w0.2-b0.1");
    let mut bytes = std::fs::read(&path).unwrap();
    // The file's last byte is the last block's (its zstd frame ends the file).
    let at = bytes.len() - 1;
    bytes[at] ^= 0x55;
    std::fs::write(&path, &bytes).unwrap();
    // Read whole, the damage is found at once.
    let error = Egdb::<English>::open(&dir.0).unwrap_err().to_string();
    assert!(
        error.contains("w0.2-b0.1.egdb") && error.contains("block"),
        "{error}"
    );
    // From the files, the header and index are sound, and the block is refused when probed.
    let files = Egdb::<English>::open_with(&dir.0, Storage::default()).unwrap();
    let signature: Signature = "w0.2-b0.1".parse().unwrap();
    let indexer = built.indexer(signature).unwrap();
    let last = (0..indexer.size())
        .rev()
        .find_map(|i| indexer.decode(i, Color::Black))
        .unwrap();
    assert_eq!(files.probe(&last), None);
    let faults = files.faults();
    assert_eq!(faults.len(), 1, "{faults:?}");
    assert!(faults[0].contains("w0.2-b0.1.egdb: block"), "{faults:?}");
    // Other tables still answer.
    let other = damas_rules::parse_fen::<English>("W:WK1:BK32").unwrap();
    assert!(files.probe(&other).is_some());
}

#[test]
fn truncated_and_foreign_files_are_refused_by_name() {
    let dir = TempDir::new("files-refused");
    english_three_pieces(&dir);
    let path = table_path(&dir, "english", "w1.1-b1.0");
    let bytes = std::fs::read(&path).unwrap();
    for cut in [bytes.len() - 1, 30, 5] {
        std::fs::write(&path, &bytes[..cut]).unwrap();
        for storage in [Storage::Memory, Storage::default()] {
            let error = Egdb::<English>::open_with(&dir.0, storage)
                .unwrap_err()
                .to_string();
            assert!(error.contains("w1.1-b1.0.egdb"), "{cut} bytes: {error}");
        }
    }
    std::fs::write(&path, &bytes).unwrap();
    // An English table is not a Russian one, whatever its file is called.
    let russian = dir.0.join("russian");
    std::fs::create_dir_all(&russian).unwrap();
    std::fs::copy(&path, russian.join("w1.1-b1.0.egdb")).unwrap();
    for storage in [Storage::Memory, Storage::default()] {
        let error = Egdb::<Russian>::open_with(&dir.0, storage)
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("variant is english, expected russian"),
            "{error}"
        );
    }
    // Nor is it another signature's table.
    std::fs::copy(&path, dir.0.join("english").join("w1.0-b1.1.egdb")).unwrap();
    let error = Table::<English>::load(
        &dir.0.join("english").join("w1.0-b1.1.egdb"),
        "w1.0-b1.1".parse().unwrap(),
    )
    .unwrap_err()
    .to_string();
    assert!(error.contains("signature is w1.1-b1.0"), "{error}");
    // Nor is a second name for one signature's table (one table, two cache identities).
    std::fs::remove_file(dir.0.join("english").join("w1.0-b1.1.egdb")).unwrap();
    std::fs::copy(&path, dir.0.join("english").join("w01.1-b1.0.egdb")).unwrap();
    for storage in [Storage::Memory, Storage::default()] {
        let error = Egdb::<English>::open_with(&dir.0, storage)
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("w01.1-b1.0.egdb") && error.contains("not a table's name"),
            "{error}"
        );
    }
}
