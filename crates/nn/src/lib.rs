//! The neural network side of Damas Zero: how positions and moves are encoded, the burn ResNet,
//! its evaluator for the search, and checkpoints on disk.
//!
//! - [`encoding`]: input planes and policy indices (the documented, versioned contract).
//! - [`network`]: the residual tower with policy and value heads.
//! - [`evaluator`]: [`Predictor`] (a network in any runtime) and [`ModelEvaluator`], a
//!   predictor behind [`damas_mcts::Evaluator`].
//! - [`inference`]: [`CpuNetwork`], the inference pass on the CPU without burn (batch norm
//!   folded, one matrix product per convolution), which self-play and matches use there.
//! - [`training`]: [`CpuTrainer`], the training step on the CPU without burn (forward and
//!   backward by hand, Adam or SGD over flat buffers), the same maths as burn's autodiff.
//! - [`checkpoint`]: reading and writing checkpoint directories.
//! - [`export`]: safetensors files with the encoding contract in their metadata.
//! - [`device`]: [`DeviceChoice`], where networks run (`cpu`, `wgpu`, `cuda:N`).
//!
//! The CPU backend is burn's `flex`; `cuda` and `wgpu` are opt-in features.

pub mod checkpoint;
pub mod device;
pub mod encoding;
pub mod evaluator;
pub mod export;
pub mod inference;
mod kernels;
pub mod network;
pub mod training;

pub use burn::tensor::Device;
pub use checkpoint::{
    CheckpointError, CheckpointMeta, checkpoint_dir, list_checkpoints, load_network, read_any_meta,
    read_meta, save_checkpoint, write_atomically,
};
pub use device::{DeviceChoice, DeviceError};
pub use encoding::{BoardShape, ENCODING_VERSION, INPUT_PLANES, PackedPosition, policy_index};
pub use evaluator::{
    BurnModel, ModelEvaluator, NetEvaluator, NetModel, Outputs, PredictError, Predictor,
    encode_leaves, evaluations,
};
pub use inference::CpuNetwork;
pub use kernels::measured_peak_gflops;
pub use network::{
    AUX_MATERIAL, AUX_OUTPUTS, AUX_PLIES_LEFT, Network, NetworkConfig, NetworkSize, Output,
};
pub use training::{CpuTrainer, LossWeights, OptimizerRule, StepReport, Targets};

/// The CPU device (burn's `flex` backend), for inference.
pub fn cpu() -> Device {
    Device::flex()
}

/// Sizes the global rayon pool that burn's CPU kernels run on (once per process; later calls
/// keep the first size). Returns the pool's size.
pub fn set_inference_threads(threads: usize) -> usize {
    let _ = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .build_global();
    rayon::current_num_threads()
}
