//! Motion from another skeleton (BVH, and the formats that follow it): the source's joints
//! and frames as one shape, the joint names mapped onto the humanoid (`names`), the
//! motion retargeted onto a rig so that limb directions match (`retarget`), and the
//! result laid out as editable keys (`keys`). A format reads its file into a
//! [`MotionSource`] and calls [`import_motion`].

pub mod keys;
pub mod names;
pub mod retarget;

use glam::{Quat, Vec3};

use crate::Refusal;
use crate::animation::timeline::MAX_TIME;
use crate::body::rig::Rig;
use crate::formats::imported::Imported;

pub use keys::KeyPolicy;
pub use names::{Mapping, UserMap};

/// One joint of a source skeleton at rest.
#[derive(Clone, Debug, PartialEq)]
pub struct SourceJoint {
    pub name: String,
    /// Parents come before their children.
    pub parent: Option<usize>,
    /// Rest translation from the parent (the file's units and axes).
    pub rest_translation: Vec3,
    pub rest_rotation: Quat,
    /// Where the chain ends beyond this joint (a BVH `End Site`), in its own space.
    pub tip: Option<Vec3>,
}

/// A joint's local transform in one frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Local {
    pub translation: Vec3,
    pub rotation: Quat,
}

/// A source of frames on one skeleton.
pub trait MotionSource {
    fn joints(&self) -> &[SourceJoint];
    fn frame_count(&self) -> usize;
    /// Seconds between frames.
    fn frame_time(&self) -> f32;
    /// The local transforms of every joint in `frame` (`out` has one per joint).
    fn frame(&self, frame: usize, out: &mut [Local]);
    /// The VRM expressions the source drives (a skeleton alone drives none).
    fn expression_names(&self) -> &[String] {
        &[]
    }
    /// Their weights in `frame` (`out` has one per name).
    fn expressions(&self, _frame: usize, _out: &mut [f32]) {}
}

/// How an import lays out its keys and which bones it maps.
#[derive(Clone, Debug, Default)]
pub struct MotionOptions {
    pub keys: KeyPolicy,
    pub map: Option<UserMap>,
    /// The first and last second of the source to take (`None`: all of it).
    pub range: Option<(f32, f32)>,
}

/// The source's length in seconds, refused beyond the timeline's hour.
pub fn duration_of(source: &dyn MotionSource) -> Result<f32, Refusal> {
    let frame_time = source.frame_time();
    if !(frame_time.is_finite() && frame_time > 0.0) {
        return Err(Refusal::new(format!(
            "a frame time of {frame_time} s is not usable"
        )));
    }
    let duration = source.frame_count().saturating_sub(1) as f64 * frame_time as f64;
    if duration > MAX_TIME as f64 {
        return Err(Refusal::new(format!(
            "the motion lasts {:.0} s; a timeline holds at most {MAX_TIME} s",
            duration
        )));
    }
    Ok(duration as f32)
}

/// Maps, retargets and keys a source's motion for `rig`.
pub fn import_motion(
    source: &dyn MotionSource,
    rig: &Rig,
    options: &MotionOptions,
) -> Result<Imported, Refusal> {
    if source.frame_count() == 0 {
        return Err(Refusal::new("the motion has no frames"));
    }
    let duration = duration_of(source)?;
    let mapping = Mapping::detect(source.joints(), options.map.as_ref())?;
    let baked = retarget::bake(source, &mapping, rig, options.range, duration)?;
    let mut warnings = Vec::new();
    let mut report = mapping.report(source.joints(), rig);
    report.source_seconds = duration;
    report.source_fps = 1.0 / source.frame_time();
    if let Some(missing) = report.missing_summary() {
        warnings.push(missing);
    }
    let timeline = keys::lay_out(&baked, options.keys)?;
    Ok(Imported {
        duration: timeline.end(),
        source_times: source.frame_count(),
        timeline,
        fps: None,
        warnings,
        mapping: Some(report),
    })
}
