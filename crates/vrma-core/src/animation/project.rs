//! Project files (SPEC §12): the model reference, the keys, the playhead, the current
//! pose and settings, as JSON. Loading validates everything before anything changes.

use crate::animation::pins::Pins;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::Refusal;
use crate::animation::timeline::{FPS, Key, MAX_TIME, Plant, Timeline, snap};
use crate::body::pose::Pose;
use crate::num;

/// Editor settings saved with a project.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Settings {
    pub keep_angle: bool,
    /// Dragging a hand, foot or the head past its reach bends the spine and moves the
    /// hips after it ("Body follows"); off at the desktop by default.
    pub body_follows: bool,
    /// The same in VR, where it is on by default (a user who pulls a hand expects the
    /// body to lean after it).
    pub body_follows_vr: bool,
    /// Edits keep every joint within human limits (`body::limits`); off for stylised
    /// poses.
    pub limits: bool,
    /// Loop playback.
    pub looping: bool,
    /// Timeline length in seconds (at least the last key).
    pub length: f32,
    /// Frames per second the VRMA export samples at (24, 30 or 60 offered; a file's
    /// own value from 1 to 240 is kept). Keys stay on the 1/30 s grid.
    pub fps: f32,
    /// Playback speed, 0.25× to 2×.
    pub speed: f32,
    /// Playback loops between these in and out markers (seconds) instead of the whole
    /// timeline.
    pub loop_range: Option<(f32, f32)>,
}

/// The export frame rates the window offers.
pub const EXPORT_FPS: [f32; 3] = [24.0, 30.0, 60.0];
/// The slowest and fastest playback speeds.
pub const SPEED_RANGE: (f32, f32) = (0.25, 2.0);
/// The export frame rates a file may ask for.
pub const FPS_RANGE: (f32, f32) = (1.0, 240.0);

impl Default for Settings {
    fn default() -> Self {
        Settings {
            keep_angle: true,
            body_follows: false,
            body_follows_vr: true,
            limits: true,
            looping: true,
            length: 4.0,
            fps: FPS,
            speed: 1.0,
            loop_range: None,
        }
    }
}

impl Settings {
    /// Why these settings cannot be used, if they cannot.
    pub fn check(&self) -> Result<(), Refusal> {
        if !self.length.is_finite() || self.length <= 0.0 || self.length > MAX_TIME {
            return Err(Refusal::new(format!(
                "the timeline length must be between 0 and {MAX_TIME} s"
            )));
        }
        if !(FPS_RANGE.0..=FPS_RANGE.1).contains(&self.fps) {
            return Err(Refusal::new(format!(
                "the export frame rate must be {} to {} fps",
                FPS_RANGE.0, FPS_RANGE.1
            )));
        }
        if !(SPEED_RANGE.0..=SPEED_RANGE.1).contains(&self.speed) {
            return Err(Refusal::new(format!(
                "the playback speed must be {}x to {}x",
                SPEED_RANGE.0, SPEED_RANGE.1
            )));
        }
        if let Some((a, b)) = self.loop_range
            && !(a.is_finite() && b.is_finite() && 0.0 <= a && a < b && b <= MAX_TIME)
        {
            return Err(Refusal::new(format!(
                "the loop range must start before it ends, within 0 to {MAX_TIME} s"
            )));
        }
        Ok(())
    }
}

/// A whole project as stored on disk.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Project {
    /// The model file (`None` = the built-in mannequin).
    pub model_path: Option<PathBuf>,
    pub model_title: String,
    pub timeline: Timeline,
    pub playhead: f32,
    pub pose: Pose,
    pub settings: Settings,
    /// The pinned hands, feet and head (both feet by default: "Pin feet").
    pub pins: Pins,
}

fn bool_field(
    obj: &serde_json::Map<String, Value>,
    key: &str,
    default: bool,
) -> Result<bool, Refusal> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(default),
        Some(Value::Bool(b)) => Ok(*b),
        Some(other) => Err(Refusal::new(format!(
            "settings.{key}: expected true or false, got {other}"
        ))),
    }
}

/// `target` as a path from the folder `base` (`../models/a.vrm`), both made absolute
/// against the working directory first; `target` made absolute when they share nothing
/// but the root (another disk, `/tmp` against `/home`).
pub fn relative_path(target: &Path, base: &Path) -> PathBuf {
    use std::path::Component;
    let (Ok(target), Ok(base)) = (std::path::absolute(target), std::path::absolute(base)) else {
        return target.to_path_buf();
    };
    fn normal(p: &Path) -> Vec<Component<'_>> {
        p.components().filter(|c| *c != Component::CurDir).collect()
    }
    let (t, b) = (normal(&target), normal(&base));
    let common = t.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let shares_a_folder = t
        .iter()
        .take(common)
        .any(|c| matches!(c, Component::Normal(_)));
    if !shares_a_folder || b[common..].contains(&Component::ParentDir) {
        return target;
    }
    let mut out = PathBuf::new();
    for _ in common..b.len() {
        out.push("..");
    }
    for c in &t[common..] {
        out.push(c.as_os_str());
    }
    out
}

