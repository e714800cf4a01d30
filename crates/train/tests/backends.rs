//! The `wgpu` backend against `flex` (CPU): the same network must give the same outputs and
//! the same training losses on both, and weights saved on one must load on the other. Built
//! only with `--features wgpu` and run by `scripts/check-gpu-backends.sh` on Mesa's lavapipe
//! (a Vulkan device on the CPU), which runs the shaders a GPU runs.

use damas_mcts::StaticEvaluator;
use damas_nn::{
    BoardShape, BurnModel, CheckpointMeta, Device, DeviceChoice, Network, NetworkConfig,
    NetworkSize, Outputs, Predictor, encoding::encode, load_network,
};
use damas_rules::variants::{Canadian, International, Russian};
use damas_rules::{Game, Rules};
use damas_selfplay::{GameRecord, Sample, SelfPlayConfig, play_games};
use damas_train::Trainer;
use damas_train::config::TrainingSection;
use std::path::PathBuf;

const SIZE: NetworkSize = NetworkSize {
    blocks: 2,
    channels: 32,
};

fn wgpu() -> Device {
    DeviceChoice::Wgpu
        .open()
        .expect("a wgpu adapter (lavapipe: apt-get install mesa-vulkan-drivers)")
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("damas-backends-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `count` varied positions of `V`, encoded.
fn inputs<V: Rules>(count: usize) -> Vec<f32> {
    let shape = BoardShape::of::<V>();
    let mut inputs = vec![0.0; count * shape.input_len()];
    for (i, chunk) in inputs.chunks_mut(shape.input_len()).enumerate() {
        let mut game = Game::<V>::new();
        game.play_random(i as u64, 4 + (i % 24) as u32);
        encode(&game, chunk);
    }
    inputs
}

fn predict<V: Rules>(network: &Network, device: &Device, inputs: &[f32], count: usize) -> Outputs {
    BurnModel::new(network, BoardShape::of::<V>(), device)
        .predict(inputs.to_vec(), count)
        .unwrap()
}

/// The largest difference between two output sets.
fn max_difference(a: &Outputs, b: &Outputs) -> f32 {
    assert_eq!(a.policy_logits.len(), b.policy_logits.len());
    assert_eq!(a.wdl.len(), b.wdl.len());
    a.policy_logits
        .iter()
        .zip(&b.policy_logits)
        .chain(a.wdl.iter().zip(&b.wdl))
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

fn outputs_agree<V: Rules>() {
    let flex = Device::flex();
    flex.seed(7);
    let network = NetworkConfig::sized(BoardShape::of::<V>(), SIZE).init(&flex);
    let count = 32;
    let inputs = inputs::<V>(count);
    let on_cpu = predict::<V>(&network, &flex, &inputs, count);
    let on_gpu = predict::<V>(&network, &wgpu(), &inputs, count);
    let difference = max_difference(&on_cpu, &on_gpu);
    println!(
        "{}: largest output difference wgpu vs flex {difference:.2e}",
        V::NAME
    );
    assert!(difference < 1e-4, "{}: {difference}", V::NAME);
}

#[test]
fn outputs_agree_on_three_board_sizes() {
    outputs_agree::<Russian>();
    outputs_agree::<International>();
    outputs_agree::<Canadian>();
}

fn samples() -> Vec<Sample> {
    let mut config = SelfPlayConfig::default();
    config.search.simulations = 8;
    let mut records: Vec<GameRecord> = Vec::new();
    play_games::<Russian, _>(
        &config,
        &StaticEvaluator::<Russian>::default(),
        8,
        0,
        "backends",
        &[],
        None,
        |r| records.push(r),
    );
    records.into_iter().flat_map(|r| r.samples).collect()
}

#[test]
fn training_steps_match_and_weights_move_between_devices() {
    let dir = temp_dir("train");
    let config = NetworkConfig::sized(BoardShape::of::<Russian>(), SIZE);
    let meta = CheckpointMeta::new::<Russian>(config.clone());
    let training = TrainingSection::default();
    let start = dir.join("start");
    Trainer::<Russian>::new(&config, &training, 3, &Device::flex())
        .save(&start, &meta, vec![])
        .unwrap();
    let samples = samples();
    assert!(samples.len() >= 64, "{} samples", samples.len());
    let batches: Vec<Vec<&Sample>> = (0..20)
        .map(|step| {
            (0..64)
                .map(|i| &samples[(step * 37 + i * 11) % samples.len()])
                .collect()
        })
        .collect();
    let losses = |device: &Device| {
        let (mut trainer, _) = Trainer::<Russian>::resume(&start, &training, device).unwrap();
        let losses: Vec<(f64, f64)> = batches
            .iter()
            .map(|batch| {
                let m = trainer.train_step(batch);
                (m.policy_loss, m.value_loss)
            })
            .collect();
        (trainer, losses)
    };
    let (_, on_cpu) = losses(&Device::flex());
    let (trained_on_gpu, on_gpu) = losses(&wgpu());
    let mut worst: f64 = 0.0;
    for (step, (cpu, gpu)) in on_cpu.iter().zip(&on_gpu).enumerate() {
        let difference = (cpu.0 - gpu.0).abs().max((cpu.1 - gpu.1).abs());
        worst = worst.max(difference);
        assert!(difference < 1e-3, "step {step}: flex {cpu:?}, wgpu {gpu:?}");
    }
    println!(
        "20 training steps: losses flex {:?} .. {:?}, wgpu {:?} .. {:?}, largest difference {worst:.2e}",
        on_cpu[0], on_cpu[19], on_gpu[0], on_gpu[19]
    );

    // Saved on wgpu, loaded on flex: the same network.
    let saved = dir.join("trained-on-wgpu");
    trained_on_gpu.save(&saved, &meta, vec![]).unwrap();
    let (on_flex, _) = load_network::<Russian>(&saved, &Device::flex()).unwrap();
    let count = 16;
    let inputs = inputs::<Russian>(count);
    let gpu_outputs = predict::<Russian>(trained_on_gpu.network(), &wgpu(), &inputs, count);
    let cpu_outputs = predict::<Russian>(&on_flex, &Device::flex(), &inputs, count);
    let difference = max_difference(&gpu_outputs, &cpu_outputs);
    println!(
        "checkpoint written on wgpu, read on flex: largest output difference {difference:.2e}"
    );
    assert!(difference < 1e-4, "{difference}");
    let _ = std::fs::remove_dir_all(&dir);
}
