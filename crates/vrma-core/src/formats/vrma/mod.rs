//! VRM Animation (`.vrma`): export from the timeline (SPEC §7) and import of VRMA files
//! and humanoid glTF clips as editable keys (SPEC §11).

pub mod export;
pub mod extras;
pub mod import;
pub mod reduce;

/// The glTF extension that marks a VRM Animation.
pub const EXTENSION: &str = "VRMC_vrm_animation";
