//! Core hot paths: forward kinematics and raw transforms for a full pose (run every
//! frame by the window), and parsing a model.

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use vrma_maker::core::humanoid::ALL_BONES;
use vrma_maker::core::mannequin::{self, MannequinVariant};
use vrma_maker::core::pose::Pose;

fn bench(c: &mut Criterion) {
    let bytes = mannequin::build(MannequinVariant::Vrm1);
    let rig = vrma_maker::core::rig_from_bytes(&bytes).unwrap();
    let mut pose = Pose::default();
    for (i, bone) in ALL_BONES.iter().enumerate() {
        pose.set_rotation(*bone, bevy::math::Quat::from_rotation_z(i as f32 * 0.01));
    }
    c.bench_function("world_pose (55 bones)", |b| {
        b.iter(|| black_box(rig.world_pose(black_box(&pose))))
    });
    c.bench_function("raw_locals (55 bones)", |b| {
        b.iter(|| black_box(rig.raw_locals(black_box(&pose))))
    });
    c.bench_function("parse mannequin VRM", |b| {
        b.iter(|| black_box(vrma_maker::core::rig_from_bytes(&bytes).unwrap()))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
