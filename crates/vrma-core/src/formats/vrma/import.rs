//! `.vrma` files and humanoid glTF clips → editable keys, retargeted through the
//! normalized rig (SPEC §11, seed 000): each bone's animated local rotation `q` becomes
//! the normalized `P · q · W⁻¹` (P: its parent's world rest rotation, W: its own), which
//! removes the source's rest pose and parent transforms; the hips path is taken into
//! world space (so cm rigs under a 0.01 scale come out in metres) and scaled by the
//! ratio of the target's to the source's rest hips height — as three-vrm-animation does.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use glam::{Affine3A, Quat, Vec3};
use serde_json::Value;

use super::EXTENSION;
use crate::Refusal;
use crate::animation::timeline::{Ease, FPS, Key, MAX_TIME, Timeline, frame_of, snap};
use crate::body::look::{Gaze, Look, LookTarget};
use crate::body::math::slerp_shortest;
use crate::body::pose::Pose;
use crate::files::accessors::GltfData;
use crate::files::glb;
use crate::formats::imported::Imported;
use crate::model::gltf::{RawNode, parse_nodes};
use crate::model::humanoid::{ALL_BONES, Bone};

/// What kind of file is being imported.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AnimationKind {
    /// A VRM Animation: the `VRMC_vrm_animation` extension is required.
    Vrma,
    /// A glTF clip on a humanoid skeleton (VRM or Mixamo bone names).
    Clip,
}

impl AnimationKind {
    pub fn from_path(path: &std::path::Path) -> AnimationKind {
        match path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            Some("vrma") => AnimationKind::Vrma,
            _ => AnimationKind::Clip,
        }
    }
}

