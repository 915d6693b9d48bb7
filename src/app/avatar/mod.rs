//! The avatar: loading a model (file, dialog, drag-and-drop, the built-in mannequin)
//! off the main thread, spawning it, falling back when the GPU cannot draw it, and
//! driving its raw skeleton and morph targets from the normalized pose.
//!
//! A file is parsed by the core first; only a valid VRM reaches Bevy's glTF loader, and
//! the current model stays on screen until the new one is fully spawned.

use bevy::gltf::extensions::GltfExtensionHandlers;
use bevy::prelude::*;
use bevy::world_serialization::WorldInstanceReady;

use super::session::{EditorSet, StartupSet};
use drive::{LiveSprings, drive_skeleton, restart_springs};
use load::{OpeningJob, load_initial_model, start_loading};
use swap::{
    NodeIndexHook, SceneReady, contain_render_errors, drop_retired_avatars, finish_loading,
    spawn_prepared, stay_awake_while_loading, take_back_undrawable_model, watch_failures,
};

mod drive;
mod load;
mod mtoon;
mod mtoon_material;
mod mtoon_outline;
mod swap;
mod texture_binds;
pub use load::{
    MemoryAssets, downscale_texture, loader_settings, read_model, register_memory_source,
};
pub(in crate::app) use mtoon::plugin as materials_plugin;
pub use swap::RenderFailures;

pub(super) fn plugin(app: &mut App) {
    contain_render_errors(app);
    app.init_resource::<OpeningJob>()
        .init_resource::<LiveSprings>()
        .add_systems(Update, restart_springs)
        .add_systems(Startup, load_initial_model.in_set(StartupSet::OpenModel))
        .add_systems(
            Update,
            (
                start_loading,
                spawn_prepared,
                mtoon::attach_registry,
                watch_failures,
                finish_loading,
                take_back_undrawable_model,
                drop_retired_avatars,
                stay_awake_while_loading,
            )
                .chain()
                .in_set(EditorSet::Input),
        )
        .add_systems(
            PostUpdate,
            (
                drive_skeleton.before(bevy::transform::TransformSystems::Propagate),
                texture_binds::tag_material_slots,
                texture_binds::apply_texture_binds.after(texture_binds::tag_material_slots),
            ),
        )
        .add_observer(|ready: On<WorldInstanceReady>, mut commands: Commands| {
            if let Ok(mut e) = commands.get_entity(ready.entity) {
                e.insert(SceneReady);
            }
        });
    if let Some(handlers) = app.world().get_resource::<GltfExtensionHandlers>() {
        handlers.0.write_blocking().push(Box::new(NodeIndexHook));
    }
}
