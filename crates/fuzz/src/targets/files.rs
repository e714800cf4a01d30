//! Targets over files: run and self-play TOML, shard bytes, checkpoint `meta.json` and ONNX
//! models. Files are written under a scratch directory, one name per thread.

use super::{SeedMaker, Target, random_games, seeds_per_variant, split_variant, variant_input};
use crate::mutate::{from_seeds, mutate};
use damas_nn::checkpoint::{CheckpointMeta, read_any_meta, read_meta};
use damas_nn::{BoardShape, NetworkConfig, NetworkSize, PackedPosition};
use damas_onnx::{ModelInfo, OnnxModel, onnx_bytes};
use damas_rules::{Rules, Variant, VariantVisitor};
use damas_selfplay::shard::SHARD_FORMAT;
use damas_selfplay::{Sample, SelfPlayConfig, Shard, ShardHeader};
use damas_train::config::TrainConfig;
use rand::Rng;
use rand::rngs::SmallRng;
use std::path::{Path, PathBuf};

/// A file name under `scratch` for this thread.
fn scratch_file(scratch: &Path, name: &str) -> PathBuf {
    let thread = format!("{:?}", std::thread::current().id());
    let thread: String = thread.chars().filter(char::is_ascii_digit).collect();
    scratch.join(format!("{name}-{thread}"))
}

/// The run configs of `configs/` and the tests' tiny one.
const TRAIN_CONFIGS: &[&str] = &[
    include_str!("../../../../configs/quick.toml"),
    include_str!("../../../../configs/russian.toml"),
    include_str!("../../../../configs/international.toml"),
    include_str!("../../../../configs/english.toml"),
    "name = \"tiny\"\nvariant = \"russian\"\ngenerations = 2\ngames_per_generation = 6\n\
     [network]\nblocks = 1\nchannels = 8\n[selfplay]\nfast_simulations = 4\n\
     full_search_fraction = 0.5\nmax_plies = 80\ngames_per_worker = 2\ngames_per_shard = 2\n\
     [selfplay.search]\nsimulations = 12\n[training]\nbatch_size = 16\nwindow_min = 50\n\
     [evaluation]\nbaseline_games = 2\nprevious_games = 2\nsimulations = 6\n",
];

/// A training run's TOML (`damas train --config`).
pub struct TrainToml {
    seeds: Vec<Vec<u8>>,
}

impl TrainToml {
    /// Seeds: the configs of `configs/` and a tiny one.
    pub fn new() -> Self {
        TrainToml {
            seeds: TRAIN_CONFIGS
                .iter()
                .map(|s| s.as_bytes().to_vec())
                .collect(),
        }
    }
}

impl Default for TrainToml {
    fn default() -> Self {
        Self::new()
    }
}

impl Target for TrainToml {
    fn name(&self) -> &'static str {
        "train-toml"
    }
    fn weight(&self) -> u64 {
        4
    }
    fn generate(&self, rng: &mut SmallRng) -> Vec<u8> {
        let seeds: Vec<&[u8]> = self.seeds.iter().map(Vec::as_slice).collect();
        from_seeds(rng, &seeds)
    }
    fn run(&self, input: &[u8]) -> bool {
        TrainConfig::parse(&String::from_utf8_lossy(input)).is_ok()
    }
}

/// A self-play config's TOML (`damas selfplay --config`).
pub struct SelfPlayToml {
    seeds: Vec<Vec<u8>>,
}

impl SelfPlayToml {
    /// Seeds: the `[selfplay]` tables of the run configs.
    pub fn new() -> Self {
        let seeds = TRAIN_CONFIGS
            .iter()
            .filter_map(|text| {
                let start = text.find("[selfplay]")? + "[selfplay]".len();
                let end = text.find("[training]").unwrap_or(text.len());
                Some(
                    text[start..end]
                        .replace("[selfplay.search]", "[search]")
                        .into_bytes(),
                )
            })
            .collect();
        SelfPlayToml { seeds }
    }
}

impl Default for SelfPlayToml {
    fn default() -> Self {
        Self::new()
    }
}

