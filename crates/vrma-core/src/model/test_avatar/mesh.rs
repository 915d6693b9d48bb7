//! The mesh plumbing the parts share: vertex streams of one buffer with per-primitive
//! index lists (filled by wrapped grids), skin-weight blends, and the glTF mesh and
//! sparse-accessor writers.

use glam::Vec3;
use serde_json::{Value, json};

use crate::files::gltf_buffer::BufferBuilder;

/// Vertex streams of one shared buffer, with per-primitive index lists.
#[derive(Default)]
pub(super) struct Streams {
    pub(super) positions: Vec<Vec3>,
    normals: Vec<Vec3>,
    uvs: Vec<[f32; 2]>,
    joints: Vec<[u16; 4]>,
    weights: Vec<[f32; 4]>,
    /// Which primitive each vertex belongs to.
    pub(super) part: Vec<usize>,
    indices: Vec<Vec<u32>>,
}

impl Streams {
    pub(super) fn with_parts(parts: usize) -> Streams {
        Streams {
            indices: vec![Vec::new(); parts],
            ..Default::default()
        }
    }

    /// A grid of `(rows + 1) × columns` vertices wrapped around in the column direction
    /// (a tube, sphere or disc depending on `at`), triangulated into primitive `part`.
    pub(super) fn grid(
        &mut self,
        part: usize,
        rows: usize,
        columns: usize,
        at: &dyn Fn(f32, f32) -> (Vec3, Vec3),
        skin: &dyn Fn(f32) -> ([u16; 4], [f32; 4]),
    ) {
        let base = self.positions.len() as u32;
        for r in 0..=rows {
            let v = r as f32 / rows as f32;
            for c in 0..columns {
                let u = c as f32 / columns as f32;
                let (p, n) = at(u, v);
                self.positions.push(p);
                self.normals.push(n.normalize_or(Vec3::Y));
                self.uvs.push([u, v]);
                let (j, w) = skin(v);
                self.joints.push(j);
                self.weights.push(w);
                self.part.push(part);
            }
        }
        let cols = columns as u32;
        for r in 0..rows as u32 {
            for c in 0..cols {
                let a = base + r * cols + c;
                let b = base + r * cols + (c + 1) % cols;
                let d = a + cols;
                let e = b + cols;
                // Counter-clockwise seen from the side the normals face, as glTF's front
                // faces are (culling and MToon's outline hull rely on it), whichever
                // way `at` runs around.
                let p = |i: u32| self.positions[i as usize];
                let n = |i: u32| self.normals[i as usize];
                // The quad's normal from its diagonals (an edge may be a pole point).
                let facing = (p(e) - p(a))
                    .cross(p(d) - p(b))
                    .dot(n(a) + n(b) + n(d) + n(e));
                if facing < 0.0 {
                    self.indices[part].extend_from_slice(&[a, d, b, b, d, e]);
                } else {
                    self.indices[part].extend_from_slice(&[a, b, d, b, e, d]);
                }
            }
        }
    }
}

/// Skin weights `1 - w` on joint `a` and `w` on `b`; a joint with no weight is written
/// as joint 0, as glTF asks.
pub(super) fn blend(a: u16, b: u16, w: f32) -> ([u16; 4], [f32; 4]) {
    if w <= 0.0 {
        ([a, 0, 0, 0], [1.0, 0.0, 0.0, 0.0])
    } else if w >= 1.0 {
        ([b, 0, 0, 0], [1.0, 0.0, 0.0, 0.0])
    } else {
        ([a, b, 0, 0], [1.0 - w, w, 0.0, 0.0])
    }
}

/// One mesh: shared attribute accessors, one primitive per index list.
pub(super) fn shared_mesh(
    buf: &mut BufferBuilder,
    name: &str,
    streams: &Streams,
    materials: &[usize],
    frame: &dyn Fn(Vec3) -> Vec3,
    targets: &[Value],
) -> Value {
    let positions: Vec<Vec3> = streams.positions.iter().map(|p| frame(*p)).collect();
    let normals: Vec<Vec3> = streams.normals.iter().map(|n| frame(*n)).collect();
    let attributes = json!({
        "POSITION": buf.vec3(&positions, Some(34962)),
        "NORMAL": buf.vec3(&normals, Some(34962)),
        "TEXCOORD_0": buf.vec2(&streams.uvs),
        "JOINTS_0": buf.joints(&streams.joints),
        "WEIGHTS_0": buf.vec4_f32(&streams.weights),
    });
    let primitives: Vec<Value> = streams
        .indices
        .iter()
        .zip(materials)
        .filter(|(indices, _)| !indices.is_empty())
        .map(|(indices, material)| {
            let mut primitive = json!({
                "attributes": attributes, "indices": buf.indices_u32(indices),
                "material": material, "mode": 4
            });
            if !targets.is_empty() {
                primitive["targets"] = json!(targets);
            }
            primitive
        })
        .collect();
    let mut mesh = json!({"name": name, "primitives": primitives});
    if !targets.is_empty() {
        mesh["weights"] = json!(vec![0.0; targets.len()]);
    }
    mesh
}

/// A sparse VEC3 accessor of `count` zeros with one non-zero element: costs a few bytes
/// in the file, `count × 12` bytes once a loader expands it.
pub(super) fn sparse_vec3(buf: &mut BufferBuilder, count: usize, at: u32, value: Vec3) -> usize {
    let index_view = buf.view(&at.to_le_bytes(), None);
    let value_bytes: Vec<u8> = value
        .to_array()
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    let value_view = buf.view(&value_bytes, None);
    buf.accessors.push(json!({
        "componentType": 5126, "count": count, "type": "VEC3",
        "sparse": {"count": 1,
            "indices": {"bufferView": index_view, "componentType": 5125},
            "values": {"bufferView": value_view}},
        "min": value.min(Vec3::ZERO).to_array(), "max": value.max(Vec3::ZERO).to_array()
    }));
    buf.accessors.len() - 1
}