/// A node name → bone: VRM names (any case), or Mixamo names with any `…:` prefix
/// (one table of names serves every import: `formats::motion::names`).
fn bone_from_node_name(name: &str) -> Option<Bone> {
    crate::formats::motion::names::bone_from_name(name)
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Interpolation {
    Linear,
    Step,
    Cubic,
}

/// One channel's keyframes.
struct Track {
    times: Vec<f32>,
    /// Values per key; for cubic splines, (in-tangent, value, out-tangent) per key.
    values: Vec<f32>,
    width: usize,
    interpolation: Interpolation,
}

impl Track {
    fn value(&self, i: usize) -> &[f32] {
        let stride = if self.interpolation == Interpolation::Cubic {
            3
        } else {
            1
        };
        let at = (i * stride
            + if self.interpolation == Interpolation::Cubic {
                1
            } else {
                0
            })
            * self.width;
        &self.values[at..at + self.width]
    }

    fn tangent(&self, i: usize, out: bool) -> &[f32] {
        let at = (i * 3 + if out { 2 } else { 0 }) * self.width;
        &self.values[at..at + self.width]
    }

    /// The track's value at `t` (held before the first and after the last key).
    fn sample(&self, t: f32, quaternion: bool) -> Vec<f32> {
        let n = self.times.len();
        if t <= self.times[0] {
            return self.value(0).to_vec();
        }
        if t >= self.times[n - 1] {
            return self.value(n - 1).to_vec();
        }
        let b = self.times.partition_point(|&k| k <= t);
        let a = b - 1;
        let dt = self.times[b] - self.times[a];
        let x = if dt > 0.0 {
            (t - self.times[a]) / dt
        } else {
            0.0
        };
        match self.interpolation {
            Interpolation::Step => self.value(a).to_vec(),
            Interpolation::Linear if quaternion => {
                let qa = Quat::from_slice(self.value(a));
                let qb = Quat::from_slice(self.value(b));
                slerp_shortest(qa.normalize(), qb.normalize(), x)
                    .to_array()
                    .to_vec()
            }
            Interpolation::Linear => self
                .value(a)
                .iter()
                .zip(self.value(b))
                .map(|(p, q)| p + (q - p) * x)
                .collect(),
            Interpolation::Cubic => {
                let (x2, x3) = (x * x, x * x * x);
                let (h00, h10, h01, h11) = (
                    2.0 * x3 - 3.0 * x2 + 1.0,
                    x3 - 2.0 * x2 + x,
                    -2.0 * x3 + 3.0 * x2,
                    x3 - x2,
                );
                let (pa, pb) = (self.value(a), self.value(b));
                let (ma, mb) = (self.tangent(a, true), self.tangent(b, false));
                let v: Vec<f32> = (0..self.width)
                    .map(|c| h00 * pa[c] + h10 * dt * ma[c] + h01 * pb[c] + h11 * dt * mb[c])
                    .collect();
                if quaternion {
                    Quat::from_slice(&v).normalize().to_array().to_vec()
                } else {
                    v
                }
            }
        }
    }
}

fn world_rest(nodes: &[RawNode]) -> Vec<Affine3A> {
    let mut world = vec![Affine3A::IDENTITY; nodes.len()];
    let mut stack: Vec<usize> = (0..nodes.len())
        .filter(|&i| nodes[i].parent.is_none())
        .collect();
    while let Some(i) = stack.pop() {
        let n = &nodes[i];
        let local = Affine3A::from_scale_rotation_translation(n.scale, n.rotation, n.translation);
        world[i] = n.parent.map_or(local, |p| world[p] * local);
        stack.extend(n.children.iter().copied());
    }
    world
}

fn rotation_of(a: &Affine3A) -> Quat {
    let (_, r, _) = a.to_scale_rotation_translation();
    r.normalize()
}

/// Reads an animation file's buffers: the GLB's BIN chunk, or files next to a .gltf.
fn buffers<'a>(root: &Value, bin: Option<&'a [u8]>, external: &'a [Vec<u8>]) -> Vec<&'a [u8]> {
    let count = root
        .get("buffers")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    let mut ext = external.iter();
    (0..count)
        .map(|i| {
            let has_uri = root["buffers"][i].get("uri").is_some();
            match (i, has_uri, bin) {
                (0, false, Some(bin)) => bin,
                _ => ext.next().map_or(&[][..], |b| b.as_slice()),
            }
        })
        .collect()
}

/// Imports an animation for a model whose rest hips are at `target_hips_rest`.
/// `rate` thins dense clips to at most that many keys per second.
pub fn import_animation(
    bytes: &[u8],
    external_buffers: &[Vec<u8>],
    kind: AnimationKind,
    target_hips_rest: Vec3,
    rate: Option<f32>,
) -> Result<Imported, Refusal> {
    let split = glb::split(bytes)?;
    let root: Value = serde_json::from_slice(split.json)
        .map_err(|e| Refusal::new(format!("the glTF JSON is invalid: {e}")))?;
    if !root.is_object() {
        return Err(Refusal::new("the glTF JSON is not an object"));
    }
    let nodes = parse_nodes(&root, usize::MAX)?;
    let data = GltfData {
        root: &root,
        buffers: buffers(&root, split.bin, external_buffers),
    };
    let mut warnings = Vec::new();

    // Which node is which bone / expression.
    let mut bone_node: BTreeMap<Bone, usize> = BTreeMap::new();
    let mut expression_node: BTreeMap<usize, String> = BTreeMap::new();
    let mut look_node: Option<usize> = None;
    match root.get("extensions").and_then(|e| e.get(EXTENSION)) {
        Some(ext) => {
            look_node = ext
                .get("lookAt")
                .and_then(|l| l.get("node"))
                .and_then(Value::as_u64)
                .map(|n| n as usize)
                .filter(|&n| n < nodes.len());
            let bones = ext
                .get("humanoid")
                .and_then(|h| h.get("humanBones"))
                .and_then(Value::as_object)
                .ok_or_else(|| {
                    Refusal::new(format!("{EXTENSION}.humanoid.humanBones is missing"))
                })?;
            for (name, entry) in bones {
                let node = entry
                    .get("node")
                    .and_then(Value::as_u64)
                    .map(|n| n as usize)
                    .filter(|&n| n < nodes.len());
                let node = node.ok_or_else(|| {
                    Refusal::new(format!(
                        "humanBones.{name}: node is missing or out of range"
                    ))
                })?;
                match Bone::from_name(name) {
                    Some(b) => {
                        bone_node.insert(b, node);
                    }
                    None => warnings.push(format!("unknown humanoid bone '{name}' ignored")),
                }
            }
            for group in ["preset", "custom"] {
                let Some(map) = ext
                    .get("expressions")
                    .and_then(|e| e.get(group))
                    .and_then(Value::as_object)
                else {
                    continue;
                };
                for (name, entry) in map {
                    if let Some(node) = entry
                        .get("node")
                        .and_then(Value::as_u64)
                        .map(|n| n as usize)
                        .filter(|&n| n < nodes.len())
                    {
                        expression_node.insert(node, name.clone());
                    }
                }
            }
        }
        None if kind == AnimationKind::Vrma => {
            return Err(Refusal::new(format!(
                "not a VRM Animation: the {EXTENSION} extension is missing"
            )));
        }
        None => {
            for (i, node) in nodes.iter().enumerate() {
                if let Some(bone) = bone_from_node_name(&node.name) {
                    bone_node.entry(bone).or_insert(i);
                }
            }
        }
    }
    if !bone_node.contains_key(&Bone::Hips) {
        return Err(Refusal::new(
            "no humanoid skeleton found: no 'hips' bone (expected VRM humanoid or Mixamo bone names)",
        ));
    }

    // Tracks per node and path.
    let animation = root
        .get("animations")
        .and_then(Value::as_array)
        .and_then(|a| a.first())
        .ok_or_else(|| Refusal::new("the file has no animation"))?;
    let empty = Vec::new();
    let samplers = animation
        .get("samplers")
        .and_then(Value::as_array)
        .unwrap_or(&empty);
    let channels = animation
        .get("channels")
        .and_then(Value::as_array)
        .unwrap_or(&empty);
    let mut rotations: BTreeMap<usize, Track> = BTreeMap::new();
    let mut translations: BTreeMap<usize, Track> = BTreeMap::new();
    for (ci, channel) in channels.iter().enumerate() {
        let what = format!("animation channel {ci}");
        let target = channel
            .get("target")
            .ok_or_else(|| Refusal::new(format!("{what} has no target")))?;
        let node = target
            .get("node")
            .and_then(Value::as_u64)
            .map(|n| n as usize)
            .ok_or_else(|| Refusal::new(format!("{what} has no target node")))?;
        if node >= nodes.len() {
            return Err(Refusal::new(format!(
                "{what}: target node {node} is out of range"
            )));
        }
        let path = target.get("path").and_then(Value::as_str).unwrap_or("");
        match path {
            "rotation" | "translation" => {}
            "scale" if kind == AnimationKind::Vrma => {
                return Err(Refusal::new(format!(
                    "{what} animates scale, which VRMA does not allow"
                )));
            }
            "scale" | "weights" => {
                if !warnings.iter().any(|w: &String| w.contains(path)) {
                    warnings.push(format!("{path} channels are ignored"));
                }
                continue;
            }
            other => {
                return Err(Refusal::new(format!(
                    "{what}: unknown target path '{other}'"
                )));
            }
        }
        let is_bone = bone_node.values().any(|&n| n == node);
        let is_expression = expression_node.contains_key(&node);
        let is_look = look_node == Some(node);
        if !(is_bone || is_expression || is_look) {
            continue; // a node the humanoid does not use
        }
        let sampler_index = channel
            .get("sampler")
            .and_then(Value::as_u64)
            .map(|s| s as usize);
        let sampler = sampler_index
            .and_then(|s| samplers.get(s))
            .ok_or_else(|| Refusal::new(format!("{what}: sampler is missing or out of range")))?;
        let interpolation = match sampler
            .get("interpolation")
            .and_then(Value::as_str)
            .unwrap_or("LINEAR")
        {
            "LINEAR" => Interpolation::Linear,
            "STEP" => Interpolation::Step,
            "CUBICSPLINE" => Interpolation::Cubic,
            other => {
                return Err(Refusal::new(format!(
                    "{what}: unknown interpolation '{other}'"
                )));
            }
        };
        let input = sampler
            .get("input")
            .and_then(Value::as_u64)
            .map(|i| i as usize);
        let output = sampler
            .get("output")
            .and_then(Value::as_u64)
            .map(|i| i as usize);
        let (Some(input), Some(output)) = (input, output) else {
            return Err(Refusal::new(format!(
                "{what}: sampler input or output is missing"
            )));
        };
        let (times, _) = data.read_floats(input).map_err(|e| e.context(&what))?;
        let (values, width) = data.read_floats(output).map_err(|e| e.context(&what))?;
        let expected_width = if path == "rotation" { 4 } else { 3 };
        let per_key = if interpolation == Interpolation::Cubic {
            3
        } else {
            1
        };
        if width != expected_width
            || values.len() != times.len() * per_key * width
            || times.is_empty()
        {
            return Err(Refusal::new(format!(
                "{what}: {} keyframe times but {} {path} values",
                times.len(),
                values.len() / width.max(1)
            )));
        }
        if times.windows(2).any(|w| w[1] < w[0])
            || times.iter().any(|t| !(0.0..=MAX_TIME).contains(t))
        {
            return Err(Refusal::new(format!(
                "{what}: keyframe times must be increasing, from 0 to {MAX_TIME} s"
            )));
        }
        // Values far beyond any pose (or NaN) would poison every blend they touch.
        if let Some(v) = values.iter().find(|v| !v.is_finite() || v.abs() > 1e6) {
            return Err(Refusal::new(format!(
                "{what}: {path} value {v} is not a usable number"
            )));
        }
        if path == "rotation"
            && values
                .chunks(4)
                .any(|q| Quat::from_slice(q).length() < 1e-6)
        {
            return Err(Refusal::new(format!("{what}: a rotation has zero length")));
        }
        let track = Track {
            times,
            values,
            width,
            interpolation,
        };
        if path == "rotation" {
            rotations.insert(node, track);
        } else {
            translations.insert(node, track);
        }
    }
    if rotations.is_empty() && translations.is_empty() {
        return Err(Refusal::new(
            "the animation has no channels on humanoid bones",
        ));
    }

    let all_tracks = || rotations.values().chain(translations.values());
    let source_times = all_tracks()
        .flat_map(|t| t.times.iter().map(|&x| frame_of(x)))
        .collect::<BTreeSet<i64>>()
        .len();
    // Our own export: its keys ride along and come back as they were.
    if kind == AnimationKind::Vrma {
        let end = all_tracks()
            .filter_map(|t| t.times.last().copied())
            .fold(0.0f32, f32::max);
        if let Some((timeline, fps)) =
            super::extras::read(&root, end, target_hips_rest, &mut warnings)
        {
            return Ok(Imported {
                duration: timeline.end(),
                timeline,
                source_times,
                fps: Some(fps),
                warnings,
                mapping: None,
            });
        }
    }

    // Retargeting frames (rest pose of the source).
    let world = world_rest(&nodes);
    let hips_node = bone_node[&Bone::Hips];
    let hips_parent = nodes[hips_node]
        .parent
        .map_or(Affine3A::IDENTITY, |p| world[p]);
    let source_hips_rest = Vec3::from(world[hips_node].translation);
    let hips_scale = if source_hips_rest.y.abs() > 1e-6 {
        target_hips_rest.y / source_hips_rest.y
    } else {
        1.0
    };

    // Keys where the source has keys (snapped to frames), optionally thinned.
    let all_times: BTreeSet<i64> = all_tracks()
        .flat_map(|t| t.times.iter().map(|&x| frame_of(x)))
        .collect();
    let mut frames: Vec<i64> = all_times.into_iter().collect();
    if let Some(rate) = rate.filter(|r| r.is_finite() && *r > 0.0) {
        let min_gap = (FPS / rate).round().max(1.0) as i64;
        let last = *frames.last().expect("at least one time");
        let mut thinned: Vec<i64> = Vec::new();
        for f in frames {
            if thinned.last().is_none_or(|&p| f - p >= min_gap) || f == last {
                thinned.push(f);
            }
        }
        frames = thinned;
    }

    let mut keys = Vec::with_capacity(frames.len());
    for (i, &frame) in frames.iter().enumerate() {
        let t = snap(frame as f32 / FPS);
        let mut pose = Pose::default();
        for bone in ALL_BONES {
            let Some(&node) = bone_node.get(&bone) else {
                continue;
            };
            if bone.is_eye() {
                continue;
            }
            let local = rotations.get(&node).map_or(nodes[node].rotation, |track| {
                Quat::from_slice(&track.sample(t, true))
            });
            let parent = nodes[node]
                .parent
                .map_or(Quat::IDENTITY, |p| rotation_of(&world[p]));
            let normalized =
                (parent * local.normalize() * rotation_of(&world[node]).inverse()).normalize();
            if !normalized.is_finite() {
                return Err(Refusal::new(format!(
                    "{}: its rest transform cannot be inverted (zero scale?)",
                    bone.name()
                )));
            }
            pose.set_rotation(bone, normalized);
        }
        // Without a hips translation track the model's own rest hips stay (as in
        // three-vrm-animation), whatever the source's rest height.
        pose.hips = translations.get(&hips_node).map(|track| {
            hips_parent.transform_point3(Vec3::from_slice(&track.sample(t, false))) * hips_scale
        });
        if pose
            .hips
            .is_some_and(|h| !h.is_finite() || h.abs().max_element() > 1e4)
        {
            return Err(Refusal::new(
                "the hips move further than 10 km: the clip's units or rest pose are unusable",
            ));
        }
        for (node, name) in &expression_node {
            if let Some(track) = translations.get(node) {
                pose.expressions
                    .insert(name.clone(), track.sample(t, false)[0].clamp(0.0, 1.0));
            }
        }
        // The gaze: three-vrm-animation's rotation (yaw and pitch), or the spec's
        // model-space position of the lookAt node.
        if let Some(node) = look_node {
            if let Some(track) = rotations.get(&node) {
                let q = Quat::from_slice(&track.sample(t, true));
                pose.look = Some(Look::at(LookTarget::Angles(Gaze::from_track_rotation(q))));
            } else if let Some(track) = translations.get(&node) {
                let parent = nodes[node].parent.map_or(Affine3A::IDENTITY, |p| world[p]);
                let point = parent.transform_point3(Vec3::from_slice(&track.sample(t, false)));
                if point.is_finite() && point.abs().max_element() <= 1e4 {
                    pose.look = Some(Look::at(LookTarget::Point(point)));
                }
            }
        }
        keys.push(Key {
            id: i as u64 + 1,
            file_id: None,
            t,
            ease: Ease::Linear,
            pose,
        });
    }
    let duration = keys.last().map_or(0.0, |k| k.t);
    let timeline = Timeline::from_keys(keys)?;
    Ok(Imported {
        timeline,
        duration,
        source_times,
        fps: None,
        warnings,
        mapping: None,
    })
}

/// Reads an animation file and the external buffers a .gltf names beside it.
pub fn read_animation_file(path: &Path) -> Result<(Vec<u8>, Vec<Vec<u8>>), Refusal> {
    let bytes = crate::read_bounded(path, crate::MAX_FILE_BYTES)?;
    let mut external = Vec::new();
    if bytes.iter().copied().find(|b| !b.is_ascii_whitespace()) == Some(b'{') {
        let root: Value = serde_json::from_slice(&bytes).map_err(|e| {
            Refusal::new(format!("{}: the glTF JSON is invalid: {e}", path.display()))
        })?;
        let folder = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        for buffer in root
            .get("buffers")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let Some(uri) = buffer.get("uri").and_then(Value::as_str) else {
                continue;
            };
            let length = buffer
                .get("byteLength")
                .and_then(Value::as_u64)
                .unwrap_or(0);
            external.push(
                read_buffer_beside(folder, uri, length).map_err(|e| e.context(path.display()))?,
            );
        }
    }
    Ok((bytes, external))
}

