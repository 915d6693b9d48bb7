//! Prints what the models find in a picture: `cargo run --release -p vrma-vision
//! --example find -- PICTURE [MODEL.vrm KNOWN_POSE.json [CAMERA_YAW]]`: landmarks in pixels with
//! their confidence, hands, and with a model and the pose the picture shows, how far
//! each limb bone of the recovered pose points from the known one.

use std::path::PathBuf;

use vrma_core::body::pose::Pose;
use vrma_core::capture::limb_directions;
use vrma_core::model::humanoid::Bone;

fn main() {
    let mut args = std::env::args_os().skip(1);
    let picture = PathBuf::from(args.next().expect("a picture"));
    let check = args.next().map(|m| {
        (
            PathBuf::from(m),
            PathBuf::from(args.next().expect("a pose")),
        )
    });
    // The camera's turn about the model's up from straight in front, in degrees.
    let yaw: f32 = args
        .next()
        .map_or(0.0, |a| a.to_str().unwrap().parse().unwrap());
    let dir = vrma_vision::default_models_dir();
    let models = vrma_vision::PoseModels::load(&dir, true).unwrap_or_else(|e| panic!("{e}"));
    let image = vrma_vision::read_image(&picture).unwrap_or_else(|e| panic!("{e}"));
    let started = std::time::Instant::now();
    let found = match models.find(&image, None) {
        Ok(found) => found,
        Err(e) => return println!("{e}"),
    };
    println!(
        "found in {:?}, body crop {:?}",
        started.elapsed(),
        found.body_roi
    );
    for (i, (p, v)) in found.body_pixels.iter().zip(found.visibility).enumerate() {
        let w = found.capture.body.as_ref().unwrap().points[i];
        println!(
            "{i:2} {:7.1} {:7.1} conf {v:.2}  world {:6.3} {:6.3} {:6.3}",
            p.x, p.y, w.x, w.y, w.z
        );
    }
    for (side, points) in &found.hand_pixels {
        println!(
            "{side:?} hand: wrist {} middle tip {}",
            points[0], points[12]
        );
    }
    let Some((model, known)) = check else { return };
    let rig = vrma_core::body::rig::load_rig(&model).unwrap();
    let known = vrma_core::read_json(&known).unwrap();
    let known = Pose::from_json(&known, &mut Vec::new()).unwrap();
    let posed =
        vrma_core::capture::pose_from_capture(&rig, &Pose::default(), &found.capture).unwrap();
    println!("posed {:?}", posed.posed);
    let seen = glam::Quat::from_rotation_y(-yaw.to_radians());
    let hips = rig.world_pose(&posed.pose)[Bone::Hips.index()].unwrap().1;
    let (axis, angle) = (seen.inverse() * hips).to_axis_angle();
    println!(
        "hips turned {:.1}° about {axis} from the known (camera-compensated)",
        angle.to_degrees()
    );
    for ((bone, want), (_, got)) in limb_directions(&rig, &known)
        .into_iter()
        .zip(limb_directions(&rig, &posed.pose))
    {
        let want = seen * want;
        println!(
            "{bone:?}: {:.1}° (known {want:.2}, found {got:.2})",
            want.angle_between(got).to_degrees()
        );
    }
}
