//! Key thumbnails on the timeline (SPEC §5): a second, hidden instance of the avatar on
//! its own render layer is posed as one key per frame and rendered by that key's camera
//! into its own 96×128 image, which egui shows on the ruler. At most one key is rendered
//! per frame, so a long timeline never stalls editing, and the pose on screen is never
//! touched: the thumbnail pose lives on the other instance.

use std::collections::HashMap;

use bevy::camera::RenderTarget;
use bevy::camera::visibility::RenderLayers;
use bevy::prelude::*;
use bevy::world_serialization::WorldAssetRoot;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, EguiTextureHandle};

use crate::app::session::{
    Avatar, AvatarShown, EditorSet, GltfNodeIndex, KeepAwake, RenderPoseThumbnail,
    SPRING_SETTLE_SECONDS, Session, THUMBNAIL, THUMBNAIL_LAYER, Thumbnails, UpdatedThumbnails,
    adopt_instance, captured_rgba, framed_view, gazed_pose, pose_instance, render_target, save_png,
    set_node_rotations,
};
use crate::core::body::framing::CameraPreset;
use crate::core::body::pose::Pose;

const BACKGROUND: Color = Color::srgb(0.22, 0.24, 0.28);

/// The hidden avatar instance that thumbnails are rendered from.
#[derive(Component)]
struct ThumbnailAvatar {
    nodes: Vec<Option<Entity>>,
    /// The on-screen avatar's node count and morph routes (the same display copy).
    node_count: usize,
    routes: std::sync::Arc<crate::core::model::display::MorphRoutes>,
    /// Frames since its meshes were put on the thumbnail layer; renders wait until the
    /// new instance has been through the pipeline (as stills wait before capturing).
    settled: u8,
    ready: bool,
}

/// Frames a new hidden instance settles before the first thumbnail is rendered from it.
const SETTLE_FRAMES: u8 = 3;

/// One key's thumbnail.
struct KeyThumb {
    image: Handle<Image>,
    camera: Entity,
    /// The egui texture showing `image` (once registered).
    texture: Option<bevy_egui::egui::TextureId>,
    /// The pose it was last rendered with.
    rendered: Option<Pose>,
}

/// Thumbnails of the timeline's keys (the timeline shows them through
/// [`Thumbnails`]) and library thumbnails waiting to be rendered.
#[derive(Resource, Default)]
struct KeyThumbnails {
    by_key: HashMap<u64, KeyThumb>,
    /// The pose the hidden instance shows this frame.
    pose: Option<Pose>,
    active: Option<Entity>,
    /// The slowest frame while thumbnails were regenerating, and how many were rendered
    /// in that run (logged when the run ends).
    worst_frame: f32,
    run_count: u64,
    /// Library thumbnails of poses that are not on screen: (pose, PNG file).
    file_requests: Vec<(Pose, std::path::PathBuf)>,
    /// The camera of the file request rendering this frame.
    file_camera: Option<Entity>,
    /// Library thumbnails rendered and not yet read back from the GPU.
    captures_pending: u32,
    /// This frame rendered a key or a library thumbnail (more may be stale).
    working: bool,
}

pub(in crate::app) fn plugin(app: &mut App) {
    app.init_resource::<KeyThumbnails>()
        .add_systems(
            Update,
            (
                take_file_requests,
                spawn_hidden_avatar,
                finish_hidden_avatar,
                sync_thumbs,
                render_one,
                stay_awake,
            )
                .chain()
                .in_set(EditorSet::Drive),
        )
        .add_systems(
            PostUpdate,
            drive_hidden_avatar.before(bevy::transform::TransformSystems::Propagate),
        )
        .add_systems(EguiPrimaryContextPass, register_textures);
}

fn take_file_requests(
    mut requests: MessageReader<RenderPoseThumbnail>,
    mut thumbs: ResMut<KeyThumbnails>,
) {
    for request in requests.read() {
        thumbs
            .file_requests
            .push((request.pose.clone(), request.output.clone()));
    }
}

