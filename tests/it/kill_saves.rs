//! Atomic saves under SIGKILL (issue 8): processes writing a project (the CLI's `apply
//! -o`, and a child saving in a loop) or the pose library (a child overwriting and
//! renaming an entry in a loop) are killed at random moments, 200 times each; what is on
//! disk is always a complete old or new version.

use std::time::Duration;

use crate::common::*;
use serde_json::{Value, json};

#[test]
fn a_killed_save_leaves_the_old_or_the_new_file_never_a_broken_one() {
    let dir = scratch("kill-saves");
    let (model, _) = mannequins(&dir);
    let out = dir.join("project.json");
    // Two versions that differ everywhere: 40 keys of different poses.
    let scripts: Vec<std::path::PathBuf> = (0..2)
        .map(|v| {
            let mut steps = Vec::new();
            for k in 0..40 {
                let a = (k as f32 * 0.1 + v as f32) * 0.5;
                steps.push(json!({"op": "seek", "t": k as f32 / 10.0}));
                steps.push(
                    json!({"op": "rotate", "bone": "spine", "quat": [0.0, a.sin(), 0.0, a.cos()]}),
                );
                steps.push(json!({"op": "key"}));
            }
            let path = dir.join(format!("script{v}.json"));
            std::fs::write(&path, Value::Array(steps).to_string()).unwrap();
            path
        })
        .collect();
    let versions: Vec<Value> = scripts
        .iter()
        .map(|s| {
            let tmp = dir.join("reference.json");
            assert!(
                run(&[
                    "apply",
                    "--model",
                    model.to_str().unwrap(),
                    "--script",
                    s.to_str().unwrap(),
                    "-o",
                    tmp.to_str().unwrap()
                ])
                .status
                .success()
            );
            serde_json::from_slice(&std::fs::read(&tmp).unwrap()).unwrap()
        })
        .collect();
    std::fs::write(&out, versions[0].to_string()).unwrap();
    // Kills land anywhere in a run: the sleep before each is spread over how long one
    // whole run takes here (measured, so a faster build still gets killed mid-run).
    let started = std::time::Instant::now();
    let whole = bin()
        .args([
            "apply",
            "--model",
            model.to_str().unwrap(),
            "--script",
            scripts[1].to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(whole.status.success());
    let run_micros = (started.elapsed().as_micros() as u64).max(1);
    let mut seed = 0x2545_f491_u64;
    let mut killed_mid_run = 0;
    for i in 0..200 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let mut child = bin()
            .args([
                "apply",
                "--model",
                model.to_str().unwrap(),
                "--script",
                scripts[i % 2].to_str().unwrap(),
                "-o",
                out.to_str().unwrap(),
            ])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_micros(seed % run_micros));
        if child.try_wait().unwrap().is_none() {
            killed_mid_run += 1;
        }
        let _ = child.kill(); // SIGKILL
        child.wait().unwrap();
        let on_disk: Value = serde_json::from_slice(&std::fs::read(&out).unwrap())
            .unwrap_or_else(|e| panic!("kill {i}: broken file: {e}"));
        assert!(
            versions.contains(&on_disk),
            "kill {i}: the file is neither the old nor the new version"
        );
    }
    assert!(
        killed_mid_run >= 50,
        "most kills must land while the process runs ({killed_mid_run}; a run takes {run_micros} µs)"
    );
}

/// What the writer child does (run by the kill tests below as a separate process: this
/// same test binary, with `VRMA_KILL_WRITER` saying what to write where).
#[test]
#[ignore = "a child process of the kill tests; they run it"]
fn writer_child() {
    use vrma_maker::core::animation::library::Library;
    let (Some(mode), Some(path)) = (
        std::env::var_os("VRMA_KILL_WRITER"),
        std::env::var_os("VRMA_KILL_PATH"),
    ) else {
        return;
    };
    let path = std::path::PathBuf::from(path);
    if mode == "project" {
        let projects = two_projects();
        for i in 0usize.. {
            projects[i % 2].save(&path).unwrap();
        }
    } else {
        let (a, b) = two_poses();
        let mut library = Library::open(&path).unwrap();
        let id = library.entries[0].id.clone();
        for i in 0usize.. {
            match i % 3 {
                0 => library.overwrite(&id, &a).unwrap(),
                1 => library.overwrite(&id, &b).unwrap(),
                _ => library.rename(&id, ["Wave", "Salute"][i % 2]).unwrap(),
            }
        }
    }
}

