//! The MToon outline hull: bevy_vrm1 0.10's outline pass (MIT OR Apache-2.0), taken in
//! with its material (`mtoon_material`): after the transparent pass each outlined mesh
//! is drawn again, front faces culled, by our vertex stage pushing it out along its
//! normals. Changed from bevy_vrm1's only in naming our material and shaders.

use super::mtoon_material::{MTOON_FRAGMENT, MTOON_VERTEX, MToon, MToonKey};
use bevy::core_pipeline::core_3d::main_transparent_pass_3d;
use bevy::core_pipeline::{Core3d, Core3dSystems};
use bevy::ecs::entity::EntityHash;
use bevy::mesh::MeshVertexBufferLayoutRef;
use bevy::pbr::{
    DrawMesh, SetMaterialBindGroup, SetMeshBindGroup, SetMeshViewBindGroup,
    SetMeshViewBindingArrayBindGroup,
};
use bevy::pbr::{
    MaterialPipeline, MaterialPipelineKey, PreparedMaterial, RenderMeshInstanceFlags, ViewKeyCache,
    alpha_mode_pipeline_key, init_material_pipeline, queue_material_meshes,
};
use bevy::prelude::*;
use bevy::render::camera::ExtractedCamera;
use bevy::render::render_phase::SetItemPipeline;
use bevy::render::render_phase::ViewSortedRenderPhases;
use bevy::render::render_phase::{
    CachedRenderPipelinePhaseItem, DrawFunctionId, PhaseItem, PhaseItemExtraIndex, SortedPhaseItem,
};
use bevy::render::render_resource::CachedRenderPipelineId;
use bevy::render::render_resource::{
    AsBindGroup, BindGroupLayoutDescriptor, CompareFunction, Face, RenderPipelineDescriptor,
    SpecializedMeshPipeline, SpecializedMeshPipelineError,
};
use bevy::render::render_resource::{RenderPassDescriptor, StoreOp};
use bevy::render::renderer::{RenderContext, ViewQuery};
use bevy::render::sync_world::MainEntity;
use bevy::render::sync_world::MainEntityHashMap;
use bevy::render::view::RenderVisibilityRanges;
use bevy::render::view::{ExtractedView, ViewDepthTexture, ViewTarget};
use bevy::render::{GpuResourceAppExt, RenderStartup};
use bevy::shader::ShaderDefVal;
use bevy::{
    math::FloatOrd,
    pbr::{MeshPipeline, MeshPipelineKey, RenderMeshInstances},
    platform::collections::HashSet,
    render::{
        Extract, Render, RenderApp, RenderDebugFlags, RenderSystems,
        erased_render_asset::ErasedRenderAssets,
        mesh::RenderMesh,
        render_asset::RenderAssets,
        render_phase::{
            AddRenderCommand, DrawFunctions, SortedRenderPhasePlugin, sort_phase_system,
        },
        render_resource::{PipelineCache, SpecializedMeshPipelines},
        view::{RenderVisibleEntities, RetainedViewEntity},
    },
};
use indexmap::IndexMap;
use std::ops::Range;

pub(super) struct MToonOutlinePlugin;

impl Plugin for MToonOutlinePlugin {
    fn build(&self, app: &mut App) {
        app.add_plugins(
            SortedRenderPhasePlugin::<OutlinePhaseItem, MeshPipeline>::new(
                RenderDebugFlags::default(),
            ),
        );
        let Some(render_app) = app.get_sub_app_mut(RenderApp) else {
            return;
        };
        render_app
            .init_gpu_resource::<SpecializedMeshPipelines<MToonOutlinePipeline>>()
            .init_resource::<DrawFunctions<OutlinePhaseItem>>()
            .add_render_command::<OutlinePhaseItem, DrawOutline>()
            .init_resource::<ViewSortedRenderPhases<OutlinePhaseItem>>()
            .init_resource::<MToonInstances>()
            .add_systems(
                RenderStartup,
                init_mtoon_outline_pipeline.after(init_material_pipeline),
            )
            .add_systems(
                ExtractSchedule,
                (extract_camera_phases, extract_mtoon_materials),
            )
            .add_systems(
                Render,
                (
                    queue_outlines.in_set(RenderSystems::QueueMeshes),
                    sort_phase_system::<OutlinePhaseItem>.in_set(RenderSystems::PhaseSort),
                ),
            )
            .add_systems(Render, queue_outlines.after(queue_material_meshes));

        render_app.add_systems(
            Core3d,
            outline_draw_pass
                .in_set(Core3dSystems::MainPass)
                .after(main_transparent_pass_3d),
        );
    }
}