impl Target for SelfPlayToml {
    fn name(&self) -> &'static str {
        "selfplay-toml"
    }
    fn weight(&self) -> u64 {
        4
    }
    fn generate(&self, rng: &mut SmallRng) -> Vec<u8> {
        let seeds: Vec<&[u8]> = self.seeds.iter().map(Vec::as_slice).collect();
        from_seeds(rng, &seeds)
    }
    fn run(&self, input: &[u8]) -> bool {
        SelfPlayConfig::parse(&String::from_utf8_lossy(input), damas_nn::DeviceChoice::Cpu).is_ok()
    }
}

/// Shard files: real shards of every variant, mutated, most often with the checksum made to
/// match again so that the decoder sees the damage.
pub struct ShardBytes {
    seeds: Vec<Vec<Vec<u8>>>,
    scratch: PathBuf,
}

struct ShardSeeds;
impl SeedMaker for ShardSeeds {
    fn make<V: Rules>(&self) -> Vec<Vec<u8>> {
        let games = random_games::<V>(2, 12, 8);
        let samples = games
            .iter()
            .map(|game| Sample {
                position: PackedPosition::of(game),
                policy: vec![(3, 0.25), (7, 0.75)],
                result: 1,
                search_value: 0.5,
                ply: game.ply() as u16,
                aux: Some(damas_selfplay::AuxTargets {
                    plies_left: 9,
                    material: -2,
                }),
            })
            .collect();
        let shard = Shard {
            header: ShardHeader {
                format: SHARD_FORMAT,
                variant: V::NAME.to_string(),
                encoding_version: damas_nn::ENCODING_VERSION,
                model: "uniform".into(),
                games: 2,
                generation: Some(1),
                plies: 80,
                results: [1, 0, 1],
            },
            samples,
        };
        vec![shard.to_bytes()]
    }
}

impl ShardBytes {
    /// Seeds: a small shard of every variant; files go under `scratch`.
    pub fn new(scratch: &Path) -> Self {
        ShardBytes {
            seeds: seeds_per_variant(&ShardSeeds),
            scratch: scratch.to_path_buf(),
        }
    }
}

struct ReadShard<'a>(&'a Path);
impl VariantVisitor for ReadShard<'_> {
    type Output = bool;
    fn visit<V: Rules>(self) -> bool {
        Shard::read_for::<V>(self.0).is_ok()
    }
}

impl Target for ShardBytes {
    fn name(&self) -> &'static str {
        "shard"
    }
    fn weight(&self) -> u64 {
        10
    }
    fn generate(&self, rng: &mut SmallRng) -> Vec<u8> {
        let v = rng.random_range(0..self.seeds.len());
        let mut bytes = self.seeds[v][0].clone();
        if rng.random_range(0..20) == 0 {
            return crate::mutate::random_bytes(rng, 256);
        }
        let seeds: Vec<&[u8]> = self.seeds.iter().map(|s| s[0].as_slice()).collect();
        if bytes.len() > 12 && rng.random_range(0..10) != 0 {
            let mut body = bytes.split_off(12);
            mutate(rng, &mut body, &seeds);
            if rng.random_range(0..10) != 0 {
                bytes[8..12].copy_from_slice(&crc32fast_hash(&body).to_le_bytes());
            }
            bytes.extend(body);
        } else {
            mutate(rng, &mut bytes, &seeds);
        }
        let mut input = vec![v as u8];
        input.extend(bytes);
        input
    }
    fn run(&self, input: &[u8]) -> bool {
        let (variant, bytes) = split_variant(input);
        let path = scratch_file(&self.scratch, "shard");
        let decoded = Shard::from_bytes(bytes, &path).is_ok();
        // One input in 16 also goes through a file and the variant check.
        if input.len().is_multiple_of(16) && std::fs::write(&path, bytes).is_ok() {
            return variant.visit(ReadShard(&path));
        }
        decoded
    }
}

