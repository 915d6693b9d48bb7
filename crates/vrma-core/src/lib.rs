//! The pure core: no ECS, no window, no Bevy. glam math (the same glam as `bevy::math`), tested directly and fuzzed on its own.

pub mod accessors;
pub mod budget;
pub mod display;
pub mod edit;
pub mod export;
pub mod expressions;
pub mod framing;
pub mod glb;
pub mod gltf_buffer;
pub mod handle;
pub mod history;
pub mod humanoid;
pub mod ik;
pub mod library;
pub mod mannequin;
pub mod math;
pub mod pose;
pub mod prefs;
pub mod project;
pub mod recovery;
pub mod rig;
pub mod test_avatar;
pub mod timeline;
pub mod vr;
pub mod vrm;
pub mod vrma;

use std::fmt;
use std::path::Path;

/// A file, value or edit was refused (a corrupt file, a NaN, an edit with nothing to act
/// on); the message says which field and what was wrong, and nothing was changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal(pub String);

impl Refusal {
    pub fn new(message: impl Into<String>) -> Refusal {
        Refusal(message.into())
    }

    /// Prefixes the message with where it came from (a file path, a step).
    pub fn context(self, what: impl fmt::Display) -> Refusal {
        Refusal(format!("{what}: {}", self.0))
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Refusal {}

/// Reads and parses a VRM file into its normalized rig.
pub fn load_rig(path: &Path) -> Result<rig::Rig, Refusal> {
    let bytes = std::fs::read(path)
        .map_err(|e| Refusal::new(format!("cannot read {}: {e}", path.display())))?;
    rig_from_bytes(&bytes).map_err(|e| e.context(path.display()))
}

/// Reads a JSON file with a message naming the file.
pub fn read_json(path: &Path) -> Result<serde_json::Value, Refusal> {
    let bytes = std::fs::read(path)
        .map_err(|e| Refusal::new(format!("cannot read {}: {e}", path.display())))?;
    serde_json::from_slice(&bytes)
        .map_err(|e| Refusal::new(format!("{}: invalid JSON: {e}", path.display())))
}

/// Parses VRM bytes into the normalized rig.
pub fn rig_from_bytes(bytes: &[u8]) -> Result<rig::Rig, Refusal> {
    rig::Rig::new(vrm::Model::from_bytes(bytes)?)
}

/// A JSON number that reads back as exactly the same `f32` (its shortest decimal form),
/// so saving and loading loses nothing.
pub fn num(x: f32) -> serde_json::Value {
    if !x.is_finite() {
        return serde_json::Value::Null;
    }
    serde_json::from_str(&x.to_string()).unwrap_or(serde_json::Value::Null)
}

/// Rounds to 7 decimals (for JSON output: stable, small, far below any tolerance).
pub fn round7(x: f32) -> f64 {
    (x as f64 * 1e7).round() / 1e7
}

/// Writes a file atomically: a temporary file beside it, then a rename, so a crash
/// never leaves a half-written file.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.tmp-{}", std::process::id()));
    let result = (|| {
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)?;
        // The rename itself must reach the disk too, or a power cut could undo it.
        if let Ok(folder) = std::fs::File::open(dir) {
            let _ = folder.sync_all();
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn num_reads_back_the_same_f32(x in proptest::num::f32::NORMAL | proptest::num::f32::ZERO) {
            let text = num(x).to_string();
            let back: serde_json::Value = serde_json::from_str(&text).unwrap();
            prop_assert_eq!(back.as_f64().unwrap() as f32, x, "{}", text);
        }
    }
}