#[derive(Resource, Default, Deref, DerefMut)]
struct MToonInstances(MainEntityHashMap<AssetId<MToon>>);

fn extract_camera_phases(
    mut outline_phases: ResMut<ViewSortedRenderPhases<OutlinePhaseItem>>,
    mut live_entities: Local<HashSet<RetainedViewEntity>>,
    cameras: Extract<Query<(Entity, &Camera), With<Camera3d>>>,
) {
    live_entities.clear();
    for (main_entity, camera) in &cameras {
        if !camera.is_active {
            continue;
        }

        let retained_view_entity = RetainedViewEntity::new(main_entity.into(), None, 0);
        outline_phases.prepare_for_new_frame(retained_view_entity);
        live_entities.insert(retained_view_entity);
    }

    outline_phases.retain(|camera_entity, _| live_entities.contains(camera_entity));
}

fn extract_mtoon_materials(
    mut instances: ResMut<MToonInstances>,
    materials: Extract<Query<(Entity, &MeshMaterial3d<MToon>)>>,
) {
    materials.iter().for_each(|(entity, material)| {
        instances.0.insert(entity.into(), material.id());
    });
}

#[allow(clippy::too_many_arguments)] // as bevy_vrm1 wrote it: one render-world query each
fn queue_outlines(
    mut pipelines: ResMut<SpecializedMeshPipelines<MToonOutlinePipeline>>,
    mut outline_phases: ResMut<ViewSortedRenderPhases<OutlinePhaseItem>>,
    mut views: Query<(&ExtractedView, &RenderVisibleEntities)>,
    view_key_cache: Res<ViewKeyCache>,
    render_visibility_ranges: Res<RenderVisibilityRanges>,
    instances: Res<MToonInstances>,
    render_materials: Res<ErasedRenderAssets<PreparedMaterial>>,
    draw_functions: Res<DrawFunctions<OutlinePhaseItem>>,
    pipeline_cache: Res<PipelineCache>,
    outline_pipeline: Res<MToonOutlinePipeline>,
    render_meshes: Res<RenderAssets<RenderMesh>>,
    render_mesh_instances: Res<RenderMeshInstances>,
) {
    for (view, visible_entities) in &mut views {
        let Some(view_key) = view_key_cache.get(&view.retained_view_entity) else {
            continue;
        };
        let Some(outline_phase) = outline_phases.get_mut(&view.retained_view_entity) else {
            continue;
        };
        let draw_function_id = draw_functions.read().id::<DrawOutline>();
        let Some(visible_mesh_entities) = visible_entities.get::<Mesh3d>() else {
            continue;
        };
        for (render_entity, visible_entity) in &visible_mesh_entities.entities_cpu_culling {
            let Some(mesh_instance) = render_mesh_instances.render_mesh_queue_data(*visible_entity)
            else {
                continue;
            };
            let Some(mesh) = render_meshes.get(mesh_instance.mesh_asset_id()) else {
                continue;
            };
            let Some(asset_id) = instances.get(visible_entity) else {
                continue;
            };
            let Some(material) = render_materials.get(*asset_id) else {
                continue;
            };

            let mut mesh_pipeline_key_bits: MeshPipelineKey =
                material.properties.mesh_pipeline_key_bits.downcast();
            mesh_pipeline_key_bits.insert(alpha_mode_pipeline_key(
                material.properties.alpha_mode,
                &Msaa::from_samples(view_key.msaa_samples()),
            ));
            let mut mesh_key = *view_key
                | MeshPipelineKey::from_bits_retain(mesh.key_bits.bits())
                | mesh_pipeline_key_bits;

            if render_visibility_ranges.entity_has_crossfading_visibility_ranges(*visible_entity) {
                mesh_key |= MeshPipelineKey::VISIBILITY_RANGE_DITHER;
            }

            if view_key.contains(MeshPipelineKey::MOTION_VECTOR_PREPASS) {
                if mesh_instance
                    .flags()
                    .contains(RenderMeshInstanceFlags::HAS_PREVIOUS_SKIN)
                {
                    mesh_key |= MeshPipelineKey::HAS_PREVIOUS_SKIN;
                }
                if mesh_instance
                    .flags()
                    .contains(RenderMeshInstanceFlags::HAS_PREVIOUS_MORPH)
                {
                    mesh_key |= MeshPipelineKey::HAS_PREVIOUS_MORPH;
                }
            }

            // Get the material key from the prepared material properties
            let mtoon_key = material.properties.material_key.to_key::<MToonKey>();

            // Skip outline for double-sided meshes (cull_mode: None).
            // The inverted-hull outline technique assumes back-faces are invisible
            // in the main pass; on double-sided meshes the inflated back-faces
            // overwrite correctly-rendered pixels with the outline color.
            if !mtoon_key.has(MToonKey::CULL_FRONT | MToonKey::CULL_BACK) {
                continue;
            }

            let outline_key = OutlinePipelineKey {
                mesh_key,
                bind_group_data: mtoon_key,
            };

            let pipeline_id = match pipelines.specialize(
                &pipeline_cache,
                &outline_pipeline,
                outline_key,
                &mesh.layout,
            ) {
                Ok(id) => id,
                Err(err) => {
                    error!("MToon outline pipeline: {err}");
                    continue;
                }
            };
            let distance = material.properties.depth_bias;
            {
                outline_phase.add_transient(OutlinePhaseItem {
                    sort_key: FloatOrd(distance),
                    entity: (*render_entity, *visible_entity),
                    pipeline: pipeline_id,
                    draw_function: draw_function_id,
                    batch_range: 0..0,
                    extra_index: PhaseItemExtraIndex::None,
                    indexed: mesh.indexed(),
                });
            }
        }
    }
}

