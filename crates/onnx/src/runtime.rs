//! Exported models run by tract, a pure-Rust ONNX runtime independent of burn: reading a file's
//! metadata, checking it is a Damas Zero model for the variant at hand, and evaluating batches.

use crate::OnnxError;
use crate::export::{INPUT, POLICY, VALUE};
use damas_mcts::softmax;
use damas_nn::{
    BoardShape, ENCODING_VERSION, INPUT_PLANES, ModelEvaluator, Outputs, PredictError, Predictor,
};
use damas_rules::Rules;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tract_onnx::pb::ModelProto;
use tract_onnx::prelude::*;

/// What an exported model's metadata says it is.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelInfo {
    /// The variant's short name (`damas.variant`).
    pub variant: String,
    /// All `damas.*` metadata properties, keys without the prefix.
    pub metadata: BTreeMap<String, String>,
}

impl ModelInfo {
    /// Reads the metadata of the ONNX model at `path` without building the model.
    pub fn read(path: &Path) -> Result<Self, OnnxError> {
        Ok(Self::of(&read_proto(path)?, path)?.0)
    }

    /// The metadata of a parsed model, and its encoding version.
    fn of(proto: &ModelProto, path: &Path) -> Result<(Self, u32), OnnxError> {
        let metadata: BTreeMap<String, String> = proto
            .metadata_props
            .iter()
            .filter_map(|entry| {
                let key = entry.key.strip_prefix("damas.")?;
                Some((key.to_string(), entry.value.clone()))
            })
            .collect();
        let field = |key: &str| {
            metadata.get(key).cloned().ok_or_else(|| OnnxError::NotAModel {
                path: path.to_path_buf(),
                message: format!(
                    "no `damas.{key}` metadata: not a Damas Zero model (see docs/model-format.md)"
                ),
            })
        };
        let variant = field("variant")?;
        let version = field("encoding_version")?;
        let encoding = version
            .parse::<u32>()
            .map_err(|_| OnnxError::WrongEncoding {
                path: path.to_path_buf(),
                found: version.clone(),
                expected: ENCODING_VERSION,
            })?;
        Ok((ModelInfo { variant, metadata }, encoding))
    }
}

/// Reads and decodes an ONNX file.
fn read_proto(path: &Path) -> Result<ModelProto, OnnxError> {
    let bytes = std::fs::read(path).map_err(|reason| OnnxError::Io {
        path: path.to_path_buf(),
        reason,
    })?;
    let proto = tract_onnx::onnx()
        .proto_model_for_read(&mut bytes.as_slice())
        .map_err(|e| OnnxError::NotAModel {
            path: path.to_path_buf(),
            message: format!("not an ONNX model: {e}"),
        })?;
    if proto.graph.is_none() {
        return Err(OnnxError::NotAModel {
            path: path.to_path_buf(),
            message: "not an ONNX model: no graph".into(),
        });
    }
    Ok(proto)
}

/// An exported model ready to run: checked against a variant's board and encoding.
pub struct OnnxModel {
    path: PathBuf,
    info: ModelInfo,
    board: BoardShape,
    plan: Arc<TypedRunnableModel>,
}

impl OnnxModel {
    /// Opens the model at `path` for variant `V`: its metadata must name `V` and this build's
    /// encoding version, and its outputs must have the shapes of `V`'s policy and value.
    pub fn open<V: Rules>(path: &Path) -> Result<Self, OnnxError> {
        let proto = read_proto(path)?;
        let (info, encoding) = ModelInfo::of(&proto, path)?;
        if info.variant != V::NAME {
            return Err(OnnxError::WrongVariant {
                path: path.to_path_buf(),
                found: info.variant,
                expected: V::NAME.to_string(),
            });
        }
        if encoding != ENCODING_VERSION {
            return Err(OnnxError::WrongEncoding {
                path: path.to_path_buf(),
                found: encoding.to_string(),
                expected: ENCODING_VERSION,
            });
        }
        let runtime_error = |e: TractError| OnnxError::Runtime {
            path: path.to_path_buf(),
            message: format!("{e:#}"),
        };
        let plan = tract_onnx::onnx()
            .model_for_proto_model(&proto)
            .and_then(|model| model.into_optimized())
            .and_then(|model| model.into_runnable())
            .map_err(runtime_error)?;
        let model = OnnxModel {
            path: path.to_path_buf(),
            info,
            board: BoardShape::of::<V>(),
            plan,
        };
        model.check_boundary()?;
        Ok(model)
    }

    /// The model's metadata.
    pub fn info(&self) -> &ModelInfo {
        &self.info
    }

    /// Policy logits and win/draw/loss logits for a batch of encoded positions.
    pub fn run(&self, inputs: &[f32], batch: usize) -> Result<(Vec<f32>, Vec<f32>), OnnxError> {
        let runtime_error = |message: String| OnnxError::Runtime {
            path: self.path.clone(),
            message,
        };
        let shape = [batch, INPUT_PLANES, self.board.height, self.board.width];
        let input = Tensor::from_shape(&shape, inputs).map_err(|e| runtime_error(e.to_string()))?;
        let outputs = self
            .plan
            .run(tvec!(input.into_tvalue()))
            .map_err(|e| runtime_error(format!("{e:#}")))?;
        let flat = |index: usize, width: usize, name: &str| -> Result<Vec<f32>, OnnxError> {
            let values = outputs
                .get(index)
                .and_then(|t| t.as_plain_ram()?.as_slice::<f32>().ok())
                .ok_or_else(|| runtime_error(format!("no float output `{name}`")))?;
            if values.len() != batch * width {
                return Err(runtime_error(format!(
                    "output `{name}` has {} values for {batch} positions, expected {width} each",
                    values.len()
                )));
            }
            Ok(values.to_vec())
        };
        Ok((
            flat(0, self.board.policy_len(), POLICY)?,
            flat(1, 3, VALUE)?,
        ))
    }

    /// Checks the graph's input and output names and runs one empty board through it, so a
    /// model for another board fails here rather than in the middle of a game.
    fn check_boundary(&self) -> Result<(), OnnxError> {
        let model = self.plan.model();
        let names = |outlets: &[OutletId]| -> Vec<String> {
            outlets
                .iter()
                .map(|o| model.node(o.node).name.clone())
                .collect()
        };
        let (inputs, outputs) = (
            names(model.input_outlets().unwrap_or(&[])),
            names(model.output_outlets().unwrap_or(&[])),
        );
        if inputs != [INPUT] || outputs.len() != 2 {
            return Err(OnnxError::NotAModel {
                path: self.path.clone(),
                message: format!(
                    "expected input `{INPUT}` and outputs `{POLICY}`, `{VALUE}`; found inputs {inputs:?} and outputs {outputs:?}"
                ),
            });
        }
        self.run(&vec![0.0; self.board.input_len()], 1).map(|_| ())
    }
}

impl Predictor for OnnxModel {
    fn predict(&self, inputs: Vec<f32>, batch: usize) -> Result<Outputs, PredictError> {
        let (policy_logits, value_logits) = self
            .run(&inputs, batch)
            .map_err(|e| PredictError(e.to_string()))?;
        Ok(Outputs {
            policy_logits,
            wdl: value_logits.chunks(3).flat_map(softmax).collect(),
        })
    }
}

/// An exported model as the search's evaluator.
pub type OnnxEvaluator<V> = ModelEvaluator<V, OnnxModel>;
