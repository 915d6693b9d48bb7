//! One still or one film without a window (`vrma-maker render-png`, `render-anim`): once
//! the model shows, the pose is applied through the edit path (or the film starts), it
//! renders, and the app quits with its outcome.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use bevy::prelude::*;

use super::StillQueue;
use super::film::FilmQueue;
use crate::app::session::{
    AvatarShown, Banner, FilmRequest, Films, Session, StillRequest, StillView, render_target,
    spawn_lights,
};
use crate::core::animation::edit::PoseEdit;
use crate::core::body::framing::StillCamera;
use crate::core::body::pose::Pose;

/// Where the outcome of the one still lands (`App::run` keeps the world).
pub type StillOutcome = Arc<Mutex<Option<Result<PathBuf, String>>>>;

/// The pose to show once the model is on screen, and the still to take of it.
#[derive(Resource)]
struct PoseToShow(Option<Pose>, StillRequest);

/// Adds the one-still behaviour to a windowless app with the render plugin.
pub(in crate::app) fn one_still_plugin(
    app: &mut App,
    pose: Option<Pose>,
    request: StillRequest,
    outcome: StillOutcome,
) {
    app.insert_resource(StillQueue {
        exit_when_done: true,
        ..default()
    })
    .insert_resource(PoseToShow(pose, request.clone()));
    if let StillView::Fixed(camera) = request.view {
        app.insert_resource(WatchFrom(camera));
    }
    app.add_systems(Startup, (lights, watch_from_the_still_camera))
        .add_systems(Update, show_pose_then_render)
        .add_systems(Last, move |queue: Res<StillQueue>| {
            if let (Some(first), Ok(mut slot)) = (queue.finished.first(), outcome.lock()) {
                slot.get_or_insert_with(|| first.clone());
            }
        });
}

/// Where the still or film will be seen from.
#[derive(Resource, Clone, Copy)]
struct WatchFrom(StillCamera);

/// Adds the one-film behaviour to a windowless app with the render plugin: the film
/// starts once the model shows, and the app quits with its outcome.
pub(in crate::app) fn one_film_plugin(app: &mut App, request: FilmRequest, outcome: StillOutcome) {
    app.insert_resource(WatchFrom(request.camera))
        .insert_resource(Films {
            pending: Some(request),
            running: false,
        })
        .add_systems(Startup, (lights, watch_from_the_still_camera))
        .add_systems(Update, stop_on_load_error)
        .add_systems(
            Last,
            move |queue: Res<FilmQueue>, mut exit: MessageWriter<AppExit>| {
                if let Some(first) = queue.finished.first() {
                    if let Ok(mut slot) = outcome.lock() {
                        slot.get_or_insert_with(|| first.clone());
                    }
                    exit.write(if first.is_ok() {
                        AppExit::Success
                    } else {
                        AppExit::error()
                    });
                }
            },
        );
}

/// A model Bevy could not load: the film says so instead of waiting for ever.
fn stop_on_load_error(banner: Res<Banner>, mut queue: ResMut<FilmQueue>) {
    if let Some(error) = banner.error.clone()
        && queue.finished.is_empty()
    {
        queue.finished.push(Err(error));
    }
}

/// Lights and ambient light as the window's view has them.
fn lights(mut commands: Commands) {
    spawn_lights(&mut commands);
}

/// A tiny camera where the still's will be, from the start: Bevy puts a skinned mesh's
/// joints on the GPU when the mesh first comes into a view, and one that first did so
/// with the still's camera (after the pose was set) was drawn unposed, every time for
/// a normal-mapped avatar. The window has its view camera for this.
fn watch_from_the_still_camera(
    watch: Option<Res<WatchFrom>>,
    mut images: ResMut<Assets<Image>>,
    mut commands: Commands,
) {
    let Some(WatchFrom(camera)) = watch.as_deref().copied() else {
        return;
    };
    let target = render_target(&mut images, UVec2::new(8, 8));
    commands.spawn((
        Camera3d::default(),
        Camera {
            order: -2,
            ..default()
        },
        bevy::camera::RenderTarget::Image(target.into()),
        // Exactly the still's camera (`start_still` makes it the same way).
        super::still_projection(camera.fov.to_radians()),
        super::fixed_transform(&camera),
    ));
}

fn show_pose_then_render(
    mut shown: MessageReader<AvatarShown>,
    mut to_show: ResMut<PoseToShow>,
    mut session: ResMut<Session>,
    mut queue: ResMut<StillQueue>,
    banner: Res<Banner>,
    mut exit: MessageWriter<AppExit>,
) {
    // A model Bevy could not load: say so and stop instead of waiting forever.
    if let Some(error) = banner.error.clone() {
        queue.finished.push(Err(error));
        exit.write(AppExit::error());
        return;
    }
    if shown.read().count() == 0 {
        return;
    }
    if let Some(pose) = to_show.0.take() {
        // The same edit path as everywhere; applied now so the framing sees the pose.
        if let Err(e) = session
            .editor
            .apply(PoseEdit::SetPose(Box::new(pose)).into())
        {
            queue.finished.push(Err(e.to_string()));
            exit.write(AppExit::error());
            return;
        }
    }
    queue.pending.push(to_show.1.clone());
}
