//! Crash recovery (issue 8): the open work is autosaved to a recovery file in the user
//! data folder; the next start offers it back. The file is a project plus where the
//! work came from and when it was written.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::Refusal;
use super::project::Project;

/// The recovery file: `$VRMA_MAKER_DATA_DIR/recovery.json` or the OS data folder.
pub fn recovery_path() -> PathBuf {
    super::library::default_dir().with_file_name("recovery.json")
}

/// What a recovery file holds.
#[derive(Clone, Debug)]
pub struct Recovery {
    pub project: Project,
    /// The project file the work belongs to (None = never saved).
    pub project_path: Option<PathBuf>,
    /// Seconds since the Unix epoch when it was written.
    pub saved_at: u64,
}

pub fn now_secs() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Writes the recovery file atomically.
pub fn write(path: &Path, project: &Project, project_path: Option<&Path>) -> Result<(), Refusal> {
    let value = json!({
        "v": 1,
        "saved_at": now_secs(),
        "project_path": project_path.map(|p| p.to_string_lossy().into_owned()),
        "project": project.to_json(),
    });
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| Refusal::new(format!("cannot create {}: {e}", dir.display())))?;
    }
    let text = serde_json::to_vec(&value).expect("JSON serialises");
    super::write_atomic(path, &text)
        .map_err(|e| Refusal::new(format!("cannot write {}: {e}", path.display())))
}

/// Reads a recovery file; `None` when there is none.
pub fn read(path: &Path) -> Result<Option<Recovery>, Refusal> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            return Err(Refusal::new(format!("cannot read {}: {e}", path.display())));
        }
    };
    let value: Value = serde_json::from_slice(&bytes)
        .map_err(|e| Refusal::new(format!("{}: invalid JSON: {e}", path.display())))?;
    let mut warnings = Vec::new();
    let project = Project::from_json(value.get("project").unwrap_or(&Value::Null), &mut warnings)
        .map_err(|e| e.context(path.display()))?;
    Ok(Some(Recovery {
        project,
        project_path: value
            .get("project_path")
            .and_then(Value::as_str)
            .map(PathBuf::from),
        saved_at: value.get("saved_at").and_then(Value::as_u64).unwrap_or(0),
    }))
}

/// Removes the recovery file (after a successful save, or when work is discarded).
pub fn clear(path: &Path) {
    let _ = std::fs::remove_file(path);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pose::Pose;

    #[test]
    fn a_recovery_file_round_trips_and_absence_is_not_an_error() {
        let dir = std::env::temp_dir().join(format!("vrma-maker-recovery-{}", std::process::id()));
        let path = dir.join("recovery.json");
        assert!(read(&path).unwrap().is_none());
        let mut project = Project {
            model_title: "m".into(),
            ..Default::default()
        };
        project.timeline.set_key(0.5, Pose::default());
        write(&path, &project, Some(Path::new("/work/walk.json"))).unwrap();
        let back = read(&path).unwrap().unwrap();
        assert_eq!(back.project.to_json(), project.to_json());
        assert_eq!(
            back.project_path.as_deref(),
            Some(Path::new("/work/walk.json"))
        );
        assert!(back.saved_at > 0);
        clear(&path);
        assert!(read(&path).unwrap().is_none());
        std::fs::write(&path, b"{ broken").unwrap();
        assert!(read(&path).is_err());
    }
}
