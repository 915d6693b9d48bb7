//! A long random walk through the one edit path (issue 8): 10,000 random operations —
//! pose edits, IK, poles, hips moves with pinned feet, key edits, seeks, drags with
//! cancel, undo and redo — on the mannequin. No panic, no NaN, undo/redo stay exact, and
//! every joint a pose edit turns stays within its human limits.

use glam::{Quat, Vec3};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use vrma_core::animation::edit::{
    Edit, Editor, Gesture, GripSide, KeyEdit, PIN_ENDS, Pins, PoseEdit,
};
use vrma_core::animation::timeline::Ease;
use vrma_core::body::ik::Limb;
use vrma_core::body::limits;
use vrma_core::model::humanoid::{ALL_BONES, Bone, Side};
use vrma_core::model::mannequin::{self, MannequinVariant};

fn arb_vec() -> impl Strategy<Value = Vec3> {
    (-1.5f32..1.5, -0.5f32..2.5, -1.5f32..1.5).prop_map(|(x, y, z)| Vec3::new(x, y, z))
}

fn arb_quat() -> impl Strategy<Value = Quat> {
    (-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0)
        .prop_map(|(x, y, z, w)| Quat::from_xyzw(x, y, z, w))
}

fn arb_edit() -> impl Strategy<Value = Edit> {
    let bone = (0usize..ALL_BONES.len()).prop_map(|i| ALL_BONES[i]);
    let end = prop_oneof![
        Just(Bone::LeftHand),
        Just(Bone::RightHand),
        Just(Bone::LeftFoot),
        Just(Bone::RightFoot)
    ];
    let limb = prop_oneof![
        Just(Limb::LeftArm),
        Just(Limb::RightArm),
        Just(Limb::LeftLeg),
        Just(Limb::RightLeg)
    ];
    prop_oneof![
        (bone.clone(), arb_quat())
            .prop_map(|(bone, rotation)| Edit::Pose(PoseEdit::Rotate { bone, rotation })),
        (end.clone(), arb_vec(), any::<bool>(), any::<bool>()).prop_map(
            |(end, target, keep_angle, body)| Edit::Pose(PoseEdit::Ik {
                end,
                target,
                keep_angle,
                body
            })
        ),
        (0usize..PIN_ENDS.len(), any::<bool>()).prop_map(|(i, on)| Edit::Pin {
            ends: Pins::of(PIN_ENDS[i]).unwrap(),
            on
        }),
        (limb, arb_vec()).prop_map(|(limb, point)| Edit::Pose(PoseEdit::Pole { limb, point })),
        (
            proptest::option::of(arb_vec()),
            proptest::option::of(arb_quat()),
            any::<bool>()
        )
            .prop_map(|(to, rotate, hold_pins)| Edit::Pose(PoseEdit::MoveHips {
                to,
                rotate,
                hold_pins
            })),
        Just(Edit::Pose(PoseEdit::Mirror)),
        Just(Edit::Pose(PoseEdit::ArmsDown)),
        (0.0f32..1.0).prop_map(|amount| Edit::Pose(PoseEdit::Grip {
            side: GripSide::One(Side::Left),
            amount
        })),
        (0.0f32..1.0).prop_map(|value| Edit::Pose(PoseEdit::Expression {
            name: "happy".into(),
            value
        })),
        bone.prop_map(|bone| Edit::Pose(PoseEdit::ResetBone(bone))),
        (0.0f32..4.0).prop_map(Edit::Seek),
        Just(Edit::Keys(KeyEdit::Add)),
        Just(Edit::Keys(KeyEdit::Delete)),
        (0usize..5).prop_map(|i| Edit::Keys(KeyEdit::SetEase(Ease::ALL[i]))),
        (0.0f32..4.0, 0.0f32..4.0).prop_map(|(from, to)| Edit::Keys(KeyEdit::Move { from, to })),
        Just(Edit::Undo),
        Just(Edit::Redo),
        (end, arb_vec()).prop_map(|(end, target)| Edit::preview(PoseEdit::Ik {
            end,
            target,
            keep_angle: true,
            body: true
        })),
        Just(Edit::Gesture(Gesture::End)),
        Just(Edit::Gesture(Gesture::Cancel)),
    ]
}

#[test]
fn ten_thousand_random_edits_keep_every_invariant() {
    let mut runner = TestRunner::new(Config {
        cases: 1,
        ..Config::default()
    });
    let ops = proptest::collection::vec(arb_edit(), 10_000);
    runner
        .run(&ops, |ops| {
            let rig =
                vrma_core::body::rig::rig_from_bytes(&mannequin::build(MannequinVariant::Vrm1))
                    .unwrap();
            let mut editor = Editor::new(rig);
            for (i, op) in ops.into_iter().enumerate() {
                let undo = matches!(op, Edit::Undo) && editor.history.can_undo();
                let before = undo.then(|| editor.snapshot());
                let posing = matches!(op, Edit::Pose(_) | Edit::Gesture(Gesture::Preview(_)));
                let bones_before = editor.pose.bones;
                let applied = editor.apply(op).is_ok(); // refusals are part of the walk
                // The joint limits are on: whatever a pose edit turned stays inside them
                // (a pose between keys may not, and nothing clamps it until it is edited).
                if posing && applied {
                    for bone in ALL_BONES {
                        let q = editor.pose.rotation(bone);
                        prop_assert!(
                            q == bones_before[bone.index()] || limits::within_limits(bone, q),
                            "op {i}: {bone} turned to {q} outside its limits"
                        );
                    }
                }
                // The pose stays finite and normalized.
                prop_assert!(
                    editor
                        .pose
                        .bones
                        .iter()
                        .all(|q| q.is_finite() && (q.length() - 1.0).abs() < 1e-3),
                    "op {i}"
                );
                prop_assert!(editor.pose.hips.is_none_or(|h| h.is_finite()), "op {i}");
                for key in editor.timeline.keys() {
                    prop_assert!(key.t.is_finite() && key.t >= 0.0);
                }
                let world = editor.rig.world_pose(&editor.pose);
                prop_assert!(
                    world
                        .iter()
                        .flatten()
                        .all(|(p, r)| p.is_finite() && r.is_finite()),
                    "op {i}"
                );
                // An undo followed at once by a redo restores the same state exactly.
                if let Some(before) = before {
                    editor.apply(Edit::Redo).unwrap();
                    prop_assert_eq!(&editor.snapshot(), &before, "undo/redo at op {}", i);
                    editor.apply(Edit::Undo).unwrap();
                }
            }
            Ok(())
        })
        .unwrap();
}
