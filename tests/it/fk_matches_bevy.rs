//! The core's forward kinematics agrees with Bevy's own transform propagation: the raw
//! local transforms the core computes for a pose, propagated by Bevy, put every bone
//! where the normalized skeleton says (≤ 1e-5 m), on the mannequin and every fixture.

use crate::common::*;
use bevy::prelude::*;
use bevy::transform::TransformPlugin;
use vrma_maker::core::body::pose::Pose;
use vrma_maker::core::body::rig::Rig;
use vrma_maker::core::model::humanoid::ALL_BONES;
use vrma_maker::core::model::mannequin::{self, MannequinVariant};

fn test_pose() -> Pose {
    let mut pose = Pose::default();
    for (i, bone) in ALL_BONES.iter().enumerate() {
        let f = i as f32;
        let q = Quat::from_euler(
            EulerRot::YXZ,
            (f * 0.37).sin() * 0.6,
            (f * 0.53).cos() * 0.5,
            (f * 0.71).sin() * 0.7,
        );
        pose.set_rotation(*bone, q);
    }
    pose.hips = Some(Vec3::new(0.07, 0.83, -0.12));
    pose
}

fn check(rig: &Rig, what: &str) {
    let pose = test_pose();
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, TransformPlugin));
    let nodes = &rig.model.nodes;
    let mut raw: Vec<Transform> = nodes
        .iter()
        .map(|n| Transform {
            translation: n.translation,
            rotation: n.rotation,
            scale: n.scale,
        })
        .collect();
    for local in rig.raw_locals(&pose) {
        raw[local.node] = Transform {
            translation: local.translation,
            rotation: local.rotation,
            scale: local.scale,
        };
    }
    let entities: Vec<Entity> = raw.iter().map(|t| app.world_mut().spawn(*t).id()).collect();
    for (i, node) in nodes.iter().enumerate() {
        if let Some(p) = node.parent {
            app.world_mut()
                .entity_mut(entities[i])
                .insert(ChildOf(entities[p]));
        }
    }
    app.update();
    let world = rig.world_pose(&pose);
    let mut compared = 0;
    for bone in ALL_BONES {
        let (Some(rb), Some((expected, _))) = (rig.bone(bone), world[bone.index()]) else {
            continue;
        };
        let global = app
            .world()
            .get::<GlobalTransform>(entities[rb.node])
            .unwrap()
            .translation();
        let global = rig.to_model_frame_vec(global); // model frame → VRM 1.0 frame (its own inverse)
        let err = global.distance(expected);
        assert!(
            err <= 1e-5,
            "{what}: {bone} Bevy {global} core {expected} (error {err} m)"
        );
        compared += 1;
    }
    assert!(compared >= 15, "{what}: compared {compared} bones");
}

#[test]
fn core_fk_matches_bevy_propagation_on_the_mannequin() {
    for variant in [MannequinVariant::Vrm1, MannequinVariant::Vrm0] {
        let rig = vrma_maker::core::body::rig::rig_from_bytes(&mannequin::build(variant)).unwrap();
        check(&rig, &format!("mannequin {variant:?}"));
    }
}

#[test]
fn core_fk_matches_bevy_propagation_on_the_fixtures() {
    let models = fixture_models();
    if !required_or_skip("../shared/fixtures models", !models.is_empty()) {
        return;
    }
    for path in models {
        let rig = vrma_maker::core::body::rig::load_rig(&path).unwrap();
        check(&rig, &path.display().to_string());
    }
}
