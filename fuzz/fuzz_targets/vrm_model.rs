//! The VRM/GLB reader: any bytes either fail with a message or give a rig that the
//! window can pose, draw and frame without a non-finite number, and a display copy
//! for the renderer that is refused or reads back as the same model.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vrma_core::body::pose::{Pose, PoseDirections};
use vrma_core::{body::framing, model::expressions};

fuzz_target!(|data: &[u8]| {
    let Ok(rig) = vrma_core::body::rig::rig_from_bytes(data) else {
        return;
    };
    // What loading a model does next in the window and the CLI.
    let directions = PoseDirections::measure(&rig);
    let mut pose = Pose::default();
    directions.arms_down(&mut pose);
    vrma_core_fuzz::assert_pose_is_usable(&rig, &pose);
    let _ = rig.world_pose(&pose);
    let points = framing::figure_points(&rig, &pose);
    let _ = framing::fit(&points, glam::Vec3::Z, 0.6, 0.75);
    let names: Vec<String> = rig
        .model
        .expressions
        .iter()
        .map(|e| e.name.clone())
        .collect();
    let weights = names.iter().map(|n| (n.clone(), 1.0)).collect();
    let _ = expressions::morph_weights(&rig.model, &weights);
    // The renderer's copy: refused or made, never a panic; what it makes reads the same.
    let limits = vrma_core::model::display::DeviceLimits::WGPU_DEFAULT;
    if let Ok(display) =
        vrma_core::model::display::prepare(data, &limits, &mut |_, _| Err("no".into()))
    {
        let again =
            vrma_core::body::rig::rig_from_bytes(&display.bytes).expect("the display copy parses");
        assert_eq!(again.model.nodes.len(), rig.model.nodes.len());
    }
});
