//! Helpers shared by the integration tests: the CLI binary, temp dirs, fixtures and
//! the Node reference harness (three-vrm, glTF validator).
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_vrma-maker"))
}

pub fn run(args: &[&str]) -> Output {
    bin().args(args).output().expect("the binary runs")
}

/// A fresh scratch directory for one test.
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("vrma-maker-tests-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// In CI a missing dependency of a test is a failure; on a developer machine the
/// test says what is missing and passes without checking.
pub fn required_or_skip(what: &str, present: bool) -> bool {
    if present {
        return true;
    }
    if std::env::var_os("CI").is_some() {
        panic!("{what} is missing in CI (.ci/run should provide it)");
    }
    eprintln!("SKIPPED: {what} is missing; this test checked nothing");
    false
}

/// The shared fixtures folder (`../shared/fixtures`), when present.
pub fn fixtures() -> Option<PathBuf> {
    let dir = repo().join("../shared/fixtures");
    dir.is_dir().then_some(dir)
}

/// Every fixture model (VRM 0.x and 1.0).
pub fn fixture_models() -> Vec<PathBuf> {
    let Some(dir) = fixtures() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for sub in ["vrm0", "vrm1"] {
        if let Ok(entries) = std::fs::read_dir(dir.join(sub)) {
            out.extend(
                entries
                    .flatten()
                    .map(|e| e.path())
                    .filter(|p| p.extension().is_some_and(|x| x == "vrm")),
            );
        }
    }
    out.sort();
    out
}

/// Whether the Node harness (tests/node with node_modules) can run.
pub fn node_ready() -> bool {
    repo()
        .join("tests/node/node_modules/@pixiv/three-vrm")
        .is_dir()
        && Command::new("node")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
}

pub fn node(script: &str, args: &[&Path]) -> Output {
    Command::new("node")
        .arg(repo().join("tests/node").join(script))
        .args(args)
        .output()
        .expect("node runs")
}

/// Writes both mannequin variants into `dir`; returns (vrm1, vrm0) paths.
pub fn mannequins(dir: &Path) -> (PathBuf, PathBuf) {
    let v1 = dir.join("mannequin.vrm");
    let v0 = dir.join("mannequin0.vrm");
    assert!(
        run(&["mannequin", "-o", v1.to_str().unwrap()])
            .status
            .success()
    );
    assert!(
        run(&["mannequin", "-o", v0.to_str().unwrap(), "--vrm0"])
            .status
            .success()
    );
    (v1, v0)
}

pub fn json_stdout(out: &Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("stdout is JSON")
}
