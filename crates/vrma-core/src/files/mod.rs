//! The file layer: glTF binaries as bytes and JSON (GLB chunks, buffers, accessors, decode budgets).
//! Uses only the crate's ground: `Refusal`, bounded reads, atomic writes, JSON numbers.

pub mod accessors;
pub mod budget;
pub mod glb;
pub mod gltf_buffer;