/// CRC-32 as shards use it (IEEE).
fn crc32fast_hash(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// A checkpoint's `meta.json`, read for the variant the input's first byte names and for any.
pub struct MetaJson {
    seeds: Vec<Vec<Vec<u8>>>,
    scratch: PathBuf,
}

struct MetaSeeds;
impl SeedMaker for MetaSeeds {
    fn make<V: Rules>(&self) -> Vec<Vec<u8>> {
        let config = NetworkConfig::sized(BoardShape::of::<V>(), NetworkSize::DEFAULT);
        let mut meta = CheckpointMeta::new::<V>(config);
        let fresh = serde_json::to_vec_pretty(&meta).expect("meta serialises");
        meta.step = 1200;
        meta.generation = 7;
        meta.metrics.insert("loss".into(), 1.5);
        vec![fresh, serde_json::to_vec(&meta).expect("meta serialises")]
    }
}

impl MetaJson {
    /// Seeds: the metadata of fresh and trained checkpoints of every variant.
    pub fn new(scratch: &Path) -> Self {
        MetaJson {
            seeds: seeds_per_variant(&MetaSeeds),
            scratch: scratch.to_path_buf(),
        }
    }
}

struct ReadMeta<'a>(&'a Path);
impl VariantVisitor for ReadMeta<'_> {
    type Output = bool;
    fn visit<V: Rules>(self) -> bool {
        read_meta::<V>(self.0).is_ok()
    }
}

impl Target for MetaJson {
    fn name(&self) -> &'static str {
        "meta-json"
    }
    fn weight(&self) -> u64 {
        4
    }
    fn generate(&self, rng: &mut SmallRng) -> Vec<u8> {
        variant_input(rng, &self.seeds, true)
    }
    fn run(&self, input: &[u8]) -> bool {
        let (variant, text) = split_variant(input);
        let dir = scratch_file(&self.scratch, "checkpoint");
        if std::fs::create_dir_all(&dir).is_err()
            || std::fs::write(dir.join("meta.json"), text).is_err()
        {
            return false;
        }
        let any = read_any_meta(&dir).is_ok();
        variant.visit(ReadMeta(&dir)) || any
    }
}

/// ONNX files given to `net:`: a tiny exported network, mutated, opened by tract for its
/// variant (slow: milliseconds per input).
pub struct OnnxFile {
    variant: Variant,
    seed: Vec<u8>,
    scratch: PathBuf,
}

struct Export;
impl VariantVisitor for Export {
    type Output = Vec<u8>;
    fn visit<V: Rules>(self) -> Vec<u8> {
        let device = damas_nn::cpu();
        device.seed(1);
        let size = NetworkSize {
            blocks: 1,
            channels: 4,
        };
        let config = NetworkConfig::sized(BoardShape::of::<V>(), size);
        let network = config.init(&device);
        onnx_bytes(&network, &CheckpointMeta::new::<V>(config)).expect("a tiny network exports")
    }
}

impl OnnxFile {
    /// A tiny network of the first variant, exported now (outside any input's time limit);
    /// files go under `scratch`.
    pub fn new(scratch: &Path) -> Self {
        let variant = Variant::ALL[0];
        OnnxFile {
            variant,
            seed: variant.visit(Export),
            scratch: scratch.to_path_buf(),
        }
    }
}

struct OpenOnnx<'a>(&'a Path);
impl VariantVisitor for OpenOnnx<'_> {
    type Output = bool;
    fn visit<V: Rules>(self) -> bool {
        let _ = ModelInfo::read(self.0);
        OnnxModel::open::<V>(self.0).is_ok()
    }
}

impl Target for OnnxFile {
    fn name(&self) -> &'static str {
        "onnx"
    }
    fn weight(&self) -> u64 {
        0
    }
    fn generate(&self, rng: &mut SmallRng) -> Vec<u8> {
        let mut bytes = self.seed.clone();
        if rng.random_range(0..50) == 0 {
            return crate::mutate::random_bytes(rng, 512);
        }
        if rng.random_range(0..50) != 0 {
            mutate(rng, &mut bytes, &[]);
        }
        bytes
    }
    fn run(&self, input: &[u8]) -> bool {
        let path = scratch_file(&self.scratch, "model.onnx");
        std::fs::write(&path, input).is_ok() && self.variant.visit(OpenOnnx(&path))
    }
}
