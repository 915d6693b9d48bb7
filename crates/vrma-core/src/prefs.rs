//! The user's remembered settings: window size, panel sizes, where the pose library
//! sits, recent files, view and export choices. One small JSON file in the user config
//! folder. Reading is lenient (a field that is missing, mistyped or out of range keeps
//! its default, and the rest still apply); writing is atomic.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

/// How many recent files the File menu lists.
pub const RECENT_LIMIT: usize = 10;
/// A settings file larger than this is not ours (or is hostile): defaults are used.
const MAX_FILE_BYTES: u64 = 256 * 1024;
/// Window and panel sizes outside this range (logical pixels) are ignored.
const SIZE_RANGE: std::ops::RangeInclusive<f32> = 120.0..=16384.0;

/// What a recent entry opens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecentKind {
    Model,
    Project,
}

#[derive(Clone, Debug, PartialEq)]
pub struct RecentFile {
    pub path: PathBuf,
    pub kind: RecentKind,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Preferences {
    /// The main window's inner size in physical pixels.
    pub window_size: Option<(u32, u32)>,
    /// Widths of the inspector (left) and expressions (right) panels.
    pub inspector_width: Option<f32>,
    pub expressions_width: Option<f32>,
    /// Whether the pose library window is open, and where the user put it (its top
    /// left corner, logical pixels).
    pub library_open: bool,
    pub library_at: Option<(f32, f32)>,
    pub markers_visible: bool,
    /// View ▸ Onion skin, and how many frames either side it shows (`None`: the keys
    /// either side).
    pub onion_skin: bool,
    pub onion_frames: Option<u32>,
    /// Edit ▸ Paste onto (a `BodyMask` name).
    pub paste_onto: String,
    /// Keys per second when importing a dense clip (0 = every source key).
    pub import_rate: f32,
    /// Export PNG: size and camera ("front", "side", "three-quarter", "current").
    pub png_size: (u32, u32),
    pub png_view: String,
    /// The still's background: `None` transparent, else an opaque colour.
    pub png_background: Option<[u8; 3]>,
    /// View ▸ Language: a language tag such as `"ja"`; `None` follows the system's.
    pub language: Option<String>,
    /// Newest first.
    pub recent: Vec<RecentFile>,
}

impl Default for Preferences {
    fn default() -> Self {
        Preferences {
            window_size: None,
            inspector_width: None,
            expressions_width: None,
            library_open: true,
            library_at: None,
            markers_visible: true,
            onion_skin: false,
            onion_frames: None,
            paste_onto: "wholeBody".into(),
            import_rate: 0.0,
            png_size: (1024, 1365),
            png_view: "front".into(),
            png_background: None,
            language: None,
            recent: Vec::new(),
        }
    }
}

/// A BCP 47 language tag's shape (`ja`, `en-US`, `zh-Hant`): letters, digits and
/// hyphens, short. Whether the app speaks it is the app's business.
fn is_language_tag(tag: &str) -> bool {
    (2..=16).contains(&tag.len())
        && tag.split('-').all(|part| {
            !part.is_empty() && part.len() <= 8 && part.chars().all(|c| c.is_ascii_alphanumeric())
        })
}

/// The settings file: `$VRMA_MAKER_DATA_DIR/settings.json` when set (tests, portable
/// use), else `settings.json` in the OS user config folder.
pub fn default_path() -> PathBuf {
    let base = std::env::var_os("VRMA_MAKER_DATA_DIR")
        .map(PathBuf::from)
        .or_else(|| {
            directories::ProjectDirs::from("", "", "vrma-maker")
                .map(|d| d.config_dir().to_path_buf())
        });
    base.unwrap_or_else(|| PathBuf::from(".vrma-maker"))
        .join("settings.json")
}

fn size(v: &Value) -> Option<f32> {
    let x = v.as_f64()? as f32;
    SIZE_RANGE.contains(&x).then_some(x)
}

impl Preferences {
    /// Reads the settings file. A missing file gives the defaults silently; an unreadable
    /// one gives the defaults and a line saying why (the file is left as it is until the
    /// next save replaces it).
    pub fn load(path: &Path) -> (Preferences, Option<String>) {
        let problem = |why: String| {
            (
                Preferences::default(),
                Some(format!(
                    "Settings in {} were not used: {why}",
                    path.display()
                )),
            )
        };
        let Ok(meta) = std::fs::metadata(path) else {
            return (Preferences::default(), None);
        };
        if meta.len() > MAX_FILE_BYTES {
            return problem(format!("{} bytes is not a settings file", meta.len()));
        }
        match std::fs::read(path) {
            Ok(bytes) => match serde_json::from_slice::<Value>(&bytes) {
                Ok(value @ Value::Object(_)) => (Preferences::from_json(&value), None),
                Ok(_) => problem("not a JSON object".into()),
                Err(e) => problem(format!("invalid JSON: {e}")),
            },
            Err(e) => problem(e.to_string()),
        }
    }

