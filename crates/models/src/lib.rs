//! Trained models on disk, opened for a variant: the one place where "a checkpoint directory or
//! an exported ONNX file" becomes an evaluator. Every command that runs a network, and the
//! training loop, open models here, so a network plays the same way wherever it is used.
//!
//! - [`ModelSource`]: what a command names (a path, or a stand-in evaluator).
//! - [`Model`]: an opened model: its evaluator, its predictor, the search it was trained with.
//! - [`inspect`]: what a model makes of one position (`damas model eval`).
//! - [`files`]: new checkpoints and exported files (`damas model init`, `damas export`).

pub mod files;
pub mod inspect;

use damas_mcts::{Evaluator, SearchConfig, StaticEvaluator, UniformEvaluator};
use damas_nn::{
    BoardShape, CheckpointError, Device, ModelEvaluator, NetModel, Predictor, checkpoint_dir,
    list_checkpoints, load_network, read_any_meta,
};
use damas_onnx::{ModelInfo, OnnxError, OnnxModel};
use damas_rules::{Rules, Variant};
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;

/// Why a model could not be opened or used.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    /// A checkpoint directory that does not load.
    #[error("cannot load model `{path}`")]
    Checkpoint {
        /// The directory.
        path: PathBuf,
        /// What is wrong with it.
        #[source]
        source: CheckpointError,
    },
    /// An ONNX file that does not load.
    #[error("cannot load model `{path}`")]
    Onnx {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        #[source]
        source: OnnxError,
    },
    /// The model names a variant this program does not know.
    #[error("{path}: unknown variant `{name}`")]
    UnknownVariant {
        /// The model.
        path: PathBuf,
        /// The name it gives.
        name: String,
    },
    /// The model's stored search settings do not read.
    #[error("{path}: its search settings (`damas.search`) do not read: {message}")]
    Search {
        /// The model.
        path: PathBuf,
        /// The parser's message.
        message: String,
    },
    /// A path that holds no model.
    #[error("{path} is not a model: {reason}")]
    NotAModel {
        /// The path given.
        path: PathBuf,
        /// What it is instead, and what to give.
        reason: &'static str,
    },
    /// A stand-in evaluator was given where a network is needed.
    #[error("`{0}` is not a network: give a checkpoint directory or an ONNX file")]
    NotANetwork(String),
}

/// A model as a command line names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModelSource {
    /// `none`: the alpha-beta engine's hand-made evaluation as a stand-in network.
    StaticEval,
    /// `uniform`: equal priors and a value of 0.
    Uniform,
    /// A checkpoint directory or an exported ONNX file.
    File(PathBuf),
}

impl FromStr for ModelSource {
    type Err = std::convert::Infallible;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Ok(match text {
            "none" => ModelSource::StaticEval,
            "uniform" => ModelSource::Uniform,
            path => ModelSource::File(PathBuf::from(path)),
        })
    }
}

impl fmt::Display for ModelSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ModelSource::StaticEval => write!(f, "none"),
            ModelSource::Uniform => write!(f, "uniform"),
            ModelSource::File(path) => write!(f, "{}", path.display()),
        }
    }
}

/// How a model is run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModelKind {
    /// A checkpoint directory, run by burn.
    Checkpoint,
    /// An exported ONNX file, run by tract.
    Onnx,
    /// A stand-in evaluator, not a network.
    StandIn,
}

/// A model opened for variant `V`.
pub struct Model<V: Rules> {
    evaluator: Arc<dyn Evaluator<V>>,
    predictor: Option<Arc<dyn Predictor>>,
    name: String,
    kind: ModelKind,
    step: Option<u64>,
    search: Option<SearchConfig>,
}

impl<V: Rules> Model<V> {
    /// Opens what `source` names for `V`; networks in checkpoints run on `device`.
    pub fn open(source: &ModelSource, device: &Device) -> Result<Self, ModelError> {
        let stand_in = |evaluator: Arc<dyn Evaluator<V>>, name: &str| Model {
            evaluator,
            predictor: None,
            name: name.to_string(),
            kind: ModelKind::StandIn,
            step: None,
            search: None,
        };
        match source {
            ModelSource::StaticEval => Ok(stand_in(
                Arc::new(StaticEvaluator::<V>::default()),
                "static-eval",
            )),
            ModelSource::Uniform => Ok(stand_in(Arc::new(UniformEvaluator), "uniform")),
            ModelSource::File(path) => Self::open_path(path, device),
        }
    }

