//! The pure core: no ECS, no window, no Bevy. glam math (the same glam as `bevy::math`), tested directly and fuzzed on its own.

// The layers, lowest first: each may use only the ones before it (`tests/it/layout.rs` checks).
pub mod animation;
pub mod body;
pub mod files;
pub mod formats;
pub mod model;

// Beside the layers: each may use any layer, none another of these.
pub mod capture;
pub mod prefs;
pub mod recovery;
pub mod vr;

use glam::Quat;
use serde_json::Value;
use std::fmt;
use std::path::Path;

/// A file, value or edit was refused (a corrupt file, a NaN, an edit with nothing to act
/// on); the message says which field and what was wrong, and nothing was changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal(pub String);

impl Refusal {
    /// A refusal is one line, whatever a file put in the names it quotes (a joint named
    /// with a line break): control characters become spaces.
    pub fn new(message: impl Into<String>) -> Refusal {
        let message: String = message.into();
        if message.chars().any(char::is_control) {
            Refusal(
                message
                    .chars()
                    .map(|c| if c.is_control() { ' ' } else { c })
                    .collect(),
            )
        } else {
            Refusal(message)
        }
    }

    /// Prefixes the message with where it came from (a file path, a step).
    pub fn context(self, what: impl fmt::Display) -> Refusal {
        Refusal::new(format!("{what}: {}", self.0))
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Refusal {}

#[cfg(test)]
mod refusal_tests {
    use super::*;

    #[test]
    fn a_refusal_is_one_line_whatever_it_quotes() {
        let r = Refusal::new("no hips among 'Hip\ns' and 'a\rb\u{7}'").context("file\n.bvh");
        assert!(!r.to_string().chars().any(char::is_control), "{r}");
        assert_eq!(Refusal::new("plain").to_string(), "plain");
    }
}

/// The largest model, project or animation file read (far above a 40 MB VRoid avatar or
/// a 100,000-key project).
pub const MAX_FILE_BYTES: u64 = 1 << 30;

/// The largest pose file (a pose is a few kilobytes).
pub const MAX_POSE_FILE_BYTES: u64 = 16 << 20;

/// Reads at most `limit` bytes of a regular file: a FIFO, a device (`/dev/zero`) or a
/// folder is refused instead of hanging or reading for ever, and so is a longer file.
pub fn read_bounded(path: &Path, limit: u64) -> Result<Vec<u8>, Refusal> {
    use std::io::Read;
    let cannot =
        |e: &dyn fmt::Display| Refusal::new(format!("cannot read {}: {e}", path.display()));
    let meta = std::fs::metadata(path).map_err(|e| cannot(&e))?;
    if !meta.is_file() {
        return Err(cannot(&"not a regular file"));
    }
    if meta.len() > limit {
        return Err(cannot(&format!(
            "it is {} MB; at most {} MB are read",
            meta.len() >> 20,
            limit >> 20
        )));
    }
    let file = std::fs::File::open(path).map_err(|e| cannot(&e))?;
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    // The length can change between the check and the read: read one byte past the limit.
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| cannot(&e))?;
    if bytes.len() as u64 > limit {
        return Err(cannot(&format!(
            "it grew past {} MB while being read",
            limit >> 20
        )));
    }
    Ok(bytes)
}

/// Reads a JSON file with a message naming the file.
pub fn read_json(path: &Path) -> Result<serde_json::Value, Refusal> {
    let bytes = read_bounded(path, MAX_FILE_BYTES)?;
    serde_json::from_slice(&bytes)
        .map_err(|e| Refusal::new(format!("{}: invalid JSON: {e}", path.display())))
}

/// Reads `[x, y, z, w]`, normalizing it; zero length or non-finite is an error.
pub fn read_quat(value: &Value, what: &str) -> Result<Quat, Refusal> {
    let q = read_floats::<4>(value, what)?;
    let q = Quat::from_array(q);
    let len = q.length();
    if !(len.is_finite()) || len < 1e-6 {
        return Err(Refusal::new(format!("{what}: quaternion has zero length")));
    }
    // Already unit (our own files): keep the exact bits so save → load is lossless.
    if (len - 1.0).abs() <= 1e-6 {
        Ok(q)
    } else {
        Ok(q / len)
    }
}

/// Reads an array of N finite numbers.
pub fn read_floats<const N: usize>(value: &Value, what: &str) -> Result<[f32; N], Refusal> {
    let array = value
        .as_array()
        .filter(|a| a.len() == N)
        .ok_or_else(|| Refusal::new(format!("{what}: expected an array of {N} numbers")))?;
    let mut out = [0.0f32; N];
    for (slot, v) in out.iter_mut().zip(array) {
        let x = v
            .as_f64()
            .ok_or_else(|| Refusal::new(format!("{what}: expected numbers, got {v}")))?;
        let x = x as f32;
        if !x.is_finite() {
            return Err(Refusal::new(format!(
                "{what}: value is not a finite number"
            )));
        }
        *slot = x;
    }
    Ok(out)
}

/// A JSON number that reads back as exactly the same `f32` (its shortest decimal form),
/// so saving and loading loses nothing.
pub fn num(x: f32) -> serde_json::Value {
    if !x.is_finite() {
        return serde_json::Value::Null;
    }
    serde_json::from_str(&x.to_string()).unwrap_or(serde_json::Value::Null)
}

/// Rounds to 7 decimals (for JSON output: stable, small, far below any tolerance).
pub fn round7(x: f32) -> f64 {
    (x as f64 * 1e7).round() / 1e7
}

/// Writes a file atomically: a temporary file beside it, then a rename, so a crash
/// never leaves a half-written file. A link is written through (the link stays, its
/// target is replaced), the file's permissions are kept, and the temporary file is
/// created exclusively under a name no other writer can guess or share. Where another
/// program holds the file open so that it cannot be replaced (Windows refuses that),
/// the error says so and the file is left as it was.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    use std::sync::atomic::{AtomicU64, Ordering};
    static WRITES: AtomicU64 = AtomicU64::new(0);

