//! What any import hands back, whatever the format: the keys, how long they run, and —
//! for motion from another skeleton — which joint drove which bone. The formats and the
//! motion path all return it; it sits below them so none needs another for its type.

use crate::animation::timeline::Timeline;
use crate::model::humanoid::Bone;

/// The result of an import.
#[derive(Clone, Debug)]
pub struct Imported {
    pub timeline: Timeline,
    pub duration: f32,
    /// Keyframe times in the source (all channels).
    pub source_times: usize,
    /// The frame rate our own export was made at, when the keys came back from its
    /// extras (not baked).
    pub fps: Option<f32>,
    pub warnings: Vec<String>,
    /// Which source joint drives which bone, for imports from another skeleton.
    pub mapping: Option<MappingReport>,
}

/// What mapped and what did not, for the user to read.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MappingReport {
    /// Bone name → joint name.
    pub mapped: Vec<(String, String)>,
    /// Source joints that drive no bone.
    pub unused: Vec<String>,
    /// The rig's bones that no joint drives (they keep their rest).
    pub missing: Vec<String>,
    /// Every joint of the source, in the file's order.
    pub joints: Vec<String>,
    /// The file's takes (FBX animation stacks), where it has several to choose from.
    pub clips: Vec<String>,
    /// The source's length in seconds and frames per second.
    pub source_seconds: f32,
    pub source_fps: f32,
}

impl MappingReport {
    /// One line on the bones that keep their rest ("the fingers" when none came), or
    /// `None` when every bone that matters moves. The jaw is rarely in motion capture.
    pub fn missing_summary(&self) -> Option<String> {
        let is_finger = |name: &str| Bone::from_name(name).is_some_and(Bone::is_finger);
        let fingers = self.missing.iter().filter(|n| is_finger(n)).count();
        let mut named: Vec<&str> = self
            .missing
            .iter()
            .filter(|n| !is_finger(n) && n.as_str() != "jaw")
            .map(String::as_str)
            .collect();
        if fingers == 30 {
            named.push("the fingers");
        } else if fingers > 0 {
            named.extend(
                self.missing
                    .iter()
                    .filter(|n| is_finger(n))
                    .map(String::as_str),
            );
        }
        (!named.is_empty())
            .then(|| format!("not in the source, so kept at rest: {}", named.join(", ")))
    }
}
