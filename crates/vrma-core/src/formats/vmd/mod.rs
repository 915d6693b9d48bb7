//! VMD (MikuMikuDance motion): the reader of its published layout (`read`), the
//! standard MMD skeleton its keys are played on (`skeleton`), and the motion source with
//! the leg IK solved and the face morphs as expressions (`import`).

pub mod import;
pub mod read;
pub mod skeleton;
