//! The integration tests, as one crate (one link of the app): the real binary through
//! its CLI, the app's plugins headless, the real window under Xvfb with real input, and
//! interop with the real players. Tests that need only the core live in
//! `crates/vrma-core/tests`.

mod app_headless;
mod bevy_loader;
mod cli;
mod common;
mod fk_matches_bevy;
mod hands_gaze;
mod import_clip;
mod interop_three_vrm;
mod kill_saves;
mod layout;
mod library_window;
mod malformed_corpus;
mod motion_capture;
mod motion_fbx_ascii;
mod motion_gltf;
mod motion_real;
mod motion_vmd;
mod mtoon;
mod png;
mod pose_photo;
mod pose_video;
mod posing_cli;
mod posing_three_vrm;
mod real_avatars;
mod recovery_window;
mod render_anim;
mod springs;
mod three_reference;
mod timeline_cli;
mod timeline_walk;
mod vr;
mod vrma_interop;
mod vrma_roundtrip;
mod webcam;
mod window;
mod window_language;
mod window_mouse;
mod window_timeline;
mod windows;
