//! Writing a network as an ONNX model: burn's exporter traces one forward pass (twice, to find
//! the batch axis), then the graph's boundary gets stable names (`input`, `policy`, `value`) and
//! the model gets the encoding contract of `docs/model-format.md` as metadata properties.

use crate::OnnxError;
use burn::prelude::*;
use burn_onnx::export::{AxisSpec, InputSpec, OnnxExporter};
use damas_nn::checkpoint::CheckpointMeta;
use damas_nn::export::export_metadata;
use damas_nn::{INPUT_PLANES, Network};
use onnx_ir::{GraphProto, Message, ModelProto};

/// Name of the model's input: `[batch, planes, height, width]` float32.
pub const INPUT: &str = "input";
/// Name of the policy output: `[batch, squares * squares]` logits.
pub const POLICY: &str = "policy";
/// Name of the value output: `[batch, 3]` win/draw/loss logits.
pub const VALUE: &str = "value";
/// Name of the dynamic batch axis.
pub const BATCH: &str = "batch";

/// The network as an ONNX model's bytes, with a dynamic batch axis and [`export_metadata`] as
/// the model's metadata properties.
pub fn onnx_bytes(network: &Network, meta: &CheckpointMeta) -> Result<Vec<u8>, OnnxError> {
    let board = &meta.network.board;
    let device = Device::flex();
    let network = network.valid().to_device(&device);
    let sample =
        |batch| Tensor::<4>::zeros([batch, INPUT_PLANES, board.height, board.width], &device);
    let specs = [InputSpec::new([
        AxisSpec::dynamic(BATCH),
        AxisSpec::Static,
        AxisSpec::Static,
        AxisSpec::Static,
    ])];
    let traced = OnnxExporter::new()
        .export_dynamic(&network, sample(2), sample(3), &specs, |net, input| {
            let output = net.forward(input);
            (output.policy, output.value)
        })
        .map_err(|e| OnnxError::Export(e.to_string()))?;
    let mut model = ModelProto::parse_from_bytes(traced.as_bytes())
        .map_err(|e| OnnxError::Export(format!("the exporter's output does not parse: {e}")))?;
    let graph = model
        .graph
        .as_mut()
        .ok_or_else(|| OnnxError::Export("the exporter's output has no graph".into()))?;
    name_boundary(graph)?;
    graph.name = format!("damas_{}", meta.variant);
    model.producer_name = "damas".into();
    model.producer_version = env!("CARGO_PKG_VERSION").into();
    model.doc_string = format!(
        "Damas Zero network for {}: input `{INPUT}`, outputs `{POLICY}` and `{VALUE}`; see the metadata and docs/model-format.md",
        meta.variant
    );
    for (key, value) in export_metadata(meta) {
        // The entry type is not nameable outside onnx-ir, but its fields are public.
        model.metadata_props.push(Default::default());
        let entry = model.metadata_props.last_mut().expect("just pushed");
        entry.key = key;
        entry.value = value;
    }
    model
        .write_to_bytes()
        .map_err(|e| OnnxError::Export(format!("cannot serialise the model: {e}")))
}

/// Renames the graph's one input and two outputs to [`INPUT`], [`POLICY`] and [`VALUE`].
fn name_boundary(graph: &mut GraphProto) -> Result<(), OnnxError> {
    let boundary = |what: &str, names: Vec<String>, count: usize| {
        if names.len() == count {
            Ok(names)
        } else {
            Err(OnnxError::Export(format!(
                "the traced graph has {} {what}s, expected {count}",
                names.len()
            )))
        }
    };
    let inputs = boundary(
        "input",
        graph.input.iter().map(|i| i.name.clone()).collect(),
        1,
    )?;
    let outputs = boundary(
        "output",
        graph.output.iter().map(|o| o.name.clone()).collect(),
        2,
    )?;
    let renames = [
        (&inputs[0], INPUT),
        (&outputs[0], POLICY),
        (&outputs[1], VALUE),
    ];
    let rename = |name: &mut String| {
        if let Some((_, new)) = renames.iter().find(|(old, _)| *old == name) {
            *name = new.to_string();
        }
    };
    for info in graph
        .input
        .iter_mut()
        .chain(graph.output.iter_mut())
        .chain(graph.value_info.iter_mut())
    {
        rename(&mut info.name);
    }
    for node in graph.node.iter_mut() {
        node.input.iter_mut().for_each(rename);
        node.output.iter_mut().for_each(rename);
    }
    Ok(())
}
