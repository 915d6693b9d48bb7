//! One frame of node constraints on a hostile model: the mannequin with a 100-node chain
//! under its head and `MAX_CONSTRAINTS` leaves at the chain's end, each aimed at the
//! left hand (the most a file can declare, each reading worlds 100 levels down).

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use glam::Quat;
use serde_json::{Value, json};
use vrma_core::body::nodes::NodeWorlds;
use vrma_core::body::pose::Pose;
use vrma_core::body::rig::Rig;
use vrma_core::model::constraint::MAX_CONSTRAINTS;
use vrma_core::model::humanoid::Bone;
use vrma_core::model::mannequin::{self, MannequinVariant};

fn hostile_rig() -> Rig {
    let bytes = mannequin::build(MannequinVariant::Vrm1);
    let glb = vrma_core::files::glb::split(&bytes).unwrap();
    let mut root: Value = serde_json::from_slice(glb.json).unwrap();
    let bone = |root: &Value, name: &str| {
        root["extensions"]["VRMC_vrm"]["humanoid"]["humanBones"][name]["node"]
            .as_u64()
            .unwrap() as usize
    };
    let (head, hand) = (bone(&root, "head"), bone(&root, "leftHand"));
    let nodes = root["nodes"].as_array_mut().unwrap();
    let mut parent = head;
    for _ in 0..100 {
        nodes.push(json!({"translation": [0.0, 0.001, 0.0]}));
        let child = nodes.len() - 1;
        let children = &mut nodes[parent]["children"];
        if children.is_null() {
            *children = json!([]);
        }
        children.as_array_mut().unwrap().push(json!(child));
        parent = child;
    }
    let first_leaf = nodes.len();
    for _ in 0..MAX_CONSTRAINTS {
        nodes.push(json!({"translation": [0.0, 0.0, 0.01],
            "extensions": {"VRMC_node_constraint": {"specVersion": "1.0",
                "constraint": {"aim": {"source": hand, "aimAxis": "PositiveZ"}}}}}));
    }
    let leaves: Vec<usize> = (first_leaf..first_leaf + MAX_CONSTRAINTS).collect();
    nodes[parent]["children"] = json!(leaves);
    root["extensionsUsed"]
        .as_array_mut()
        .unwrap()
        .push(json!("VRMC_node_constraint"));
    let json = serde_json::to_vec(&root).unwrap();
    let model = vrma_core::model::vrm::Model::from_bytes(&vrma_core::files::glb::build(
        &json,
        glb.bin.unwrap(),
    ))
    .unwrap();
    assert_eq!(model.constraints.ordered.len(), MAX_CONSTRAINTS);
    Rig::new(model).unwrap()
}

fn bench(c: &mut Criterion) {
    let rig = hostile_rig();
    let mut pose = Pose::default();
    pose.bones[Bone::LeftUpperArm.index()] = Quat::from_rotation_z(0.8);
    let mut worlds = NodeWorlds::new(&rig);
    c.bench_function("constraints: 4096 aims 100 nodes deep, one frame", |b| {
        b.iter(|| {
            worlds.pose(&rig, &pose);
            black_box(&worlds);
        })
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(std::time::Duration::from_secs(4));
    targets = bench
}
criterion_main!(benches);