    /// Every field that reads well; defaults for the rest.
    pub fn from_json(v: &Value) -> Preferences {
        let d = Preferences::default();
        let window = &v["window"];
        let library = &v["library"];
        let corner = |r: &Value| {
            let n = |i: usize| {
                r.get(i)
                    .and_then(Value::as_f64)
                    .map(|x| x as f32)
                    .filter(|x| x.abs() < 1e5)
            };
            n(0).zip(n(1))
        };
        let pixels = |v: &Value| {
            v.as_u64()
                .filter(|n| SIZE_RANGE.contains(&(*n as f32)))
                .map(|n| n as u32)
        };
        let png = &v["png"];
        let png_side = |i: usize| {
            png["size"]
                .get(i)
                .and_then(Value::as_u64)
                .filter(|&n| (1..=16384).contains(&n))
                .map(|n| n as u32)
        };
        let recent = v["recent"]
            .as_array()
            .map(|entries| {
                let mut list = Vec::new();
                for entry in entries.iter().take(RECENT_LIMIT * 4) {
                    let kind = match entry["kind"].as_str() {
                        Some("model") => RecentKind::Model,
                        Some("project") => RecentKind::Project,
                        _ => continue,
                    };
                    let Some(path) = entry["path"].as_str().filter(|p| !p.is_empty()) else {
                        continue;
                    };
                    push_recent(&mut list, PathBuf::from(path), kind);
                }
                list.reverse(); // push_recent puts each at the front
                list
            })
            .unwrap_or_default();
        Preferences {
            window_size: pixels(&window["size"][0]).zip(pixels(&window["size"][1])),
            inspector_width: size(&v["panels"]["inspector"]),
            expressions_width: size(&v["panels"]["expressions"]),
            library_open: library["open"].as_bool().unwrap_or(d.library_open),
            library_at: corner(&library["at"]),
            markers_visible: v["markers"].as_bool().unwrap_or(d.markers_visible),
            onion_skin: v["onion_skin"]["on"].as_bool().unwrap_or(d.onion_skin),
            onion_frames: v["onion_skin"]["frames"]
                .as_u64()
                .filter(|n| (1..=30).contains(n))
                .map(|n| n as u32),
            paste_onto: v["paste_onto"]
                .as_str()
                .filter(|name| crate::body::pose::BodyMask::from_name(name).is_some())
                .map_or(d.paste_onto, str::to_string),
            import_rate: v["import_rate"]
                .as_f64()
                .map(|x| x as f32)
                .filter(|x| (0.0..=30.0).contains(x))
                .unwrap_or(d.import_rate),
            png_size: png_side(0).zip(png_side(1)).unwrap_or(d.png_size),
            png_view: png["view"]
                .as_str()
                .filter(|s| ["front", "side", "three-quarter", "current"].contains(s))
                .map_or(d.png_view, str::to_string),
            png_background: png["background"]
                .as_str()
                .and_then(|b| crate::body::still::parse_background(b).ok())
                .unwrap_or(d.png_background),
            language: v["language"]
                .as_str()
                .filter(|tag| is_language_tag(tag))
                .map(str::to_string),
            recent,
        }
    }

    pub fn to_json(&self) -> Value {
        let mut v = Map::new();
        let mut window = Map::new();
        if let Some((w, h)) = self.window_size {
            window.insert("size".into(), json!([w, h]));
        }
        v.insert("window".into(), Value::Object(window));
        let mut panels = Map::new();
        if let Some(w) = self.inspector_width {
            panels.insert("inspector".into(), json!(w));
        }
        if let Some(w) = self.expressions_width {
            panels.insert("expressions".into(), json!(w));
        }
        v.insert("panels".into(), Value::Object(panels));
        let mut library = Map::new();
        library.insert("open".into(), json!(self.library_open));
        if let Some((x, y)) = self.library_at {
            library.insert("at".into(), json!([x, y]));
        }
        v.insert("library".into(), Value::Object(library));
        v.insert("markers".into(), json!(self.markers_visible));
        v.insert(
            "onion_skin".into(),
            json!({"on": self.onion_skin, "frames": self.onion_frames}),
        );
        v.insert("paste_onto".into(), json!(self.paste_onto));
        v.insert("import_rate".into(), json!(self.import_rate));
        v.insert(
            "png".into(),
            json!({"size": [self.png_size.0, self.png_size.1], "view": self.png_view,
            "background": match self.png_background {
                Some([r, g, b]) => format!("#{r:02x}{g:02x}{b:02x}"),
                None => "transparent".into(),
            }}),
        );
        if let Some(language) = &self.language {
            v.insert("language".into(), json!(language));
        }
        let recent: Vec<Value> = self
            .recent
            .iter()
            .map(|r| {
                json!({
                    "path": r.path.to_string_lossy(),
                    "kind": match r.kind {
                        RecentKind::Model => "model",
                        RecentKind::Project => "project",
                    },
                })
            })
            .collect();
        v.insert("recent".into(), Value::Array(recent));
        Value::Object(v)
    }

