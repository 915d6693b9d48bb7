//! The editor window as feature folders on one foundation. [`session`] holds the one
//! core [`crate::core::animation::edit::Editor`] and the messages features talk through; each
//! feature folder is one plugin and imports no other feature (ARCHITECTURE.md, checked
//! by `tests/it/layout.rs`). The app is assembled here only: the window, the headless
//! app tests drive, and the windowless still renderer differ in the plugins they add.

pub mod avatar;
pub mod dev;
pub mod files;
pub mod graphics;
pub mod library;
pub mod render;
pub mod session;
pub mod timeline;
pub mod ui;
pub mod viewport;
pub mod vr;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use bevy::app::ScheduleRunnerPlugin;
use bevy::prelude::*;
use bevy::render::RenderPlugin;
use bevy::window::{ExitCondition, WindowResolution};
use bevy::winit::WinitPlugin;
use bevy_egui::EguiPlugin;

use crate::core::body::framing::StillCamera;
use crate::core::body::pose::Pose;
pub use session::Launch;
use session::{StillRequest, StillView};

/// Opens the editor window. Returns when the window closes.
pub fn run(launch: Launch) -> ExitCode {
    #[cfg(all(unix, not(target_vendor = "apple")))]
    if std::env::var_os("DISPLAY").is_none() {
        eprintln!(
            "error: no X11 display (DISPLAY is not set). The editor window needs X11; \
             the command-line tools (vrma-maker --help) work without one."
        );
        return ExitCode::from(1);
    }
    // SAFETY: the window's app starts on the main thread before any other thread.
    if let Err(no_device) = unsafe { graphics::use_first_working_backend() } {
        // The message box speaks the window's language (build_app sets it otherwise:
        // the settings are read once on the way that opens the window).
        session::language::set_current(window_language(&session::Prefs::load()));
        graphics::tell_in_a_message_box(&no_device.line(), &no_device.for_the_user());
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

/// The foundation, the avatar and the launch options every kind of app starts from.
/// The `mem://` asset source must exist before Bevy's asset plugin, so this comes first.
fn begin(launch: Launch) -> (App, avatar::MemoryAssets) {
    let mut app = App::new();
    let memory = avatar::register_memory_source(&mut app);
    app.insert_resource(launch);
    (app, avatar::MemoryAssets(memory))
}

fn add_editor(app: &mut App, memory: avatar::MemoryAssets) {
    app.insert_resource(memory);
    app.add_plugins((session::plugin, avatar::plugin));
}

/// The editor window (also used by tests that drive it).
pub fn build_app(launch: Launch) -> App {
    let (mut app, memory) = begin(launch);
    // An ECS command or system error is logged, never a crash: e.g. leaving VR despawns
    // the headset cameras while the renderer may still have commands queued for them.
    app.set_error_handler(bevy::ecs::error::warn);
    // The window opens at the size it last had.
    let prefs = session::Prefs::load();
    // The language: View ▸ Language's, else the system's (only the window speaks it).
    session::language::set_current(window_language(&prefs));
    let (width, height) = prefs.values.window_size.unwrap_or((1280, 800));
    app.insert_resource(prefs);
    let plugins = DefaultPlugins
        .set(WindowPlugin {
            primary_window: Some(Window {
                title: "VRMA Maker".into(),
                resolution: WindowResolution::new(width, height),
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
    // Draw on demand: input, a feature's `KeepAwake`, playback or a drag bring the next
    // frame; an idle editor wakes only every few seconds (for timers).
    let idle = session::IDLE_WAKE;
    app.insert_resource(bevy::winit::WinitSettings {
        focused_mode: bevy::winit::UpdateMode::reactive(idle),
        unfocused_mode: bevy::winit::UpdateMode::reactive_low_power(idle),
    });
    app.add_plugins(EguiPlugin::default());
    add_editor(&mut app, memory);
    avatar::materials_plugin(&mut app);
    app.add_plugins((
        session::ui_plugin,
        session::prefs_plugin,
        session::fonts_plugin,
        viewport::plugin,
        ui::plugin,
        timeline::plugin,
        library::plugin,
        files::plugin,
        files::window_plugin,
        render::plugin,
        render::thumbnails_plugin,
        render::onion_plugin,
        render::report_in_window,
        vr::plugin,
        dev::plugin,
    ));
    app
}

/// The language the window speaks: View ▸ Language's, else the system's.
fn window_language(prefs: &session::Prefs) -> session::Language {
    prefs
        .values
        .language
        .as_deref()
        .and_then(session::Language::from_tag)
        .unwrap_or_else(session::Language::of_system)
}

/// The app without a window or GPU: Bevy's asset, glTF, mesh, image and transform
/// plugins with the foundation, the avatar and files. Tests and benchmarks drive the
/// real loading and edit path through it.
pub fn build_headless(launch: Launch) -> App {
    let (mut app, memory) = begin(launch);
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
    add_editor(&mut app, memory);
    app.add_plugins(files::plugin);
    app.finish();
    app.cleanup();
    app
}

/// Renders one still without a window (`vrma-maker render-png`): the model file, a pose
/// (or the rest pose), the size, the camera, the background (transparent when `None`)
/// and the PNG to write.
pub fn render_still(
    model: PathBuf,
    pose: Option<Pose>,
    size: UVec2,
    camera: StillCamera,
    background: Option<[u8; 3]>,
    eyes: crate::core::body::look::StillEyes,
    output: PathBuf,
) -> Result<(), String> {
    let mut app = windowless_renderer(model)?;
    let outcome = render::StillOutcome::default();
    let request = StillRequest {
        size,
        view: StillView::Fixed(camera),
        background,
        output,
        at: None,
        eyes,
    };
    render::one_still_plugin(&mut app, pose, request, outcome.clone());
    run_to_outcome(app, &outcome)
}

/// Renders one film without a window (`vrma-maker render-anim`): the model file, the
/// film, its camera, its size and format settings, and the output; progress on stderr.
pub fn render_film(
    model: PathBuf,
    film: crate::core::animation::film::Film,
    camera: StillCamera,
    settings: crate::media::FilmSettings,
    output: PathBuf,
) -> Result<(), String> {
    let request = session::FilmRequest {
        film,
        camera,
        settings,
        output,
        progress: session::Progress::default(),
        cancel: Default::default(),
        log_progress: true,
    };
    let mut app = windowless_renderer(model)?;
    let outcome = render::StillOutcome::default();
    render::one_film_plugin(&mut app, request, outcome.clone());
    run_to_outcome(app, &outcome)
}

/// The app that renders stills and films without a window: the foundation, the
/// avatar, MToon and the renderer on the first graphics backend that gives a device.
fn windowless_renderer(model: PathBuf) -> Result<App, String> {
    let wgpu_settings = graphics::settings_on_first_working_backend()?;
    install_friendly_panic_hook();
    let (mut app, memory) = begin(Launch {
        file: Some(model),
        ..default()
    });
    app.add_plugins((
        DefaultPlugins
            .set(WindowPlugin {
                primary_window: None,
                exit_condition: ExitCondition::DontExit,
                ..default()
            })
            .set(RenderPlugin {
                render_creation: wgpu_settings.into(),
                synchronous_pipeline_compilation: true,
                ..default()
            })
            .set(bevy::log::LogPlugin {
                // The CLI reports failures itself, in one line.
                filter: "off".into(),
                ..default()
            })
            .disable::<WinitPlugin>(),
        ScheduleRunnerPlugin::run_loop(Duration::from_millis(2)),
    ));
    add_editor(&mut app, memory);
    avatar::materials_plugin(&mut app);
    app.add_plugins(render::plugin);
    Ok(app)
}

/// Runs a windowless renderer to its end and reads what it left in `outcome`.
fn run_to_outcome(mut app: App, outcome: &render::StillOutcome) -> Result<(), String> {
    let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| app.run()));
    // The process ends right after this. Tearing the renderer down after the GPU
    // refused a model sometimes crashed in the Vulkan driver (lavapipe, under load),
    // turning a clear refusal into a segfault; the OS frees it all at exit instead.
    std::mem::forget(app);
    if ran.is_err() {
        return Err("rendering failed (see the message above)".into());
    }
    let result = outcome.lock().ok().and_then(|mut o| o.take());
    match result {
        Some(Ok(_)) => Ok(()),
        Some(Err(e)) => Err(e),
        None => Err("the model could not be shown".into()),
    }
}

/// Bevy panics when there is no Vulkan driver or no display; say what to install instead.
fn install_friendly_panic_hook() {
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let msg = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        if msg.contains("Unable to find a GPU")
            || msg.contains("adapter")
            || msg.contains("RequestDeviceError")
        {
            eprintln!(
                "error: the graphics device could not be started ({msg}). {}.",
                graphics::what_to_do()
            );
        } else if msg.contains("event loop") {
            eprintln!("error: cannot open a window on this display ({msg})");
        } else {
            default_hook(info);
        }
    }));
}
