//! BVH motion capture (Biovision Hierarchy): the skeleton with its offsets and channels,
//! and the frames. Reading is bounded and refuses hostile files in one line; retargeting
//! onto a rig comes with the import (issue 42).

pub mod read;
