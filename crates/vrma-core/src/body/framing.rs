//! Framing a posed avatar for stills and thumbnails: a camera on a preset side, at the
//! distance where every point of the figure fits the frame.

use glam::Vec3;
use serde_json::{Value, json};

use crate::Refusal;
use crate::body::pose::Pose;
use crate::body::rig::Rig;
use crate::model::humanoid::ALL_BONES;

/// Where a still's camera looks from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CameraPreset {
    /// From the front (+Z, the avatar faces the camera).
    Front,
    /// From the avatar's left side (+X).
    Side,
    /// Between front and left side, a little from above.
    ThreeQuarter,
}

impl CameraPreset {
    pub fn from_name(name: &str) -> Option<CameraPreset> {
        match name {
            "front" => Some(CameraPreset::Front),
            "side" => Some(CameraPreset::Side),
            "three-quarter" => Some(CameraPreset::ThreeQuarter),
            _ => None,
        }
    }

    /// Unit vector from the avatar towards the camera.
    pub fn direction(self) -> Vec3 {
        match self {
            CameraPreset::Front => Vec3::new(0.0, 0.05, 1.0).normalize(),
            CameraPreset::Side => Vec3::new(1.0, 0.05, 0.0).normalize(),
            CameraPreset::ThreeQuarter => Vec3::new(0.7, 0.25, 0.7).normalize(),
        }
    }
}

/// Points that bound the posed figure: every bone, padded by the body's thickness
/// (bones are centre lines) and a head's height above the head bone.
pub fn figure_points(rig: &Rig, pose: &Pose) -> Vec<Vec3> {
    let world = rig.world_pose(pose);
    let head_rest = rig
        .world_position(&Pose::default(), crate::model::humanoid::Bone::Head)
        .map_or(1.5, |p| p.y);
    let pad = (head_rest * 0.08).clamp(0.02, 1.0);
    let mut points = Vec::new();
    for bone in ALL_BONES {
        let Some((p, r)) = world[bone.index()] else {
            continue;
        };
        let extra = if bone == crate::model::humanoid::Bone::Head {
            r * Vec3::Y * pad * 2.6
        } else {
            Vec3::ZERO
        };
        for offset in [
            Vec3::X,
            Vec3::NEG_X,
            Vec3::Y,
            Vec3::NEG_Y,
            Vec3::Z,
            Vec3::NEG_Z,
        ] {
            points.push(p + extra + offset * pad);
        }
        points.push(p + extra);
    }
    points
}

/// Camera eye and target so that all `points` fit a perspective view with vertical
/// field of view `fov_y` (radians) and `aspect` (width / height), with a 5% margin.
pub fn fit(points: &[Vec3], direction: Vec3, fov_y: f32, aspect: f32) -> (Vec3, Vec3) {
    let (min, max) = points.iter().fold(
        (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)),
        |(a, b), p| (a.min(*p), b.max(*p)),
    );
    let centre = if points.is_empty() {
        Vec3::ZERO
    } else {
        (min + max) * 0.5
    };
    let back = direction.normalize();
    let right = Vec3::Y.cross(back).try_normalize().unwrap_or(Vec3::X);
    let up = back.cross(right);
    let tan_y = (fov_y * 0.5).tan() * 0.95;
    let tan_x = tan_y * aspect.max(1e-3);
    let distance = points
        .iter()
        .map(|p| {
            let rel = *p - centre;
            let depth_offset = rel.dot(back);
            (rel.dot(up).abs() / tan_y).max(rel.dot(right).abs() / tan_x) + depth_offset
        })
        .fold(0.1f32, f32::max);
    (centre + back * distance, centre)
}

/// The vertical field of view of a still's preset camera, in degrees.
pub const STILL_FOV_DEGREES: f32 = 30.0;

/// A still's camera in model space (metres; the avatar faces +Z with its feet at
/// y = 0): where it stands, the point it looks at, and its vertical field of view in
/// degrees. Stills of several poses with one camera line up (`render-png
/// --camera-json`), where a preset reframes each pose.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StillCamera {
    pub position: Vec3,
    pub target: Vec3,
    pub fov: f32,
}

impl StillCamera {
    /// The preset's camera for this pose: every point of the figure in the frame.
    pub fn framing(
        rig: &Rig,
        pose: &Pose,
        preset: CameraPreset,
        fov_degrees: f32,
        aspect: f32,
    ) -> StillCamera {
        StillCamera::framing_all(rig, std::slice::from_ref(pose), preset, fov_degrees, aspect)
    }

    /// One camera for several poses (the keys of a PNG sequence): every point of every
    /// pose's figure in the frame, so that the stills line up.
    pub fn framing_all(
        rig: &Rig,
        poses: &[Pose],
        preset: CameraPreset,
        fov_degrees: f32,
        aspect: f32,
    ) -> StillCamera {
        let points: Vec<Vec3> = poses.iter().flat_map(|p| figure_points(rig, p)).collect();
        let (position, target) = fit(
            &points,
            preset.direction(),
            fov_degrees.to_radians(),
            aspect,
        );
        StillCamera {
            position,
            target,
            fov: fov_degrees,
        }
    }

