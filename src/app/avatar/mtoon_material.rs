//! The MToon material the avatar is drawn with: bevy_vrm1 0.10's `MToonMaterial` (MIT OR
//! Apache-2.0), taken in because its bind group has no room for what three-vrm draws
//! and it lacks: a normal map (with its scale) and screen-coordinate outlines. Its
//! shading, outlines and UV clock are our shaders' (`mtoon_*.wgsl`), its outline hull
//! `mtoon_outline`'s. The same layout as bevy_vrm1's plus bindings 117/118.

use bevy::material::OpaqueRendererMethod;
use bevy::math::Affine2;
use bevy::mesh::MeshVertexBufferLayoutRef;
use bevy::pbr::{Material, MaterialPipeline, MaterialPipelineKey};
use bevy::prelude::*;
use bevy::render::render_asset::RenderAssets;
use bevy::render::render_resource::{
    AsBindGroup, AsBindGroupShaderType, Face, RenderPipelineDescriptor, ShaderType,
    SpecializedMeshPipelineError,
};
use bevy::render::texture::GpuImage;
use bevy::shader::ShaderRef;
use bevy_vrm1::prelude::{RimLighting, Shade};

/// Our MToon vertex, fragment and types shaders.
pub(super) const MTOON_VERTEX: Handle<Shader> =
    bevy::asset::uuid_handle!("0b7c5e2e-7f4c-4f0e-9a51-3c1d2f6a8b01");
pub(super) const MTOON_FRAGMENT: Handle<Shader> =
    bevy::asset::uuid_handle!("0b7c5e2e-7f4c-4f0e-9a51-3c1d2f6a8b02");
pub(super) const MTOON_TYPES: Handle<Shader> =
    bevy::asset::uuid_handle!("0b7c5e2e-7f4c-4f0e-9a51-3c1d2f6a8b03");

/// How an outline's width is measured (VRMC_materials_mtoon `outlineWidthMode`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OutlineMode {
    #[default]
    None,
    /// Metres.
    World,
    /// A fraction of the view's height, at any distance.
    Screen,
}

#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Outline {
    pub mode: OutlineMode,
    pub width: f32,
    pub color: LinearRgba,
    pub lighting_mix: f32,
}

/// Scroll and rotation reached at the frame's time (not speeds: `mtoon`'s UV clock
/// writes them, holding stills at t = 0).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct UvPhase {
    pub rotation: f32,
    pub scroll: Vec2,
}

/// VRMC_materials_mtoon-1.0, as one material.
#[derive(Asset, AsBindGroup, Debug, Clone, TypePath)]
#[data(100, MToonUniform)]
#[bind_group_data(MToonKey)]
pub struct MToon {
    #[texture(101)]
    #[sampler(102)]
    #[dependency]
    pub base_color_texture: Option<Handle<Image>>,
    #[texture(103)]
    #[sampler(104)]
    #[dependency]
    pub shading_shift_texture: Option<Handle<Image>>,
    #[texture(105)]
    #[sampler(106)]
    #[dependency]
    pub shade_multiply_texture: Option<Handle<Image>>,
    #[texture(107)]
    #[sampler(108)]
    #[dependency]
    pub rim_multiply_texture: Option<Handle<Image>>,
    #[texture(109)]
    #[sampler(110)]
    #[dependency]
    pub uv_animation_mask_texture: Option<Handle<Image>>,
    #[texture(111)]
    #[sampler(112)]
    #[dependency]
    pub matcap_texture: Option<Handle<Image>>,
    #[texture(113)]
    #[sampler(114)]
    #[dependency]
    pub emissive_texture: Option<Handle<Image>>,
    #[texture(115)]
    #[sampler(116)]
    #[dependency]
    pub outline_width_multiply_texture: Option<Handle<Image>>,
    /// The glTF material's `normalTexture` (tangent space, linear).
    #[texture(117)]
    #[sampler(118)]
    #[dependency]
    pub normal_map_texture: Option<Handle<Image>>,
    pub normal_scale: f32,
    pub uv_phase: UvPhase,
    pub uv_transform: Affine2,
    pub rim_lighting: RimLighting,
    pub shade: Shade,
    pub outline: Outline,
    pub base_color: Color,
    pub emissive: LinearRgba,
    pub gi_equalization_factor: f32,
    pub alpha_mode: AlphaMode,
    pub double_sided: bool,
    pub depth_bias: f32,
    pub opaque_renderer_method: OpaqueRendererMethod,
    pub render_queue_offset: f32,
    pub transparent_with_z_write: bool,
    pub cull_mode: Option<Face>,
}

