//! Core hot paths: forward kinematics and raw transforms for a full pose (run every
//! frame by the window), parsing a model, and timeline sampling and project loading.

use std::hint::black_box;

use bevy::math::{Quat, Vec3};
use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use vrma_maker::core::animation::project::Project;
use vrma_maker::core::animation::timeline::{Ease, FPS, Timeline};
use vrma_maker::core::body::pose::Pose;
use vrma_maker::core::formats::vrma::export::export_vrma;
use vrma_maker::core::formats::vrma::import::{AnimationKind, import_animation};
use vrma_maker::core::model::humanoid::ALL_BONES;
use vrma_maker::core::model::mannequin::{self, MannequinVariant};

/// A pose with every one of the 55 bones rotated, hips moved and two expressions.
fn full_pose(seed: f32) -> Pose {
    let mut pose = Pose::default();
    for (i, bone) in ALL_BONES.iter().enumerate() {
        let a = seed + i as f32 * 0.1;
        pose.set_rotation(
            *bone,
            Quat::from_euler(
                bevy::math::EulerRot::YXZ,
                a.sin() * 0.5,
                a.cos() * 0.4,
                (a * 1.3).sin() * 0.3,
            ),
        );
    }
    pose.hips = Some(Vec3::new(seed.sin() * 0.1, 0.9, 0.0));
    pose.expressions.insert("happy".into(), seed.sin().abs());
    pose.expressions.insert("aa".into(), seed.cos().abs());
    pose
}

fn timeline(keys: usize, span: f32) -> Timeline {
    let mut tl = Timeline::default();
    for i in 0..keys {
        let t = span * i as f32 / (keys.max(2) - 1) as f32;
        tl.set_key(t, full_pose(i as f32));
        tl.set_ease_at(t, Ease::ALL[i % 5]);
    }
    tl
}

