//! An FBX take as a motion source. `ufbx` converts the scene to Y-up metres and
//! evaluates each node's local transform at any time; the transforms are brought to the
//! scale-free form retargeting uses (a node's translation and rotation relative to its
//! parent's world position and rotation), so a Mixamo armature scaled by 0.01 or a bone
//! with a scale in its chain moves its children where the file says.

use glam::{Affine3A, DQuat, DVec3, Quat, Vec3};

use crate::Refusal;
use crate::body::rig::Rig;
use crate::formats::imported::Imported;
use crate::formats::motion::{Local, MotionOptions, MotionSource, SourceJoint, import_motion};

/// The most bytes handed to `ufbx` (a long capture with meshes is tens of MB).
pub const MAX_BYTES: usize = 512 << 20;
/// The most memory `ufbx` may use for the scene and again for its work.
const MEMORY_LIMIT: usize = 512 << 20;
/// The most nodes taken as joints (rigs have tens to a few hundred).
pub const MAX_NODES: usize = 4096;
/// Frames per second beyond any capture (a claimed 10⁹ fps is refused, not sampled).
const MAX_FPS: f64 = 1000.0;

fn refusal(e: &ufbx::Error) -> Refusal {
    let description = e.description.to_string();
    let info = e.info().to_string();
    let line = if info.is_empty() {
        format!("the FBX file cannot be read: {description}")
    } else {
        format!("the FBX file cannot be read: {description} ({info})")
    };
    Refusal::new(line)
}

/// A loaded scene, one take of it, and its nodes in the motion's shape.
pub struct FbxMotion {
    scene: ufbx::SceneRoot,
    /// Index of the take in `scene.anim_stacks`, or `None` for the scene's default.
    take: Option<usize>,
    begin: f64,
    fps: f64,
    frames: usize,
    /// Scene node index (`typed_id`) of each joint, parents first.
    nodes: Vec<usize>,
    /// Each joint's parent among the joints.
    parents: Vec<Option<usize>>,
    joints: Vec<SourceJoint>,
    /// Every take's name.
    pub takes: Vec<String>,
}

/// World transforms (no shear) of the joints from their ufbx local transforms, and the
/// scale-free locals our retargeting reads.
fn scale_free(parents: &[Option<usize>], locals: &[ufbx::Transform], out: &mut [Local]) {
    let mut world: Vec<Affine3A> = Vec::with_capacity(locals.len());
    for (i, t) in locals.iter().enumerate() {
        let local = Affine3A::from_scale_rotation_translation(
            v3(t.scale),
            q4(t.rotation),
            v3(t.translation),
        );
        let w = match parents[i] {
            Some(p) => world[p] * local,
            None => local,
        };
        world.push(w);
        let (_, rotation, position) = w.to_scale_rotation_translation();
        out[i] = match parents[i] {
            Some(p) => {
                let (_, parent_rotation, parent_position) =
                    world[p].to_scale_rotation_translation();
                let inverse = parent_rotation.inverse();
                Local {
                    translation: inverse * (position - parent_position),
                    rotation: (inverse * rotation).normalize(),
                }
            }
            None => Local {
                translation: position,
                rotation: rotation.normalize(),
            },
        };
    }
}

fn v3(v: ufbx::Vec3) -> Vec3 {
    DVec3::new(v.x, v.y, v.z).as_vec3()
}

fn q4(q: ufbx::Quat) -> Quat {
    let q = DQuat::from_xyzw(q.x, q.y, q.z, q.w);
    if q.length_squared() > 1e-12 {
        q.normalize().as_quat()
    } else {
        Quat::IDENTITY
    }
}