    let target = match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => std::fs::canonicalize(path)?,
        _ => path.to_path_buf(),
    };
    let mode = std::fs::metadata(&target).ok().map(|m| m.permissions());
    let dir = target
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
        .to_path_buf();
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let (mut file, tmp) = loop {
        let nonce = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64)
            ^ WRITES
                .fetch_add(1, Ordering::Relaxed)
                .wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let tmp = dir.join(format!(".{name}.tmp-{}-{nonce:016x}", std::process::id()));
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o666); // as `File::create`: the umask applies
        match options.open(&tmp) {
            Ok(file) => break (file, tmp),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    };
    let result = (|| {
        file.write_all(bytes)?;
        if let Some(permissions) = &mode {
            file.set_permissions(permissions.clone())?;
        }
        file.sync_all()?;
        drop(file);
        replace_file(&tmp, &target)?;
        // The rename itself must reach the disk too, or a power cut could undo it.
        if let Ok(folder) = std::fs::File::open(&dir) {
            let _ = folder.sync_all();
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Renames `from` over `to`. Windows refuses while another program has `to` open
/// without sharing it (an editor, a viewer, a virus scanner's quick look): a scanner
/// lets go within moments, so the rename is tried for a second before the error names
/// the likely cause.
fn replace_file(from: &Path, to: &Path) -> std::io::Result<()> {
    const TRIES: u32 = 20;
    let mut tries = 0;
    loop {
        match std::fs::rename(from, to) {
            Ok(()) => return Ok(()),
            Err(e) if held_by_another_program(&e, to) => {
                tries += 1;
                if tries == TRIES {
                    return Err(std::io::Error::new(
                        e.kind(),
                        format!(
                            "{} is open in another program, which keeps it from being replaced; \
                             close it there and save again",
                            to.display()
                        ),
                    ));
                }
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
            Err(e) => return Err(e),
        }
    }
}

/// Whether a failed rename means the destination is held open by another program:
/// Windows' sharing violation, lock violation, a mapped file, or access denied on a
/// file that is not read-only (what Windows answers for a file opened without
/// `FILE_SHARE_DELETE`). Never on Unix, where a rename replaces an open file.
fn held_by_another_program(error: &std::io::Error, to: &Path) -> bool {
    const ERROR_ACCESS_DENIED: i32 = 5;
    const ERROR_SHARING_VIOLATION: i32 = 32;
    const ERROR_LOCK_VIOLATION: i32 = 33;
    const ERROR_USER_MAPPED_FILE: i32 = 1224;
    if !cfg!(windows) {
        return false;
    }
    match error.raw_os_error() {
        Some(ERROR_SHARING_VIOLATION | ERROR_LOCK_VIOLATION | ERROR_USER_MAPPED_FILE) => true,
        Some(ERROR_ACCESS_DENIED) => {
            std::fs::metadata(to).is_ok_and(|meta| !meta.permissions().readonly())
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[cfg(unix)]
    #[test]
    fn atomic_writes_go_through_links_keep_the_mode_and_never_share_a_temporary_file() {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("vrma-atomic-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("real")).unwrap();
        let real = dir.join("real/project.json");
        std::fs::write(&real, b"old").unwrap();
        std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o640)).unwrap();
        let link = dir.join("link.json");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        write_atomic(&link, b"new").unwrap();
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink(),
            "the link stays"
        );
        assert_eq!(std::fs::read(&real).unwrap(), b"new");
        let mode = std::fs::metadata(&real).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o640, "the mode is kept");
        // Many writers of one file at once: every write lands whole, none collides.
        let shared = dir.join("shared.json");
        let writers: Vec<_> = (0..8u8)
            .map(|w| {
                let shared = shared.clone();
                std::thread::spawn(move || {
                    for _ in 0..50 {
                        write_atomic(&shared, &[w; 4096]).unwrap();
                    }
                })
            })
            .collect();
        for w in writers {
            w.join().unwrap();
        }
        let last = std::fs::read(&shared).unwrap();
        assert!(last.len() == 4096 && last.iter().all(|&b| b == last[0]));
        let left: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().contains(".tmp-"))
            .collect();
        assert!(left.is_empty(), "no temporary file is left");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    fn scratch_folder(name: &str) -> std::path::PathBuf {
        // A space and non-ASCII letters, as in many Windows user folders.
        let dir = std::env::temp_dir().join(format!("vrma {name} ユーザー {}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn temporaries_in(dir: &Path) -> usize {
        std::fs::read_dir(dir)
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().contains(".tmp-"))
            .count()
    }

    #[test]
    fn an_atomic_write_replaces_an_existing_file() {
        let dir = scratch_folder("replace");
        let file = dir.join("プロジェクト.json");
        write_atomic(&file, b"first").unwrap();
        write_atomic(&file, b"second, longer").unwrap();
        assert_eq!(std::fs::read(&file).unwrap(), b"second, longer");
        assert_eq!(temporaries_in(&dir), 0, "no temporary file is left");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Windows refuses to replace a file another program holds open without sharing it;
    /// the save must then fail with a message that says so, and leave the file whole.
    #[cfg(windows)]
    #[test]
    fn a_file_held_open_by_another_program_is_left_whole_with_a_clear_message() {
        use std::os::windows::fs::OpenOptionsExt;
        let dir = scratch_folder("held");
        let file = dir.join("project.json");
        std::fs::write(&file, b"kept").unwrap();
        let holder = std::fs::OpenOptions::new()
            .read(true)
            .share_mode(0) // as an editor that locks what it has open
            .open(&file)
            .unwrap();
        let refused = write_atomic(&file, b"new").unwrap_err().to_string();
        assert!(
            refused.contains("open in another program") && refused.contains("project.json"),
            "{refused}"
        );
        drop(holder);
        assert_eq!(std::fs::read(&file).unwrap(), b"kept");
        assert_eq!(temporaries_in(&dir), 0, "no temporary file is left");
        write_atomic(&file, b"new").unwrap();
        assert_eq!(
            std::fs::read(&file).unwrap(),
            b"new",
            "once let go, it saves"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    proptest! {
        #[test]
        fn num_reads_back_the_same_f32(x in proptest::num::f32::NORMAL | proptest::num::f32::ZERO) {
            let text = num(x).to_string();
            let back: serde_json::Value = serde_json::from_str(&text).unwrap();
            prop_assert_eq!(back.as_f64().unwrap() as f32, x, "{}", text);
        }
    }
}