fn init_mtoon_outline_pipeline(
    mut commands: Commands,
    material_pipeline: Res<MaterialPipeline>,
    render_device: Res<bevy::render::renderer::RenderDevice>,
) {
    use bevy::render::render_resource::AsBindGroup;
    let material_layout = MToon::bind_group_layout_descriptor(&render_device);
    commands.insert_resource(MToonOutlinePipeline {
        base: material_pipeline.clone(),
        material_layout,
    });
}

#[derive(Resource)]
pub(super) struct MToonOutlinePipeline {
    pub base: MaterialPipeline,
    pub material_layout: BindGroupLayoutDescriptor,
}

impl FromWorld for MToonOutlinePipeline {
    fn from_world(world: &mut World) -> Self {
        let render_device = world.resource::<bevy::render::renderer::RenderDevice>();
        let material_layout = MToon::bind_group_layout_descriptor(render_device);
        Self {
            base: world.resource::<MaterialPipeline>().clone(),
            material_layout,
        }
    }
}

/// Key for outline pipeline specialization
#[derive(Clone, Hash, PartialEq, Eq)]
pub(super) struct OutlinePipelineKey {
    pub mesh_key: MeshPipelineKey,
    pub bind_group_data: MToonKey,
}

impl SpecializedMeshPipeline for MToonOutlinePipeline {
    type Key = OutlinePipelineKey;

    fn specialize(
        &self,
        key: Self::Key,
        layout: &MeshVertexBufferLayoutRef,
    ) -> Result<RenderPipelineDescriptor, SpecializedMeshPipelineError> {
        const PASS_NAME: &str = "OUTLINE_PASS";
        let mut descriptor = self.base.mesh_pipeline.specialize(key.mesh_key, layout)?;
        let material_key = MaterialPipelineKey {
            mesh_key: key.mesh_key,
            bind_group_data: key.bind_group_data,
        };
        MToon::specialize(&self.base, &mut descriptor, layout, material_key)?;

        descriptor.vertex.shader = MTOON_VERTEX;
        if let Some(fragment) = descriptor.fragment.as_mut() {
            fragment.shader = MTOON_FRAGMENT;
        }

        if descriptor.layout.len() <= 3 {
            descriptor
                .layout
                .resize(4, BindGroupLayoutDescriptor::default());
        }
        descriptor.layout[3] = self.material_layout.clone();

        descriptor.label.replace("mtoon_outline_pipeline".into());

        let material_bind_group_def = ShaderDefVal::Int("MATERIAL_BIND_GROUP".into(), 3);
        descriptor
            .vertex
            .shader_defs
            .push(material_bind_group_def.clone());
        descriptor.vertex.shader_defs.push(PASS_NAME.into());
        if let Some(depth_stencil) = descriptor.depth_stencil.as_mut() {
            depth_stencil.depth_compare = Some(CompareFunction::GreaterEqual);
        }
        descriptor.primitive.cull_mode.replace(Face::Front);
        if let Some(fragment) = descriptor.fragment.as_mut() {
            fragment.shader_defs.push(material_bind_group_def);
            fragment.shader_defs.push(PASS_NAME.into());
        }
        Ok(descriptor)
    }
}