/// The pipeline key: culling and depth writing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MToonKey(u64);

impl MToonKey {
    pub const CULL_FRONT: u64 = 1 << 0;
    pub const CULL_BACK: u64 = 1 << 1;
    pub const TRANSPARENT_WITH_Z_WRITE: u64 = 1 << 2;

    pub fn has(self, bit: u64) -> bool {
        self.0 & bit != 0
    }
}

impl From<&MToon> for MToonKey {
    fn from(material: &MToon) -> Self {
        let mut bits = 0;
        if material.cull_mode == Some(Face::Front) {
            bits |= MToonKey::CULL_FRONT;
        }
        if material.cull_mode == Some(Face::Back) {
            bits |= MToonKey::CULL_BACK;
        }
        if matches!(material.alpha_mode, AlphaMode::Blend) && material.transparent_with_z_write {
            bits |= MToonKey::TRANSPARENT_WITH_Z_WRITE;
        }
        MToonKey(bits)
    }
}

impl Material for MToon {
    fn vertex_shader() -> ShaderRef {
        MTOON_VERTEX.into()
    }

    fn fragment_shader() -> ShaderRef {
        MTOON_FRAGMENT.into()
    }

    fn alpha_mode(&self) -> AlphaMode {
        self.alpha_mode
    }

    fn opaque_render_method(&self) -> OpaqueRendererMethod {
        self.opaque_renderer_method
    }

    /// bevy_vrm1's draw order: opaque, then cutout, then transparent with depth writes,
    /// then the rest, each by its render queue offset.
    fn depth_bias(&self) -> f32 {
        let bias = if matches!(self.alpha_mode, AlphaMode::Blend) {
            self.depth_bias + self.render_queue_offset
        } else {
            self.depth_bias
        };
        let offset = match (self.alpha_mode, self.transparent_with_z_write) {
            (AlphaMode::Opaque, _) => -10000.,
            (AlphaMode::Mask(_), _) => -1000.,
            (AlphaMode::Blend, true) => -100.,
            (AlphaMode::Blend, false) => -10.0,
            _ => 0.,
        };
        bias + offset
    }

    fn specialize(
        _pipeline: &MaterialPipeline,
        descriptor: &mut RenderPipelineDescriptor,
        _layout: &MeshVertexBufferLayoutRef,
        key: MaterialPipelineKey<Self>,
    ) -> Result<(), SpecializedMeshPipelineError> {
        let key = key.bind_group_data;
        descriptor.primitive.cull_mode = if key.has(MToonKey::CULL_FRONT) {
            Some(Face::Front)
        } else if key.has(MToonKey::CULL_BACK) {
            Some(Face::Back)
        } else {
            None
        };
        if let Some(stencil) = descriptor.depth_stencil.as_mut()
            && key.has(MToonKey::TRANSPARENT_WITH_Z_WRITE)
        {
            stencil.depth_write_enabled = Some(true);
        }
        Ok(())
    }
}

/// Flag bits of [`MToonUniform::flags`] (the shader's `mtoon::types` constants).
mod flag {
    pub const BASE_COLOR_TEXTURE: u32 = 1 << 0;
    pub const SHADING_SHIFT_TEXTURE: u32 = 1 << 1;
    pub const SHADE_MULTIPLY_TEXTURE: u32 = 1 << 2;
    pub const RIM_MAP_TEXTURE: u32 = 1 << 3;
    pub const UV_ANIMATION_MASK_TEXTURE: u32 = 1 << 4;
    pub const MATCAP_TEXTURE: u32 = 1 << 5;
    pub const EMISSIVE_TEXTURE: u32 = 1 << 6;
    pub const DOUBLE_SIDED: u32 = 1 << 7;
    pub const ALPHA_MODE_MASK: u32 = 1 << 8;
    pub const ALPHA_MODE_ALPHA_TO_COVERAGE: u32 = 1 << 9;
    pub const ALPHA_MODE_BLEND: u32 = 1 << 10;
    pub const OUTLINE_WIDTH_MULTIPLY_TEXTURE: u32 = 1 << 11;
    pub const NORMAL_MAP_TEXTURE: u32 = 1 << 12;
    pub const OUTLINE_WORLD_COORDINATES: u32 = 1 << 0;
    pub const OUTLINE_SCREEN_COORDINATES: u32 = 1 << 1;
}

