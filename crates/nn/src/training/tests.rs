//! The CPU trainer against burn's autodiff and optimisers on the same network and batch.

use super::*;
use crate::network::tests::train_norm;
use crate::network::{AUX_OUTPUTS, NetworkConfig, NetworkSize};
use burn::optim::{GradientsParams, ModuleOptimizer};
use burn::tensor::Bytes;

/// A deterministic stream of numbers in [0, 1).
struct Numbers(u64);

impl Numbers {
    fn next(&mut self) -> f32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }
}

/// A batch: sparse 0/1 inputs, normalised policy and result targets, auxiliary targets on
/// some positions only.
struct Batch {
    inputs: Vec<f32>,
    policy: Vec<f32>,
    wdl: Vec<f32>,
    aux: Vec<f32>,
    aux_mask: Vec<f32>,
}

impl Batch {
    fn new(board: BoardShape, n: usize, seed: u64) -> Self {
        let mut r = Numbers(seed);
        let inputs = (0..n * board.input_len())
            .map(|_| (r.next() < 0.3) as u8 as f32)
            .collect();
        let mut policy = vec![0.0; n * board.policy_len()];
        for row in policy.chunks_mut(board.policy_len()) {
            // A handful of moves with visits, as a search leaves them.
            for _ in 0..5 {
                let i = (r.next() * board.policy_len() as f32) as usize;
                row[i] += r.next() + 0.1;
            }
            let sum: f32 = row.iter().sum();
            row.iter_mut().for_each(|p| *p /= sum);
        }
        let mut wdl = vec![0.0; n * 3];
        for row in wdl.chunks_mut(3) {
            let a = r.next();
            let b = r.next() * (1.0 - a);
            row.copy_from_slice(&[a, b, 1.0 - a - b]);
        }
        let aux = (0..n * AUX_OUTPUTS).map(|_| r.next() * 2.0 - 1.0).collect();
        let aux_mask = (0..n).map(|i| (i % 3 != 0) as u8 as f32).collect();
        Batch {
            inputs,
            policy,
            wdl,
            aux,
            aux_mask,
        }
    }

    fn targets(&self) -> Targets<'_> {
        Targets {
            policy: &self.policy,
            wdl: &self.wdl,
            aux: &self.aux,
            aux_mask: &self.aux_mask,
        }
    }

    fn input_tensor(&self, board: BoardShape, device: &Device) -> Tensor<4> {
        let n = self.aux_mask.len();
        let dims = [n, INPUT_PLANES, board.height, board.width];
        Tensor::from_data(TensorData::new(self.inputs.clone(), dims), device)
    }
}

/// A small network with batch norms that are not the identity, on `device`.
fn network(board: BoardShape, device: &Device) -> Network {
    let config = NetworkConfig::sized(
        board,
        NetworkSize {
            blocks: 2,
            channels: 8,
        },
    );
    device.seed(7);
    let mut network = config.init(device);
    for (salt, block) in network.conv_blocks_mut().into_iter().enumerate() {
        train_norm(block, salt * 4, device);
    }
    network
}

const BOARDS: [BoardShape; 2] = [
    BoardShape {
        height: 8,
        width: 8,
        squares: 32,
    },
    // Not square, so that rows and columns cannot be swapped unnoticed.
    BoardShape {
        height: 6,
        width: 10,
        squares: 30,
    },
];

const ADAM: OptimizerRule = OptimizerRule::Adam {
    beta_1: 0.9,
    beta_2: 0.999,
    epsilon: 1e-8,
};

/// The largest difference between `a` and `b` relative to the largest value of `b`.
fn relative_error(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    let scale = b.iter().fold(1e-12f32, |m, v| m.max(v.abs()));
    a.iter()
        .zip(b)
        .fold(0.0f32, |m, (x, y)| m.max((x - y).abs()))
        / scale
}

#[test]
fn gradients_equal_burns_autodiff() {
    let weights = [
        LossWeights {
            value: 1.0,
            material: 0.0,
            moves_left: 0.0,
        },
        LossWeights {
            value: 0.7,
            material: 0.5,
            moves_left: 0.25,
        },
    ];
    for board in BOARDS {
        for weights in weights {
            let device = Device::flex().autodiff();
            let net = network(board, &device);
            let batch = Batch::new(board, 7, 11);
            let cpu = CpuTrainer::new(&net, board, ADAM, None).unwrap();
            let (report, gradients) = cpu.gradients(&batch.inputs, &batch.targets(), &weights);
            let (loss, expected) = burn_loss(
                &net,
                batch.input_tensor(board, &device),
                &batch.targets(),
                &weights,
            );
            let grads = GradientsParams::from_grads(loss.backward(), &net);
            for (a, b) in [
                (report.policy_loss, expected.policy_loss),
                (report.value_loss, expected.value_loss),
                (report.policy_entropy, expected.policy_entropy),
                (report.aux_losses[0], expected.aux_losses[0]),
                (report.aux_losses[1], expected.aux_losses[1]),
            ] {
                assert!((a - b).abs() < 1e-4 * b.abs().max(1.0), "loss {a} vs {b}");
            }
            assert!(relative_error(&report.wdl_log_probs, &expected.wdl_log_probs) < 1e-4);
            for (i, slot) in cpu.layout.slots.iter().enumerate() {
                let burn: Option<Vec<f32>> = match slot.shape.len() {
                    1 => grads
                        .get::<1>(slot.id)
                        .map(|t| t.try_into_vec_as().unwrap()),
                    2 => grads
                        .get::<2>(slot.id)
                        .map(|t| t.try_into_vec_as().unwrap()),
                    _ => grads
                        .get::<4>(slot.id)
                        .map(|t| t.try_into_vec_as().unwrap()),
                };
                assert_eq!(
                    burn.is_some(),
                    gradients.trained[i],
                    "slot {i} {:?}: which parameters get a gradient",
                    slot.shape
                );
                if let Some(burn) = burn {
                    let error = relative_error(slot.of(&gradients.values), &burn);
                    assert!(
                        error < 1e-4,
                        "{}x{} {weights:?}: slot {i} {:?} off by {error}",
                        board.height,
                        board.width,
                        slot.shape
                    );
                }
            }
        }
    }
}

