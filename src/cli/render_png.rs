//! `vrma-maker render-png --model M (--pose POSE.json | --project P --time T) -o OUT.png
//! [--size WxH] [--camera front|side|three-quarter | --camera-json CAMERA.json]
//! [--background transparent|#rrggbb] [--eyes camera|pose]`: a still, no window. The camera it used is
//! printed as `camera` in the same JSON `--camera-json` reads.

use std::path::Path;

use bevy::math::UVec2;
use serde_json::{Value, json};

use crate::core::Refusal;
use crate::core::body::framing::{CameraPreset, StillCamera};
use crate::core::body::look::StillEyes;
use crate::core::body::pose::Pose;

/// Parses `1024x1365`: 1 to 8192 pixels each way.
pub fn parse_size(text: &str) -> Result<UVec2, Refusal> {
    let bad = || {
        Refusal::new(format!(
            "--size: '{text}' is not WIDTHxHEIGHT (1 to 8192 pixels each)"
        ))
    };
    let (w, h) = text.split_once(['x', 'X']).ok_or_else(bad)?;
    let (w, h): (u32, u32) = (
        w.trim().parse().map_err(|_| bad())?,
        h.trim().parse().map_err(|_| bad())?,
    );
    if !(1..=8192).contains(&w) || !(1..=8192).contains(&h) {
        return Err(bad());
    }
    Ok(UVec2::new(w, h))
}

/// A preset camera, the fixed camera if one is given, the background colour if any.
pub type ParsedView = (CameraPreset, Option<StillCamera>, Option<[u8; 3]>);

/// `--camera`, `--camera-json` and `--background` as render-png and render-anim take
/// them: the preset, the fixed camera if one is given, the background colour if any.
pub fn parse_view(
    preset: &str,
    camera_json: Option<&Path>,
    background: &str,
) -> Result<ParsedView, Refusal> {
    let preset = CameraPreset::from_name(preset).ok_or_else(|| {
        Refusal::new(format!(
            "--camera: '{preset}' is not front, side or three-quarter"
        ))
    })?;
    let fixed = match camera_json {
        Some(path) => Some(
            StillCamera::from_json(&super::read_json(path)?)
                .map_err(|e| e.context(path.display()))?,
        ),
        None => None,
    };
    let background = crate::core::body::still::parse_background(background)
        .map_err(|e| e.context("--background"))?;
    Ok((preset, fixed, background))
}

/// Vertical field of view of the preset cameras (the window's stills use the same).
const PRESET_FOV: f32 = 30.0;

/// Where a still is seen from, and on what.
pub struct View<'a> {
    pub preset: &'a str,
    pub camera_json: Option<&'a Path>,
    pub background: &'a str,
    /// `camera` or `pose`.
    pub eyes: &'a str,
}

pub fn run(
    model: &Path,
    pose: Option<&Path>,
    project: Option<&Path>,
    time: Option<f32>,
    output: &Path,
    size: &str,
    view: View,
) -> Result<Value, Refusal> {
    let size = parse_size(size)?;
    let (preset, fixed, background) =
        super::render_png::parse_view(view.preset, view.camera_json, view.background)?;
    let eyes = StillEyes::from_name(view.eyes)
        .ok_or_else(|| Refusal::new(format!("--eyes: '{}' is not camera or pose", view.eyes)))?;
    // Everything is validated before any rendering starts.
    let editor = super::open_editor(model, project)?;
    let still_pose = match (pose, project, time) {
        (Some(path), None, None) => {
            let mut warnings = Vec::new();
            let mut pose = Pose::from_json(&super::read_json(path)?, &mut warnings)
                .map_err(|e| e.context(path.display()))?;
            pose.retain_known_expressions(editor.expression_names(), &mut warnings);
            for w in warnings {
                eprintln!("warning: {w}");
            }
            pose
        }
        (None, Some(_), Some(t)) => {
            if !t.is_finite() || t < 0.0 {
                return Err(Refusal::new(
                    "--time must be a non-negative number of seconds",
                ));
            }
            editor.sample(t).unwrap_or_else(|| editor.pose.clone())
        }
        _ => {
            return Err(Refusal::new(
                "give either --pose POSE.json, or --project P.json with --time T",
            ));
        }
    };
    let camera = fixed.unwrap_or_else(|| {
        StillCamera::framing(
            &editor.rig,
            &still_pose,
            preset,
            PRESET_FOV,
            size.x as f32 / size.y as f32,
        )
    });
    crate::app::render_still(
        model.to_path_buf(),
        Some(still_pose),
        size,
        camera,
        background,
        eyes,
        output.to_path_buf(),
    )
    .map_err(Refusal::new)?;
    Ok(json!({
        "output": output.display().to_string(),
        "width": size.x,
        "height": size.y,
        "camera": camera.to_json(),
    }))
}
