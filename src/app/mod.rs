//! The editor window: one Bevy plugin per concern, talking to the core through
//! [`session::Session`] (the one [`crate::core::edit::Editor`]) and the
//! [`session::EditRequest`] message — the same edit path the CLI uses.

pub mod autosave;
pub mod close_guard;
pub mod files;
pub mod key_thumbnails;
pub mod library_panel;
pub mod markers;
pub mod model;
pub mod panels;
pub mod posing;
pub mod screenshot;
pub mod session;
pub mod shortcuts;
pub mod still;
pub mod timeline_panel;
pub mod viewport;
pub mod vr;
pub mod vrma_files;

use std::path::PathBuf;
use std::process::ExitCode;

use bevy::prelude::*;
use bevy::window::WindowResolution;
use bevy_egui::EguiPlugin;

/// What the window was started with.
#[derive(Resource, Clone, Debug, Default)]
pub struct Launch {
    /// A model to open instead of the mannequin.
    pub file: Option<PathBuf>,
    /// Testing: save a screenshot of the window here once the model shows, then exit.
    pub screenshot: Option<PathBuf>,
    /// Testing: quit after this many seconds.
    pub exit_after: Option<f32>,
    /// Testing: save the project as it stands at exit here.
    pub save_on_exit: Option<PathBuf>,
    /// Testing: the bone selected at start.
    pub select: Option<String>,
    /// Testing: export a PNG through the window's path once the model shows.
    pub export_png: Option<PathBuf>,
    /// Testing: save the pose to the library once the model shows.
    pub library_save: Option<String>,
    /// Start playing once the model shows.
    pub play: bool,
    /// Testing: accept the recovery offer at once.
    pub recover: bool,
    /// Start in VR (`--vr`).
    pub vr: bool,
    /// One Euro filter settings for hand tracking (`--one-euro`).
    pub one_euro: Option<crate::core::vr::OneEuroParams>,
}

/// Opens the editor window. Returns when the window closes.
pub fn run(launch: Launch) -> ExitCode {
    if std::env::var_os("DISPLAY").is_none() {
        eprintln!(
            "error: no X11 display (DISPLAY is not set). The editor window needs X11; \
             the command-line tools (vrma-maker --help) work without one."
        );
        return ExitCode::from(1);
    }
    install_friendly_panic_hook();
    let result = std::panic::catch_unwind(move || build_app(launch).run());
    match result {
        Ok(AppExit::Success) => ExitCode::SUCCESS,
        Ok(AppExit::Error(code)) => ExitCode::from(code.get()),
        Err(_) => ExitCode::from(1),
    }
}

/// Builds the application (also used by tests that drive it).
pub fn build_app(launch: Launch) -> App {
    let mut app = App::new();
    // An ECS command or system error is logged, never a crash: e.g. leaving VR despawns
    // the headset cameras while the renderer may still have commands queued for them.
    app.set_error_handler(bevy::ecs::error::warn);
    let memory = model::register_memory_source(&mut app);
    let plugins = DefaultPlugins
        .set(WindowPlugin {
            primary_window: Some(Window {
                title: "VRMA Maker".into(),
                resolution: WindowResolution::new(1280, 800),
                ..default()
            }),
            // The close guard asks about unsaved changes first.
            close_when_requested: false,
            ..default()
        })
        .set(bevy::log::LogPlugin {
            filter: "wgpu=error,naga=warn,bevy_render=warn".into(),
            ..default()
        });
    vr::add_default_plugins(&mut app, plugins);
    app.add_plugins(EguiPlugin::default());
    app.insert_resource(model::MemoryAssets(memory));
    app.insert_resource(launch);
    app.add_plugins((
        session::plugin,
        model::plugin,
        viewport::plugin,
        markers::plugin,
        panels::plugin,
        files::plugin,
        screenshot::plugin,
    ));
    app.add_plugins((
        timeline_panel::plugin,
        shortcuts::plugin,
        close_guard::plugin,
        vrma_files::plugin,
        posing::plugin,
        still::plugin,
        library_panel::plugin,
        key_thumbnails::plugin,
        autosave::plugin,
        vr::plugin,
    ));
    app.add_systems(Update, (still::report_stills, session::play_at_start));
    app
}

/// The app without a window or GPU: Bevy's asset, glTF, mesh, image and transform
/// plugins with the session, model, files, close-guard and VRMA plugins. Tests and
/// benchmarks drive the real loading and edit path through it.
pub fn build_headless(launch: Launch) -> App {
    let mut app = App::new();
    let memory = model::register_memory_source(&mut app);
    app.add_plugins((
        MinimalPlugins,
        AssetPlugin::default(),
        bevy::world_serialization::WorldSerializationPlugin,
        bevy::mesh::MeshPlugin,
        bevy::image::ImagePlugin::default(),
        bevy::animation::AnimationPlugin,
        bevy::gltf::GltfPlugin::default(),
        bevy::transform::TransformPlugin,
    ));
    app.add_message::<FileDragAndDrop>();
    app.add_message::<bevy::window::WindowCloseRequested>();
    app.insert_resource(model::MemoryAssets(memory));
    app.insert_resource(launch);
    app.add_plugins((
        session::plugin,
        model::plugin,
        files::plugin,
        close_guard::plugin,
        vrma_files::plugin,
    ));
    app.finish();
    app.cleanup();
    app
}

/// Bevy panics when there is no Vulkan driver or no display; say what to install instead.
pub(crate) fn install_friendly_panic_hook() {
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let msg = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        if msg.contains("Unable to find a GPU") || msg.contains("adapter") {
            eprintln!(
                "error: no Vulkan driver found. Install one (Debian/Ubuntu: sudo apt-get install \
                 mesa-vulkan-drivers libvulkan1) and start again."
            );
        } else if msg.contains("event loop") {
            eprintln!("error: cannot open a window on this display ({msg})");
        } else {
            default_hook(info);
        }
    }));
}
