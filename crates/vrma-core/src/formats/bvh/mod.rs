//! BVH motion capture (Biovision Hierarchy): reading the skeleton and frames (`read`),
//! importing them as a motion source (`import`), and writing a rig's motion (`export`).

pub mod import;
pub mod read;
pub mod write;
