//! The body: a model posed — the normalized rig, poses, IK, hands, the gaze aimed, node
//! constraints and springs evaluated, framing a camera, a still's pixels. A new IK solver
//! goes here. Uses `model` and `files`.

pub mod framing;
pub mod gaze;
pub mod hand;
pub mod ik;
pub mod look;
pub mod math;
pub mod nodes;
pub mod pose;
pub mod rig;
pub mod smoothing;
pub mod springs;
pub mod still;