/// Two poses that differ in every rotated bone, the hips and an expression.
fn two_poses() -> (
    vrma_maker::core::body::pose::Pose,
    vrma_maker::core::body::pose::Pose,
) {
    use bevy::math::{Quat, Vec3};
    use vrma_maker::core::body::pose::Pose;
    use vrma_maker::core::model::humanoid::ALL_BONES;
    let make = |angle: f32| {
        let mut pose = Pose::default();
        for (i, bone) in ALL_BONES.iter().enumerate() {
            if !bone.is_eye() {
                pose.set_rotation(*bone, Quat::from_rotation_y(angle + i as f32 * 0.01));
            }
        }
        pose.hips = Some(Vec3::new(0.0, 0.9 + angle * 0.1, 0.0));
        pose.expressions.insert("happy".into(), angle.min(1.0));
        pose
    };
    (make(0.3), make(0.7))
}

/// Two projects with 200 keys each, different everywhere (large enough that a write
/// takes a while).
fn two_projects() -> [vrma_maker::core::animation::project::Project; 2] {
    use vrma_maker::core::animation::project::Project;
    use vrma_maker::core::animation::timeline::Timeline;
    let (a, b) = two_poses();
    [(&a, &b), (&b, &a)].map(|(first, second)| {
        let mut project = Project::default();
        let mut timeline = Timeline::default();
        for k in 0..200 {
            let pose = if k % 2 == 0 { first } else { second };
            timeline.set_key(k as f32 / 10.0, pose.clone());
        }
        project.timeline = timeline;
        project.settings.length = 20.0;
        project
    })
}

/// How many interrupted writes left a temporary file in `dir` (a kill mid-write).
fn interrupted_writes(dir: &std::path::Path) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().contains(".tmp-"))
        .count()
}

/// Starts the writer child and kills it (SIGKILL) after a random moment, 200 times.
fn kill_writer_200_times(mode: &str, path: &std::path::Path, check: impl Fn(usize)) {
    let mut seed = 0x9e37_79b9_u64 ^ mode.len() as u64;
    for i in 0..200 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let mut child = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "kill_saves::writer_child",
                "--exact",
                "--ignored",
                "--test-threads",
                "1",
            ])
            .env("VRMA_KILL_WRITER", mode)
            .env("VRMA_KILL_PATH", path)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        // The child starts in a few ms, then writes as fast as it can: most kills land
        // in the middle of some write.
        std::thread::sleep(Duration::from_micros(5_000 + seed % 60_000));
        assert!(
            child.try_wait().unwrap().is_none(),
            "kill {i}: the writer stopped by itself"
        );
        let _ = child.kill();
        child.wait().unwrap();
        check(i);
    }
}

#[test]
fn a_project_saved_in_a_loop_and_killed_is_always_old_or_new() {
    use vrma_maker::core::animation::project::Project;
    let dir = scratch("kill-project-loop");
    let path = dir.join("project.json");
    let versions = two_projects().map(|p| p.to_json());
    two_projects()[0].save(&path).unwrap();
    kill_writer_200_times("project", &path, |i| {
        let on_disk = Project::load(&path, &mut Vec::new())
            .unwrap_or_else(|e| panic!("kill {i}: the project does not load: {e}"));
        assert!(
            versions.contains(&on_disk.to_json()),
            "kill {i}: the project is neither version"
        );
    });
    let mid_write = interrupted_writes(&dir);
    assert!(mid_write >= 5, "only {mid_write} kills landed mid-write");
}

#[test]
fn a_library_written_in_a_loop_and_killed_always_loads_whole() {
    use vrma_maker::core::animation::library::Library;
    let dir = scratch("kill-library-loop");
    let (a, b) = two_poses();
    let mut library = Library::open(&dir).unwrap();
    library.add("Wave", &a).unwrap();
    kill_writer_200_times("library", &dir, |i| {
        let library = Library::open(&dir).unwrap();
        assert!(
            library.warnings.is_empty(),
            "kill {i}: {:?}",
            library.warnings
        );
        assert_eq!(library.entries.len(), 1, "kill {i}: {:?}", library.entries);
        let entry = &library.entries[0];
        assert!(
            entry.pose == a || entry.pose == b,
            "kill {i}: the pose is neither version"
        );
        assert!(
            ["Wave", "Salute"].contains(&entry.name.as_str()),
            "kill {i}"
        );
    });
    let mid_write = interrupted_writes(&dir);
    assert!(mid_write >= 20, "only {mid_write} kills landed mid-write");
    // Interrupted writes leave at most hidden temporary files, cleaned up on open.
    let library = Library::open(&dir).unwrap();
    assert_eq!(library.entries.len(), 1);
}
