//! The pose library (SPEC §5): one pose JSON (with its name) and one thumbnail PNG per
//! entry in a folder of the user data directory, every write atomic. A corrupt entry is
//! skipped with a warning; the rest still loads.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::Refusal;
use crate::animation::edit::PoseEdit;
use crate::body::pose::{BodyMask, Pose};

/// One saved pose.
#[derive(Clone, Debug, PartialEq)]
pub struct LibraryEntry {
    /// File stem, unique in the folder.
    pub id: String,
    pub name: String,
    pub pose: Pose,
    /// The part of the body the entry is of (a hand pose: one hand); whole body for a
    /// full pose. Applying it changes only that part.
    pub mask: BodyMask,
}

impl LibraryEntry {
    /// The edit that applies this entry, pasted onto `onto` (Edit ▸ Paste onto): a
    /// whole-body entry goes onto that part; a part's entry goes onto its own part, or
    /// mirrored onto the other hand or arm when that one is chosen.
    pub fn apply_edit(&self, onto: BodyMask) -> PoseEdit {
        let pose = Box::new(self.pose.clone());
        let (mask, mirror) = match (self.mask, onto) {
            (BodyMask::WholeBody, BodyMask::WholeBody) => return PoseEdit::SetPose(pose),
            (BodyMask::WholeBody, onto) => (onto, false),
            (own, onto) if own.mirrored() == onto && own != onto => (onto, true),
            (own, _) => (own, false),
        };
        PoseEdit::ApplyPose { pose, mask, mirror }
    }
}

/// The library folder and what was read from it.
#[derive(Clone, Debug)]
pub struct Library {
    dir: PathBuf,
    pub entries: Vec<LibraryEntry>,
    /// Entries that could not be read, one line each.
    pub warnings: Vec<String>,
}

/// The user data folder: `$VRMA_MAKER_DATA_DIR` when set (tests, portable use), else the
/// OS user data directory (the library and the pose models live there).
pub fn data_dir() -> PathBuf {
    std::env::var_os("VRMA_MAKER_DATA_DIR")
        .map(PathBuf::from)
        .or_else(|| {
            directories::ProjectDirs::from("", "", "vrma-maker").map(|d| d.data_dir().to_path_buf())
        })
        .unwrap_or_else(|| PathBuf::from(".vrma-maker"))
}

/// The library folder: `library` in the user data folder.
pub fn default_dir() -> PathBuf {
    data_dir().join("library")
}

/// A file-name-safe stem from a pose name.
fn slug(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .take(48)
        .collect();
    let s = s.trim_matches('-').to_string();
    if s.is_empty() { "pose".into() } else { s }
}

fn read_entry(path: &Path) -> Result<LibraryEntry, Refusal> {
    // A pose pack is someone else's folder: a link in it (`a.json -> /dev/zero`) is not
    // followed.
    let meta =
        std::fs::symlink_metadata(path).map_err(|e| Refusal::new(format!("cannot read: {e}")))?;
    if meta.file_type().is_symlink() {
        return Err(Refusal::new("a link, not a pose file"));
    }
    let bytes = crate::read_bounded(path, crate::MAX_POSE_FILE_BYTES)?;
    let value: Value =
        serde_json::from_slice(&bytes).map_err(|e| Refusal::new(format!("invalid JSON: {e}")))?;
    let mut warnings = Vec::new();
    let pose = Pose::from_json(&value, &mut warnings)?;
    let id = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let name = value
        .get("name")
        .and_then(Value::as_str)
        .map(str::to_string)
        .unwrap_or_else(|| id.clone());
    let mask = value
        .get("mask")
        .and_then(Value::as_str)
        .and_then(BodyMask::from_name)
        .unwrap_or_default();
    Ok(LibraryEntry {
        id,
        name,
        pose,
        mask,
    })
}

