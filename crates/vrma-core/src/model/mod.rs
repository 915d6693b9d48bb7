//! The model: a VRM as its file describes it — humanoid bones, nodes, expressions, MToon,
//! and the gaze, spring and constraint set-ups as data — plus the renderer's copy and the
//! generated avatars (the mannequin, the VRoid-scale test avatar). Uses `files`.

pub mod constraint;
pub mod display;
pub mod expressions;
pub mod gltf;
pub mod humanoid;
pub mod look_at;
pub mod mannequin;
pub mod mtoon;
pub mod spring;
pub mod test_avatar;
pub mod vrm;