fn bench(c: &mut Criterion) {
    let bytes = mannequin::build(MannequinVariant::Vrm1);
    let rig = vrma_maker::core::body::rig::rig_from_bytes(&bytes).unwrap();
    let pose = full_pose(0.3);
    c.bench_function("world_pose (55 bones)", |b| {
        b.iter(|| black_box(rig.world_pose(black_box(&pose))))
    });
    c.bench_function("raw_locals (55 bones)", |b| {
        b.iter(|| black_box(rig.raw_locals(black_box(&pose))))
    });
    c.bench_function("parse mannequin VRM", |b| {
        b.iter(|| black_box(vrma_maker::core::body::rig::rig_from_bytes(&bytes).unwrap()))
    });

    // IK: one two-bone solve; one frame of a hips drag with both feet pinned.
    let ik_pose = Pose::default();
    let shoulder = rig
        .world_position(
            &ik_pose,
            vrma_maker::core::model::humanoid::Bone::LeftUpperArm,
        )
        .unwrap();
    let target = shoulder + Vec3::new(0.25, -0.3, 0.2);
    c.bench_function("IK: one two-bone solve", |b| {
        b.iter(|| {
            let mut p = ik_pose.clone();
            vrma_maker::core::body::ik::reach(
                &rig,
                &mut p,
                vrma_maker::core::model::humanoid::Bone::LeftHand,
                black_box(target),
                true,
            )
            .unwrap();
            black_box(p)
        })
    });
    let pins = vrma_maker::core::body::ik::FootPins::capture(&rig, &ik_pose).unwrap();
    let hips_to = rig.hips_rest() - Vec3::Y * 0.2;
    c.bench_function("IK: hips drag frame, both feet pinned", |b| {
        b.iter(|| {
            let mut p = ik_pose.clone();
            vrma_maker::core::body::ik::move_hips(
                &rig,
                &mut p,
                Some(black_box(hips_to)),
                Some(Quat::from_rotation_y(0.3)),
                Some(&pins),
            )
            .unwrap();
            black_box(p)
        })
    });

    // VR: one frame of input with both hands dragging a sphere each, through the editor
    // (spheres from the pose, both grabs followed, both IK previews applied).
    {
        use vrma_maker::core::animation::edit::Editor;
        use vrma_maker::core::vr::{Grabber, HandInput, Pointer, spheres};
        let mut editor = Editor::new(rig.clone());
        let settings = editor.settings;
        let now = spheres(&rig, &editor.hands, &editor.pose);
        let hand = |i: usize, offset: Vec3| HandInput {
            grip: Some(Pointer::new(now[i].center + offset, Quat::IDENTITY)),
            squeeze: 1.0,
            ..HandInput::default()
        };
        let mut grabber = Grabber::default();
        grabber.update(
            [&hand(0, Vec3::ZERO), &hand(1, Vec3::ZERO)],
            &now,
            &settings,
        );
        let mut step = 0u32;
        c.bench_function(
            "VR: one frame, two hands dragging (spheres, grabs, 2 IK previews)",
            |b| {
                b.iter(|| {
                    step += 1;
                    let wobble = Vec3::new(0.0, (step % 50) as f32 * 0.002, 0.05);
                    let now = spheres(&rig, &editor.hands, &editor.pose);
                    let edits =
                        grabber.update([&hand(0, wobble), &hand(1, -wobble)], &now, &settings);
                    for edit in edits {
                        editor.apply(edit).unwrap();
                    }
                })
            },
        );
    }

    let rest = rig.hips_rest();
    let tl = timeline(30, 60.0);
    c.bench_function("sample one frame (55 bones, 30 keys)", |b| {
        b.iter(|| black_box(tl.sample(black_box(31.7), rest)))
    });
    c.bench_function("sample every frame of 60 s (1800 frames, 30 keys)", |b| {
        b.iter(|| {
            for f in 0..=(60.0 * FPS) as usize {
                black_box(tl.sample(f as f32 / FPS, rest));
            }
        })
    });

    // VRMA export of a 60 s, 30-key timeline (55 bones, two expressions).
    let still = Pose::default();
    let (bytes60, stats) = export_vrma(&rig, &tl, &still, 30.0, &mut |_| {});
    eprintln!(
        "export 60 s / 30 keys: {} keyframes written instead of {} ({:.1}x smaller), {} bytes",
        stats.written_keys,
        stats.naive_keys,
        stats.naive_keys as f64 / stats.written_keys as f64,
        bytes60.len()
    );
    c.bench_function("export VRMA (60 s, 30 keys, 55 bones, expressions)", |b| {
        b.iter(|| black_box(export_vrma(&rig, &tl, &still, 30.0, &mut |_| {})))
    });
    // Import of a dense 60 s clip: a key on every frame.
    let dense = timeline(1801, 60.0);
    let (dense_bytes, dense_stats) = export_vrma(&rig, &dense, &still, 30.0, &mut |_| {});
    eprintln!(
        "dense clip: {} keyframes, {} bytes",
        dense_stats.written_keys,
        dense_bytes.len()
    );
    c.bench_function("import VRMA (dense 60 s clip, 1801 frames)", |b| {
        b.iter(|| {
            black_box(import_animation(&dense_bytes, &[], AnimationKind::Vrma, rest, None).unwrap())
        })
    });

    let big = Project {
        timeline: timeline(100_000, 100_000.0 / FPS),
        ..Default::default()
    };
    let text = serde_json::to_string(&big.to_json()).unwrap();
    let mut group = c.benchmark_group("100,000-key project");
    group.sample_size(10);
    group.bench_function("parse and validate", |b| {
        b.iter_batched(
            || serde_json::from_str::<serde_json::Value>(&text).unwrap(),
            |value| black_box(Project::from_json(&value, &mut Vec::new()).unwrap()),
            BatchSize::LargeInput,
        )
    });
    group.bench_function("sample one frame", |b| {
        b.iter(|| black_box(big.timeline.sample(black_box(1234.5), rest)))
    });
    group.finish();
}