pub(super) type DrawOutline = (
    SetItemPipeline,
    SetMeshViewBindGroup<0>,
    SetMeshViewBindingArrayBindGroup<1>,
    SetMeshBindGroup<2>,
    SetMaterialBindGroup<3>,
    DrawMesh,
);

pub(super) fn outline_draw_pass(
    world: &World,
    view: ViewQuery<(
        &ExtractedCamera,
        &ExtractedView,
        &ViewTarget,
        &ViewDepthTexture,
    )>,
    outline_phases: Res<ViewSortedRenderPhases<OutlinePhaseItem>>,
    mut render_context: RenderContext,
) {
    let view_entity = view.entity();
    let (camera, extracted_view, target, depth_texture) = view.into_inner();

    let Some(outline_pass) = outline_phases.get(&extracted_view.retained_view_entity) else {
        return;
    };
    if outline_pass.items.is_empty() {
        return;
    }

    let mut render_pass = render_context.begin_tracked_render_pass(RenderPassDescriptor {
        label: Some("outline pass"),
        color_attachments: &[Some(target.get_color_attachment())],
        depth_stencil_attachment: Some(depth_texture.get_attachment(StoreOp::Store)),
        timestamp_writes: None,
        occlusion_query_set: None,
        multiview_mask: None,
    });
    if let Some(viewport) = camera.viewport.as_ref() {
        render_pass.set_camera_viewport(viewport);
    }
    if let Err(err) = outline_pass.render(&mut render_pass, world, view_entity) {
        error!("Error encountered while rendering the mtoon outline phase: {err}");
    }
}

pub(super) struct OutlinePhaseItem {
    pub sort_key: FloatOrd,
    pub entity: (Entity, MainEntity),
    pub pipeline: CachedRenderPipelineId,
    pub draw_function: DrawFunctionId,
    pub batch_range: Range<u32>,
    pub extra_index: PhaseItemExtraIndex,
    pub indexed: bool,
}

impl PhaseItem for OutlinePhaseItem {
    #[inline]
    fn entity(&self) -> Entity {
        self.entity.0
    }

    #[inline]
    fn main_entity(&self) -> MainEntity {
        self.entity.1
    }

    #[inline]
    fn draw_function(&self) -> DrawFunctionId {
        self.draw_function
    }

    #[inline]
    fn batch_range(&self) -> &Range<u32> {
        &self.batch_range
    }

    #[inline]
    fn batch_range_mut(&mut self) -> &mut Range<u32> {
        &mut self.batch_range
    }

    #[inline]
    fn extra_index(&self) -> PhaseItemExtraIndex {
        self.extra_index.clone()
    }

    #[inline]
    fn batch_range_and_extra_index_mut(&mut self) -> (&mut Range<u32>, &mut PhaseItemExtraIndex) {
        (&mut self.batch_range, &mut self.extra_index)
    }
}

impl SortedPhaseItem for OutlinePhaseItem {
    type SortKey = FloatOrd;

    #[inline]
    fn sort_key(&self) -> Self::SortKey {
        self.sort_key
    }

    #[inline]
    fn sort(items: &mut IndexMap<(Entity, MainEntity), Self, EntityHash>) {
        items.sort_by_key(|_, item| item.sort_key());
    }

    fn recalculate_sort_keys(
        _items: &mut IndexMap<(Entity, MainEntity), Self, EntityHash>,
        _view: &ExtractedView,
    ) {
    }

    #[inline]
    fn indexed(&self) -> bool {
        self.indexed
    }
}

impl CachedRenderPipelinePhaseItem for OutlinePhaseItem {
    #[inline]
    fn cached_pipeline(&self) -> CachedRenderPipelineId {
        self.pipeline
    }
}