/// Removes what interrupted atomic writes left behind (`.NAME.tmp-PID`, see
/// [`crate::write_atomic`]) once they are a minute old: no write takes that long.
pub(crate) fn remove_stale_temporary_files(dir: &Path) {
    let Ok(listing) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in listing.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let stale = entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age.as_secs() >= 60);
        if name.starts_with('.') && name.contains(".tmp-") && stale {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// A pose's name, trimmed; an empty one is refused.
fn checked_name(name: &str) -> Result<&str, Refusal> {
    let name = name.trim();
    if name.is_empty() {
        return Err(Refusal::new("a library pose needs a name"));
    }
    Ok(name)
}

impl Library {
    fn entry(&self, id: &str) -> Result<&LibraryEntry, Refusal> {
        self.entries
            .iter()
            .find(|e| e.id == id)
            .ok_or_else(|| Refusal::new(format!("no library pose '{id}'")))
    }

    /// Opens (creating) a library folder and reads every entry in it.
    pub fn open(dir: &Path) -> Result<Library, Refusal> {
        std::fs::create_dir_all(dir).map_err(|e| {
            Refusal::new(format!(
                "cannot create the library folder {}: {e}",
                dir.display()
            ))
        })?;
        remove_stale_temporary_files(dir);
        let mut library = Library {
            dir: dir.to_path_buf(),
            entries: Vec::new(),
            warnings: Vec::new(),
        };
        library.reload();
        Ok(library)
    }

    /// Re-reads the folder.
    pub fn reload(&mut self) {
        self.entries.clear();
        self.warnings.clear();
        let Ok(listing) = std::fs::read_dir(&self.dir) else {
            self.warnings
                .push(format!("cannot list {}", self.dir.display()));
            return;
        };
        let mut paths: Vec<PathBuf> = listing
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .filter(|p| {
                !p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with('.'))
            })
            .collect();
        paths.sort();
        for path in paths {
            match read_entry(&path) {
                Ok(entry) => self.entries.push(entry),
                Err(e) => self
                    .warnings
                    .push(format!("skipped {}: {e}", path.display())),
            }
        }
        self.sort();
    }

    pub fn pose_path(&self, id: &str) -> PathBuf {
        self.dir.join(format!("{id}.json"))
    }

    /// Where an entry's 96×128 thumbnail lives.
    pub fn thumbnail_path(&self, id: &str) -> PathBuf {
        self.dir.join(format!("{id}.png"))
    }

    fn write(&self, id: &str, name: &str, pose: &Pose, mask: BodyMask) -> Result<(), Refusal> {
        let mut json = pose.to_json("");
        json["name"] = Value::String(name.to_string());
        if mask != BodyMask::WholeBody {
            json["mask"] = Value::String(mask.name().to_string());
        }
        let text = serde_json::to_vec_pretty(&json).expect("JSON serialises");
        crate::write_atomic(&self.pose_path(id), &text)
            .map_err(|e| Refusal::new(format!("cannot save {}: {e}", self.pose_path(id).display())))
    }

    /// Saves a new entry (never overwriting another); returns its id.
    pub fn add(&mut self, name: &str, pose: &Pose) -> Result<String, Refusal> {
        self.add_part(name, pose, BodyMask::WholeBody)
    }

    /// Saves a new entry of one part of the body (a hand pose: `LeftHand`).
    pub fn add_part(&mut self, name: &str, pose: &Pose, mask: BodyMask) -> Result<String, Refusal> {
        let id = self.add_unsorted(name, pose, mask)?;
        self.sort();
        Ok(id)
    }

    fn add_unsorted(&mut self, name: &str, pose: &Pose, mask: BodyMask) -> Result<String, Refusal> {
        let name = checked_name(name)?;
        let id = claim_free_name(&self.dir, &slug(name), "json")?;
        if let Err(e) = self.write(&id, name, pose, mask) {
            let _ = std::fs::remove_file(self.pose_path(&id)); // the empty claim
            return Err(e);
        }
        self.entries.push(LibraryEntry {
            id: id.clone(),
            name: name.to_string(),
            pose: pose.clone(),
            mask,
        });
        Ok(id)
    }

    fn sort(&mut self) {
        self.entries.sort_by(|a, b| {
            a.name
                .to_lowercase()
                .cmp(&b.name.to_lowercase())
                .then(a.id.cmp(&b.id))
        });
    }

    /// Replaces an entry's pose (keeping its name).
    pub fn overwrite(&mut self, id: &str, pose: &Pose) -> Result<(), Refusal> {
        let entry = self.entry(id)?;
        let (name, mask) = (entry.name.clone(), entry.mask);
        self.write(id, &name, pose, mask)?;
        self.reload();
        Ok(())
    }

    pub fn rename(&mut self, id: &str, name: &str) -> Result<(), Refusal> {
        let name = checked_name(name)?;
        let entry = self.entry(id)?;
        let (pose, mask) = (entry.pose.clone(), entry.mask);
        self.write(id, name, &pose, mask)?;
        self.reload();
        Ok(())
    }

    pub fn delete(&mut self, id: &str) -> Result<(), Refusal> {
        std::fs::remove_file(self.pose_path(id))
            .map_err(|e| Refusal::new(format!("cannot delete '{id}': {e}")))?;
        let _ = std::fs::remove_file(self.thumbnail_path(id));
        self.reload();
        Ok(())
    }

    /// Copies every entry (pose JSON and thumbnail) into `dir`, never over a file that is
    /// already there (a same-named one gets a free name beside it).
    pub fn export_to(&self, dir: &Path) -> Result<usize, Refusal> {
        std::fs::create_dir_all(dir)
            .map_err(|e| Refusal::new(format!("cannot create {}: {e}", dir.display())))?;
        for entry in &self.entries {
            let bytes =
                crate::read_bounded(&self.pose_path(&entry.id), crate::MAX_POSE_FILE_BYTES)?;
            let id = claim_free_name(dir, &entry.id, "json")?;
            crate::write_atomic(&dir.join(format!("{id}.json")), &bytes)
                .map_err(|e| Refusal::new(e.to_string()))?;
            if let Ok(png) = std::fs::read(self.thumbnail_path(&entry.id)) {
                let _ = crate::write_atomic(&dir.join(format!("{id}.png")), &png);
            }
        }
        Ok(self.entries.len())
    }

    /// Adds every readable pose JSON in `dir` as new entries (never overwriting);
    /// returns how many were added and a warning per file skipped or not saved.
    pub fn import_from(&mut self, dir: &Path) -> Result<(usize, Vec<String>), Refusal> {
        let mut other = Library {
            dir: dir.to_path_buf(),
            entries: Vec::new(),
            warnings: Vec::new(),
        };
        other.reload();
        let mut added = 0;
        let mut warnings = other.warnings;
        for entry in &other.entries {
            match self.add_unsorted(&entry.name, &entry.pose, entry.mask) {
                Ok(_) => added += 1,
                Err(e) => warnings.push(format!("not imported '{}': {e}", entry.name)),
            }
        }
        self.sort();
        Ok((added, warnings))
    }
}