    /// `{"position": [x, y, z], "target": [x, y, z], "fov": degrees}`.
    pub fn from_json(value: &Value) -> Result<StillCamera, Refusal> {
        let point = |name: &str| -> Result<Vec3, Refusal> {
            let parts = value[name]
                .as_array()
                .filter(|a| a.len() == 3)
                .ok_or_else(|| Refusal::new(format!("camera: '{name}' is not [x, y, z]")))?;
            let mut v = [0.0f32; 3];
            for (slot, part) in v.iter_mut().zip(parts) {
                *slot = part
                    .as_f64()
                    .filter(|x| x.is_finite() && x.abs() <= 1e4)
                    .ok_or_else(|| {
                        Refusal::new(format!(
                            "camera: '{name}' holds {part}, not a number of metres (at most 10 km)"
                        ))
                    })? as f32;
            }
            Ok(Vec3::from_array(v))
        };
        let (position, target) = (point("position")?, point("target")?);
        if position.distance(target) < 1e-3 {
            return Err(Refusal::new(
                "camera: the position and the target are the same point",
            ));
        }
        let fov = value["fov"]
            .as_f64()
            .filter(|f| (1.0..=170.0).contains(f))
            .ok_or_else(|| {
                Refusal::new("camera: 'fov' must be a vertical field of view of 1 to 170 degrees")
            })? as f32;
        Ok(StillCamera {
            position,
            target,
            fov,
        })
    }

    pub fn to_json(&self) -> Value {
        json!({
            "position": self.position.to_array(),
            "target": self.target.to_array(),
            "fov": self.fov,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_still_camera_reads_back_what_it_writes_and_refuses_nonsense() {
        let camera = StillCamera {
            position: Vec3::new(0.5, 1.2, 3.0),
            target: Vec3::new(0.0, 0.9, 0.0),
            fov: 30.0,
        };
        assert_eq!(StillCamera::from_json(&camera.to_json()).unwrap(), camera);
        for bad in [
            json!({"position": [0, 1, 3], "target": [0, 1, 3], "fov": 30}),
            json!({"position": [0, 1], "target": [0, 1, 0], "fov": 30}),
            json!({"position": [0, 1e9, 3], "target": [0, 1, 0], "fov": 30}),
            json!({"position": [0, 1, 3], "target": [0, 1, 0], "fov": 0}),
            json!({"position": [0, "x", 3], "target": [0, 1, 0], "fov": 30}),
            json!({"position": [0, 1, 3], "target": [0, 1, 0]}),
        ] {
            assert!(StillCamera::from_json(&bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn every_point_lands_inside_the_frame() {
        let points = [
            Vec3::new(-0.8, 0.0, 0.1),
            Vec3::new(0.8, 1.7, -0.2),
            Vec3::new(0.2, 0.9, 0.4),
        ];
        for preset in [
            CameraPreset::Front,
            CameraPreset::Side,
            CameraPreset::ThreeQuarter,
        ] {
            let (fov, aspect) = (30f32.to_radians(), 0.75);
            let (eye, target) = fit(&points, preset.direction(), fov, aspect);
            let forward = (target - eye).normalize();
            let right = forward.cross(Vec3::Y).normalize();
            let up = right.cross(forward);
            for p in points {
                let rel = p - eye;
                let depth = rel.dot(forward);
                assert!(depth > 0.0);
                assert!(
                    (rel.dot(up) / depth).abs() <= (fov * 0.5).tan() + 1e-4,
                    "{preset:?} vertical"
                );
                assert!(
                    (rel.dot(right) / depth).abs() <= (fov * 0.5).tan() * aspect + 1e-4,
                    "{preset:?} horizontal"
                );
            }
        }
    }

    #[test]
    fn one_camera_for_several_poses_frames_every_one_of_them() {
        use crate::model::humanoid::Bone;
        let rig = Rig::new(
            crate::model::vrm::Model::from_bytes(&crate::model::mannequin::build(
                crate::model::mannequin::MannequinVariant::Vrm1,
            ))
            .unwrap(),
        )
        .unwrap();
        let raise = |bone: Bone, z: f32| {
            let mut pose = Pose::default();
            pose.bones[bone.index()] = glam::Quat::from_rotation_z(z);
            pose
        };
        let poses = [
            raise(Bone::LeftUpperArm, 1.2),
            raise(Bone::RightUpperArm, -1.2),
        ];
        let (fov, aspect) = (STILL_FOV_DEGREES, 0.75);
        let both = StillCamera::framing_all(&rig, &poses, CameraPreset::Front, fov, aspect);
        assert_eq!(
            StillCamera::framing(&rig, &poses[0], CameraPreset::Front, fov, aspect),
            StillCamera::framing_all(&rig, &poses[..1], CameraPreset::Front, fov, aspect),
        );
        // Every point of either pose is in the shared camera's frame.
        let view = glam::Mat4::look_at_rh(both.position, both.target, Vec3::Y);
        let projection = glam::Mat4::perspective_rh(fov.to_radians(), aspect, 0.01, 100.0);
        for pose in &poses {
            for p in figure_points(&rig, pose) {
                let clip = projection * view * p.extend(1.0);
                let ndc = clip.truncate() / clip.w;
                assert!(ndc.x.abs() <= 1.0 && ndc.y.abs() <= 1.0, "{p} at {ndc}");
            }
        }
    }
}
