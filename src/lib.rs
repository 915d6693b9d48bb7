//! VRMA Maker: pose VRM avatars, lay poses out as keyframes, export VRM Animation.
//!
//! [`core`] is pure (no ECS) and holds every rule; [`cli`] and [`app`] are thin layers
//! over it. See ARCHITECTURE.md for the map.

pub mod app;
pub mod cli;
pub mod core;
