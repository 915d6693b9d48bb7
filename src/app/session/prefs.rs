//! The user's remembered settings in the window app ([`Preferences`] in the core): read
//! before the window opens, applied to the shared state at start, and written back a
//! moment after anything in them changes and at exit. Stills and tests built without a
//! window never read or write them.

use std::path::PathBuf;
use std::time::Duration;

use bevy::prelude::*;
use bevy::window::PrimaryWindow;

use super::{
    Banner, FileSettings, KeepAwake, MarkersVisible, OnionSkin, PasteMask, StillView, Windows,
};
use crate::core::body::framing::CameraPreset;
use crate::core::body::pose::BodyMask;
use crate::core::prefs::Preferences;

/// How long settings wait after a change before they are written (a panel being
/// dragged changes them every frame).
const SAVE_DELAY: Duration = Duration::from_millis(600);

#[derive(Resource, Debug)]
pub struct Prefs {
    pub values: Preferences,
    path: PathBuf,
    /// Why the file on disk was not used, shown once the window is up.
    load_warning: Option<String>,
    /// Since when a change waits to be written.
    unsaved_since: Option<Duration>,
    written: Preferences,
}

impl Prefs {
    /// Reads the user's settings file (the defaults when there is none).
    pub fn load() -> Prefs {
        let path = crate::core::prefs::default_path();
        let (values, load_warning) = Preferences::load(&path);
        Prefs {
            written: values.clone(),
            values,
            path,
            load_warning,
            unsaved_since: None,
        }
    }
}

pub fn prefs_plugin(app: &mut App) {
    app.add_systems(PreStartup, apply_remembered)
        .add_systems(Last, (remember_shared_state, save_when_changed).chain());
}

fn still_view_name(view: StillView) -> &'static str {
    match view {
        StillView::Preset(CameraPreset::Front) => "front",
        StillView::Preset(CameraPreset::Side) => "side",
        StillView::Preset(CameraPreset::ThreeQuarter) => "three-quarter",
        // Not offered in the window: remembered as the default.
        StillView::CurrentCamera | StillView::Fixed(_) => "current",
    }
}

fn still_view_named(name: &str) -> StillView {
    match name {
        "side" => StillView::Preset(CameraPreset::Side),
        "three-quarter" => StillView::Preset(CameraPreset::ThreeQuarter),
        "current" => StillView::CurrentCamera,
        _ => StillView::Preset(CameraPreset::Front),
    }
}

fn apply_remembered(
    mut prefs: ResMut<Prefs>,
    mut files: ResMut<FileSettings>,
    mut markers: ResMut<MarkersVisible>,
    mut windows: ResMut<Windows>,
    mut banner: ResMut<Banner>,
    (mut onion, mut paste_mask): (ResMut<OnionSkin>, ResMut<PasteMask>),
) {
    let p = &prefs.values;
    files.import_rate = p.import_rate;
    files.png.size = UVec2::new(p.png_size.0, p.png_size.1);
    files.png.view = still_view_named(&p.png_view);
    files.png.background = p.png_background;
    markers.0 = p.markers_visible;
    windows.library = p.library_open;
    onion.on = p.onion_skin;
    onion.frames = p.onion_frames;
    paste_mask.0 = BodyMask::from_name(&p.paste_onto).unwrap_or_default();
    if let Some(warning) = prefs.load_warning.take() {
        banner.notice = Some(warning);
    }
}

/// Copies what the shared state says into the settings, touching them only on a change.
fn remember_shared_state(
    mut prefs: ResMut<Prefs>,
    files: Res<FileSettings>,
    markers: Res<MarkersVisible>,
    windows: Res<Windows>,
    window: Option<Single<&Window, With<PrimaryWindow>>>,
    (onion, paste_mask): (Res<OnionSkin>, Res<PasteMask>),
) {
    let mut next = prefs.values.clone();
    next.import_rate = files.import_rate;
    next.png_size = (files.png.size.x, files.png.size.y);
    next.png_view = still_view_name(files.png.view).to_string();
    next.png_background = files.png.background;
    next.markers_visible = markers.0;
    next.library_open = windows.library;
    next.onion_skin = onion.on;
    next.onion_frames = onion.frames;
    next.paste_onto = paste_mask.0.name().to_string();
    if let Some(window) = window {
        let (w, h) = (
            window.resolution.physical_width(),
            window.resolution.physical_height(),
        );
        // A minimised window reports a zero size: keep the last real one.
        if w >= 120 && h >= 120 {
            next.window_size = Some((w, h));
        }
    }
    if next != prefs.values {
        prefs.values = next;
    }
}

/// Writes the settings a moment after they last changed, and at exit.
fn save_when_changed(
    time: Res<Time<Real>>,
    mut prefs: ResMut<Prefs>,
    mut exits: MessageReader<AppExit>,
    mut awake: ResMut<KeepAwake>,
) {
    let exiting = exits.read().count() > 0;
    if prefs.values == prefs.written {
        if prefs.unsaved_since.is_some() {
            prefs.bypass_change_detection().unsaved_since = None;
        }
        return;
    }
    let now = time.elapsed();
    let changed = prefs.is_changed();
    let p = prefs.bypass_change_detection();
    if changed || p.unsaved_since.is_none() {
        p.unsaved_since = Some(now);
    }
    let since = p.unsaved_since.unwrap_or(now);
    if !exiting && now.saturating_sub(since) < SAVE_DELAY {
        awake.now(); // come back to write them
        return;
    }
    if let Err(e) = p.values.save(&p.path) {
        // Settings are a convenience: the log says so, the next change tries again,
        // the user is not interrupted mid-work.
        warn!("cannot write settings to {}: {e}", p.path.display());
    }
    p.written = p.values.clone();
    p.unsaved_since = None;
}