impl FbxMotion {
    /// Loads `bytes` and picks a take: by name or number, else the longest.
    pub fn new(bytes: &[u8], take: Option<&str>) -> Result<FbxMotion, Refusal> {
        if bytes.len() > MAX_BYTES {
            return Err(Refusal::new(format!(
                "the FBX file is {} MB; at most {} MB are read",
                bytes.len() >> 20,
                MAX_BYTES >> 20
            )));
        }
        let limit = || ufbx::AllocatorOpts {
            memory_limit: MEMORY_LIMIT,
            ..Default::default()
        };
        let opts = ufbx::LoadOpts {
            target_axes: ufbx::CoordinateAxes::right_handed_y_up(),
            target_unit_meters: 1.0,
            space_conversion: ufbx::SpaceConversion::AdjustTransforms,
            ignore_geometry: true,
            ignore_embedded: true,
            load_external_files: false,
            node_depth_limit: 256,
            temp_allocator: limit(),
            result_allocator: limit(),
            ..Default::default()
        };
        let scene = ufbx::load_memory(bytes, opts).map_err(|e| refusal(&e))?;
        let takes: Vec<String> = scene
            .anim_stacks
            .iter()
            .map(|s| s.element.name.to_string())
            .collect();
        let chosen = match take {
            Some(wanted) => Some(
                takes
                    .iter()
                    .position(|n| n == wanted)
                    .or_else(|| wanted.parse::<usize>().ok().filter(|&i| i < takes.len()))
                    .ok_or_else(|| {
                        Refusal::new(format!(
                            "the file has no take '{wanted}' (it has: {})",
                            takes.join(", ")
                        ))
                    })?,
            ),
            None => (0..takes.len()).max_by(|&a, &b| {
                let length = |i: usize| {
                    let s = &scene.anim_stacks[i];
                    s.time_end - s.time_begin
                };
                length(a).total_cmp(&length(b))
            }),
        };
        let (begin, end) = match chosen {
            Some(i) => (
                scene.anim_stacks[i].time_begin,
                scene.anim_stacks[i].time_end,
            ),
            None => (0.0, 0.0),
        };
        let fps = scene.settings.frames_per_second;
        let fps = if fps.is_finite() && fps > 0.0 && fps <= MAX_FPS {
            fps
        } else {
            30.0
        };
        if !(begin.is_finite() && end.is_finite() && end >= begin) {
            return Err(Refusal::new(
                "the take's start and end are not usable times",
            ));
        }
        let seconds = end - begin;
        if seconds > crate::animation::timeline::MAX_TIME as f64 {
            return Err(Refusal::new(format!(
                "the take lasts {seconds:.0} s; a timeline holds at most {} s",
                crate::animation::timeline::MAX_TIME
            )));
        }
        let frames = (seconds * fps).round() as usize + 1;

        // Joints: every node but the scene's root, parents first (by depth).
        let count = scene.nodes.len();
        if count > MAX_NODES + 1 {
            return Err(Refusal::new(format!(
                "the FBX file has {count} nodes; at most {MAX_NODES} are read"
            )));
        }
        let depth = |mut node: &ufbx::Node| {
            let mut d = 0usize;
            while let Some(p) = node.parent.as_ref() {
                d += 1;
                node = p;
                if d > 1024 {
                    break;
                }
            }
            d
        };
        let mut order: Vec<(usize, usize)> = scene
            .nodes
            .iter()
            .filter(|n| !n.is_root)
            .map(|n| (depth(n), n.element.typed_id as usize))
            .collect();
        order.sort();
        let nodes: Vec<usize> = order.into_iter().map(|(_, id)| id).collect();
        let index_of = |id: usize| nodes.iter().position(|&n| n == id);
        let parents: Vec<Option<usize>> = nodes
            .iter()
            .map(|&id| {
                scene.nodes[id]
                    .parent
                    .as_ref()
                    .filter(|p| !p.is_root)
                    .and_then(|p| index_of(p.element.typed_id as usize))
            })
            .collect();
        let rest: Vec<ufbx::Transform> = nodes
            .iter()
            .map(|&id| scene.nodes[id].local_transform)
            .collect();
        let mut locals = vec![
            Local {
                translation: Vec3::ZERO,
                rotation: Quat::IDENTITY
            };
            nodes.len()
        ];
        scale_free(&parents, &rest, &mut locals);
        let joints = nodes
            .iter()
            .enumerate()
            .map(|(i, &id)| SourceJoint {
                name: scene.nodes[id].element.name.to_string(),
                parent: parents[i],
                rest_translation: locals[i].translation,
                rest_rotation: locals[i].rotation,
                tip: (0..nodes.len())
                    .find(|&c| parents[c] == Some(i))
                    .map(|c| locals[c].translation),
            })
            .collect();
        Ok(FbxMotion {
            scene,
            take: chosen,
            begin,
            fps,
            frames,
            nodes,
            parents,
            joints,
            takes,
        })
    }
}

impl MotionSource for FbxMotion {
    fn joints(&self) -> &[SourceJoint] {
        &self.joints
    }

    fn frame_count(&self) -> usize {
        self.frames
    }

    fn frame_time(&self) -> f32 {
        (1.0 / self.fps) as f32
    }

    fn frame(&self, frame: usize, out: &mut [Local]) {
        let anim: &ufbx::Anim = match self.take {
            Some(i) => &self.scene.anim_stacks[i].anim,
            None => &self.scene.anim,
        };
        let time = self.begin + frame as f64 / self.fps;
        let transforms: Vec<ufbx::Transform> = self
            .nodes
            .iter()
            .map(|&id| ufbx::evaluate_transform(anim, &self.scene.nodes[id], time))
            .collect();
        scale_free(&self.parents, &transforms, out);
    }
}

/// Reads an FBX file's bytes and retargets one take's motion onto `rig`.
pub fn import_fbx(
    bytes: &[u8],
    rig: &Rig,
    options: &MotionOptions,
    take: Option<&str>,
) -> Result<Imported, Refusal> {
    let motion = FbxMotion::new(bytes, take)?;
    let mut imported = import_motion(&motion, rig, options)?;
    if motion.takes.len() > 1 {
        let taken = motion.take.map_or("", |i| motion.takes[i].as_str());
        imported.warnings.push(format!(
            "the file has {} takes ({}); took '{taken}' (choose with --take)",
            motion.takes.len(),
            motion.takes.join(", ")
        ));
    }
    if let Some(report) = imported.mapping.as_mut() {
        report.clips = motion.takes.clone();
    }
    Ok(imported)
}
