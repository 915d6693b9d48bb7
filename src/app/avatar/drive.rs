//! Driving the avatar on screen: its raw skeleton and morph targets from the
//! normalized pose, and its live spring bones.

use bevy::prelude::*;

use crate::app::session::{
    Avatar, AvatarShown, EditorCamera, KeepAwake, PreviewPose, Session, SpringBones, StillPose,
    gazed_pose, pose_instance, set_node_rotations,
};

/// Writes the raw bone transforms and morph weights from the normalized pose.
pub(super) fn drive_skeleton(
    (session, still_pose, preview): (Res<Session>, Res<StillPose>, Res<PreviewPose>),
    camera: Query<&GlobalTransform, With<EditorCamera>>,
    avatars: Query<&Avatar>,
    mut transforms: Query<&mut Transform>,
    mut morphs: Query<&mut MorphWeights>,
    (springs, mut live, time, mut awake): (
        Res<SpringBones>,
        ResMut<LiveSprings>,
        Res<Time<Real>>,
        ResMut<KeepAwake>,
    ),
) {
    let rig = &session.editor.rig;
    // While a still renders, its pose (the eyes on its camera); else the editor's, its
    // gaze on the editor's camera (the world is the model's frame).
    let viewer = camera
        .iter()
        .next()
        .map_or(Vec3::Z * 3.0, |t| t.translation());
    // A dialog's preview (an import not yet made) stands in for the editor's pose.
    let editing = preview.0.as_ref().unwrap_or(&session.editor.pose);
    let shown = gazed_pose(rig, editing, viewer);
    let pose = still_pose.0.as_ref().unwrap_or(&shown);
    for avatar in &avatars {
        pose_instance(
            rig,
            pose,
            &avatar.nodes,
            &avatar.routes,
            &mut transforms,
            &mut morphs,
            false,
        );
        let rotations = match (&springs.held, springs.live) {
            // A still holds its settled springs while it renders.
            (Some(held), _) => held.clone(),
            (None, true) => {
                if live.step(rig, editing, time.delta_secs()) {
                    awake.now(); // hair still swinging: keep the frames coming
                }
                live.rotations(rig)
            }
            // Off: the hair back as the file has it (not frozen mid-swing, nor as the
            // last still left it), and switching on again starts from rest.
            (None, false) => {
                live.running = None;
                if !live.swung {
                    continue;
                }
                crate::core::body::springs::rest_rotations(rig)
            }
        };
        set_node_rotations(&avatar.nodes, &rotations, &mut transforms);
    }
    live.swung = springs.held.is_some() || springs.live;
}

/// The live spring simulation of the avatar on screen (started afresh for each model).
#[derive(Resource, Default)]
pub(super) struct LiveSprings {
    running: Option<(
        crate::core::body::nodes::NodeWorlds,
        crate::core::body::springs::SpringState,
    )>,
    /// The last step's largest tail movement (metres).
    moved: f32,
    /// Whether the joints may be off their rest rotations (a still or the simulation
    /// set them since they were last put back).
    swung: bool,
    /// Real time not yet simulated (steps are a fixed 1/60 s).
    pending: f32,
}

/// The live simulation's fixed step: Verlet's inertia assumes equal steps, and with the
/// window's uneven frames (long ones after an idle wait) the hair jittered for ever and
/// kept the window drawing.
const SPRING_STEP: f32 = 1.0 / 60.0;

impl LiveSprings {
    /// One step with the pose as it is; whether anything still moves visibly.
    fn step(
        &mut self,
        rig: &crate::core::body::rig::Rig,
        pose: &crate::core::body::pose::Pose,
        dt: f32,
    ) -> bool {
        use crate::core::{body::nodes::NodeWorlds, body::springs::SpringState};
        let springs = &rig.model.springs;
        if springs.chains.is_empty() {
            return false;
        }
        // Another model (its message may come a frame after the session changed): start
        // afresh rather than step one model's state on another's nodes.
        if self
            .running
            .as_ref()
            .is_some_and(|(worlds, state)| !worlds.fits(rig) || !state.fits(springs))
        {
            self.running = None;
        }
        let (worlds, state) = self.running.get_or_insert_with(|| {
            let mut worlds = NodeWorlds::new(rig);
            worlds.pose(rig, pose);
            let state = SpringState::reset(springs, &worlds);
            (worlds, state)
        });
        // At most 0.1 s is caught up: after a long idle wait the hair does not jump.
        self.pending = (self.pending + dt.max(0.0)).min(0.1);
        if self.pending >= SPRING_STEP {
            worlds.pose(rig, pose);
            self.moved = 0.0;
            while self.pending >= SPRING_STEP {
                self.pending -= SPRING_STEP;
                self.moved = self
                    .moved
                    .max(state.step(springs, rig, worlds, SPRING_STEP));
            }
        }
        self.moved > 1e-4
    }

    fn rotations(&self, rig: &crate::core::body::rig::Rig) -> Vec<(usize, Quat)> {
        self.running
            .as_ref()
            .map(|(worlds, _)| {
                crate::core::body::springs::joint_rotations(&rig.model.springs, worlds)
            })
            .unwrap_or_default()
    }
}

/// A new model's springs start from rest.
pub(super) fn restart_springs(
    mut shown: MessageReader<AvatarShown>,
    mut live: ResMut<LiveSprings>,
) {
    if shown.read().count() > 0 {
        live.running = None;
    }
}