fn spawn_hidden_avatar(
    mut shown: MessageReader<AvatarShown>,
    avatars: Query<(
        &WorldAssetRoot,
        &Transform,
        &Avatar,
        Option<&bevy_vrm1::prelude::VrmcMaterialRegistry>,
    )>,
    old: Query<Entity, With<ThumbnailAvatar>>,
    mut thumbs: ResMut<KeyThumbnails>,
    mut commands: Commands,
) {
    if shown.read().count() == 0 {
        return;
    }
    for e in &old {
        commands.entity(e).despawn();
    }
    for thumb in thumbs.by_key.values_mut() {
        thumb.rendered = None; // a new model: every key is re-rendered
    }
    if let Ok((root, transform, avatar, materials)) = avatars.single() {
        // The same MToon materials as on screen (a thumbnail shows the outline too).
        let mut hidden = commands.spawn_empty();
        if let Some(materials) = materials {
            hidden.insert(bevy_vrm1::prelude::VrmcMaterialRegistry {
                images: materials.images.clone(),
                materials: materials.materials.clone(),
            });
        }
        hidden.insert((
            WorldAssetRoot(root.0.clone()),
            *transform,
            Visibility::Hidden,
            ThumbnailAvatar {
                nodes: Vec::new(),
                node_count: avatar.nodes.len(),
                routes: avatar.routes.clone(),
                settled: 0,
                ready: false,
            },
        ));
    }
}

/// Puts the instance's meshes on the thumbnail layer and maps its nodes.
fn finish_hidden_avatar(
    mut avatars: Query<(Entity, &mut ThumbnailAvatar, &mut Visibility)>,
    children: Query<&Children>,
    indices: Query<&GltfNodeIndex>,
    meshes: Query<(), With<Mesh3d>>,
    mut commands: Commands,
) {
    for (entity, mut avatar, mut visibility) in &mut avatars {
        if avatar.ready {
            continue;
        }
        if avatar.settled > 0 {
            avatar.settled += 1;
            avatar.ready = avatar.settled > SETTLE_FRAMES;
            continue;
        }
        let tag = RenderLayers::layer(THUMBNAIL_LAYER);
        let count = avatar.node_count;
        if let Some(nodes) = adopt_instance(
            entity,
            count,
            &children,
            &indices,
            &meshes,
            &mut commands,
            tag,
        ) {
            avatar.nodes = nodes;
            avatar.settled = 1;
            *visibility = Visibility::Inherited;
        }
    }
}

fn sync_thumbs(
    session: Res<Session>,
    mut thumbs: ResMut<KeyThumbnails>,
    mut shared: ResMut<Thumbnails>,
    mut images: ResMut<Assets<Image>>,
    mut commands: Commands,
    mut contexts: EguiContexts,
) {
    if !session.is_changed() && !shared.is_changed() {
        return;
    }
    // Only the keys the timeline has room to show get an image and a camera.
    let wanted_ids: std::collections::HashSet<u64> = shared.wanted.iter().copied().collect();
    let wanted: Vec<&crate::core::animation::timeline::Key> = session
        .editor
        .timeline
        .keys()
        .iter()
        .filter(|k| wanted_ids.contains(&k.id))
        .map(|k| k.as_ref())
        .collect();
    let gone: Vec<u64> = thumbs
        .by_key
        .keys()
        .copied()
        .filter(|id| !wanted_ids.contains(id))
        .collect();
    for id in gone {
        if let Some(thumb) = thumbs.by_key.remove(&id) {
            commands.entity(thumb.camera).despawn();
            contexts.remove_image(&thumb.image);
            images.remove(&thumb.image);
        }
        shared.textures.remove(&id);
    }
    for key in wanted {
        if thumbs.by_key.contains_key(&key.id) {
            continue;
        }
        let image = render_target(&mut images, THUMBNAIL);
        let camera = commands
            .spawn(thumbnail_camera(image.clone(), false, -2))
            .id();
        thumbs.by_key.insert(
            key.id,
            KeyThumb {
                image,
                camera,
                texture: None,
                rendered: None,
            },
        );
    }
}