/// The first of `stem`, `stem-1`, `stem-2`… free in `dir`, claimed by creating the file
/// exclusively: two instances adding the same name at once get different ones.
fn claim_free_name(dir: &Path, stem: &str, extension: &str) -> Result<String, Refusal> {
    for n in 0..100_000 {
        let id = if n == 0 {
            stem.to_string()
        } else {
            format!("{stem}-{n}")
        };
        let path = dir.join(format!("{id}.{extension}"));
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(_) => return Ok(id),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(Refusal::new(format!("cannot save {}: {e}", path.display()))),
        }
    }
    Err(Refusal::new(format!(
        "no free name for '{stem}' in {}",
        dir.display()
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::humanoid::Bone;
    use glam::Quat;

    fn temp(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("vrma-maker-library-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    /// A hand saved from the pose (the presets' way of making your own) keeps its part
    /// across a restart, and applying it changes that hand only; chosen onto the other
    /// hand, it lands there mirrored.
    #[test]
    fn a_saved_hand_keeps_its_part_and_applies_to_that_hand_or_the_other_mirrored() {
        use crate::animation::edit::{Editor, GripSide, PoseEdit};
        use crate::model::humanoid::{ALL_BONES, Side, finger_bones};
        let dir = temp("hands");
        let rig = crate::body::rig::rig_from_bytes(&crate::model::mannequin::build(
            crate::model::mannequin::MannequinVariant::Vrm1,
        ))
        .unwrap();
        let mut editor = Editor::new(rig);
        let fist = crate::body::hand::preset("fist").unwrap().shape;
        editor
            .apply(
                PoseEdit::Hand {
                    side: GripSide::One(Side::Left),
                    shape: Box::new(fist),
                    amount: 1.0,
                }
                .into(),
            )
            .unwrap();
        // The rest of the saved pose must not come along: a turned neck.
        editor
            .apply(
                PoseEdit::Rotate {
                    bone: Bone::Neck,
                    rotation: Quat::from_rotation_x(0.3),
                }
                .into(),
            )
            .unwrap();
        let saved = editor.pose.clone();
        let mut lib = Library::open(&dir).unwrap();
        let id = lib.add_part("My fist", &saved, BodyMask::LeftHand).unwrap();
        let lib = Library::open(&dir).unwrap();
        let entry = lib.entries.iter().find(|e| e.id == id).unwrap();
        assert_eq!(entry.mask, BodyMask::LeftHand);

        let mut target = Pose::default();
        target.set_rotation(Bone::RightUpperArm, Quat::from_rotation_z(0.5));
        for onto in [BodyMask::WholeBody, BodyMask::LeftHand, BodyMask::RightHand] {
            let mut applied = Editor::new(editor.rig.clone());
            applied
                .apply(PoseEdit::SetPose(Box::new(target.clone())).into())
                .unwrap();
            applied.apply(entry.apply_edit(onto).into()).unwrap();
            let (side, want) = if onto == BodyMask::RightHand {
                (Side::Right, saved.mirrored())
            } else {
                (Side::Left, saved.clone())
            };
            for &bone in finger_bones(side) {
                assert!(
                    applied
                        .pose
                        .rotation(bone)
                        .angle_between(want.rotation(bone))
                        < 1e-5,
                    "{onto:?}: {bone}"
                );
            }
            for bone in ALL_BONES {
                if !finger_bones(side).contains(&bone) {
                    assert_eq!(
                        applied.pose.rotation(bone),
                        target.rotation(bone),
                        "{onto:?}: {bone} is untouched"
                    );
                }
            }
        }
    }

    #[test]
    fn entries_survive_a_restart_and_corrupt_ones_are_skipped() {
        let dir = temp("restart");
        let mut lib = Library::open(&dir).unwrap();
        let mut pose = Pose::default();
        pose.set_rotation(Bone::Neck, Quat::from_rotation_x(0.3));
        let a = lib.add("Wave hello", &pose).unwrap();
        let b = lib.add("Wave hello", &Pose::default()).unwrap();
        assert_ne!(a, b, "same names never overwrite");
        std::fs::write(dir.join("broken.json"), b"{ not json").unwrap();
        std::fs::write(
            dir.join("zero.json"),
            br#"{"bones": {"neck": [0, 0, 0, 0]}}"#,
        )
        .unwrap();
        // A pose file past the pose size limit is not read at all.
        let huge = std::fs::File::create(dir.join("huge.json")).unwrap();
        huge.set_len(crate::MAX_POSE_FILE_BYTES + 1).unwrap();
        // Links are not followed: a pack with `a.json -> /dev/zero` would never end.
        #[cfg(unix)]
        std::os::unix::fs::symlink("/dev/zero", dir.join("endless.json")).unwrap();
        let links = if cfg!(unix) { 1 } else { 0 };
        let reopened = Library::open(&dir).unwrap();
        assert_eq!(reopened.entries.len(), 2);
        assert_eq!(
            reopened.warnings.len(),
            3 + links,
            "{:?}",
            reopened.warnings
        );
        assert!(
            reopened
                .warnings
                .iter()
                .any(|w| w.contains("huge.json") && w.contains("at most 16 MB"))
        );
        #[cfg(unix)]
        assert!(
            reopened
                .warnings
                .iter()
                .any(|w| w.contains("endless.json") && w.contains("link"))
        );
        assert!(reopened.warnings.iter().any(|w| w.contains("broken.json")));
        let wave = reopened.entries.iter().find(|e| e.id == a).unwrap();
        assert_eq!(wave.name, "Wave hello");
        assert_eq!(wave.pose.rotation(Bone::Neck), pose.rotation(Bone::Neck));
    }

    #[test]
    fn two_instances_adding_the_same_name_at_once_keep_both_and_export_never_overwrites() {
        let dir = temp("race");
        let mut a = Library::open(&dir).unwrap();
        let mut b = Library::open(&dir).unwrap();
        let threads: Vec<_> = [0.1f32, 0.2]
            .into_iter()
            .map(|angle| {
                let mut lib = Library::open(&dir).unwrap();
                std::thread::spawn(move || {
                    let mut pose = Pose::default();
                    pose.set_rotation(Bone::Neck, Quat::from_rotation_x(angle));
                    (0..50)
                        .map(|_| lib.add("Same", &pose).unwrap())
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        let ids: Vec<String> = threads
            .into_iter()
            .flat_map(|t| t.join().unwrap())
            .collect();
        let unique: std::collections::BTreeSet<_> = ids.iter().collect();
        assert_eq!(unique.len(), 100, "every add got its own file");
        a.reload();
        assert_eq!(a.entries.len(), 100, "{:?}", a.warnings);
        // Exporting twice into one folder keeps the first copies.
        let out = temp("race-export");
        assert_eq!(a.export_to(&out).unwrap(), 100);
        assert_eq!(a.export_to(&out).unwrap(), 100);
        b.reload();
        let (added, warnings) = b.import_from(&out).unwrap();
        assert_eq!((added, warnings.len()), (200, 0), "{warnings:?}");
        assert_eq!(b.entries.len(), 300);
    }

    #[test]
    fn rename_overwrite_delete_export_and_import() {
        let dir = temp("ops");
        let mut lib = Library::open(&dir).unwrap();
        let id = lib.add("Sit", &Pose::default()).unwrap();
        std::fs::write(lib.thumbnail_path(&id), b"png").unwrap();
        lib.rename(&id, "Sit down").unwrap();
        assert_eq!(lib.entries[0].name, "Sit down");
        let mut pose = Pose::default();
        pose.set_rotation(Bone::Spine, Quat::from_rotation_y(0.2));
        lib.overwrite(&id, &pose).unwrap();
        assert_eq!(
            lib.entries[0].pose.rotation(Bone::Spine),
            pose.rotation(Bone::Spine)
        );
        assert!(lib.rename(&id, "  ").is_err());
        let out = temp("ops-export");
        assert_eq!(lib.export_to(&out).unwrap(), 1);
        assert!(out.join(format!("{id}.png")).exists());
        lib.delete(&id).unwrap();
        assert!(lib.entries.is_empty() && !lib.thumbnail_path(&id).exists());
        let (added, warnings) = lib.import_from(&out).unwrap();
        assert_eq!((added, warnings.len()), (1, 0));
        assert_eq!(lib.entries[0].name, "Sit down");
    }
}
