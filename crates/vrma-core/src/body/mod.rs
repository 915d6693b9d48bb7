//! The body: a model posed (rig, pose, IK, hands, gaze, constraints and springs, framing, stills);
//! a new IK solver goes here. Uses `model` and `files`.

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
