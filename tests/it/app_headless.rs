//! The application's model loading, edit path and skeleton driving, run in a real Bevy
//! app without a window or GPU: Bevy's own glTF loader spawns the model, and the raw
//! bone transforms and morph weights it ends up with are checked against the core.

use std::path::{Path, PathBuf};

use crate::common::*;
use bevy::prelude::*;
use vrma_maker::app::Launch;
use vrma_maker::app::files::{CloseGuard, Question, Then};
use vrma_maker::app::session::{
    Avatar, Banner, DialogPurpose, EditRequest, FileRequest, LoadModel, ModelSource, QuitRequested,
    Session,
};
use vrma_maker::core::animation::edit::{Edit, KeyEdit, PoseEdit};
use vrma_maker::core::formats::table::ExportKind;
use vrma_maker::core::model::gltf::VrmVersion;
use vrma_maker::core::model::humanoid::{ALL_BONES, Bone};

fn headless_app() -> App {
    vrma_maker::app::build_headless(Launch::default())
}

fn run_until(app: &mut App, what: &str, mut done: impl FnMut(&mut World) -> bool) {
    for _ in 0..3000 {
        app.update();
        if done(app.world_mut()) {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    panic!("timed out waiting for {what}");
}

fn avatar_count(world: &mut World) -> usize {
    world.query::<&Avatar>().iter(world).count()
}

/// One avatar shown, every node of it spawned (on a loaded machine the scene's nodes
/// can be a frame behind the avatar's root).
fn avatar_ready(world: &mut World) -> bool {
    let nodes: Vec<Entity> = {
        let mut q = world.query::<&Avatar>();
        let avatars: Vec<&Avatar> = q.iter(world).collect();
        match avatars.as_slice() {
            [avatar] => avatar.nodes.iter().flatten().copied().collect(),
            _ => return false,
        }
    };
    nodes
        .iter()
        .all(|&e| world.get::<Transform>(e).is_some() && world.get::<GlobalTransform>(e).is_some())
}

/// Checks every humanoid node's Transform against the core's raw locals, and its world
/// position (VRM 1.0 frame once the avatar root's turn is applied) against core FK.
fn assert_skeleton_matches_core(app: &mut App) {
    let world = app.world_mut();
    let (nodes, root) = {
        let mut q = world.query::<(Entity, &Avatar)>();
        let (root, avatar) = q.single(world).unwrap();
        (avatar.nodes.clone(), root)
    };
    let session = world.resource::<Session>();
    let raw = session.editor.rig.raw_locals(&session.editor.pose);
    let fk = session.editor.rig.world_pose(&session.editor.pose);
    let rig = session.editor.rig.clone();
    for local in raw {
        let entity = nodes[local.node].expect("every humanoid node is spawned");
        let t = world.get::<Transform>(entity).unwrap();
        assert!(
            t.rotation.dot(local.rotation).abs() > 1.0 - 1e-6,
            "node {} rotation",
            local.node
        );
        assert!(
            t.translation.distance(local.translation) < 1e-6,
            "node {} translation",
            local.node
        );
    }
    let root_rotation = world.get::<Transform>(root).unwrap().rotation;
    for bone in ALL_BONES {
        let (Some(b), Some((expected, _))) = (rig.bone(bone), fk[bone.index()]) else {
            continue;
        };
        let global = world
            .get::<GlobalTransform>(nodes[b.node].unwrap())
            .unwrap()
            .translation();
        assert!(
            global.distance(expected) < 1e-5,
            "{bone}: shown at {global}, core says {expected} (root {root_rotation})"
        );
    }
}

#[test]
fn the_app_loads_poses_and_drives_the_skeleton_like_the_core() {
    let mut app = headless_app();
    run_until(&mut app, "the mannequin", avatar_ready);
    app.world_mut()
        .write_message(EditRequest(Edit::Pose(PoseEdit::Rotate {
            bone: Bone::LeftUpperArm,
            rotation: Quat::from_rotation_z(-0.9),
        })));
    app.world_mut()
        .write_message(EditRequest(Edit::Pose(PoseEdit::Rotate {
            bone: Bone::Spine,
            rotation: Quat::from_rotation_y(0.4),
        })));
    app.world_mut()
        .write_message(EditRequest(Edit::Pose(PoseEdit::Expression {
            name: "happy".into(),
            value: 1.0,
        })));
    app.update();
    app.update();
    assert_skeleton_matches_core(&mut app);

    // The face's morph weights follow the expression.
    let world = app.world_mut();
    let weights: Vec<Vec<f32>> = world
        .query::<&MorphWeights>()
        .iter(world)
        .map(|w| w.weights().to_vec())
        .collect();
    assert_eq!(weights.len(), 1, "one morphing mesh node");
    let happy = vrma_maker::core::model::mannequin::EXPRESSIONS
        .iter()
        .position(|e| *e == "happy")
        .unwrap();
    assert_eq!(weights[0][happy], 1.0);
    assert_eq!(weights[0].iter().sum::<f32>(), 1.0);

    // A bad file changes nothing: same avatar, same pose, a message.
    let dir = scratch("app-headless");
    let bad = dir.join("bad.vrm");
    std::fs::write(&bad, b"definitely not a model").unwrap();
    let pose_before = app.world().resource::<Session>().editor.pose.clone();
    app.world_mut()
        .write_message(LoadModel(ModelSource::File(bad.clone())));
    // The file is read on a worker thread.
    run_until(&mut app, "the refusal", |w| {
        w.resource::<Banner>().error.is_some()
    });
    assert_eq!(avatar_count(app.world_mut()), 1);
    assert_eq!(app.world().resource::<Session>().editor.pose, pose_before);
    let error = app
        .world()
        .resource::<Banner>()
        .error
        .clone()
        .expect("an error is shown");
    assert!(
        error.contains("bad.vrm") && error.contains("not a glTF/VRM file"),
        "{error}"
    );

    // A VRM 0.x model replaces it, turned to face +Z: the same world positions as the core.
    let (_, v0) = mannequins(&dir);
    drop_file(&mut app, &v0);
    run_until(&mut app, "the VRM 0.x mannequin", |w| {
        w.resource::<Session>().editor.rig.version() == VrmVersion::V0
    });
    app.update();
    app.update();
    assert_eq!(avatar_count(app.world_mut()), 1, "the old avatar is gone");
    app.world_mut()
        .write_message(EditRequest(Edit::Pose(PoseEdit::Rotate {
            bone: Bone::RightLowerLeg,
            rotation: Quat::from_rotation_x(0.8),
        })));
    app.update();
    app.update();
    assert_skeleton_matches_core(&mut app);
}

fn drop_file(app: &mut App, path: &Path) {
    app.world_mut().write_message(FileDragAndDrop::DroppedFile {
        window: Entity::PLACEHOLDER,
        path_buf: PathBuf::from(path),
    });
}

#[test]
fn dropping_a_pose_file_applies_it_and_a_broken_one_changes_nothing() {
    let mut app = headless_app();
    run_until(&mut app, "the mannequin", avatar_ready);
    let dir = scratch("app-pose-drop");
    let good = dir.join("pose.json");
    std::fs::write(
        &good,
        r#"{"v":1,"bones":{"neck":[0.2,0,0,0.98]},"expr":{"sad":0.5,"unknownFace":1}}"#,
    )
    .unwrap();
    drop_file(&mut app, &good);
    app.update();
    app.update();
    let session = app.world().resource::<Session>();
    assert!(session.editor.pose.rotation(Bone::Neck).x > 0.19);
    assert_eq!(session.editor.pose.expressions.get("sad"), Some(&0.5));
    assert!(!session.editor.pose.expressions.contains_key("unknownFace"));
    let notice = app.world().resource::<Banner>().notice.clone().unwrap();
    assert!(
        notice.contains("unknownFace"),
        "the ignored expression is reported: {notice}"
    );

    let before = app.world().resource::<Session>().editor.pose.clone();
    let broken = dir.join("broken.json");
    std::fs::write(&broken, r#"{"v":1,"bones":{"neck":[0,0,0,0]}}"#).unwrap();
    drop_file(&mut app, &broken);
    app.update();
    app.update();
    assert_eq!(app.world().resource::<Session>().editor.pose, before);
    let error = app.world().resource::<Banner>().error.clone().unwrap();
    assert!(
        error.contains("neck: quaternion has zero length"),
        "{error}"
    );
}

fn exits(app: &mut App) -> usize {
    let world = app.world_mut();
    world.resource_mut::<Messages<AppExit>>().drain().count()
}

#[test]
fn a_project_opens_saves_and_guards_unsaved_changes_on_quit() {
    let mut app = headless_app();
    run_until(&mut app, "the mannequin", avatar_ready);
    let dir = scratch("app-project");
    let (model, _) = mannequins(&dir);
    let project = dir.join("walk.json");
    std::fs::write(
        &project,
        serde_json::json!({"v": 1, "fps": 30, "model": {"path": "mannequin.vrm"}, "playhead": 1.0,
            "keys": [{"id": 1, "t": 0, "ease": "HOLD", "pose": {"bones": {"neck": [0.3, 0, 0, 0.95]}}},
                     {"id": 2, "t": 2, "pose": {}}]})
        .to_string(),
    )
    .unwrap();
    assert!(model.exists());
    // Dropping a project opens it: its model (relative to the project), keys, playhead.
    drop_file(&mut app, &project);
    run_until(&mut app, "the project", |w| {
        w.resource::<Session>().project_path.is_some()
    });
    app.update();
    {
        let session = app.world().resource::<Session>();
        assert_eq!(session.editor.timeline.keys().len(), 2);
        assert_eq!(session.editor.playhead, 1.0);
        assert!(
            session.editor.pose.rotation(Bone::Neck).x > 0.25,
            "HOLD keeps the first key's pose at 1 s"
        );
        assert!(!session.editor.dirty);
        assert_eq!(
            session.window_title(),
            "VRMA Maker — walk.json — VRMA Maker Mannequin"
        );
    }

    // An edit marks it unsaved; quitting then asks instead of exiting.
    app.world_mut()
        .write_message(EditRequest(Edit::Pose(PoseEdit::Mirror)));
    app.update();
    assert!(app.world().resource::<Session>().editor.dirty);
    assert!(
        app.world()
            .resource::<Session>()
            .window_title()
            .contains("walk.json*")
    );
    exits(&mut app);
    app.world_mut().write_message(QuitRequested);
    app.update();
    assert_eq!(
        app.world().resource::<CloseGuard>().asking,
        Some(Question::Unsaved(Then::Quit)),
        "unsaved changes: ask first"
    );
    assert_eq!(exits(&mut app), 0, "did not quit");

    // Save writes the project atomically and clears the mark; quitting is then immediate.
    app.world_mut().resource_mut::<CloseGuard>().asking = None;
    app.world_mut().write_message(FileRequest::Save {
        save_as: false,
        then_quit: false,
    });
    app.update();
    assert!(!app.world().resource::<Session>().editor.dirty);
    let saved: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&project).unwrap()).unwrap();
    assert_eq!(
        saved["keys"].as_array().unwrap().len(),
        3,
        "the mirror at 1 s was written back as a key"
    );
    let leftovers: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().contains(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "no temporary files left behind");
    app.world_mut().write_message(QuitRequested);
    app.update();
    assert_eq!(exits(&mut app), 1);
}

#[test]
fn opening_another_model_keeps_the_keys() {
    let mut app = headless_app();
    run_until(&mut app, "the mannequin", avatar_ready);
    for edit in [
        Edit::Keys(KeyEdit::Add),
        Edit::Seek(1.0),
        Edit::Pose(PoseEdit::Mirror),
        Edit::Pose(PoseEdit::Rotate {
            bone: Bone::Neck,
            rotation: Quat::from_rotation_x(0.4),
        }),
    ] {
        app.world_mut().write_message(EditRequest(edit));
    }
    app.update();
    let keys_before = app.world().resource::<Session>().editor.timeline.clone();
    assert_eq!(keys_before.keys().len(), 2);
    let dir = scratch("app-switch-model");
    let (_, v0) = mannequins(&dir);
    drop_file(&mut app, &v0);
    run_until(&mut app, "the VRM 0.x model", |w| {
        w.resource::<Session>().editor.rig.version() == VrmVersion::V0
    });
    let session = app.world().resource::<Session>();
    assert_eq!(
        session.editor.timeline, keys_before,
        "normalized keys carry over to the new model"
    );
    assert!(session.editor.history.can_undo());
}

#[test]
fn export_vrma_runs_in_the_background_and_import_replaces_keys_undoably() {
    let mut app = headless_app();
    run_until(&mut app, "the mannequin", avatar_ready);
    for edit in [
        Edit::Pose(PoseEdit::Rotate {
            bone: Bone::Spine,
            rotation: Quat::from_rotation_y(0.3),
        }),
        Edit::Keys(KeyEdit::Add),
        Edit::Seek(1.0),
        Edit::Pose(PoseEdit::Rotate {
            bone: Bone::Spine,
            rotation: Quat::from_rotation_y(-0.3),
        }),
        Edit::Pose(PoseEdit::Expression {
            name: "happy".into(),
            value: 1.0,
        }),
    ] {
        app.world_mut().write_message(EditRequest(edit));
    }
    app.update();
    let dir = scratch("app-vrma");
    let out = dir.join("anim"); // the extension is added
    app.world_mut().write_message(FileRequest::Answer(
        DialogPurpose::Export(ExportKind::Vrma),
        out.clone(),
    ));
    run_until(&mut app, "the export", |w| {
        let banner = w.resource::<Banner>();
        banner.bar.is_none()
            && (banner.error.is_some()
                || banner
                    .notice
                    .as_deref()
                    .is_some_and(|n| n.contains("Exported")))
    });
    let notice = app
        .world()
        .resource::<Banner>()
        .notice
        .clone()
        .unwrap_or_default();
    assert!(
        notice.contains("Exported"),
        "{notice} / {:?}",
        app.world().resource::<Banner>().error
    );
    let written = dir.join("anim.vrma");
    assert!(written.exists());

    // Clear the keys, then import the file back: the keys return; one undo clears them.
    app.world_mut().write_message(EditRequest(Edit::Seek(0.0)));
    app.world_mut()
        .write_message(EditRequest(Edit::Keys(KeyEdit::Delete)));
    app.world_mut().write_message(EditRequest(Edit::Seek(1.0)));
    app.world_mut()
        .write_message(EditRequest(Edit::Keys(KeyEdit::Delete)));
    app.update();
    assert!(app.world().resource::<Session>().editor.timeline.is_empty());
    app.world_mut()
        .write_message(FileRequest::Answer(DialogPurpose::ImportAnimation, written));
    // The import runs on a worker thread.
    run_until(&mut app, "the import", |w| {
        !w.resource::<Session>().editor.timeline.is_empty()
    });
    let session = app.world().resource::<Session>();
    let keys = session.editor.timeline.keys();
    assert!(
        keys.len() >= 2 && (keys.last().unwrap().t - 1.0).abs() < 1e-6,
        "{} keys",
        keys.len()
    );
    assert_eq!(
        keys.last().unwrap().pose.expressions.get("happy"),
        Some(&1.0)
    );
    app.world_mut().write_message(EditRequest(Edit::Undo));
    app.update();
    assert!(app.world().resource::<Session>().editor.timeline.is_empty());
}

#[test]
fn a_vroid_face_split_by_the_targets_each_part_uses_gets_its_weights_routed() {
    for vrm0 in [false, true] {
        face_weights_are_routed(vrm0);
    }
}

fn face_weights_are_routed(vrm0: bool) {
    let dir = scratch("app-headless-vroid");
    let model = test_avatar(&dir, "vroid.vrm", vrm0, &["--texture-size", "32"]);
    let mut app = headless_app();
    run_until(&mut app, "the mannequin", avatar_ready);
    app.world_mut()
        .write_message(LoadModel(ModelSource::File(model)));
    run_until(&mut app, "the VRoid-scale avatar", |w| {
        w.resource::<Session>()
            .editor
            .rig
            .model
            .title
            .contains("VRoid")
            && avatar_count(w) == 1
    });
    for (name, value) in [("happy", 1.0), ("aa", 0.6), ("blinkLeft", 0.3)] {
        app.world_mut()
            .write_message(EditRequest(Edit::Pose(PoseEdit::Expression {
                name: name.into(),
                value,
            })));
    }
    app.update();
    app.update();
    let world = app.world_mut();
    let (nodes, routes) = {
        let mut q = world.query::<&Avatar>();
        let avatar = q.single(world).unwrap();
        (avatar.nodes.clone(), avatar.routes.clone())
    };
    let session = world.resource::<Session>();
    let wanted = vrma_maker::core::model::expressions::morph_weights(
        &session.editor.rig.model,
        &session.editor.pose.expressions,
    );
    let (face, full) = wanted
        .iter()
        .find(|(_, w)| w.iter().any(|x| *x > 0.0))
        .expect("the face has weights");
    let parts = routes
        .get(face)
        .expect("the face's mesh was split by target sets");
    assert!(parts.len() > 1, "{parts:?}");
    let mut lit = 0;
    for part in parts {
        let entity = nodes[part.node].expect("the part's node was spawned");
        let weights = world.get::<MorphWeights>(entity).expect("the part morphs");
        let expected: Vec<f32> = part.targets.iter().map(|&t| full[t]).collect();
        assert_eq!(
            weights.weights(),
            expected.as_slice(),
            "part on node {}",
            part.node
        );
        lit += expected.iter().filter(|w| **w > 0.0).count();
    }
    assert!(
        lit >= 3,
        "every set expression reaches a part that it moves ({lit})"
    );
}

#[test]
fn quitting_during_an_export_waits_for_it_and_leaves_no_temporary_file() {
    let mut app = headless_app();
    run_until(&mut app, "the mannequin", avatar_ready);
    // Enough keys that the export runs for a good while (~1 s).
    for frame in 0..40_000 {
        app.world_mut()
            .write_message(EditRequest(Edit::Seek(frame as f32 / 30.0)));
        app.world_mut()
            .write_message(EditRequest(Edit::Keys(KeyEdit::Add)));
        if frame % 2000 == 0 {
            app.update();
        }
    }
    app.update();
    assert!(
        app.world()
            .resource::<Session>()
            .editor
            .timeline
            .keys()
            .len()
            >= 40_000
    );
    let dir = scratch("app-quit-export");
    let out = dir.join("long.vrma");
    exits(&mut app);
    app.world_mut().write_message(FileRequest::Answer(
        DialogPurpose::Export(ExportKind::Vrma),
        out.clone(),
    ));
    app.update();
    app.world_mut().write_message(QuitRequested);
    app.update();
    assert_eq!(
        app.world().resource::<CloseGuard>().asking,
        Some(Question::ExportRunning),
        "quitting during an export asks"
    );
    assert_eq!(exits(&mut app), 0, "did not quit yet");
    app.world_mut()
        .resource_mut::<CloseGuard>()
        .quit_when_export_done();
    // When the export has finished the usual way out resumes: the work is unsaved, so
    // it asks about that next; the export is whole and nothing temporary is left.
    run_until(&mut app, "the export, then the quit", |w| {
        w.resource::<CloseGuard>().asking == Some(Question::Unsaved(Then::Quit))
    });
    assert_eq!(exits(&mut app), 0, "still asking about the unsaved work");
    let bytes = std::fs::read(&out).expect("the export was written");
    assert!(
        vrma_maker::core::files::glb::split(&bytes).is_ok(),
        "a whole GLB"
    );
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().contains(".tmp"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn twist_bones_follow_the_pose_on_screen_as_the_core_evaluates_them() {
    let dir = scratch("app-constraints");
    let plain = test_avatar(&dir, "plain.vrm", false, &["--texture-size", "16"]);
    let model = crate::interop_three_vrm::with_constraints(&plain, dir.join("twist.vrm"));
    let mut app = headless_app();
    run_until(&mut app, "the mannequin", avatar_ready);
    drop_file(&mut app, &model);
    run_until(&mut app, "the constrained avatar", |w| {
        !w.resource::<Session>()
            .editor
            .rig
            .model
            .constraints
            .is_empty()
    });
    run_until(&mut app, "its scene", |w| avatar_count(w) == 1);
    for (bone, rotation) in [
        (Bone::LeftLowerArm, Quat::from_rotation_x(1.1)),
        (
            Bone::RightLowerArm,
            Quat::from_euler(EulerRot::XYZ, -0.8, 0.3, 0.2),
        ),
        (Bone::LeftUpperArm, Quat::from_rotation_z(-0.7)),
    ] {
        app.world_mut()
            .write_message(EditRequest(Edit::Pose(PoseEdit::Rotate { bone, rotation })));
    }
    app.update();
    app.update();
    let world = app.world_mut();
    let nodes = world
        .query::<&Avatar>()
        .single(world)
        .unwrap()
        .nodes
        .clone();
    let session = world.resource::<Session>();
    let rig = session.editor.rig.clone();
    let expected = rig.model.constraints.rotations(&rig, &session.editor.pose);
    assert_eq!(expected.len(), 4);
    for (node, rotation) in expected {
        let shown = world
            .get::<Transform>(nodes[node].expect("the twist node is spawned"))
            .unwrap()
            .rotation;
        // Component-wise (either sign): an angle from acos cannot tell rotations closer
        // than about 3e-4 rad apart in f32.
        let apart = (shown - rotation).length().min((shown + rotation).length());
        assert!(
            apart < 1e-5,
            "{}: shown {shown}, core {rotation}",
            rig.model.nodes[node].name
        );
        assert!(
            rotation.angle_between(rig.model.nodes[node].rotation) > 0.05,
            "{} follows the pose",
            rig.model.nodes[node].name
        );
    }
}

/// The morph weights the app's avatar ends up with, for expressions set through the edit
/// path, are what three-vrm's expressionManager applies (isBinary snapping, overrides)
/// summed over each expression's binds, as three.js sums them. The two isBinary samples
/// move textures, not morphs (their stills are checked in `hands_gaze`), so their rules
/// are copied onto the mannequin's expressions of the same names, which morph.
#[test]
fn the_avatars_morph_weights_are_three_vrms_applied_expressions() {
    let (Some(fixtures), true) = (fixtures(), required_or_skip("Node harness", node_ready()))
    else {
        return;
    };
    let dir = scratch("app-headless-expression-rules");
    let (mannequin, _) = mannequins(&dir);
    let cases = crate::hands_gaze::expression_cases();
    for name in ["Overrides", "Overridden"] {
        let sample = fixtures.join(format!("vrm1/VRMC_vrm_expressions_isBinary_{name}.vrm"));
        let rules = glb_json(&sample)["extensions"]["VRMC_vrm"]["expressions"]["preset"].clone();
        let path = edited_glb(&mannequin, dir.join(format!("rules-{name}.vrm")), |root| {
            let preset = &mut root["extensions"]["VRMC_vrm"]["expressions"]["preset"];
            for (expression, def) in rules.as_object().unwrap() {
                for key in [
                    "isBinary",
                    "overrideBlink",
                    "overrideLookAt",
                    "overrideMouth",
                ] {
                    if let Some(value) = def.get(key) {
                        preset[expression][key] = value.clone();
                    }
                }
            }
        });
        let reference = crate::hands_gaze::three_vrm_expressions(&path, &cases);
        let mut app = headless_app();
        run_until(&mut app, "the mannequin", avatar_ready);
        app.world_mut()
            .write_message(LoadModel(ModelSource::File(path.clone())));
        run_until(&mut app, "the mannequin with the sample's rules", |w| {
            w.resource::<Session>().model_path.as_deref() == Some(path.as_path())
                && avatar_count(w) == 1
        });
        let mut held_back = 0;
        for (case, three) in cases.iter().zip(reference["cases"].as_array().unwrap()) {
            let pose = vrma_maker::core::body::pose::Pose::from_json(
                &serde_json::json!({"v": 1, "expr": case}),
                &mut Vec::new(),
            )
            .unwrap();
            app.world_mut()
                .write_message(EditRequest(Edit::Pose(PoseEdit::SetPose(Box::new(pose)))));
            app.update();
            app.update();
            let world = app.world_mut();
            let nodes = {
                let mut q = world.query::<&Avatar>();
                q.single(world).unwrap().nodes.clone()
            };
            let model = world.resource::<Session>().editor.rig.model.clone();
            // three-vrm's applied weights, summed over the binds.
            let mut expected: std::collections::BTreeMap<usize, Vec<f32>> = Default::default();
            for def in &model.expressions {
                let applied = three["applied"][&def.name].as_f64().unwrap() as f32;
                let set = case[&def.name].as_f64().unwrap_or(0.0) as f32;
                held_back += (set > 0.0 && applied < set - 0.05) as usize;
                for bind in &def.binds {
                    let count = model.nodes[bind.node]
                        .mesh
                        .and_then(|m| model.mesh_morph_counts.get(m).copied())
                        .unwrap();
                    let weights = expected.entry(bind.node).or_insert(vec![0.0; count]);
                    weights[bind.index] += applied * bind.weight;
                }
            }
            assert!(!expected.is_empty(), "the mannequin's expressions morph");
            for (node, wanted) in &expected {
                let entity = nodes[*node].expect("the node was spawned");
                let shown = world
                    .get::<MorphWeights>(entity)
                    .expect("the node morphs")
                    .weights()
                    .to_vec();
                assert_eq!(shown.len(), wanted.len(), "{name} {case}: node {node}");
                for (a, b) in shown.iter().zip(wanted) {
                    assert!(
                        (a - b).abs() < 1e-5,
                        "{name} {case}: node {node} shows {shown:?}, three-vrm {wanted:?}"
                    );
                }
            }
        }
        assert!(held_back > 0, "{name}: the rules held back some expression");
    }
}
