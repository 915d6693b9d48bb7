//! Crash recovery (issue 8): the open work is autosaved to a recovery file in the user
//! data folder; the next start offers it back. The file is a project plus where the
//! work came from and when it was written.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::Refusal;
use crate::animation::project::Project;

/// The recovery file of versions that kept one for every window (offered like an
/// orphan, never written).
pub fn legacy_recovery_path() -> PathBuf {
    crate::animation::library::default_dir().with_file_name("recovery.json")
}

/// Where each running instance keeps its recovery file, beside a lock it holds while it
/// runs: `$VRMA_MAKER_DATA_DIR/recovery/` or the OS data folder.
pub fn recovery_dir() -> PathBuf {
    crate::animation::library::default_dir().with_file_name("recovery")
}

/// One instance's recovery file, and the lock that says its owner is running.
#[derive(Debug)]
pub struct Claim {
    pub path: PathBuf,
    /// Held open and locked for as long as the claim lives; the OS lets it go when the
    /// process ends, however it ends.
    _lock: Option<std::fs::File>,
}

impl Claim {
    /// Gives the claimed file up: it and its lock are removed (recovered work that now
    /// lives in another file).
    pub fn discard(self) {
        clear(&self.path);
        let _ = std::fs::remove_file(self.path.with_extension("lock"));
    }
}

/// Locks `path`'s lock file if no running instance holds it.
fn try_claim(path: PathBuf) -> Option<Claim> {
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path.with_extension("lock"))
        .ok()?;
    lock.try_lock().ok()?;
    Some(Claim {
        path,
        _lock: Some(lock),
    })
}

/// This instance's own recovery file, claimed for the life of the process: two windows
/// never write, read or delete each other's.
pub fn own_claim() -> &'static Claim {
    static OWN: std::sync::OnceLock<Claim> = std::sync::OnceLock::new();
    OWN.get_or_init(|| {
        let dir = recovery_dir();
        let _ = std::fs::create_dir_all(&dir);
        let started = now_nanos();
        (0u32..)
            .map(|n| dir.join(format!("{}-{started:x}-{n}.json", std::process::id())))
            .take(100)
            .find_map(try_claim)
            // A folder that cannot be written: autosave reports the error on write.
            .unwrap_or_else(|| Claim {
                path: dir.join(format!("{}.json", std::process::id())),
                _lock: None,
            })
    })
}

/// This instance's recovery file.
pub fn own_path() -> PathBuf {
    own_claim().path.clone()
}

/// Recovery files whose owner is gone (crashed, killed), newest first, each claimed so
/// that another instance starting now does not offer it too. Files of running
/// instances, and this one's own, are left alone.
pub fn orphans() -> Vec<(Claim, Recovery)> {
    let own = own_path();
    // An autosave cut short by a crash leaves its temporary file.
    crate::animation::library::remove_stale_temporary_files(&recovery_dir());
    let mut found = Vec::new();
    if let Ok(Some(r)) = read(&legacy_recovery_path()) {
        found.push((
            Claim {
                path: legacy_recovery_path(),
                _lock: None,
            },
            r,
        ));
    }
    let listing = std::fs::read_dir(recovery_dir())
        .into_iter()
        .flatten()
        .flatten();
    for entry in listing {
        let path = entry.path();
        if path == own || path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let Some(claim) = try_claim(path) else {
            continue; // its owner is running
        };
        match read(&claim.path) {
            Ok(Some(r)) => found.push((claim, r)),
            // An owner that ended before its first autosave leaves only a lock.
            Ok(None) => {
                let _ = std::fs::remove_file(claim.path.with_extension("lock"));
            }
            Err(_) => {} // unreadable: left as it is for the user to look at
        }
    }
    found.sort_by_key(|(_, r)| std::cmp::Reverse(r.saved_at));
    found
}

fn now_nanos() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos())
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
    crate::write_atomic(path, &text)
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
    use crate::body::pose::Pose;

    #[test]
    fn a_locked_recovery_file_is_not_an_orphan_and_a_released_one_is() {
        let dir = std::env::temp_dir().join(format!("vrma-maker-claims-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("other.json");
        let held = try_claim(path.clone()).expect("free at first");
        assert!(
            try_claim(path.clone()).is_none(),
            "held by a running instance"
        );
        drop(held);
        let again = try_claim(path.clone()).expect("free once its owner is gone");
        std::fs::write(&path, b"{}").unwrap();
        again.discard();
        assert!(!path.exists() && !path.with_extension("lock").exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }

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
