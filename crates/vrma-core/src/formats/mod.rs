//! Formats: one folder per animation format (`vrma`, `bvh`; `motion` is what every
//! skeleton-based import shares: names, retargeting, keys) and the one table of exports (`table`); a new
//! import or export format is a folder here. Uses `animation`, `body`, `model`, `files`.

pub mod bvh;
pub mod fbx;
pub mod gltf_anim;
pub mod imported;
pub mod motion;
pub mod table;
pub mod vmd;
pub mod vrma;
