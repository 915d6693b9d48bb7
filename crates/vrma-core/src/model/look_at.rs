//! A model's gaze set-up as its file gives it (VRM 1.0 `VRMC_vrm.lookAt`, VRM 0.x
//! `firstPerson`): bone or expression type, the offset from the head and the range maps.
//! Aiming it at a target is the body's (`body::gaze`).

use glam::Vec3;
use serde_json::Value;

use crate::model::gltf::VrmVersion;

/// three-vrm's floor for a range map's input (a smaller one turns the angles into NaN).
pub(crate) const INPUT_MAX_VALUE_MINIMUM: f32 = 0.01;
/// Most degrees an eye may turn, or weight an expression may take, whatever a file says.
pub(crate) const MAX_OUTPUT_SCALE: f32 = 360.0;

/// What the gaze moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LookAtKind {
    /// The eye bones turn.
    Bone,
    /// The `lookUp`, `lookDown`, `lookLeft` and `lookRight` expressions are set.
    Expression,
}

/// An input angle in degrees to an output (degrees for bones, a weight for expressions).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RangeMap {
    pub input_max: f32,
    pub output_scale: f32,
}

impl RangeMap {
    pub fn map(&self, degrees: f32) -> f32 {
        self.output_scale * (degrees / self.input_max).clamp(0.0, 1.0)
    }

    fn read(map: &Value, input_key: &str, output_key: &str, default_output: f32) -> RangeMap {
        let number = |key: &str| {
            map[key]
                .as_f64()
                .map(|v| v as f32)
                .filter(|v| v.is_finite())
        };
        RangeMap {
            input_max: number(input_key)
                .unwrap_or(90.0)
                .clamp(INPUT_MAX_VALUE_MINIMUM, f32::MAX),
            output_scale: number(output_key)
                .unwrap_or(default_output)
                .clamp(-MAX_OUTPUT_SCALE, MAX_OUTPUT_SCALE),
        }
    }
}

/// A model's gaze set-up.
#[derive(Clone, Debug, PartialEq)]
pub struct LookAt {
    pub kind: LookAtKind,
    /// From the raw head bone to between the eyes, in the head's own frame.
    pub offset_from_head: Vec3,
    pub horizontal_inner: RangeMap,
    pub horizontal_outer: RangeMap,
    pub vertical_down: RangeMap,
    pub vertical_up: RangeMap,
}

/// The expressions an expression-type gaze sets.
pub const LOOK_EXPRESSIONS: [&str; 4] = ["lookUp", "lookDown", "lookLeft", "lookRight"];

impl LookAt {
    /// Reads the gaze of a VRM's extension JSON; `None` where the file has none (a player
    /// then leaves the eyes as posed).
    pub fn read(root: &Value, version: VrmVersion) -> Option<LookAt> {
        let extensions = &root["extensions"];
        let number = |v: &Value, default: f32| {
            v.as_f64()
                .map(|v| v as f32)
                .filter(|v| v.is_finite())
                .unwrap_or(default)
        };
        match version {
            VrmVersion::V1 => {
                let look = extensions["VRMC_vrm"].get("lookAt")?;
                let kind = match look["type"].as_str() {
                    Some("expression") => LookAtKind::Expression,
                    _ => LookAtKind::Bone,
                };
                let default_output = default_output(kind);
                let map = |key: &str| {
                    RangeMap::read(&look[key], "inputMaxValue", "outputScale", default_output)
                };
                let offset = look["offsetFromHeadBone"].as_array();
                let component = |i: usize, default: f32| {
                    offset
                        .and_then(|o| o.get(i))
                        .map_or(default, |v| number(v, default))
                };
                Some(LookAt {
                    kind,
                    offset_from_head: Vec3::new(
                        component(0, 0.0),
                        component(1, 0.06),
                        component(2, 0.0),
                    ),
                    horizontal_inner: map("rangeMapHorizontalInner"),
                    horizontal_outer: map("rangeMapHorizontalOuter"),
                    vertical_down: map("rangeMapVerticalDown"),
                    vertical_up: map("rangeMapVerticalUp"),
                })
            }
            VrmVersion::V0 => {
                let first_person = extensions["VRM"].get("firstPerson")?;
                let kind = match first_person["lookAtTypeName"].as_str() {
                    Some("BlendShape") => LookAtKind::Expression,
                    _ => LookAtKind::Bone,
                };
                let default_output = default_output(kind);
                let map = |key: &str| {
                    RangeMap::read(&first_person[key], "xRange", "yRange", default_output)
                };
                let offset = &first_person["firstPersonBoneOffset"];
                // As three-vrm reads it: z turned round (VRM 0.x models face -Z).
                let offset_from_head = if offset.is_object() {
                    Vec3::new(
                        number(&offset["x"], 0.0),
                        number(&offset["y"], 0.06),
                        -number(&offset["z"], 0.0),
                    )
                } else {
                    Vec3::new(0.0, 0.06, 0.0)
                };
                Some(LookAt {
                    kind,
                    offset_from_head,
                    horizontal_inner: map("lookAtHorizontalInner"),
                    horizontal_outer: map("lookAtHorizontalOuter"),
                    vertical_down: map("lookAtVerticalDown"),
                    vertical_up: map("lookAtVerticalUp"),
                })
            }
        }
    }

    /// A gaze set-up for a model whose file has none: the spec's defaults (bone type,
    /// 6 cm above the head, 90° → 10° maps). Export and import use it to turn targets
    /// into the lookAt track's angles and back.
    pub fn standard() -> LookAt {
        let map = RangeMap {
            input_max: 90.0,
            output_scale: 10.0,
        };
        LookAt {
            kind: LookAtKind::Bone,
            offset_from_head: Vec3::new(0.0, 0.06, 0.0),
            horizontal_inner: map,
            horizontal_outer: map,
            vertical_down: map,
            vertical_up: map,
        }
    }
}

fn default_output(kind: LookAtKind) -> f32 {
    match kind {
        LookAtKind::Expression => 1.0,
        LookAtKind::Bone => 10.0,
    }
}
