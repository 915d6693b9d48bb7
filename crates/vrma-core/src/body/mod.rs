//! The body: a model posed (rig, pose, IK, joint limits, aiming the head, hands, gaze, constraints and
//! springs, framing, stills); a new IK solver goes here. Uses `model` and `files`.

pub mod aim;
pub mod follow;
pub mod framing;
pub mod gaze;
pub mod hand;
pub mod ik;
pub mod limits;
pub mod look;
pub mod math;
pub mod nodes;
pub mod pose;
pub mod rig;
pub mod smoothing;
pub mod springs;
pub mod still;
