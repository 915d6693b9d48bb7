//! Opening and posing a VRoid-scale avatar (the generated test avatar: 32 MB, ~84k
//! vertices, ten 2048² textures, 57 face morphs): the core's read and check, the
//! renderer's display copy, Bevy's loading until the avatar can be posed (headless, so
//! without the GPU upload, which `scripts/bench` measures in the window), and one frame
//! of a hand drag through the app's edit path and skeleton driving.

use std::hint::black_box;
use std::path::PathBuf;

use bevy::math::Vec3;
use bevy::prelude::*;
use criterion::{Criterion, criterion_group, criterion_main};
use vrma_maker::app::session::{Avatar, EditRequest, Session};
use vrma_maker::app::{Launch, build_headless};
use vrma_maker::core::animation::edit::{Edit, PoseEdit};
use vrma_maker::core::model::display::{self, DeviceLimits};
use vrma_maker::core::model::humanoid::Bone;
use vrma_maker::core::model::mannequin::MannequinVariant;
use vrma_maker::core::model::test_avatar::{TestAvatarSpec, build};

fn avatar_file() -> (PathBuf, Vec<u8>) {
    let bytes = build(&TestAvatarSpec::vroid(MannequinVariant::Vrm1));
    let path = std::env::temp_dir().join(format!("vrma-maker-bench-{}.vrm", std::process::id()));
    std::fs::write(&path, &bytes).unwrap();
    (path, bytes)
}

/// The encoded images a GLB carries in its binary chunk.
fn embedded_images(bytes: &[u8]) -> Vec<Vec<u8>> {
    let glb = vrma_maker::core::files::glb::split(bytes).unwrap();
    let root: serde_json::Value = serde_json::from_slice(glb.json).unwrap();
    let bin = glb.bin.unwrap();
    root["images"]
        .as_array()
        .unwrap()
        .iter()
        .map(|image| {
            let view = &root["bufferViews"][image["bufferView"].as_u64().unwrap() as usize];
            let start = view["byteOffset"].as_u64().unwrap_or(0) as usize;
            bin[start..start + view["byteLength"].as_u64().unwrap() as usize].to_vec()
        })
        .collect()
}

fn open(path: &std::path::Path) -> App {
    let mut app = build_headless(Launch {
        file: Some(path.to_path_buf()),
        ..Default::default()
    });
    for _ in 0..20_000 {
        app.update();
        let world = app.world_mut();
        let shown = world.query::<&Avatar>().iter(world).count() > 0;
        if shown
            && world
                .resource::<Session>()
                .editor
                .rig
                .model
                .title
                .contains("VRoid")
        {
            return app;
        }
        std::thread::sleep(std::time::Duration::from_micros(200));
    }
    panic!("the avatar did not open");
}

fn bench(c: &mut Criterion) {
    let (path, bytes) = avatar_file();
    let mut group = c.benchmark_group("VRoid-scale avatar (32 MB)");
    group.sample_size(10);
    group.bench_function("read and check (core)", |b| {
        b.iter(|| black_box(vrma_maker::core::body::rig::rig_from_bytes(&bytes).unwrap()))
    });
    let report = display::prepare(&bytes, &DeviceLimits::WGPU_DEFAULT, &mut |_, _| {
        Err("no downscale".into())
    })
    .unwrap()
    .report;
    eprintln!("display copy: {report:?}");
    group.bench_function("display copy (compaction and limits)", |b| {
        b.iter(|| {
            black_box(
                display::prepare(&bytes, &DeviceLimits::WGPU_DEFAULT, &mut |_, _| {
                    Err("no downscale".into())
                })
                .unwrap(),
            )
        })
    });
    // The textures' share of opening: Bevy's loader decodes each PNG (in parallel).
    let pngs = embedded_images(&bytes);
    group.bench_function("decode the ten 2048² textures (one after another)", |b| {
        b.iter(|| {
            for png in &pngs {
                black_box(image::load_from_memory(png).unwrap());
            }
        })
    });
    group.bench_function(
        "open until posable (headless: parse, textures, meshes, spawn)",
        |b| b.iter(|| black_box(open(&path))),
    );
    group.finish();

    // One frame of a hand drag: the edit, write-back, raw transforms, morph weights and
    // Bevy's transform propagation over the avatar's 140 nodes.
    let mut app = open(&path);
    let mut step = 0u32;
    c.bench_function("VRoid-scale avatar: one frame of a hand drag", |b| {
        b.iter(|| {
            step += 1;
            let wobble = (step as f32 * 0.1).sin() * 0.05;
            let edit = PoseEdit::Ik {
                end: Bone::LeftHand,
                target: Vec3::new(0.55, 1.2 + wobble, 0.2),
                keep_angle: true,
                body: false,
            };
            app.world_mut()
                .write_message(EditRequest(Edit::preview(edit)));
            app.update();
        })
    });
    let _ = std::fs::remove_file(&path);
}

criterion_group!(benches, bench);
criterion_main!(benches);
