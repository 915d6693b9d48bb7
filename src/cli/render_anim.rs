//! `vrma-maker render-anim --model M --project P -o OUT [--size WxH] [--fps N]
//! [--camera front|side|three-quarter | --camera-json FILE] [--background
//! transparent|#rrggbb] [--from T --to T] [--loop N]`: the project's animation as a
//! moving picture, no window. The format follows OUT: `.webp` (animated, alpha),
//! `.png` (APNG, alpha), `.gif`, `.mp4` (H.264) or a folder ending in `/` (numbered
//! PNGs). Progress goes to stderr; the JSON says what was written.

use std::path::Path;

use serde_json::{Value, json};

use crate::core::Refusal;
use crate::core::animation::film::{Film, default_end, frame_times};
use crate::core::body::framing::{STILL_FOV_DEGREES, StillCamera};
use crate::core::body::look::StillEyes;
use crate::media::{FilmFormat, FilmSettings};

/// How the film is framed and shown.
pub struct FilmView<'a> {
    pub size: &'a str,
    pub fps: Option<u32>,
    pub preset: &'a str,
    pub camera_json: Option<&'a Path>,
    pub background: &'a str,
    pub from: Option<f32>,
    pub to: Option<f32>,
    pub loop_count: u32,
}

pub fn run(model: &Path, project: &Path, output: &Path, view: FilmView) -> Result<Value, Refusal> {
    // Everything is validated before any rendering starts.
    let format = FilmFormat::of_path(output)?;
    let size = super::render_png::parse_size(view.size)?;
    let (preset, fixed, background) =
        super::render_png::parse_view(view.preset, view.camera_json, view.background)?;
    let editor = super::open_editor(model, Some(project))?;
    let fps = view
        .fps
        .unwrap_or_else(|| editor.settings.fps.round().max(1.0) as u32);
    let end = default_end(&editor.timeline, editor.settings.length);
    let (from, to) = (view.from.unwrap_or(0.0), view.to.unwrap_or(end));
    let times = frame_times(from, to, fps).map_err(|e| e.context("--from/--to/--fps"))?;
    let settings = FilmSettings {
        width: size.x,
        height: size.y,
        fps,
        frames: times.len(),
        loop_count: view.loop_count,
        background,
    };
    crate::media::check_output(output, &settings)?;
    let mut film = Film::new(
        editor.rig.clone(),
        editor.timeline.clone(),
        editor.pose.clone(),
        times,
        bevy::math::Vec3::ZERO,
        StillEyes::Camera,
        crate::core::body::springs::SETTLE_SECONDS,
    );
    // One camera for the whole film: a preset frames every frame's figure.
    let camera = fixed.unwrap_or_else(|| {
        StillCamera::framing_all(
            &editor.rig,
            &film.poses(),
            preset,
            STILL_FOV_DEGREES,
            size.x as f32 / size.y as f32,
        )
    });
    film.look_from(camera.position);
    let frames = film.len();
    crate::app::render_film(
        model.to_path_buf(),
        film,
        camera,
        settings,
        output.to_path_buf(),
    )
    .map_err(Refusal::new)?;
    let (width, height) = match format {
        FilmFormat::Mp4 => crate::media::even_size(size.x, size.y),
        _ => (size.x, size.y),
    };
    Ok(json!({
        "output": output.display().to_string(),
        "format": format!("{format:?}"),
        "width": width,
        "height": height,
        "fps": fps,
        "frames": frames,
        "from": from,
        "to": to,
        "camera": camera.to_json(),
    }))
}