    /// Writes the file atomically (creating its folder).
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)?;
        }
        let text = serde_json::to_string_pretty(&self.to_json()).map_err(std::io::Error::other)?;
        crate::write_atomic(path, text.as_bytes())
    }

    /// A file just opened or saved goes to the top of the recent list.
    pub fn add_recent(&mut self, path: &Path, kind: RecentKind) {
        let path = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        push_recent(&mut self.recent, path, kind);
    }
}

/// Puts an entry first, once, and keeps the list to its limit.
fn push_recent(list: &mut Vec<RecentFile>, path: PathBuf, kind: RecentKind) {
    list.retain(|r| r.path != path);
    list.insert(0, RecentFile { path, kind });
    list.truncate(RECENT_LIMIT);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("vrma-prefs-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn sample() -> Preferences {
        let mut p = Preferences {
            window_size: Some((1100, 700)),
            inspector_width: Some(300.0),
            expressions_width: Some(180.0),
            library_open: false,
            library_at: Some((700.0, 80.0)),
            markers_visible: false,
            onion_skin: true,
            onion_frames: Some(5),
            paste_onto: "leftArm".into(),
            import_rate: 5.0,
            png_size: (512, 512),
            png_view: "side".into(),
            png_background: Some([16, 32, 255]),
            language: Some("ja".into()),
            recent: Vec::new(),
        };
        p.add_recent(Path::new("/a/model.vrm"), RecentKind::Model);
        p.add_recent(Path::new("/a/project.json"), RecentKind::Project);
        p
    }

    #[test]
    fn settings_survive_a_save_and_load() {
        let dir = scratch("roundtrip");
        let path = dir.join("sub/settings.json");
        let prefs = sample();
        prefs.save(&path).unwrap();
        let (loaded, warning) = Preferences::load(&path);
        assert_eq!(warning, None);
        assert_eq!(loaded, prefs);
        // (Stored absolute: on Windows `/a` is on the current drive.)
        assert_eq!(
            loaded.recent[0].path,
            std::path::absolute("/a/project.json").unwrap()
        );
    }

    #[test]
    fn a_missing_file_is_the_defaults_without_a_word() {
        let dir = scratch("missing");
        let (prefs, warning) = Preferences::load(&dir.join("settings.json"));
        assert_eq!(prefs, Preferences::default());
        assert_eq!(warning, None);
    }

    #[test]
    fn bad_files_give_the_defaults_and_say_why() {
        let dir = scratch("bad");
        let path = dir.join("settings.json");
        for bytes in [
            b"{not json".to_vec(),
            b"[1, 2]".to_vec(),
            vec![b' '; MAX_FILE_BYTES as usize + 1],
        ] {
            std::fs::write(&path, &bytes).unwrap();
            let (prefs, warning) = Preferences::load(&path);
            assert_eq!(prefs, Preferences::default());
            assert!(warning.is_some_and(|w| w.contains("settings.json")));
        }
    }

    #[test]
    fn each_bad_field_keeps_its_default_and_the_rest_apply() {
        let v = json!({
            "window": {"size": [f64::MAX, 700]},
            "panels": {"inspector": -5, "expressions": 200},
            "library": {"open": false, "at": [1e9, 0]},
            "markers": 3,
            "import_rate": 1e9,
            "png": {"size": [0, 100], "view": "../../etc"},
            "language": "../ja",
            "recent": [{"path": "/m.vrm", "kind": "model"}, {"path": "", "kind": "model"},
                       {"path": "/x", "kind": "virus"}, {"path": "/m.vrm", "kind": "model"}, 7],
        });
        let prefs = Preferences::from_json(&v);
        let d = Preferences::default();
        assert_eq!(prefs.window_size, None);
        assert_eq!(prefs.inspector_width, None);
        assert_eq!(prefs.expressions_width, Some(200.0));
        assert!(!prefs.library_open);
        assert_eq!(prefs.library_at, None);
        assert_eq!(prefs.markers_visible, d.markers_visible);
        assert_eq!(prefs.import_rate, d.import_rate);
        assert_eq!(prefs.png_size, d.png_size);
        assert_eq!(prefs.png_view, d.png_view);
        assert_eq!(prefs.language, None);
        assert_eq!(
            prefs.recent,
            vec![RecentFile {
                path: "/m.vrm".into(),
                kind: RecentKind::Model
            }]
        );
    }

    #[test]
    fn recent_files_are_newest_first_once_each_and_capped() {
        let mut prefs = Preferences::default();
        for i in 0..RECENT_LIMIT + 5 {
            prefs.add_recent(Path::new(&format!("/f{i}.vrm")), RecentKind::Model);
        }
        prefs.add_recent(Path::new("/f7.vrm"), RecentKind::Model);
        assert_eq!(prefs.recent.len(), RECENT_LIMIT);
        let f7 = std::path::absolute("/f7.vrm").unwrap();
        assert_eq!(prefs.recent[0].path, f7);
        assert_eq!(prefs.recent.iter().filter(|r| r.path == f7).count(), 1);
        assert_eq!(
            prefs.recent[1].path,
            std::path::absolute(format!("/f{}.vrm", RECENT_LIMIT + 4)).unwrap()
        );
    }
}
