//! Pose from a picture, timed: loading the models, one photo → landmarks → pose (with
//! hands), and a live 640 × 480 frame tracked from the last (the detector skipped), with
//! and without hands. Needs the models (scripts/setup-pose-models) and the test photo
//! (scripts/fetch-test-photo, or VRMA_MAKER_TEST_PHOTO); says so and measures nothing
//! without them.

use std::path::PathBuf;

use criterion::{Criterion, criterion_group, criterion_main};
use vrma_core::body::pose::Pose;
use vrma_core::capture::pose_from_capture;
use vrma_core::model::mannequin::{MannequinVariant, build};
use vrma_vision::{PoseModels, default_models_dir, read_image};

fn photo() -> PathBuf {
    std::env::var_os("VRMA_MAKER_TEST_PHOTO").map_or_else(
        || {
            let home = std::env::var_os("HOME").unwrap_or_default();
            PathBuf::from(home).join(".cache/vrma-maker/test-photos/astronaut.png")
        },
        PathBuf::from,
    )
}

fn pose_from_image(c: &mut Criterion) {
    let dir = default_models_dir();
    let (Ok(models), Ok(picture)) = (PoseModels::load(&dir, true), read_image(&photo())) else {
        eprintln!("the pose models or the test photo are missing: nothing measured");
        return;
    };
    let body_only = PoseModels::load(&dir, false).unwrap();
    let rig = vrma_core::body::rig::rig_from_bytes(&build(MannequinVariant::Vrm1)).unwrap();
    c.bench_function("load the models (detector, body, hands)", |b| {
        b.iter(|| PoseModels::load(&dir, true).unwrap())
    });
    c.bench_function("photo 512x512 → pose, with hands", |b| {
        b.iter(|| {
            let found = models.find(&picture, None).unwrap();
            pose_from_capture(&rig, &Pose::default(), &found.capture).unwrap()
        })
    });
    // A webcam frame: the photo letterboxed into 640 × 480.
    let mut frame = image::RgbImage::new(640, 480);
    let small = image::imageops::resize(&picture, 480, 480, image::imageops::FilterType::Triangle);
    image::imageops::overlay(&mut frame, &small, 80, 0);
    let first = models.find(&frame, None).unwrap();
    for (name, models) in [("with hands", &models), ("body only", &body_only)] {
        c.bench_function(
            &format!("live frame 640x480 tracked → pose, {name}"),
            |b| {
                b.iter(|| {
                    let found = models.find(&frame, Some(first.next_roi)).unwrap();
                    pose_from_capture(&rig, &Pose::default(), &found.capture).unwrap()
                })
            },
        );
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = pose_from_image
}
criterion_main!(benches);
