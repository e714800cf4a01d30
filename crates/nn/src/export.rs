//! Exported models for other engines. safetensors: the weights under their module paths, with
//! the contract of `docs/model-format.md` as string metadata in the file's header (variant,
//! board, planes, policy scheme and encoding version, output heads, network shape).

use crate::checkpoint::CheckpointMeta;
use crate::encoding::{BoardShape, ENCODING_VERSION, INPUT_PLANES};
use crate::network::Network;
use burn::store::{ModuleSnapshot, SafetensorsStore};
use std::collections::BTreeMap;

/// The metadata written into exported files: what another engine needs to use the network.
pub fn export_metadata(meta: &CheckpointMeta) -> BTreeMap<String, String> {
    let board: &BoardShape = &meta.network.board;
    let pairs = [
        ("damas.variant", meta.variant.clone()),
        ("damas.encoding_version", ENCODING_VERSION.to_string()),
        ("damas.board", format!("{}x{}", board.height, board.width)),
        ("damas.playable_squares", board.squares.to_string()),
        (
            "damas.input",
            format!(
                "[batch, {INPUT_PLANES}, {}, {}] float32, planes: own men, own kings, opponent men, opponent kings, playable squares, 8 rule flags, king-move plies ratio, repetitions ratio, own parachutists, opponent parachutists, no-capture plies ratio, own crowning squares; side to move's view (docs/model-format.md)",
                board.height, board.width
            ),
        ),
        (
            "damas.policy",
            format!(
                "[batch, {}] logits, index = from * {} + to over playable squares in the side to move's view",
                board.policy_len(),
                board.squares
            ),
        ),
        (
            "damas.value",
            "[batch, 3] logits: win, draw, loss for the side to move".to_string(),
        ),
        (
            "damas.network",
            format!(
                "{} residual blocks x {} channels",
                meta.network.blocks, meta.network.channels
            ),
        ),
        ("damas.step", meta.step.to_string()),
        ("damas.generation", meta.generation.to_string()),
    ];
    let search = meta.search.as_ref().map(|search| {
        (
            "damas.search".to_string(),
            serde_json::to_string(search).expect("a search config serializes"),
        )
    });
    pairs
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .chain(search)
        .collect()
}

/// The network as a safetensors file's bytes, with [`export_metadata`] in its header.
pub fn safetensors_bytes(network: &Network, meta: &CheckpointMeta) -> Result<Vec<u8>, String> {
    let mut store = SafetensorsStore::from_bytes(None);
    for (key, value) in export_metadata(meta) {
        store = store.metadata(key, value);
    }
    network
        .save_into(&mut store)
        .map_err(|e| format!("{e:?}"))?;
    store.get_bytes().map_err(|e| format!("{e:?}"))
}
