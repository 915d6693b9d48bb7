//! VRMA Maker: pose VRM avatars, lay poses out as keyframes, export VRM Animation.
//!
//! [`core`] is pure (no ECS) and holds every rule; [`cli`] and [`app`] are thin layers
//! over it. See ARCHITECTURE.md for the map.

pub mod app;
pub mod cli;
/// The pure core lives in its own crate (`crates/vrma-core`) so it builds, tests and fuzzes
/// without Bevy; `vrma_maker::core` is the same crate.
pub use vrma_core as core;
/// Moving pictures out (animated WebP, APNG, GIF, H.264 MP4, PNG sequences) live in
/// their own crate (`crates/vrma-media`): the codecs' C libraries stay out of the core.
pub use vrma_media as media;
/// Pose from a picture (MediaPipe's models on tract) lives in its own crate
/// (`crates/vrma-vision`): the inference engine stays out of the core.
pub use vrma_vision as vision;