#[test]
fn steps_and_optimiser_state_equal_burns() {
    let board = BOARDS[0];
    let sgd = OptimizerRule::Sgd {
        momentum: 0.9,
        dampening: 0.0,
        nesterov: true,
    };
    let weights = LossWeights {
        value: 1.0,
        material: 0.5,
        moves_left: 0.0,
    };
    for rule in [ADAM, sgd] {
        let device = Device::flex().autodiff();
        let mut net = network(board, &device);
        let mut cpu = CpuTrainer::new(&net, board, rule, Some(1e-3)).unwrap();
        let mut optimizer = rule.burn_optimizer(Some(1e-3));
        let step_burn = |net: Network, optimizer: &mut ModuleOptimizer, seed: u64| {
            let batch = Batch::new(board, 6, seed);
            let input = batch.input_tensor(board, &device);
            let (loss, _) = burn_loss(&net, input, &batch.targets(), &weights);
            let grads = GradientsParams::from_grads(loss.backward(), &net);
            optimizer.step(0.01, net, grads)
        };
        let step_cpu = |cpu: &mut CpuTrainer, seed: u64| {
            let batch = Batch::new(board, 6, seed);
            cpu.step(&batch.inputs, &batch.targets(), &weights, 0.01);
        };
        // Adam's step is the gradient's sign where the gradient is far below its running
        // scale, so a gradient at rounding level (a product summed in another order) can move
        // a weight by the whole learning rate the other way: a few weights in the policy
        // layer do. Its values are compared looser than SGD's.
        let tolerance = match rule {
            OptimizerRule::Adam { .. } => 2e-3,
            OptimizerRule::Sgd { .. } => 1e-4,
        };
        let compare = |cpu: &CpuTrainer, net: &Network, what: &str| {
            // burn's network read into the same layout: the slots name the same values.
            let (_, values, statistics) = params::read(net).unwrap();
            for slot in &cpu.layout.slots {
                let error = relative_error(slot.of(&cpu.values), slot.of(&values));
                assert!(
                    error < tolerance,
                    "{rule:?} {what}: {:?} off by {error}",
                    slot.shape
                );
            }
            assert!(
                relative_error(&cpu.statistics, &statistics) < 1e-4,
                "{what}: statistics"
            );
        };
        for seed in 0..3 {
            net = step_burn(net, &mut optimizer, seed);
            step_cpu(&mut cpu, seed);
        }
        compare(&cpu, &net, "three steps");

        // The CPU trainer's state read by burn, and burn's by the CPU trainer: both go on
        // as if nothing had happened.
        let mut handed_to_burn = rule
            .burn_optimizer(Some(1e-3))
            .from_bytes(Bytes::from_bytes_vec(cpu.optimizer_state()))
            .unwrap();
        let mut handed_to_cpu = CpuTrainer::new(&net, board, rule, Some(1e-3)).unwrap();
        handed_to_cpu
            .load_optimizer_state(optimizer.into_bytes().unwrap().to_vec())
            .unwrap();
        let exported = cpu.network(&device);
        let net_b = step_burn(exported, &mut handed_to_burn, 3);
        step_cpu(&mut handed_to_cpu, 3);
        net = step_burn(net, &mut optimizer, 3);
        step_cpu(&mut cpu, 3);
        compare(&cpu, &net, "a fourth step");
        compare(
            &handed_to_cpu,
            &net,
            "a fourth step after burn's state was loaded",
        );
        compare(
            &cpu,
            &net_b,
            "a fourth step by burn from the CPU trainer's state",
        );
    }
}

#[test]
fn a_foreign_optimiser_state_is_refused() {
    let board = BOARDS[0];
    let device = Device::flex();
    let mut cpu = CpuTrainer::new(&network(board, &device), board, ADAM, None).unwrap();
    let error = cpu
        .load_optimizer_state(b"not a burnpack".to_vec())
        .unwrap_err();
    assert!(matches!(error, StateError::Format(_)), "{error}");
    // A state of another network shape.
    let other = NetworkConfig::sized(
        board,
        NetworkSize {
            blocks: 2,
            channels: 4,
        },
    );
    let mut small = CpuTrainer::new(&other.init(&device), board, ADAM, None).unwrap();
    let batch = Batch::new(board, 4, 1);
    let weights = LossWeights {
        value: 1.0,
        material: 0.0,
        moves_left: 0.0,
    };
    small.step(&batch.inputs, &batch.targets(), &weights, 0.01);
    let error = cpu
        .load_optimizer_state(small.optimizer_state())
        .unwrap_err();
    assert!(matches!(error, StateError::Foreign(_)), "{error}");
}