/// `%XX` escapes of a URI decoded (`my%20clip.bin`); `None` for a broken escape or a
/// name that is not UTF-8.
fn percent_decoded(uri: &str) -> Option<String> {
    let bytes = uri.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// A `.gltf` clip's external buffer: a relative URI naming a regular file inside the
/// clip's own folder, of which exactly `byteLength` bytes are read.
fn read_buffer_beside(folder: &Path, uri: &str, length: u64) -> Result<Vec<u8>, Refusal> {
    let refuse =
        |why: &str| Refusal::new(format!("buffer '{uri}' cannot be read: {why} (use a .glb)"));
    if uri.starts_with("data:") || uri.contains("://") {
        return Err(refuse("only files beside the clip are read"));
    }
    let name = percent_decoded(uri).ok_or_else(|| refuse("a broken %-escape"))?;
    let relative = Path::new(&name);
    if relative.is_absolute()
        || relative.components().any(|c| {
            !matches!(
                c,
                std::path::Component::Normal(_) | std::path::Component::CurDir
            )
        })
    {
        return Err(refuse("it must name a file inside the clip's folder"));
    }
    let file = folder.join(relative);
    // A link inside the folder may still point out of it.
    let (Ok(inside), Ok(real)) = (folder.canonicalize(), file.canonicalize()) else {
        return Err(refuse("no such file"));
    };
    if !real.starts_with(&inside) {
        return Err(refuse("it leads outside the clip's folder"));
    }
    if length > crate::MAX_FILE_BYTES {
        return Err(refuse("its byteLength is over 1 GB"));
    }
    let mut bytes = crate::read_bounded(&real, crate::MAX_FILE_BYTES)?;
    if (bytes.len() as u64) < length {
        return Err(refuse(&format!(
            "the file holds {} of its {length} bytes",
            bytes.len()
        )));
    }
    bytes.truncate(length as usize);
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)] // links, a FIFO and /dev/zero
    #[test]
    fn clip_buffers_are_read_only_from_regular_files_inside_the_clip_folder() {
        let dir = std::env::temp_dir().join(format!("vrma-buffers-{}", std::process::id()));
        let clip = dir.join("clip");
        std::fs::create_dir_all(&clip).unwrap();
        std::fs::write(clip.join("my clip.bin"), [1u8, 2, 3, 4, 5]).unwrap();
        std::fs::write(dir.join("secret.bin"), [9u8; 8]).unwrap();
        std::os::unix::fs::symlink(dir.join("secret.bin"), clip.join("out.bin")).unwrap();
        std::os::unix::fs::symlink("/dev/zero", clip.join("zero.bin")).unwrap();
        let fifo = clip.join("fifo.bin");
        assert!(
            std::process::Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .unwrap()
                .success()
        );
        // Percent-encoded names are decoded; exactly byteLength bytes are read.
        assert_eq!(
            read_buffer_beside(&clip, "my%20clip.bin", 3).unwrap(),
            vec![1, 2, 3]
        );
        let refused = |uri: &str, length: u64| {
            read_buffer_beside(&clip, uri, length)
                .unwrap_err()
                .to_string()
        };
        assert!(refused("my%20clip.bin", 6).contains("holds 5 of its 6 bytes"));
        assert!(refused("/dev/zero", 4).contains("inside the clip's folder"));
        assert!(refused("../secret.bin", 4).contains("inside the clip's folder"));
        assert!(refused("out.bin", 4).contains("outside the clip's folder"));
        assert!(refused("zero.bin", 4).contains("outside the clip's folder"));
        assert!(
            refused("fifo.bin", 4).contains("not a regular file"),
            "{}",
            refused("fifo.bin", 4)
        );
        assert!(refused("bad%zz.bin", 4).contains("%-escape"));
        assert!(
            refused("data:application/octet-stream;base64,AAAA", 3).contains("beside the clip")
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn mixamo_names_map_to_vrm_bones() {
        assert_eq!(bone_from_node_name("mixamorig:Hips"), Some(Bone::Hips));
        assert_eq!(
            bone_from_node_name("mixamorig:Spine2"),
            Some(Bone::UpperChest)
        );
        assert_eq!(
            bone_from_node_name("mixamorig:LeftForeArm"),
            Some(Bone::LeftLowerArm)
        );
        assert_eq!(
            bone_from_node_name("mixamorig:RightUpLeg"),
            Some(Bone::RightUpperLeg)
        );
        assert_eq!(
            bone_from_node_name("mixamorig:LeftHandThumb1"),
            Some(Bone::LeftThumbMetacarpal)
        );
        assert_eq!(
            bone_from_node_name("mixamorig:RightHandPinky3"),
            Some(Bone::RightLittleDistal)
        );
        assert_eq!(
            bone_from_node_name("mixamorig:LeftToeBase"),
            Some(Bone::LeftToes)
        );
        assert_eq!(
            bone_from_node_name("leftUpperArm"),
            Some(Bone::LeftUpperArm)
        );
        assert_eq!(bone_from_node_name("mixamorig:HeadTop_End"), None);
    }

    #[test]
    fn names_ending_in_any_character_are_not_bones_and_do_not_panic() {
        for name in [
            "LeftHandé",
            "mixamorig:RightHandIndex€",
            "RightHand\u{1F600}",
            "LeftHandThumb\u{0301}",
            "RightHandPinky",
        ] {
            assert_eq!(bone_from_node_name(name), None, "{name}");
        }
        assert_eq!(bone_from_node_name("LeftHand"), Some(Bone::LeftHand));
    }
}