    /// Opens a checkpoint directory (on `device`), the newest checkpoint of a run directory,
    /// or else an ONNX file, for `V` (see [`locate`]).
    pub fn open_path(path: &Path, device: &Device) -> Result<Self, ModelError> {
        let path = &locate(path)?;
        if path.is_dir() {
            let checkpoint = |source| ModelError::Checkpoint {
                path: path.to_path_buf(),
                source,
            };
            let (network, meta) = load_network::<V>(path, device).map_err(checkpoint)?;
            let predictor = Arc::new(NetModel::new(&network, BoardShape::of::<V>(), device));
            Ok(Self::network(
                predictor,
                format!("{} (step {})", path.display(), meta.step),
                ModelKind::Checkpoint,
                Some(meta.step),
                meta.search,
            ))
        } else {
            let model = OnnxModel::open::<V>(path).map_err(|source| ModelError::Onnx {
                path: path.to_path_buf(),
                source,
            })?;
            let metadata = &model.info().metadata;
            let step = metadata.get("step").and_then(|s| s.parse().ok());
            let search = metadata
                .get("search")
                .map(|text| serde_json::from_str::<SearchConfig>(text))
                .transpose()
                .map_err(|e| ModelError::Search {
                    path: path.to_path_buf(),
                    message: e.to_string(),
                })?;
            let step_name = step.map_or("?".to_string(), |s: u64| s.to_string());
            Ok(Self::network(
                Arc::new(model),
                format!("{} (onnx, step {step_name})", path.display()),
                ModelKind::Onnx,
                step,
                search,
            ))
        }
    }

    fn network(
        predictor: Arc<dyn Predictor>,
        name: String,
        kind: ModelKind,
        step: Option<u64>,
        search: Option<SearchConfig>,
    ) -> Self {
        Model {
            evaluator: Arc::new(ModelEvaluator::<V, _>::wrap(predictor.clone())),
            predictor: Some(predictor),
            name,
            kind,
            step,
            search,
        }
    }

    /// The model as the search's evaluator (shareable between threads).
    pub fn evaluator(&self) -> Arc<dyn Evaluator<V>> {
        Arc::clone(&self.evaluator)
    }

    /// The network itself, for running encoded positions; an error for stand-ins.
    pub fn predictor(&self) -> Result<&dyn Predictor, ModelError> {
        self.predictor
            .as_deref()
            .ok_or_else(|| ModelError::NotANetwork(self.name.clone()))
    }

    /// The name it goes by in game records: the path and training step, or the stand-in's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// How it is run.
    pub fn kind(&self) -> ModelKind {
        self.kind
    }

    /// The training step it was saved at, if known.
    pub fn step(&self) -> Option<u64> {
        self.step
    }

    /// The search it was evaluated with in training, if it carries one.
    pub fn trained_search(&self) -> Option<&SearchConfig> {
        self.search.as_ref()
    }

    /// The search it plays with unless told otherwise: its own, else the default search.
    pub fn search(&self) -> SearchConfig {
        self.search.clone().unwrap_or_default()
    }
}

/// The model behind a path a user gave: a checkpoint directory as it is; a run directory (or
/// its `checkpoints/`) as its newest checkpoint; a file as it is, unless it is a safetensors
/// export, which holds weights for other engines' code and is refused with what to give.
pub fn locate(path: &Path) -> Result<PathBuf, ModelError> {
    let not_a_model = |reason| ModelError::NotAModel {
        path: path.to_path_buf(),
        reason,
    };
    if path.is_dir() {
        if path.join("meta.json").exists() {
            return Ok(path.to_path_buf());
        }
        for dir in [path.join("checkpoints"), path.to_path_buf()] {
            let numbers = list_checkpoints(&dir).map_err(|source| ModelError::Checkpoint {
                path: dir.clone(),
                source,
            })?;
            if let Some(&newest) = numbers.last() {
                return Ok(checkpoint_dir(&dir, newest));
            }
        }
        return Err(not_a_model(
            "a directory with no meta.json (a checkpoint) and no numbered checkpoints \
             (a run's checkpoints/NNNNNN/)",
        ));
    }
    let mut head = [0u8; 9];
    let read = std::fs::File::open(path).and_then(|mut file| {
        use std::io::Read;
        file.read_exact(&mut head)
    });
    match read {
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            Err(not_a_model("no such file or directory"))
        }
        // A safetensors file starts with its header's length (8 bytes) and the JSON header.
        Ok(()) if head[8] == b'{' => Err(not_a_model(
            "a safetensors export holds only weights, for other engines' own code; give its \
             checkpoint directory or an ONNX export (damas export --format onnx)",
        )),
        // Short or unreadable files are left to the ONNX reader, whose error names them.
        _ => Ok(path.to_path_buf()),
    }
}

/// The variant a model was made for: from a checkpoint's `meta.json` or an ONNX file's metadata.
pub fn model_variant(path: &Path) -> Result<Variant, ModelError> {
    let path = &locate(path)?;
    let name = if path.is_dir() {
        read_any_meta(path)
            .map_err(|source| ModelError::Checkpoint {
                path: path.to_path_buf(),
                source,
            })?
            .variant
    } else {
        ModelInfo::read(path)
            .map_err(|source| ModelError::Onnx {
                path: path.to_path_buf(),
                source,
            })?
            .variant
    };
    name.parse::<Variant>()
        .map_err(|_| ModelError::UnknownVariant {
            path: path.to_path_buf(),
            name,
        })
}