/// Key selections on a 10,000-key take (every 3 frames, 1000 s), and planted feet.
fn timeline_ops(c: &mut Criterion) {
    use vrma_maker::core::animation::edit::{Edit, Editor, KeyEdit, SelectMode};
    use vrma_maker::core::animation::timeline::KeyPick;
    use vrma_maker::core::model::humanoid::Side;
    let bytes = mannequin::build(MannequinVariant::Vrm1);
    let rig = vrma_maker::core::body::rig::rig_from_bytes(&bytes).unwrap();
    let mut editor = Editor::new(rig.clone());
    let mut take = Timeline::default();
    for i in 0..10_000 {
        take.set_key(i as f32 * 3.0 / FPS, full_pose(i as f32));
    }
    editor
        .apply(Edit::Keys(KeyEdit::Replace(Box::new(take))))
        .unwrap();
    let mut group = c.benchmark_group("10,000 keys");
    group.sample_size(10);
    group.bench_function("select all, move by a frame, undo", |b| {
        b.iter(|| {
            editor
                .apply(Edit::Keys(KeyEdit::Select {
                    pick: KeyPick::All,
                    mode: SelectMode::Replace,
                }))
                .unwrap();
            editor
                .apply(Edit::Keys(KeyEdit::MoveSelected { by: 1.0 / FPS }))
                .unwrap();
            editor.apply(Edit::Undo).unwrap();
            editor.apply(Edit::Undo).unwrap();
        })
    });
    group.bench_function("copy all, paste after them, undo", |b| {
        editor
            .apply(Edit::Keys(KeyEdit::Select {
                pick: KeyPick::All,
                mode: SelectMode::Replace,
            }))
            .unwrap();
        editor.apply(Edit::CopyKeys).unwrap();
        b.iter(|| {
            editor
                .apply(Edit::Keys(KeyEdit::Paste {
                    t: 1100.0,
                    mirror: true,
                }))
                .unwrap();
            editor.apply(Edit::Undo).unwrap();
        })
    });
    group.finish();

    let mut planted = timeline(30, 60.0);
    planted.set_plant(Side::Left, 0.0, 30.0, true);
    planted.set_plant(Side::Right, 20.0, 60.0, true);
    let still = Pose::default();
    c.bench_function("sample one frame with both feet planted", |b| {
        b.iter(|| {
            black_box(vrma_maker::core::animation::plant::sample(
                &rig,
                &planted,
                black_box(25.0),
            ))
        })
    });
    c.bench_function(
        "export VRMA (60 s, 30 keys, feet planted throughout)",
        |b| b.iter(|| black_box(export_vrma(&rig, &planted, &still, 30.0, &mut |_| {}))),
    );
}

/// Hands and gaze: a preset on both hands through the edit path (one undo step), the
/// eyes put on a point for one frame (what the view and each still do), and an export
/// whose every key looks somewhere else (the lookAt track and its target node).
fn hands_and_gaze(c: &mut Criterion) {
    use vrma_maker::core::animation::edit::{Edit, Editor, GripSide, PoseEdit};
    use vrma_maker::core::body::look::{Look, LookTarget};
    let bytes = mannequin::build(MannequinVariant::Vrm1);
    let rig = vrma_maker::core::body::rig::rig_from_bytes(&bytes).unwrap();
    let fist = vrma_maker::core::body::hand::preset("fist").unwrap().shape;
    let mut editor = Editor::new(rig.clone());
    c.bench_function("hand preset on both hands, then undo (edit path)", |b| {
        b.iter(|| {
            editor
                .apply(Edit::Pose(PoseEdit::Hand {
                    side: GripSide::Both,
                    shape: Box::new(black_box(fist)),
                    amount: 1.0,
                }))
                .unwrap();
            editor.apply(Edit::Undo).unwrap();
        })
    });
    let look_at = rig
        .model
        .look_at
        .clone()
        .unwrap_or_else(vrma_maker::core::model::look_at::LookAt::standard);
    let mut looking = full_pose(0.4);
    looking.look = Some(Look::at(LookTarget::Point(Vec3::new(0.4, 1.6, 1.0))));
    c.bench_function("gaze: a pose's eyes on a point (one frame)", |b| {
        b.iter(|| black_box(look_at.with_gaze(&rig, black_box(&looking), Vec3::Z * 3.0)))
    });
    let mut gazing = Timeline::default();
    for i in 0..30 {
        let mut pose = full_pose(i as f32);
        let a = i as f32 * 0.7;
        pose.look = Some(Look::at(LookTarget::Point(Vec3::new(
            a.sin(),
            1.5 + a.cos() * 0.3,
            1.0,
        ))));
        gazing.set_key(i as f32 * 2.0, pose);
    }
    let still = Pose::default();
    c.bench_function(
        "export VRMA (60 s, 30 keys, a gaze point at every key)",
        |b| b.iter(|| black_box(export_vrma(&rig, &gazing, &still, 30.0, &mut |_| {}))),
    );
}

criterion_group!(benches, bench, timeline_ops, hands_and_gaze);
criterion_main!(benches);