#[derive(Clone, Default, ShaderType)]
#[repr(align(16))]
pub struct MToonUniform {
    pub flags: u32,
    pub base_color: Vec4,
    pub shade_color: Vec4,
    pub emissive_color: Vec4,
    pub shading_shift_factor: f32,
    pub shading_shift_texture_offset: f32,
    pub shading_shift_texture_scale: f32,
    pub shading_shift_toony_factor: f32,
    pub gi_equalization_factor: f32,
    pub uv_animation_rotation_speed: f32,
    pub uv_animation_scroll_speed_x: f32,
    pub uv_animation_scroll_speed_y: f32,
    pub uv_transform: Mat3,
    pub mat_cap_color: Vec4,
    pub parametric_rim_color: Vec4,
    pub parametric_rim_lift_factor: f32,
    pub parametric_rim_fresnel_power: f32,
    pub rim_lighting_mix_factor: f32,
    pub alpha_cutoff: f32,
    pub outline_flags: u32,
    pub outline_color: Vec4,
    pub outline_width_factor: f32,
    pub outline_lighting_mix_factor: f32,
    pub normal_scale: f32,
}

impl AsBindGroupShaderType<MToonUniform> for MToon {
    fn as_bind_group_shader_type(&self, _images: &RenderAssets<GpuImage>) -> MToonUniform {
        let textures = [
            (self.base_color_texture.is_some(), flag::BASE_COLOR_TEXTURE),
            (
                self.shading_shift_texture.is_some(),
                flag::SHADING_SHIFT_TEXTURE,
            ),
            (
                self.shade_multiply_texture.is_some(),
                flag::SHADE_MULTIPLY_TEXTURE,
            ),
            (self.rim_multiply_texture.is_some(), flag::RIM_MAP_TEXTURE),
            (
                self.uv_animation_mask_texture.is_some(),
                flag::UV_ANIMATION_MASK_TEXTURE,
            ),
            (self.matcap_texture.is_some(), flag::MATCAP_TEXTURE),
            (self.emissive_texture.is_some(), flag::EMISSIVE_TEXTURE),
            (
                self.outline_width_multiply_texture.is_some(),
                flag::OUTLINE_WIDTH_MULTIPLY_TEXTURE,
            ),
            (self.normal_map_texture.is_some(), flag::NORMAL_MAP_TEXTURE),
            (self.double_sided, flag::DOUBLE_SIDED),
            (
                matches!(self.alpha_mode, AlphaMode::Mask(_)),
                flag::ALPHA_MODE_MASK,
            ),
            (
                matches!(self.alpha_mode, AlphaMode::AlphaToCoverage),
                flag::ALPHA_MODE_ALPHA_TO_COVERAGE,
            ),
            (
                matches!(self.alpha_mode, AlphaMode::Blend),
                flag::ALPHA_MODE_BLEND,
            ),
        ];
        let flags = textures
            .iter()
            .filter(|(on, _)| *on)
            .fold(0, |bits, (_, bit)| bits | bit);
        let outline_flags = match self.outline.mode {
            OutlineMode::None => 0,
            OutlineMode::World => flag::OUTLINE_WORLD_COORDINATES,
            OutlineMode::Screen => flag::OUTLINE_SCREEN_COORDINATES,
        };
        MToonUniform {
            flags,
            base_color: self.base_color.to_linear().to_vec4(),
            shade_color: self.shade.color.to_vec4(),
            emissive_color: self.emissive.to_vec4(),
            shading_shift_factor: self.shade.shading_shift_factor,
            shading_shift_texture_offset: self.shade.texture_offset,
            shading_shift_texture_scale: self.shade.texture_scale,
            shading_shift_toony_factor: self.shade.toony_factor,
            gi_equalization_factor: self.gi_equalization_factor,
            uv_animation_rotation_speed: self.uv_phase.rotation,
            uv_animation_scroll_speed_x: self.uv_phase.scroll.x,
            uv_animation_scroll_speed_y: self.uv_phase.scroll.y,
            uv_transform: self.uv_transform.into(),
            mat_cap_color: self.rim_lighting.mat_cap_color.to_vec4(),
            parametric_rim_color: self.rim_lighting.color.to_vec4(),
            parametric_rim_lift_factor: self.rim_lighting.lift_factor,
            parametric_rim_fresnel_power: self.rim_lighting.fresnel_power,
            rim_lighting_mix_factor: self.rim_lighting.mix_factor,
            alpha_cutoff: match self.alpha_mode {
                AlphaMode::Mask(value) => value,
                _ => 1e-3,
            },
            outline_flags,
            outline_color: self.outline.color.to_vec4(),
            outline_width_factor: self.outline.width,
            outline_lighting_mix_factor: self.outline.lighting_mix,
            normal_scale: self.normal_scale,
        }
    }
}
