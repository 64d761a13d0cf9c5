//! The since-marks a binding carries: the releases of its major that declare an item
//! ([`Since`]) and the layout changes of a record between minors ([`LayoutChange`]). Data
//! only: [`crate::availability`] computes them from the ABI snapshots, [`crate::bind`] holds
//! them on its items, `emit` renders them.

use serde::{Deserialize, Serialize};

/// The releases of the major that declare an item.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Since {
    /// The major (`13`).
    pub major: u32,
    /// The first release compared that declares it (`13.4`).
    pub release: String,
    /// `release` is the oldest release compared: the item may be older still, unless that
    /// release is the major's first (`13.0`).
    pub oldest: bool,
    /// Whether the oldest release compared is the major's first (`X.0`).
    pub from_first: bool,
    /// The first release compared after `release` that no longer declares it (NVIDIA removed
    /// it within the major), when the newest release compared lacks it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub removed_in: Option<String>,
}

impl Since {
    /// The rustdoc sentence: `In every CUDA 13.x release.`, `Available since CUDA 13.4.`,
    /// `In CUDA 11.8 and later 11.x releases (11.8 is the oldest release compared).`, each with
    /// ` Removed in CUDA 13.5.` where that applies.
    pub fn sentence(&self) -> String {
        let mut s = match (self.oldest, self.from_first) {
            (true, true) => format!("In every CUDA {}.x release.", self.major),
            (true, false) => format!(
                "In CUDA {r} and later {m}.x releases ({r} is the oldest {m}.x release whose headers were compared).",
                r = self.release,
                m = self.major
            ),
            (false, _) => format!("Available since CUDA {}.", self.release),
        };
        if let Some(r) = &self.removed_in {
            s.push_str(&format!(" Removed in CUDA {r}."));
        }
        s
    }

    /// Whether the item is newer than the major's first release compared (its mark says
    /// `Available since …`).
    pub fn is_newer(&self) -> bool {
        !self.oldest
    }

    /// The runtime version (`1000 * major + 10 * minor`) a loaded runtime must have for the
    /// item, or 0 when every runtime of the major has it (or nothing older was compared).
    pub fn runtime_version(&self) -> i32 {
        if self.oldest {
            return 0;
        }
        encode(&self.release)
    }
}

/// `13.4` → 13040, as `cudaRuntimeGetVersion` reports it (0 for a text that is no release;
/// `i32::MAX` for one too large for it).
pub fn encode(release: &str) -> i32 {
    let mut parts = release.split('.').map(|p| p.parse::<u32>().ok());
    match (parts.next().flatten(), parts.next().flatten()) {
        (Some(major), minor) => {
            let v = major
                .saturating_mul(1000)
                .saturating_add(minor.unwrap_or(0).saturating_mul(10));
            i32::try_from(v).unwrap_or(i32::MAX)
        }
        _ => 0,
    }
}

/// A change of a record's size, alignment or field offsets between two minors of the major.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LayoutChange {
    /// The release it changed in (compared with the one before it).
    pub release: String,
    /// What changed, as the release diff states it (`size 56 bytes → 64 bytes`, `field
    /// `ctx` added: cudaExecutionContext_t ctx (offset 56)`).
    pub what: Vec<String>,
}

impl LayoutChange {
    /// `CUDA 13.1: size 56 bytes → 64 bytes; field `ctx` added: ….`
    pub fn sentence(&self) -> String {
        format!("CUDA {}: {}.", self.release, self.what.join("; "))
    }
}
