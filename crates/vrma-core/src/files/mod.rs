//! The file layer: glTF binaries as bytes and JSON — GLB chunks, buffers, views and
//! accessors read and written with bounds checks, and what a file will cost to decode.
//! Uses only the crate's ground (`Refusal`, bounded reads, atomic writes, JSON numbers).

pub mod accessors;
pub mod budget;
pub mod glb;
pub mod gltf_buffer;
