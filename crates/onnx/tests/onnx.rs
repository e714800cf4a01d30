//! Exported ONNX models read back by tract, an independent runtime: outputs equal to burn's
//! within 1e-4 at any batch size, the same moves from the same search, and clear errors for
//! files that are not our models.

use burn::prelude::*;
use damas_mcts::{Evaluator, RootNoise, Search, SearchConfig, softmax};
use damas_nn::checkpoint::CheckpointMeta;
use damas_nn::encoding::encode;
use damas_nn::{BoardShape, INPUT_PLANES, NetEvaluator, Network, NetworkConfig};
use damas_onnx::{ModelInfo, OnnxError, OnnxEvaluator, OnnxModel, onnx_bytes};
use damas_rules::variants::{Canadian, International, Russian};
use damas_rules::{Game, Rules};
use onnx_ir::{Message, ModelProto};
use std::path::{Path, PathBuf};

/// A small random network for `V` and its metadata.
fn network<V: Rules>(seed: u64) -> (Network, CheckpointMeta) {
    let device = damas_nn::cpu();
    device.seed(seed);
    let config = NetworkConfig::new(BoardShape::of::<V>())
        .with_blocks(2)
        .with_channels(16);
    (config.init(&device), CheckpointMeta::new::<V>(config))
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("damas-onnx-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Writes `network` as an ONNX file in a fresh directory.
fn export(network: &Network, meta: &CheckpointMeta, name: &str) -> PathBuf {
    let path = temp_dir(name).join("model.onnx");
    std::fs::write(&path, onnx_bytes(network, meta).unwrap()).unwrap();
    path
}

/// Positions from seeded random games, not finished.
fn positions<V: Rules>(count: u64) -> Vec<Game<V>> {
    (0..count)
        .map(|seed| {
            let mut game = Game::<V>::new();
            game.play_random(seed, (seed * 7 % 40) as u32);
            game
        })
        .filter(|game| game.outcome().is_none())
        .collect()
}

/// burn's policy and value logits for a batch of encoded positions.
fn burn_logits<V: Rules>(network: &Network, inputs: &[f32], batch: usize) -> (Vec<f32>, Vec<f32>) {
    let shape = BoardShape::of::<V>();
    let device = damas_nn::cpu();
    let data = TensorData::new(
        inputs.to_vec(),
        [batch, INPUT_PLANES, shape.height, shape.width],
    );
    let output = network.valid().forward(Tensor::from_data(data, &device));
    (
        output.policy.try_into_vec_as::<f32>().unwrap(),
        output.value.try_into_vec_as::<f32>().unwrap(),
    )
}

fn assert_close(what: &str, a: &[f32], b: &[f32]) {
    assert_eq!(a.len(), b.len(), "{what}: lengths");
    let worst = a
        .iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0f32, f32::max);
    assert!(worst <= 1e-4, "{what}: largest difference {worst}");
}

fn outputs_match<V: Rules>() {
    let (network, meta) = network::<V>(7);
    let path = export(&network, &meta, V::NAME);
    let model = OnnxModel::open::<V>(&path).unwrap();
    let games = positions::<V>(40);
    let input_len = BoardShape::of::<V>().input_len();
    // Batch sizes other than the two the exporter traced with (2 and 3).
    for batch in [1, 5, games.len()] {
        let mut inputs = vec![0.0; batch * input_len];
        for (game, out) in games.iter().zip(inputs.chunks_mut(input_len)) {
            encode(game, out);
        }
        let (policy, value) = model.run(&inputs, batch).unwrap();
        let (burn_policy, burn_value) = burn_logits::<V>(&network, &inputs, batch);
        assert_close(
            &format!("{} policy, batch {batch}", V::NAME),
            &policy,
            &burn_policy,
        );
        assert_close(
            &format!("{} value, batch {batch}", V::NAME),
            &value,
            &burn_value,
        );
        assert!(policy.iter().any(|&x| x != 0.0), "outputs are not all zero");
    }
}

#[test]
fn tract_computes_what_burn_computes_on_every_board_size() {
    outputs_match::<Russian>();
    outputs_match::<International>();
    outputs_match::<Canadian>();
}

#[test]
fn the_file_carries_the_contract_and_a_dynamic_batch_axis() {
    let (network, meta) = network::<International>(1);
    let bytes = onnx_bytes(&network, &meta).unwrap();
    let path = temp_dir("contract").join("model.onnx");
    std::fs::write(&path, &bytes).unwrap();
    let info = ModelInfo::read(&path).unwrap();
    assert_eq!(info.variant, "international");
    assert_eq!(
        info.metadata["encoding_version"],
        damas_nn::ENCODING_VERSION.to_string()
    );
    assert_eq!(info.metadata["board"], "10x10");
    assert_eq!(info.metadata["playable_squares"], "50");
    assert!(info.metadata["policy"].contains("[batch, 2500]"));
    assert!(info.metadata["value"].contains("win, draw, loss"));

    let proto = ModelProto::parse_from_bytes(&bytes).unwrap();
    let graph = proto.graph.as_ref().unwrap();
    let names = |infos: &[onnx_ir::ValueInfoProto]| -> Vec<String> {
        infos.iter().map(|i| i.name.clone()).collect()
    };
    assert_eq!(names(&graph.input), ["input"]);
    assert_eq!(names(&graph.output), ["policy", "value"]);
    let dims = &graph.input[0].type_.tensor_type().shape.dim;
    assert_eq!(dims[0].dim_param(), "batch");
    let fixed: Vec<i64> = dims[1..].iter().map(|d| d.dim_value()).collect();
    assert_eq!(fixed, [19, 10, 10]);
}

/// The move and visit counts of a fixed-size search from each position.
fn search_results<V: Rules>(
    evaluator: &impl Evaluator<V>,
    games: &[Game<V>],
) -> Vec<(String, Vec<u32>)> {
    games
        .iter()
        .map(|game| {
            let mut search = Search::new(game.clone(), SearchConfig::default(), 3);
            search.start_with_budget(64, RootNoise::Off);
            search.run(evaluator);
            let report = search.report();
            let index = search.choose(0.0);
            (format!("{:?}", report.moves[index]), report.visits)
        })
        .collect()
}

#[test]
fn the_exported_model_plays_the_moves_of_its_network() {
    let (network, meta) = network::<Russian>(11);
    let path = export(&network, &meta, "moves");
    let games: Vec<_> = positions::<Russian>(12)
        .into_iter()
        .filter(|game| game.legal_moves().len() > 1)
        .collect();
    assert!(games.len() >= 6);
    let onnx = OnnxEvaluator::<Russian>::wrap(OnnxModel::open::<Russian>(&path).unwrap());
    let burn = NetEvaluator::<Russian>::new(&network, &damas_nn::cpu());
    assert_eq!(search_results(&onnx, &games), search_results(&burn, &games));
    // And the value each reports for the start position agrees.
    let (_, value) = onnx.predictor().run(&start_input::<Russian>(), 1).unwrap();
    let (_, burn_value) = burn_logits::<Russian>(&network, &start_input::<Russian>(), 1);
    assert_close("start value", &softmax(&value), &softmax(&burn_value));
}

fn start_input<V: Rules>() -> Vec<f32> {
    let mut input = vec![0.0; BoardShape::of::<V>().input_len()];
    encode(&Game::<V>::new(), &mut input);
    input
}

/// Rewrites one `damas.*` metadata value of an ONNX file (or drops them all with `None`).
fn edit_metadata(path: &Path, key: &str, value: Option<&str>) -> PathBuf {
    let mut proto = ModelProto::parse_from_bytes(&std::fs::read(path).unwrap()).unwrap();
    match value {
        Some(value) => proto
            .metadata_props
            .iter_mut()
            .filter(|e| e.key == key)
            .for_each(|e| e.value = value.to_string()),
        None => proto.metadata_props.clear(),
    }
    let edited = path.with_file_name(format!("edited-{key}-{}.onnx", value.unwrap_or("none")));
    std::fs::write(&edited, proto.write_to_bytes().unwrap()).unwrap();
    edited
}

#[test]
fn files_that_are_not_our_models_are_refused_with_the_reason() {
    let (network, meta) = network::<Russian>(2);
    let path = export(&network, &meta, "refused");
    let message = |result: Result<OnnxModel, OnnxError>| match result {
        Ok(_) => panic!("accepted"),
        Err(e) => e.to_string(),
    };

    let text = path.with_file_name("notes.onnx");
    std::fs::write(&text, "this is not a model\n").unwrap();
    let error = message(OnnxModel::open::<Russian>(&text));
    assert!(
        error.contains("notes.onnx") && error.contains("not an ONNX model"),
        "{error}"
    );

    let missing = message(OnnxModel::open::<Russian>(
        &path.with_file_name("missing.onnx"),
    ));
    assert!(missing.contains("missing.onnx"), "{missing}");

    let wrong_variant = message(OnnxModel::open::<International>(&path));
    assert!(
        wrong_variant.contains("`russian`, not `international`"),
        "{wrong_variant}"
    );

    let future = edit_metadata(&path, "damas.encoding_version", Some("99"));
    let error = message(OnnxModel::open::<Russian>(&future));
    assert!(error.contains("encoding version 99"), "{error}");

    let anonymous = edit_metadata(&path, "damas.variant", None);
    let error = message(OnnxModel::open::<Russian>(&anonymous));
    assert!(error.contains("no `damas.variant` metadata"), "{error}");

    // A model whose metadata claims a variant on another board fails its shape check.
    let liar = edit_metadata(&path, "damas.variant", Some("international"));
    let error = message(OnnxModel::open::<International>(&liar));
    assert!(error.contains("cannot run the model"), "{error}");
}
