//! Where networks run: the one device choice every command and the training loop take.
//!
//! `cpu` is burn's `flex` backend and the only one in the default build. `wgpu` (Vulkan, Metal,
//! DirectX or a software Vulkan such as Mesa's lavapipe) and `cuda` are compiled in by the
//! `wgpu` and `cuda` features. Asking for a backend the build lacks, or for a device the
//! machine lacks, is an error when the device is opened, never a silent fall-back to the CPU.

use burn::tensor::Device;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

/// A device for networks, as written in configs and on the command line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum DeviceChoice {
    /// burn's `flex` CPU backend (the default).
    #[default]
    Cpu,
    /// The best adapter burn's `wgpu` backend finds (a GPU, else a software Vulkan device).
    Wgpu,
    /// The CUDA device with this index.
    Cuda(usize),
}

/// Why a device cannot be used.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum DeviceError {
    /// The text names no device.
    #[error("`{text}` is not a device (expected cpu, wgpu, cuda or cuda:N)")]
    Unknown {
        /// What was given.
        text: String,
    },
    /// The backend is not compiled into this build.
    #[error(
        "device `{device}` is not in this build: rebuild with `--features {feature}` \
         (for example `cargo build --release -p damas-cli --features {feature}`)"
    )]
    NotCompiled {
        /// The device asked for.
        device: DeviceChoice,
        /// The cargo feature that adds it.
        feature: &'static str,
    },
    /// The backend is compiled in but the machine has no such device.
    #[error("device `{device}` is not available on this machine: {reason}")]
    Unavailable {
        /// The device asked for.
        device: DeviceChoice,
        /// What was found instead.
        reason: String,
    },
}

impl DeviceChoice {
    /// The backends compiled into this build, as they are written.
    pub fn compiled() -> Vec<&'static str> {
        let mut names = vec!["cpu"];
        if cfg!(feature = "wgpu") {
            names.push("wgpu");
        }
        if cfg!(feature = "cuda") {
            names.push("cuda");
        }
        names
    }

    /// Whether this is an accelerator (self-play then defaults to larger batches).
    pub fn is_accelerator(self) -> bool {
        self != DeviceChoice::Cpu
    }

    /// The burn device, checked to exist: the backend is compiled in and the machine has it.
    pub fn open(self) -> Result<Device, DeviceError> {
        match self {
            DeviceChoice::Cpu => Ok(Device::flex()),
            DeviceChoice::Wgpu => open_wgpu(self),
            DeviceChoice::Cuda(index) => open_cuda(self, index),
        }
    }
}

#[cfg(feature = "wgpu")]
fn open_wgpu(choice: DeviceChoice) -> Result<Device, DeviceError> {
    use burn::tensor::{DeviceKind, DeviceType};
    if Device::enumerate(DeviceType::Wgpu)
        .into_iter()
        .next()
        .is_none()
    {
        return Err(DeviceError::Unavailable {
            device: choice,
            reason: "wgpu finds no adapter (no GPU driver, and no software Vulkan such as \
                     Debian's mesa-vulkan-drivers)"
                .into(),
        });
    }
    Ok(Device::wgpu(DeviceKind::DefaultDevice))
}

#[cfg(not(feature = "wgpu"))]
fn open_wgpu(choice: DeviceChoice) -> Result<Device, DeviceError> {
    Err(DeviceError::NotCompiled {
        device: choice,
        feature: "wgpu",
    })
}

#[cfg(feature = "cuda")]
fn open_cuda(choice: DeviceChoice, index: usize) -> Result<Device, DeviceError> {
    use burn::tensor::DeviceType;
    let found = Device::enumerate(DeviceType::Cuda).into_iter().count();
    if index >= found {
        return Err(DeviceError::Unavailable {
            device: choice,
            reason: format!("CUDA reports {found} device(s)"),
        });
    }
    Ok(Device::cuda(index))
}

#[cfg(not(feature = "cuda"))]
fn open_cuda(choice: DeviceChoice, _index: usize) -> Result<Device, DeviceError> {
    Err(DeviceError::NotCompiled {
        device: choice,
        feature: "cuda",
    })
}

impl fmt::Display for DeviceChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DeviceChoice::Cpu => f.write_str("cpu"),
            DeviceChoice::Wgpu => f.write_str("wgpu"),
            DeviceChoice::Cuda(0) => f.write_str("cuda"),
            DeviceChoice::Cuda(index) => write!(f, "cuda:{index}"),
        }
    }
}

impl FromStr for DeviceChoice {
    type Err = DeviceError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let unknown = || DeviceError::Unknown { text: text.into() };
        match text.trim().to_ascii_lowercase().as_str() {
            "cpu" | "flex" => Ok(DeviceChoice::Cpu),
            "wgpu" | "gpu" | "vulkan" => Ok(DeviceChoice::Wgpu),
            "cuda" => Ok(DeviceChoice::Cuda(0)),
            other => match other.strip_prefix("cuda:") {
                Some(index) => index.parse().map(DeviceChoice::Cuda).map_err(|_| unknown()),
                None => Err(unknown()),
            },
        }
    }
}

impl Serialize for DeviceChoice {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for DeviceChoice {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_names_round_trip_and_bad_ones_are_named() {
        for (text, choice) in [
            ("cpu", DeviceChoice::Cpu),
            ("wgpu", DeviceChoice::Wgpu),
            ("cuda", DeviceChoice::Cuda(0)),
            ("cuda:3", DeviceChoice::Cuda(3)),
        ] {
            assert_eq!(text.parse::<DeviceChoice>(), Ok(choice));
            assert_eq!(choice.to_string(), text);
        }
        let error = "cuda:x".parse::<DeviceChoice>().unwrap_err();
        assert!(error.to_string().contains("`cuda:x` is not a device"));
        assert!("tpu".parse::<DeviceChoice>().is_err());
    }

    #[test]
    fn the_cpu_opens_and_missing_backends_say_which_feature_adds_them() {
        assert!(DeviceChoice::Cpu.open().is_ok());
        if !cfg!(feature = "cuda") {
            let error = DeviceChoice::Cuda(1).open().unwrap_err();
            assert_eq!(
                error,
                DeviceError::NotCompiled {
                    device: DeviceChoice::Cuda(1),
                    feature: "cuda"
                }
            );
            assert!(error.to_string().contains("--features cuda"));
        }
        if !cfg!(feature = "wgpu") {
            assert!(matches!(
                DeviceChoice::Wgpu.open(),
                Err(DeviceError::NotCompiled {
                    feature: "wgpu",
                    ..
                })
            ));
        }
    }
}
