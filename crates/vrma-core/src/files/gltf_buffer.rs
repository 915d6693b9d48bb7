//! Writing glTF binary data: one buffer, its views and accessors (the mannequin and
//! VRMA export share it).

use glam::{Mat4, Quat, Vec3};
use serde_json::{Value, json};

/// Accumulates the binary buffer, buffer views and accessors.
#[derive(Default)]
pub struct BufferBuilder {
    pub bin: Vec<u8>,
    pub views: Vec<Value>,
    pub accessors: Vec<Value>,
}

impl BufferBuilder {
    pub fn view(&mut self, bytes: &[u8], target: Option<u32>) -> usize {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        let mut view =
            json!({"buffer": 0, "byteOffset": self.bin.len(), "byteLength": bytes.len()});
        if let Some(t) = target {
            view["target"] = json!(t);
        }
        self.bin.extend_from_slice(bytes);
        self.views.push(view);
        self.views.len() - 1
    }

    pub fn accessor(
        &mut self,
        view: usize,
        component: u32,
        count: usize,
        kind: &str,
        extra: Value,
    ) -> usize {
        let mut acc =
            json!({"bufferView": view, "componentType": component, "count": count, "type": kind});
        if let Value::Object(map) = extra {
            for (k, v) in map {
                acc[k] = v;
            }
        }
        self.accessors.push(acc);
        self.accessors.len() - 1
    }

    pub fn vec3(&mut self, data: &[Vec3], target: Option<u32>) -> usize {
        let bytes: Vec<u8> = data
            .iter()
            .flat_map(|v| v.to_array())
            .flat_map(f32::to_le_bytes)
            .collect();
        let view = self.view(&bytes, target);
        let min = data.iter().fold(Vec3::splat(f32::MAX), |a, b| a.min(*b));
        let max = data.iter().fold(Vec3::splat(f32::MIN), |a, b| a.max(*b));
        self.accessor(
            view,
            5126,
            data.len(),
            "VEC3",
            json!({"min": min.to_array(), "max": max.to_array()}),
        )
    }

    pub fn vec4_f32(&mut self, data: &[[f32; 4]]) -> usize {
        self.float_vectors(data, "VEC4")
    }

    /// A vertex attribute of float vectors (`kind` names their size).
    fn float_vectors<const N: usize>(&mut self, data: &[[f32; N]], kind: &str) -> usize {
        let bytes: Vec<u8> = data
            .iter()
            .flatten()
            .flat_map(|x| x.to_le_bytes())
            .collect();
        let view = self.view(&bytes, Some(34962));
        self.accessor(view, 5126, data.len(), kind, json!({}))
    }

    pub fn joints(&mut self, data: &[[u16; 4]]) -> usize {
        let bytes: Vec<u8> = data
            .iter()
            .flatten()
            .flat_map(|x| x.to_le_bytes())
            .collect();
        let view = self.view(&bytes, Some(34962));
        self.accessor(view, 5123, data.len(), "VEC4", json!({}))
    }

    pub fn indices(&mut self, data: &[u16]) -> usize {
        let bytes: Vec<u8> = data.iter().flat_map(|x| x.to_le_bytes()).collect();
        let view = self.view(&bytes, Some(34963));
        self.accessor(view, 5123, data.len(), "SCALAR", json!({}))
    }

    pub fn indices_u32(&mut self, data: &[u32]) -> usize {
        let bytes: Vec<u8> = data.iter().flat_map(|x| x.to_le_bytes()).collect();
        let view = self.view(&bytes, Some(34963));
        self.accessor(view, 5125, data.len(), "SCALAR", json!({}))
    }

    pub fn vec2(&mut self, data: &[[f32; 2]]) -> usize {
        self.float_vectors(data, "VEC2")
    }

    pub fn mat4(&mut self, data: &[Mat4]) -> usize {
        let bytes: Vec<u8> = data
            .iter()
            .flat_map(|m| m.to_cols_array())
            .flat_map(f32::to_le_bytes)
            .collect();
        let view = self.view(&bytes, None);
        self.accessor(view, 5126, data.len(), "MAT4", json!({}))
    }
}

impl BufferBuilder {
    /// A SCALAR float accessor with min/max (animation inputs need them).
    pub fn scalars(&mut self, data: &[f32]) -> usize {
        let bytes: Vec<u8> = data.iter().flat_map(|x| x.to_le_bytes()).collect();
        let view = self.view(&bytes, None);
        let min = data.iter().copied().fold(f32::MAX, f32::min);
        let max = data.iter().copied().fold(f32::MIN, f32::max);
        self.accessor(
            view,
            5126,
            data.len(),
            "SCALAR",
            json!({"min": [min], "max": [max]}),
        )
    }

    /// A VEC4 float accessor of quaternions (x, y, z, w).
    pub fn quats(&mut self, data: &[Quat]) -> usize {
        let bytes: Vec<u8> = data
            .iter()
            .flat_map(|q| q.to_array())
            .flat_map(f32::to_le_bytes)
            .collect();
        let view = self.view(&bytes, None);
        self.accessor(view, 5126, data.len(), "VEC4", json!({}))
    }

    /// The buffer padded to 4 bytes, and the `buffers` entry describing it.
    pub fn finish(mut self) -> (Vec<u8>, Vec<Value>, Vec<Value>, Value) {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        let buffers = json!([{"byteLength": self.bin.len()}]);
        (self.bin, self.views, self.accessors, buffers)
    }
}
