//! The model: a VRM as its file describes it (bones, nodes, expressions, MToon, gaze, springs,
//! constraints), the renderer's copy, the generated avatars. Uses `files`.

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