/// Renders at most one stale key this frame.
fn render_one(
    time: Res<Time<Real>>,
    session: Res<Session>,
    mut thumbs: ResMut<KeyThumbnails>,
    hidden: Query<&ThumbnailAvatar>,
    mut cameras: Query<(&mut Camera, &mut Transform)>,
    (mut commands, mut images): (Commands, ResMut<Assets<Image>>),
) {
    if let Some(previous) = thumbs.active.take()
        && let Ok((mut camera, _)) = cameras.get_mut(previous)
    {
        camera.is_active = false;
    }
    if let Some(done) = thumbs.file_camera.take() {
        commands.entity(done).despawn();
    }
    thumbs.pose = None;
    thumbs.working = false;
    if !hidden.iter().any(|h| h.ready) {
        return;
    }
    let editor = &session.editor;
    let Some((key, shown)) = editor.timeline.keys().iter().find_map(|k| {
        let thumb = thumbs.by_key.get(&k.id)?;
        let shown = shown_pose(editor, k);
        (thumb.rendered.as_ref() != Some(&*shown)).then_some((k, shown))
    }) else {
        if let Some((pose, path)) = thumbs.file_requests.pop() {
            render_to_file(
                &mut thumbs,
                &session,
                pose,
                path,
                &mut commands,
                &mut images,
            );
            thumbs.working = true;
            return;
        }
        if thumbs.run_count > 0 {
            info!(
                "key thumbnails: {} regenerated, worst frame {:.1} ms (playing: {})",
                thumbs.run_count,
                thumbs.worst_frame * 1000.0,
                editor.playing
            );
            thumbs.run_count = 0;
            thumbs.worst_frame = 0.0;
        }
        return;
    };
    if thumbs.run_count > 0 {
        thumbs.worst_frame = thumbs.worst_frame.max(time.delta_secs());
    }
    thumbs.run_count += 1;
    thumbs.working = true;
    let view = thumbnail_view(session.as_ref(), &shown);
    let camera_entity = thumbs.by_key[&key.id].camera;
    if let Ok((mut camera, mut transform)) = cameras.get_mut(camera_entity) {
        camera.is_active = true;
        *transform = view;
    }
    let pose = shown.into_owned();
    if let Some(thumb) = thumbs.by_key.get_mut(&key.id) {
        thumb.rendered = Some(pose.clone());
    }
    // An authored gaze looks where it looks from the thumbnail's camera too.
    let gazed = gazed_pose(&session.editor.rig, &pose, view.translation).into_owned();
    thumbs.pose = Some(gazed);
    thumbs.active = Some(camera_entity);
}

/// A key's pose as the timeline shows it: with a foot planted across it, its leg as
/// the plant holds it.
fn shown_pose<'a>(
    editor: &crate::core::animation::edit::Editor,
    key: &'a crate::core::animation::timeline::Key,
) -> std::borrow::Cow<'a, Pose> {
    let planted = editor.timeline.plants().iter().any(|p| p.covers(key.t));
    match planted.then(|| editor.sample(key.t)).flatten() {
        Some(pose) => std::borrow::Cow::Owned(pose),
        None => std::borrow::Cow::Borrowed(&key.pose),
    }
}

/// Thumbnails render one per frame, and a new hidden instance settles over a few:
/// keep the frames coming until every key's thumbnail is current.
fn stay_awake(
    thumbs: Res<KeyThumbnails>,
    hidden: Query<&ThumbnailAvatar>,
    mut awake: ResMut<KeepAwake>,
) {
    // `render_one` already looked for a stale key this frame; it says whether it found one.
    let settling = hidden.iter().any(|h| !h.ready);
    if settling
        || thumbs.working
        || !thumbs.file_requests.is_empty()
        || thumbs.active.is_some()
        || thumbs.file_camera.is_some()
        || thumbs.captures_pending > 0
    {
        awake.now();
    }
}

