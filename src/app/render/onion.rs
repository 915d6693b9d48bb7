//! Onion skin (View ▸ Onion skin): the previous and next keys' poses (or the poses N
//! frames either side of the playhead) as translucent ghosts in the 3D view. Two more instances of the avatar's scene, their meshes given
//! one flat see-through colour each and put on their own render layer, which only the
//! view's camera sees: stills and thumbnails never show them.

use bevy::camera::visibility::RenderLayers;
use bevy::prelude::*;
use bevy::world_serialization::WorldAssetRoot;

use crate::app::session::{
    Avatar, AvatarShown, EditorSet, GltfNodeIndex, ONION_LAYER, OnionSkin, Session, adopt_instance,
    pose_instance,
};
use crate::core::body::pose::Pose;

/// Which neighbour a ghost shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Neighbour {
    Previous,
    Next,
}

#[derive(Component)]
struct Ghost {
    neighbour: Neighbour,
    nodes: Vec<Option<Entity>>,
    node_count: usize,
    routes: std::sync::Arc<crate::core::model::display::MorphRoutes>,
    material: Handle<StandardMaterial>,
    ready: bool,
    /// The pose it shows now.
    shown: Option<Pose>,
}

/// The ghosts' colours: the past bluish, the future orange, both see-through.
const GHOST_COLOURS: [(Neighbour, Color); 2] = [
    (Neighbour::Previous, Color::srgba(0.35, 0.6, 1.0, 0.3)),
    (Neighbour::Next, Color::srgba(1.0, 0.55, 0.2, 0.3)),
];

pub(in crate::app) fn plugin(app: &mut App) {
    app.add_systems(
        Update,
        (spawn_ghosts, finish_ghosts)
            .chain()
            .in_set(EditorSet::Drive),
    )
    .add_systems(
        PostUpdate,
        drive_ghosts.before(bevy::transform::TransformSystems::Propagate),
    );
}

fn spawn_ghosts(
    mut shown: MessageReader<AvatarShown>,
    avatars: Query<(&WorldAssetRoot, &Transform, &Avatar)>,
    old: Query<Entity, With<Ghost>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
    mut commands: Commands,
) {
    if shown.read().count() == 0 {
        return;
    }
    for e in &old {
        commands.entity(e).despawn();
    }
    let Ok((root, transform, avatar)) = avatars.single() else {
        return;
    };
    for (neighbour, colour) in GHOST_COLOURS {
        let material = materials.add(StandardMaterial {
            base_color: colour,
            alpha_mode: AlphaMode::Blend,
            unlit: true,
            ..default()
        });
        commands.spawn((
            WorldAssetRoot(root.0.clone()),
            *transform,
            Visibility::Hidden,
            Ghost {
                neighbour,
                nodes: Vec::new(),
                node_count: avatar.nodes.len(),
                routes: avatar.routes.clone(),
                material,
                ready: false,
                shown: None,
            },
        ));
    }
}

/// Once a ghost's scene has spawned: its meshes take the ghost's colour and layer.
fn finish_ghosts(
    mut ghosts: Query<(Entity, &mut Ghost)>,
    children: Query<&Children>,
    indices: Query<&GltfNodeIndex>,
    meshes: Query<(), With<Mesh3d>>,
    mut commands: Commands,
) {
    for (entity, mut ghost) in &mut ghosts {
        if ghost.ready {
            continue;
        }
        let tag = (
            MeshMaterial3d(ghost.material.clone()),
            RenderLayers::layer(ONION_LAYER),
            bevy::light::NotShadowCaster,
        );
        let count = ghost.node_count;
        if let Some(nodes) = adopt_instance(
            entity,
            count,
            &children,
            &indices,
            &meshes,
            &mut commands,
            tag,
        ) {
            ghost.nodes = nodes;
            ghost.ready = true;
        }
    }
}

/// The pose of the key before (or after) the playhead, or `frames` before (after) it,
/// planted feet held.
fn neighbour_pose(session: &Session, neighbour: Neighbour, frames: Option<u32>) -> Option<Pose> {
    let editor = &session.editor;
    let keys = editor.timeline.keys();
    let frame = crate::core::animation::timeline::frame_of(editor.playhead);
    if let Some(n) = frames {
        let at = match neighbour {
            Neighbour::Previous => frame - n as i64,
            Neighbour::Next => frame + n as i64,
        };
        let end = crate::core::animation::timeline::frame_of(editor.timeline.end());
        if at < 0 || at > end {
            return None;
        }
        return editor.sample(at as f32 / crate::core::animation::timeline::FPS);
    }
    let key = match neighbour {
        Neighbour::Previous => keys
            .iter()
            .rev()
            .find(|k| crate::core::animation::timeline::frame_of(k.t) < frame),
        Neighbour::Next => keys
            .iter()
            .find(|k| crate::core::animation::timeline::frame_of(k.t) > frame),
    }?;
    editor.sample(key.t)
}

fn drive_ghosts(
    session: Res<Session>,
    onion: Res<OnionSkin>,
    mut ghosts: Query<(&mut Ghost, &mut Visibility)>,
    mut transforms: Query<&mut Transform>,
    mut morphs: Query<&mut MorphWeights>,
) {
    let rig = &session.editor.rig;
    for (mut ghost, mut visibility) in &mut ghosts {
        if !ghost.ready {
            continue;
        }
        let pose = onion
            .on
            .then(|| neighbour_pose(&session, ghost.neighbour, onion.frames))
            .flatten();
        let wanted = if pose.is_some() {
            Visibility::Inherited
        } else {
            Visibility::Hidden
        };
        visibility.set_if_neq(wanted);
        if let Some(pose) = pose
            && ghost.shown.as_ref() != Some(&pose)
        {
            pose_instance(
                rig,
                &pose,
                &ghost.nodes,
                &ghost.routes,
                &mut transforms,
                &mut morphs,
                false,
            );
            ghost.shown = Some(pose);
        }
    }
}