impl Project {
    /// The project as a file at `project_file` writes it: the model's path relative to
    /// the project's folder, so the two can move together and the project opens from any
    /// working directory.
    pub fn to_json_at(&self, project_file: &Path) -> Value {
        let mut value = self.to_json();
        if let Some(model) = &self.model_path {
            let folder = project_file.parent().unwrap_or(Path::new(""));
            let folder = if folder.as_os_str().is_empty() {
                Path::new(".")
            } else {
                folder
            };
            let stored = relative_path(model, folder);
            // A relative path is written with `/` on every platform (Windows reads it
            // too), so a project moves between Windows and Linux with its model.
            let written = if stored.is_relative() {
                let parts: Vec<_> = stored
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy())
                    .collect();
                parts.join("/")
            } else {
                stored.to_string_lossy().into_owned()
            };
            value["model"]["path"] = json!(written);
        }
        value
    }

    /// The project with the model's path as this process opens it (made absolute, for a
    /// recovery file read by a process started elsewhere).
    pub fn to_json(&self) -> Value {
        let keys: Vec<Value> = self.timeline.keys().iter().map(|k| k.to_json()).collect();
        let model_path = self
            .model_path
            .as_ref()
            .map(|p| std::path::absolute(p).unwrap_or_else(|_| p.clone()));
        json!({
            "v": 1,
            "model": {
                "path": model_path.map(|p| p.to_string_lossy().into_owned()),
                "title": self.model_title,
            },
            "fps": num(self.settings.fps),
            "playhead": num(self.playhead),
            "keys": keys,
            "pose": self.pose.to_json(&self.model_title),
            "settings": {
                // Read by versions before pins: the two foot pins.
                "pin_feet": self.pins.covers(Pins::FEET),
                "keep_angle": self.settings.keep_angle,
                "body_follows": self.settings.body_follows,
                "body_follows_vr": self.settings.body_follows_vr,
                "limits": self.settings.limits,
                "loop": self.settings.looping,
                "length": num(self.settings.length),
                "speed": num(self.settings.speed),
                "loop_range": self.settings.loop_range.map(|(a, b)| json!([num(a), num(b)])),
            },
            "plants": Plant::list_json(self.timeline.plants()),
            "pins": self.pins.to_json(),
        })
    }

    /// Reads a project. `warnings` collects what was skipped (unknown bones…).
    pub fn from_json(value: &Value, warnings: &mut Vec<String>) -> Result<Project, Refusal> {
        let obj = value
            .as_object()
            .ok_or_else(|| Refusal::new("project: expected a JSON object"))?;
        if let Some(v) = obj.get("v").filter(|v| !v.is_null())
            && v.as_u64() != Some(1)
        {
            return Err(Refusal::new(format!(
                "project: unsupported version {v} (expected 1)"
            )));
        }
        let mut settings = Settings::default();
        let mut pins = Pins::FEET;
        if let Some(fps) = obj.get("fps").filter(|v| !v.is_null()) {
            match fps.as_f64().map(|f| f as f32) {
                Some(f) if (FPS_RANGE.0..=FPS_RANGE.1).contains(&f) => settings.fps = f,
                _ => warnings.push(format!(
                    "project.fps: {fps} is not a frame rate from {} to {}; exporting at {FPS}",
                    FPS_RANGE.0, FPS_RANGE.1
                )),
            }
        }
        let (model_path, model_title) = match obj.get("model") {
            None | Some(Value::Null) => (None, String::new()),
            Some(Value::String(path)) => (Some(PathBuf::from(path)), String::new()),
            Some(Value::Object(m)) => {
                let path = match m.get("path") {
                    None | Some(Value::Null) => None,
                    Some(Value::String(p)) => Some(PathBuf::from(p)),
                    Some(other) => {
                        return Err(Refusal::new(format!(
                            "project.model.path: expected a string, got {other}"
                        )));
                    }
                };
                (
                    path,
                    m.get("title")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_string(),
                )
            }
            Some(other) => {
                return Err(Refusal::new(format!(
                    "project.model: expected an object, got {other}"
                )));
            }
        };
        let keys = match obj.get("keys") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(list)) => list
                .iter()
                .enumerate()
                .map(|(i, k)| Key::from_json(k, i, warnings))
                .collect::<Result<Vec<_>, _>>()?,
            Some(other) => {
                return Err(Refusal::new(format!(
                    "project.keys: expected an array, got {}",
                    type_name(other)
                )));
            }
        };
        let mut timeline = Timeline::from_keys(keys).map_err(|e| e.context("project.keys"))?;
        timeline.read_plants(obj.get("plants"), "project.plants")?;
        let playhead = match obj.get("playhead") {
            None | Some(Value::Null) => 0.0,
            Some(v) => v
                .as_f64()
                .filter(|t| t.is_finite() && *t >= 0.0 && *t <= MAX_TIME as f64)
                .ok_or_else(|| Refusal::new(format!("project.playhead: {v} is not a valid time")))?
                as f32,
        };
        let pose = match obj.get("pose") {
            None | Some(Value::Null) => Pose::default(),
            Some(p) => Pose::from_json(p, warnings).map_err(|e| e.context("project.pose"))?,
        };
        if let Some(s) = obj.get("settings").filter(|s| !s.is_null()) {
            let s = s
                .as_object()
                .ok_or_else(|| Refusal::new("project.settings: expected an object"))?;
            let pin_feet = bool_field(s, "pin_feet", true)?;
            pins = pins.with(Pins::FEET, pin_feet);
            settings.keep_angle = bool_field(s, "keep_angle", settings.keep_angle)?;
            settings.body_follows = bool_field(s, "body_follows", settings.body_follows)?;
            settings.body_follows_vr = bool_field(s, "body_follows_vr", settings.body_follows_vr)?;
            settings.limits = bool_field(s, "limits", settings.limits)?;
            settings.looping = bool_field(s, "loop", settings.looping)?;
            if let Some(len) = s.get("length").filter(|l| !l.is_null()) {
                settings.length = len
                    .as_f64()
                    .filter(|l| l.is_finite() && *l > 0.0 && *l <= MAX_TIME as f64)
                    .ok_or_else(|| {
                        Refusal::new(format!("settings.length: {len} is not a valid length"))
                    })? as f32;
            }
            if let Some(speed) = s.get("speed").filter(|v| !v.is_null()) {
                settings.speed = speed
                    .as_f64()
                    .map(|v| v as f32)
                    .filter(|v| (SPEED_RANGE.0..=SPEED_RANGE.1).contains(v))
                    .ok_or_else(|| {
                        Refusal::new(format!(
                            "settings.speed: {speed} is not a speed from {} to {}",
                            SPEED_RANGE.0, SPEED_RANGE.1
                        ))
                    })?;
            }
            if let Some(range) = s.get("loop_range").filter(|v| !v.is_null()) {
                let [a, b] = crate::read_floats::<2>(range, "settings.loop_range")?;
                settings.loop_range = Some((snap(a), snap(b)));
            }
        }
        if let Some(list) = obj.get("pins").filter(|v| !v.is_null()) {
            pins = Pins::from_json(list).map_err(|e| e.context("project"))?;
        }
        settings.length = settings.length.max(timeline.end());
        settings
            .check()
            .map_err(|e| e.context("project.settings"))?;
        Ok(Project {
            model_path,
            model_title,
            timeline,
            playhead,
            pose,
            settings,
            pins,
        })
    }

    /// Reads a project file.
    pub fn load(path: &Path, warnings: &mut Vec<String>) -> Result<Project, Refusal> {
        let bytes = crate::read_bounded(path, crate::MAX_FILE_BYTES)?;
        let value: Value = serde_json::from_slice(&bytes)
            .map_err(|e| Refusal::new(format!("{}: invalid JSON: {e}", path.display())))?;
        Project::from_json(&value, warnings).map_err(|e| e.context(path.display()))
    }

    /// Writes the project atomically (temp file + rename).
    pub fn save(&self, path: &Path) -> Result<(), Refusal> {
        let text = serde_json::to_vec_pretty(&self.to_json_at(path)).expect("JSON serialises");
        crate::write_atomic(path, &text)
            .map_err(|e| Refusal::new(format!("cannot write {}: {e}", path.display())))
    }

    /// The model path resolved against the project file's folder, the inverse of what
    /// [`Project::to_json_at`] stored: `..` is taken lexically, as it was computed.
    pub fn resolved_model_path(&self, project_file: &Path) -> Option<PathBuf> {
        use std::path::Component;
        let path = self.model_path.as_ref()?;
        if path.is_absolute() {
            return Some(path.clone());
        }
        let joined = project_file.parent().unwrap_or(Path::new(".")).join(path);
        let mut out = PathBuf::new();
        for c in joined.components() {
            match c {
                Component::ParentDir
                    if out
                        .components()
                        .next_back()
                        .is_some_and(|l| matches!(l, Component::Normal(_))) =>
                {
                    out.pop();
                }
                Component::CurDir => {}
                other => out.push(other.as_os_str()),
            }
        }
        Some(out)
    }
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A JSON file with keys (or fps / playhead) is a project; other JSON is a pose. A file
/// that cannot be read is not a project (the pose reader then says what is wrong).
pub fn is_project_file(path: &std::path::Path) -> bool {
    if !path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"))
    {
        return false;
    }
    crate::read_json(path).is_ok_and(|value| {
        value.get("keys").is_some() || value.get("fps").is_some() || value.get("playhead").is_some()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::animation::timeline::Ease;
    use crate::model::humanoid::Bone;
    use glam::Quat;

    #[test]
    fn a_project_round_trips() {
        let mut p = Project {
            model_title: "m".into(),
            playhead: 0.5,
            ..Default::default()
        };
        let mut pose = Pose::default();
        pose.set_rotation(Bone::Chest, Quat::from_rotation_y(0.3));
        p.timeline.set_key(0.5, pose.clone());
        p.timeline.set_key(1.0, Pose::default());
        p.timeline.set_ease_at(0.5, Ease::InOut);
        p.pose = pose;
        p.settings.length = 3.0;
        let mut w = Vec::new();
        let back = Project::from_json(&p.to_json(), &mut w).unwrap();
        assert_eq!(back.to_json(), p.to_json());
    }

    #[test]
    fn model_paths_are_stored_relative_to_the_project_and_resolve_back() {
        let cwd = std::env::current_dir().unwrap();
        let cases = [
            (
                "/work/proj/walk.json",
                "/work/proj/avatar.vrm",
                "avatar.vrm",
            ),
            (
                "/work/proj/walk.json",
                "/work/models/a.vrm",
                "../models/a.vrm",
            ),
            ("/work/out/deep/p.json", "/work/a.vrm", "../../a.vrm"),
            ("/tmp/p.json", "/home/me/a.vrm", "/home/me/a.vrm"),
        ];
        // (On Windows `/home/me` is on the current drive: `C:\home\me`.)
        let absolute = |p: &str| std::path::absolute(p).unwrap();
        for (project_file, model, stored) in cases {
            let p = Project {
                model_path: Some(PathBuf::from(model)),
                ..Default::default()
            };
            let value = p.to_json_at(Path::new(project_file));
            let stored = if stored.starts_with('/') {
                absolute(stored).to_string_lossy().into_owned()
            } else {
                stored.to_string()
            };
            assert_eq!(
                value["model"]["path"],
                json!(stored),
                "{project_file} / {model}"
            );
            let back = Project::from_json(&value, &mut Vec::new()).unwrap();
            assert_eq!(
                back.resolved_model_path(Path::new(project_file))
                    .map(|p| std::path::absolute(p).unwrap()),
                Some(absolute(model)),
                "{stored} resolves back"
            );
        }
        // Paths typed relative to the working directory are made absolute first.
        let p = Project {
            model_path: Some(PathBuf::from("models/a.vrm")),
            ..Default::default()
        };
        let value = p.to_json_at(Path::new("out/p.json"));
        assert_eq!(value["model"]["path"], json!("../models/a.vrm"));
        assert_eq!(
            p.to_json()["model"]["path"],
            json!(
                std::path::absolute(cwd.join("models/a.vrm"))
                    .unwrap()
                    .to_string_lossy()
            )
        );
    }

    #[test]
    fn key_ids_of_other_tools_round_trip_and_never_overflow() {
        let ids = [
            json!("k1"),
            json!(-3),
            json!(u64::MAX),
            json!(u64::MAX),
            json!(7),
            json!(7),
            Value::Null,
        ];
        let keys: Vec<Value> = ids
            .iter()
            .enumerate()
            .map(|(i, id)| json!({"id": id, "t": i as f64 * 0.5, "pose": {}}))
            .collect();
        let mut w = Vec::new();
        let mut p = Project::from_json(&json!({"v": 1, "keys": keys}), &mut w).unwrap();
        let own: std::collections::BTreeSet<u64> = p.timeline.keys().iter().map(|k| k.id).collect();
        assert_eq!(own.len(), ids.len(), "every key has its own editor id");
        let written = p.to_json();
        let back: Vec<&Value> = written["keys"]
            .as_array()
            .unwrap()
            .iter()
            .map(|k| &k["id"])
            .collect();
        // Foreign ids are written back as they were; the second 7 and the missing id got
        // fresh ones.
        assert_eq!(back[..5], ids.iter().take(5).collect::<Vec<_>>()[..]);
        assert!(back[5].as_u64().is_some_and(|n| n != 7) && back[6].as_u64().is_some());
        let again = Project::from_json(&written, &mut w).unwrap();
        assert_eq!(
            again.to_json(),
            written,
            "a second round trip changes nothing"
        );
        let same: Vec<u64> = again.timeline.keys().iter().map(|k| k.id).collect();
        assert_eq!(
            same,
            p.timeline.keys().iter().map(|k| k.id).collect::<Vec<_>>()
        );
        // A new key counts on from the editor's ids, far below u64::MAX.
        let new = p.timeline.set_key(10.0, Pose::default());
        assert!(!own.contains(&new) && new < u64::MAX / 2);
        // Poses in keys do not repeat the model's title.
        p.model_title = "x".repeat(1000);
        assert!(p.to_json()["keys"][0]["pose"].get("model").is_none());
    }

    #[test]
    fn malformed_projects_are_refused_with_the_field() {
        let cases = [
            (json!({"keys": [{"t": -1, "pose": {}}]}), "keys[0].t"),
            (json!({"keys": [{"t": 3600.1, "pose": {}}]}), "keys[0].t"),
            (json!({"playhead": 1e9}), "project.playhead"),
            (json!({"settings": {"length": 1e9}}), "settings.length"),
            (json!({"keys": [{"t": f64::NAN, "pose": {}}]}), "keys[0].t"),
            (json!({"keys": [{"t": "x", "pose": {}}]}), "keys[0].t"),
            (
                json!({"keys": [{"t": 1, "ease": "BOUNCE", "pose": {}}]}),
                "unknown ease 'BOUNCE'",
            ),
            (
                json!({"keys": [{"t": 1, "pose": {}}, {"t": 1.01, "pose": {}}]}),
                "same frame",
            ),
            (json!({"keys": {"t": 1}}), "expected an array"),
            (
                json!({"keys": [{"t": 1, "pose": {"bones": {"head": [0, 0, 0, 0]}}}]}),
                "keys[0].pose",
            ),
            (json!({"settings": {"speed": 9}}), "settings.speed"),
            (json!({"settings": {"loop_range": [2, 1]}}), "loop range"),
            (
                json!({"plants": [{"foot": "leftFoot", "from": 1, "to": 1}]}),
                "plants[0]",
            ),
            (json!({"v": 7}), "version"),
            (json!({"settings": {"pin_feet": "yes"}}), "pin_feet"),
            (json!([1, 2]), "object"),
        ];
        for (value, needle) in cases {
            let err = Project::from_json(&value, &mut Vec::new())
                .unwrap_err()
                .to_string();
            assert!(err.contains(needle), "{value}: {err}");
        }
    }

    #[test]
    fn a_projects_own_frame_rate_is_kept_and_an_odd_one_only_warns() {
        for fps in [24.0, 25.0, 60.0] {
            let mut w = Vec::new();
            let p = Project::from_json(&json!({"fps": fps}), &mut w).unwrap();
            assert_eq!(p.settings.fps, fps as f32);
            assert!(w.is_empty());
            let back = Project::from_json(&p.to_json(), &mut w).unwrap();
            assert_eq!(back.settings.fps, fps as f32);
        }
        let mut w = Vec::new();
        let p = Project::from_json(&json!({"fps": "fast"}), &mut w).unwrap();
        assert_eq!(p.settings.fps, FPS);
        assert!(w[0].contains("project.fps"), "{w:?}");
    }

    #[test]
    fn speed_loop_range_and_plants_round_trip() {
        let mut p = Project::default();
        p.timeline.set_key(0.0, Pose::default());
        p.timeline.set_key(2.0, Pose::default());
        p.timeline
            .set_plant(crate::model::humanoid::Side::Left, 0.5, 1.0, true);
        p.timeline
            .set_plant(crate::model::humanoid::Side::Right, 1.0, 2.0, true);
        p.settings.speed = 0.5;
        p.settings.loop_range = Some((0.5, 1.5));
        let back = Project::from_json(&p.to_json(), &mut Vec::new()).unwrap();
        assert_eq!(back.timeline.plants(), p.timeline.plants());
        assert_eq!(back.settings, p.settings);
        assert_eq!(back.to_json(), p.to_json());
    }
}