fn drive_hidden_avatar(
    session: Res<Session>,
    thumbs: Res<KeyThumbnails>,
    hidden: Query<&ThumbnailAvatar>,
    mut transforms: Query<&mut Transform>,
    mut morphs: Query<&mut MorphWeights>,
) {
    let Some(pose) = thumbs.pose.as_ref() else {
        return;
    };
    let rig = &session.editor.rig;
    // The springs as they hang after holding the pose (as a still shows them).
    let springs =
        crate::core::body::springs::settle(&rig.model.springs, rig, pose, SPRING_SETTLE_SECONDS);
    for avatar in hidden.iter().filter(|a| a.ready) {
        pose_instance(
            rig,
            pose,
            &avatar.nodes,
            &avatar.routes,
            &mut transforms,
            &mut morphs,
            true,
        );
        set_node_rotations(&avatar.nodes, &springs, &mut transforms);
    }
}

fn register_textures(
    mut contexts: EguiContexts,
    mut thumbs: ResMut<KeyThumbnails>,
    mut shared: ResMut<Thumbnails>,
) {
    for (id, thumb) in thumbs.by_key.iter_mut() {
        if thumb.texture.is_none() && thumb.rendered.is_some() {
            let texture = contexts.add_image(EguiTextureHandle::Strong(thumb.image.clone()));
            thumb.texture = Some(texture);
            shared.textures.insert(*id, texture);
        }
    }
}

/// Renders a pose that is not on screen into a PNG file (library thumbnails): the hidden
/// instance takes the pose for this frame, a one-frame camera renders it, and the image
/// is captured and written atomically.
fn render_to_file(
    thumbs: &mut KeyThumbnails,
    session: &Session,
    pose: Pose,
    path: std::path::PathBuf,
    commands: &mut Commands,
    images: &mut Assets<Image>,
) {
    use bevy::render::view::screenshot::{Screenshot, ScreenshotCaptured};
    let image = render_target(images, THUMBNAIL);
    let view = thumbnail_view(session, &pose);
    let camera = commands
        .spawn((thumbnail_camera(image.clone(), true, -3), view))
        .id();
    thumbs.captures_pending += 1;
    commands.spawn(Screenshot::image(image)).observe(
        move |captured: On<ScreenshotCaptured>,
              mut updated: ResMut<UpdatedThumbnails>,
              mut thumbs: ResMut<KeyThumbnails>| {
            thumbs.captures_pending = thumbs.captures_pending.saturating_sub(1);
            let result = captured_rgba(&captured.image).and_then(|img| save_png(&img, &path));
            match result {
                Ok(()) => updated.0.push(path.clone()),
                Err(e) => warn!("library thumbnail {}: {e}", path.display()),
            }
        },
    );
    thumbs.pose = Some(gazed_pose(&session.editor.rig, &pose, view.translation).into_owned());
    thumbs.file_camera = Some(camera);
}

/// Where a thumbnail's camera stands for a pose: in front, the figure fitted to 96×128.
fn thumbnail_view(session: &Session, pose: &Pose) -> Transform {
    framed_view(
        &session.editor.rig,
        pose,
        CameraPreset::Front,
        30.0,
        THUMBNAIL,
    )
}

/// A camera that renders only the hidden instance into a thumbnail image.
fn thumbnail_camera(image: Handle<Image>, active: bool, order: isize) -> impl Bundle {
    (
        Camera3d::default(),
        Camera {
            is_active: active,
            order,
            clear_color: ClearColorConfig::Custom(BACKGROUND),
            ..default()
        },
        RenderTarget::Image(image.into()),
        Projection::from(PerspectiveProjection {
            fov: 30f32.to_radians(),
            near: 0.02,
            ..default()
        }),
        RenderLayers::layer(THUMBNAIL_LAYER),
        Msaa::Off,
    )
}
