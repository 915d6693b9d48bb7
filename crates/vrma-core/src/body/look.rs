//! Where a pose's eyes look, as data: a key's `LookTarget` (the camera, a point, or
//! angles), a pose's `Look` (one target or a blend of two), a `Gaze` (yaw and pitch) and
//! a still's `StillEyes`. Aiming them on a posed head is `body::gaze`.

use glam::{EulerRot, Quat, Vec3};
use serde_json::{Value, json};

use crate::Refusal;

/// Yaw (positive: toward the model's left) and pitch (positive: down), in degrees.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Gaze {
    pub yaw: f32,
    pub pitch: f32,
}

impl Gaze {
    /// The unit direction, in the head's rest frame (+Z ahead, +X the model's left).
    pub fn direction(self) -> Vec3 {
        let azimuth = (self.yaw - 90.0).to_radians();
        let altitude = (-self.pitch).to_radians();
        Vec3::new(
            altitude.cos() * azimuth.cos(),
            altitude.sin(),
            -altitude.cos() * azimuth.sin(),
        )
    }

    /// The rotation a VRMA lookAt track holds for it: three-vrm-animation 3.5.5 reads
    /// the track's quaternion as YXZ Euler angles, yaw about Y and pitch about X.
    pub fn to_track_rotation(self) -> Quat {
        Quat::from_euler(
            EulerRot::YXZ,
            self.yaw.to_radians(),
            self.pitch.to_radians(),
            0.0,
        )
    }

    /// The gaze a lookAt track's rotation holds (its roll is dropped, as three-vrm does).
    pub fn from_track_rotation(q: Quat) -> Gaze {
        let (y, x, _) = q.normalize().to_euler(EulerRot::YXZ);
        Gaze {
            yaw: y.to_degrees(),
            pitch: x.to_degrees(),
        }
    }
}

/// Where a still's eyes look: at its camera, as a player's default target is (models
/// with a gaze set-up), or as the pose has them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum StillEyes {
    #[default]
    Camera,
    AsPosed,
}

impl StillEyes {
    /// `camera` or `pose` (the CLI's words).
    pub fn from_name(name: &str) -> Option<StillEyes> {
        match name {
            "camera" => Some(StillEyes::Camera),
            "pose" => Some(StillEyes::AsPosed),
            _ => None,
        }
    }
}

/// Where a key's eyes look.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LookTarget {
    /// The viewer: the editor's camera in the window, a still's camera, and in an
    /// exported file [`export_viewer`] (a VRMA has no camera; players put theirs in front).
    Camera,
    /// A point in model space (VRM 1.0 frame, metres).
    Point(Vec3),
    /// Turned from straight ahead of the head by these angles ("ahead" is 0, 0); what a
    /// VRMA's lookAt track holds.
    Angles(Gaze),
}

/// The farthest a gaze point may be (10 km), as for the hips.
const MAX_POINT: f32 = 1e4;

impl LookTarget {
    pub const AHEAD: LookTarget = LookTarget::Angles(Gaze {
        yaw: 0.0,
        pitch: 0.0,
    });

    /// `"camera"`, `"ahead"`, `[x, y, z]` or `{"yaw": d, "pitch": d}` (degrees).
    pub fn to_json(self) -> Value {
        let n = |v: f32| crate::num(v);
        match self {
            LookTarget::Camera => json!("camera"),
            LookTarget::Point(p) => json!([n(p.x), n(p.y), n(p.z)]),
            LookTarget::Angles(g) if g == Gaze::default() => json!("ahead"),
            LookTarget::Angles(g) => json!({"yaw": n(g.yaw), "pitch": n(g.pitch)}),
        }
    }

    pub fn from_json(value: &Value, what: &str) -> Result<LookTarget, Refusal> {
        match value {
            Value::String(s) if s == "camera" => Ok(LookTarget::Camera),
            Value::String(s) if s == "ahead" => Ok(LookTarget::AHEAD),
            Value::Array(_) => {
                let p = crate::read_floats::<3>(value, what)?;
                if p.iter().any(|x| x.abs() > MAX_POINT) {
                    return Err(Refusal::new(format!(
                        "{what}: the point is implausibly far (over 10 km)"
                    )));
                }
                Ok(LookTarget::Point(Vec3::from_array(p)))
            }
            Value::Object(o) => {
                let angle = |key: &str| {
                    o.get(key)
                        .and_then(Value::as_f64)
                        .map(|v| v as f32)
                        .filter(|v| v.is_finite() && v.abs() <= 180.0)
                        .ok_or_else(|| {
                            Refusal::new(format!(
                                "{what}.{key}: expected degrees between -180 and 180"
                            ))
                        })
                };
                Ok(LookTarget::Angles(Gaze {
                    yaw: angle("yaw")?,
                    pitch: angle("pitch")?,
                }))
            }
            other => Err(Refusal::new(format!(
                "{what}: expected \"camera\", \"ahead\", [x, y, z] or {{\"yaw\", \"pitch\"}}, not {other}"
            ))),
        }
    }

    /// Left↔right (the model's X and its yaw flip).
    pub fn mirrored(self) -> LookTarget {
        match self {
            LookTarget::Camera => LookTarget::Camera,
            LookTarget::Point(p) => LookTarget::Point(Vec3::new(-p.x, p.y, p.z)),
            LookTarget::Angles(g) => LookTarget::Angles(Gaze {
                yaw: -g.yaw,
                pitch: g.pitch,
            }),
        }
    }
}

/// A pose's gaze: one target, or between two keys whose targets are of different kinds
/// a blend of the two gazes (`w` of the way from `from` to `to`), which is resolved on
/// the posed head each frame, so a fixed point stays fixed while the head turns.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Look {
    pub from: LookTarget,
    pub to: LookTarget,
    pub w: f32,
}

impl Look {
    pub fn at(target: LookTarget) -> Look {
        Look {
            from: target,
            to: target,
            w: 0.0,
        }
    }

    /// The one target this stands for (a blend's nearer end): what a key saves.
    pub fn target(&self) -> LookTarget {
        if self.w < 0.5 { self.from } else { self.to }
    }

    /// Between two poses' gazes (absent = ahead): points and angles interpolate, the
    /// camera stays the camera, other pairs blend.
    pub fn between(a: Option<&Look>, b: Option<&Look>, w: f32) -> Option<Look> {
        if a.is_none() && b.is_none() {
            return None;
        }
        let end = |l: Option<&Look>| l.map_or(LookTarget::AHEAD, Look::target);
        let (from, to) = (end(a), end(b));
        Some(match (from, to) {
            (LookTarget::Point(p), LookTarget::Point(q)) => {
                Look::at(LookTarget::Point(p.lerp(q, w)))
            }
            (LookTarget::Angles(g), LookTarget::Angles(h)) => Look::at(LookTarget::Angles(Gaze {
                yaw: g.yaw + (h.yaw - g.yaw) * w,
                pitch: g.pitch + (h.pitch - g.pitch) * w,
            })),
            (LookTarget::Camera, LookTarget::Camera) => Look::at(LookTarget::Camera),
            _ if w <= 0.0 => Look::at(from),
            _ if w >= 1.0 => Look::at(to),
            _ => Look { from, to, w },
        })
    }

    pub fn mirrored(&self) -> Look {
        Look {
            from: self.from.mirrored(),
            to: self.to.mirrored(),
            w: self.w,
        }
    }
}
