//! The command line (SPEC §12): the same engine as the window, no window. Each
//! subcommand is a thin call into [`crate::core`]; output is JSON on stdout, errors are
//! one line on stderr with exit code 1 (bad input) or 2 (usage).

mod apply;
mod export_vrma;
mod follow_frames;
mod import_anim;
mod inspect;
mod mannequin;
mod pose_from_image;
#[cfg(feature = "codecs")]
mod pose_from_video;
/// Without the codecs (the macOS compile check) there is no video reader.
#[cfg(not(feature = "codecs"))]
mod pose_from_video {
    #[allow(dead_code)] // the same options as the codecs build's, read there
    pub struct Options<'a> {
        pub models: Option<&'a std::path::Path>,
        pub from: Option<f32>,
        pub to: Option<f32>,
        pub mirror: bool,
    }

    pub fn run(
        _model: &std::path::Path,
        _video: &std::path::Path,
        _output: &std::path::Path,
        _options: &Options,
    ) -> Result<serde_json::Value, crate::core::Refusal> {
        Err(crate::core::Refusal::new(
            "this build reads no video (built without the codecs feature)",
        ))
    }
}
mod render_anim;
mod render_png;
mod sample;
mod test_avatar;

use std::path::PathBuf;

use clap::{Parser, Subcommand};

use crate::core::Refusal;

/// VRMA Maker: pose VRM avatars and export VRM Animation.
#[derive(Parser, Debug)]
#[command(name = "vrma-maker", version, about)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    /// A .vrm model (or, later, a project .json) to open in the editor window.
    pub file: Option<PathBuf>,
    /// Testing: save a screenshot of the window once the model shows, then exit.
    #[arg(long, hide = true)]
    pub screenshot: Option<PathBuf>,
    /// Testing: quit the window after this many seconds (no questions asked).
    #[arg(long, value_name = "SECONDS")]
    pub exit_after: Option<f32>,
    /// Testing: quit as `--exit-after` does as soon as this file exists (a test that is
    /// done says so, instead of waiting out a deadline set long for a slow machine).
    #[arg(long, hide = true, value_name = "FILE")]
    pub quit_when: Option<PathBuf>,
    /// Testing: save the project as it stands at exit to this file.
    #[arg(long, value_name = "PROJECT.json")]
    pub save_on_exit: Option<PathBuf>,
    /// Testing: start with this bone selected.
    #[arg(long, hide = true)]
    pub select: Option<String>,
    /// Testing: once the model shows, export a 240x320 front PNG here (the window's
    /// Export PNG path).
    #[arg(long, hide = true)]
    pub export_png: Option<PathBuf>,
    /// Testing: once the model shows, save the pose to the library under this name (the
    /// library window's Save pose path).
    #[arg(long, hide = true)]
    pub library_save: Option<String>,
    /// Start playing the timeline at once.
    #[arg(long)]
    pub play: bool,
    /// Testing: recover autosaved work at start without asking.
    #[arg(long, hide = true)]
    pub recover: bool,
    /// Start in VR (OpenXR; builds with the `xr` feature). Without a runtime or headset
    /// the window says why and stays on the desktop.
    #[arg(long)]
    pub vr: bool,
    /// Hand-tracking smoothing (One Euro filter): MIN_CUTOFF,BETA,D_CUTOFF
    /// [default: 1.2,20,1.0].
    #[arg(long, value_name = "MIN,BETA,DCUTOFF", value_parser = parse_one_euro)]
    pub one_euro: Option<crate::core::body::smoothing::OneEuroParams>,
    /// A folder of frames (PNG/JPEG, in name order) standing in for a camera in View ▸
    /// Follow camera.
    #[arg(long, value_name = "DIR")]
    pub camera_frames: Option<std::path::PathBuf>,
}

fn parse_one_euro(text: &str) -> Result<crate::core::body::smoothing::OneEuroParams, String> {
    crate::core::body::smoothing::OneEuroParams::parse(text)
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Print model facts: version, title, normalized bones, rest hips, expressions.
    Inspect {
        /// The .vrm file.
        model: PathBuf,
    },
    /// Run an edit script on a model and print {pose, keys, world}.
    Apply {
        #[arg(long)]
        model: PathBuf,
        /// A project whose keys, playhead and pose the script starts from.
        #[arg(long)]
        project: Option<PathBuf>,
        /// The edit script: a JSON array of operations.
        #[arg(long)]
        script: PathBuf,
        /// Also save the resulting project (pose, keys, playhead) here.
        #[arg(short = 'o', long = "output")]
        output: Option<PathBuf>,
    },
    /// The interpolated pose at each time: [{t, pose}].
    Sample {
        #[arg(long)]
        model: PathBuf,
        #[arg(long)]
        project: PathBuf,
        /// Comma-separated times in seconds, e.g. 0,0.5,1.
        #[arg(long)]
        times: String,
        /// Also print each bone's model-space position and rotation (the core's FK).
        #[arg(long)]
        world: bool,
    },
    /// Export the project's timeline as a VRM Animation (.vrma).
    ExportVrma {
        #[arg(long)]
        model: PathBuf,
        #[arg(long)]
        project: PathBuf,
        #[arg(short = 'o', long = "output")]
        output: PathBuf,
    },
    /// Export the project's timeline in the format the output's extension names:
    /// .vrma (VRM Animation), .bvh (the model's humanoid skeleton) or .glb (the avatar
    /// with the animation on its own bones, for tools without a VRM plug-in).
    ExportAnim {
        #[arg(long)]
        model: PathBuf,
        #[arg(long)]
        project: PathBuf,
        #[arg(short = 'o', long = "output")]
        output: PathBuf,
        /// BVH lengths: metres or centimetres.
        #[arg(long, value_parser = ["m", "cm"], default_value = "m")]
        unit: String,
        /// glTF: the skeleton alone (a node per bone), without the avatar's meshes.
        #[arg(long)]
        skeleton_only: bool,
    },
    /// Import an animation (.vrma, a humanoid glTF clip .glb/.gltf, BVH motion capture
    /// .bvh, FBX .fbx, or MikuMikuDance motion .vmd) as a project with keys, retargeted
    /// onto the model.
    ImportAnim {
        #[arg(long)]
        model: PathBuf,
        #[arg(long)]
        anim: PathBuf,
        #[arg(short = 'o', long = "output")]
        output: PathBuf,
        /// Thin dense VRMA/glTF clips to at most this many keys per second.
        #[arg(long)]
        rate: Option<f32>,
        /// Motion capture: whole-pose keys only where needed (reduced), or one per frame.
        #[arg(long, value_parser = ["reduced", "every-frame"], default_value = "reduced")]
        keys: String,
        /// How far reduced keys may stray: degrees, or degrees,millimetres (default 1,5).
        #[arg(long, value_name = "DEG[,MM]", value_parser = import_anim::parse_tolerance)]
        tolerance: Option<(f32, f32)>,
        /// A bone mapping: {"leftUpperArm": "L_Arm", …} (VRM bone → source joint; null
        /// leaves a bone out), over the detected one.
        #[arg(long, value_name = "MAP.json")]
        map: Option<PathBuf>,
        /// The first second of the source to take.
        #[arg(long, value_name = "SECONDS")]
        from: Option<f32>,
        /// The last second of the source to take.
        #[arg(long, value_name = "SECONDS")]
        to: Option<f32>,
        /// FBX: the take (animation stack) by name or number; the longest by default.
        #[arg(long)]
        take: Option<String>,
    },
    /// Render a pose as a transparent PNG, without a window.
    RenderPng {
        #[arg(long)]
        model: PathBuf,
        /// A pose JSON file.
        #[arg(long, conflicts_with_all = ["project", "time"])]
        pose: Option<PathBuf>,
        /// A project, with --time.
        #[arg(long, requires = "time")]
        project: Option<PathBuf>,
        /// Seconds into the project's timeline.
        #[arg(long, requires = "project")]
        time: Option<f32>,
        #[arg(short = 'o', long = "output")]
        output: PathBuf,
        /// Image size in pixels.
        #[arg(long, default_value = "1024x1365")]
        size: String,
        /// front, side or three-quarter: framed to fit the posed figure.
        #[arg(long, default_value = "front", conflicts_with = "camera_json")]
        camera: String,
        /// A fixed camera, {"position": [x,y,z], "target": [x,y,z], "fov": degrees} in
        /// model space (metres, vertical field of view): stills of several poses line up.
        #[arg(long)]
        camera_json: Option<PathBuf>,
        /// transparent, or a colour such as #ffffff.
        #[arg(long, default_value = "transparent")]
        background: String,
        /// Where the eyes look: camera (as players' default target), or pose (as posed).
        #[arg(long, default_value = "camera")]
        eyes: String,
    },
    /// Render the project's animation as a moving picture, without a window: the format
    /// follows the output's name (.webp, .png for APNG, .gif, .mp4, or a folder ending
    /// in / for numbered PNGs).
    RenderAnim {
        #[arg(long)]
        model: PathBuf,
        #[arg(long)]
        project: PathBuf,
        #[arg(short = 'o', long = "output")]
        output: PathBuf,
        /// Picture size in pixels.
        #[arg(long, default_value = "512x683")]
        size: String,
        /// Frames per second (the project's export rate by default).
        #[arg(long)]
        fps: Option<u32>,
        /// front, side or three-quarter: one camera framed over every frame's figure.
        #[arg(long, default_value = "front", conflicts_with = "camera_json")]
        camera: String,
        /// A fixed camera, as render-png's --camera-json.
        #[arg(long)]
        camera_json: Option<PathBuf>,
        /// transparent, or a colour such as #ffffff (an MP4 has no alpha: white unless given).
        #[arg(long, default_value = "transparent")]
        background: String,
        /// The first second to render (0 by default).
        #[arg(long, value_name = "SECONDS")]
        from: Option<f32>,
        /// The last second to render (the last key by default).
        #[arg(long, value_name = "SECONDS")]
        to: Option<f32>,
        /// Plays: 0 loops for ever (WebP, APNG, GIF); an MP4 repeats its frames N times.
        #[arg(long = "loop", default_value_t = 0)]
        loop_count: u32,
    },
    /// Find the person in a photo and write the pose they show on the model (a pose
    /// JSON file, as the library's); prints what was posed and which landmarks were used.
    PoseFromImage {
        /// The .vrm the pose is for (its bone lengths and rest).
        #[arg(long)]
        model: PathBuf,
        /// The photo: PNG or JPEG.
        image: PathBuf,
        #[arg(short = 'o', long = "output")]
        output: PathBuf,
        /// Also pose the fingers from the hands' landmarks.
        #[arg(long)]
        hands: bool,
        /// Mirror the photo's pose (a selfie: the avatar moves as a reflection).
        #[arg(long)]
        mirror: bool,
        /// A project whose pose the parts not found keep (default: the rest pose).
        #[arg(long)]
        project: Option<PathBuf>,
        /// The folder of the converted MediaPipe models (default: the user data folder's,
        /// where scripts/setup-pose-models installs them).
        #[arg(long, value_name = "DIR")]
        models: Option<PathBuf>,
        /// Limb bones the picture got backwards in depth, e.g. leftLowerArm,rightUpperLeg:
        /// each takes the other depth that draws the same picture (the avatar's sides).
        #[arg(long, value_delimiter = ',', value_name = "BONES")]
        flip: Vec<String>,
    },
    /// A video (H.264 in MP4 or MOV) turned into a project of editable keys: the person's
    /// pose in every frame, smoothed looking ahead, standing feet planted.
    PoseFromVideo {
        /// The .vrm the keys are for.
        #[arg(long)]
        model: PathBuf,
        /// The video: H.264 in MP4 or MOV.
        video: PathBuf,
        #[arg(short = 'o', long = "output")]
        output: PathBuf,
        /// The first second of the video to take.
        #[arg(long, value_name = "SECONDS")]
        from: Option<f32>,
        /// The last second of the video to take.
        #[arg(long, value_name = "SECONDS")]
        to: Option<f32>,
        /// Mirror the person (a selfie video: the avatar moves as a reflection).
        #[arg(long)]
        mirror: bool,
        /// The folder of the converted MediaPipe models (as pose-from-image's).
        #[arg(long, value_name = "DIR")]
        models: Option<PathBuf>,
    },
    /// The live camera mode over a folder of frames (standing in for a webcam): every
    /// frame's pose, tracked and smoothed as View > Follow camera does.
    FollowFrames {
        /// The .vrm the poses are for.
        #[arg(long)]
        model: PathBuf,
        /// The folder of frames (PNG or JPEG, in name order).
        frames: PathBuf,
        #[arg(short = 'o', long = "output")]
        output: PathBuf,
        /// Leave the landmarks unsmoothed (no One Euro filter).
        #[arg(long)]
        unfiltered: bool,
        /// Mirror the frames' pose (a selfie camera).
        #[arg(long)]
        mirror: bool,
        /// Also pose the fingers.
        #[arg(long)]
        hands: bool,
        /// The frames' rate (what the filter's time step is).
        #[arg(long, default_value_t = 30.0)]
        fps: f32,
        /// The landmark filter: MIN_CUTOFF,BETA,D_CUTOFF (default: the live mode's, 0.3,3,2).
        #[arg(long, value_name = "MIN,BETA,DCUTOFF", value_parser = parse_one_euro)]
        one_euro: Option<crate::core::body::smoothing::OneEuroParams>,
        /// The folder of the converted MediaPipe models.
        #[arg(long, value_name = "DIR")]
        models: Option<PathBuf>,
    },
    /// Write the built-in mannequin as a VRM file.
    Mannequin {
        #[arg(short = 'o', long = "output")]
        output: PathBuf,
        /// Write VRM 0.x instead of VRM 1.0.
        #[arg(long)]
        vrm0: bool,
    },
    /// Write a generated VRoid-scale test avatar (~80k vertices, ten 2048² textures,
    /// 57 face morphs over a shared-vertex face, MToon, spring bones).
    TestAvatar {
        #[arg(short = 'o', long = "output")]
        output: PathBuf,
        /// Write VRM 0.x instead of VRM 1.0.
        #[arg(long)]
        vrm0: bool,
        /// Side of each texture in pixels.
        #[arg(long, default_value_t = 2048)]
        texture_size: u32,
        /// Number of textures.
        #[arg(long, default_value_t = 10)]
        textures: usize,
        /// Crafted: add one flat texture of this side length (e.g. over the GPU's limit).
        #[arg(long, value_name = "SIDE")]
        oversized_texture: Option<u32>,
        /// Crafted: add a mesh of this many vertices with 250 sparse morph targets.
        #[arg(long, value_name = "VERTICES")]
        crafted_morph_vertices: Option<u32>,
    },
}

/// Runs a subcommand; returns the JSON to print, or the one-line error.
pub fn run(command: Command) -> Result<Option<serde_json::Value>, Refusal> {
    match command {
        Command::Inspect { model } => inspect::run(&model).map(Some),
        Command::Apply {
            model,
            project,
            script,
            output,
        } => apply::run(&model, project.as_deref(), &script, output.as_deref()).map(Some),
        Command::Sample {
            model,
            project,
            times,
            world,
        } => sample::run(&model, &project, &times, world).map(Some),
        Command::ExportVrma {
            model,
            project,
            output,
        } => export_vrma::run(&model, &project, &output).map(Some),
        Command::ExportAnim {
            model,
            project,
            output,
            unit,
            skeleton_only,
        } => export_vrma::run_any(&model, &project, &output, &unit, skeleton_only).map(Some),
        Command::ImportAnim {
            model,
            anim,
            output,
            rate,
            keys,
            tolerance,
            map,
            from,
            to,
            take,
        } => {
            let (degrees, millimetres) = tolerance.unwrap_or((1.0, 5.0));
            let options = crate::core::formats::table::ImportOptions {
                keys: if keys == "every-frame" {
                    crate::core::formats::motion::KeyPolicy::EveryFrame
                } else {
                    crate::core::formats::motion::KeyPolicy::Reduced {
                        degrees,
                        metres: millimetres / 1000.0,
                    }
                },
                map: map
                    .as_deref()
                    .map(crate::core::formats::motion::UserMap::read)
                    .transpose()?,
                range: (from.is_some() || to.is_some())
                    .then(|| (from.unwrap_or(0.0), to.unwrap_or(f32::MAX))),
                rate,
                take,
            };
            import_anim::run(&model, &anim, &output, &options).map(Some)
        }
        Command::RenderPng {
            model,
            pose,
            project,
            time,
            output,
            size,
            camera,
            camera_json,
            background,
            eyes,
        } => render_png::run(
            &model,
            pose.as_deref(),
            project.as_deref(),
            time,
            &output,
            &size,
            render_png::View {
                preset: &camera,
                camera_json: camera_json.as_deref(),
                background: &background,
                eyes: &eyes,
            },
        )
        .map(Some),
        Command::RenderAnim {
            model,
            project,
            output,
            size,
            fps,
            camera,
            camera_json,
            background,
            from,
            to,
            loop_count,
        } => render_anim::run(
            &model,
            &project,
            &output,
            render_anim::FilmView {
                size: &size,
                fps,
                preset: &camera,
                camera_json: camera_json.as_deref(),
                background: &background,
                from,
                to,
                loop_count,
            },
        )
        .map(Some),
        Command::PoseFromImage {
            model,
            image,
            output,
            hands,
            mirror,
            project,
            models,
            flip,
        } => pose_from_image::run(
            &model,
            &image,
            &output,
            &pose_from_image::Options {
                models: models.as_deref(),
                project: project.as_deref(),
                hands,
                mirror,
                flip: &flip,
            },
        )
        .map(Some),
        Command::PoseFromVideo {
            model,
            video,
            output,
            from,
            to,
            mirror,
            models,
        } => pose_from_video::run(
            &model,
            &video,
            &output,
            &pose_from_video::Options {
                models: models.as_deref(),
                from,
                to,
                mirror,
            },
        )
        .map(Some),
        Command::FollowFrames {
            model,
            frames,
            output,
            unfiltered,
            mirror,
            hands,
            fps,
            one_euro,
            models,
        } => follow_frames::run(
            &model,
            &frames,
            &output,
            &follow_frames::Options {
                models: models.as_deref(),
                unfiltered,
                mirror,
                hands,
                fps,
                one_euro,
            },
        )
        .map(Some),
        Command::Mannequin { output, vrm0 } => mannequin::run(&output, vrm0).map(|()| None),
        Command::TestAvatar {
            output,
            vrm0,
            texture_size,
            textures,
            oversized_texture,
            crafted_morph_vertices,
        } => test_avatar::run(
            &output,
            &test_avatar::Options {
                vrm0,
                texture_size,
                textures,
                oversized_texture,
                crafted_morph_vertices,
            },
        )
        .map(|()| None),
    }
}

/// Reads a JSON file with a message naming the file (the core's reader).
pub use crate::core::read_json;

/// The editor for a model, with a project's keys, pose and settings when given.
/// Warnings (skipped bones, expressions the model lacks) go to stderr.
pub fn open_editor(
    model: &std::path::Path,
    project: Option<&std::path::Path>,
) -> Result<crate::core::animation::edit::Editor, Refusal> {
    let rig = crate::core::body::rig::load_rig(model)?;
    let Some(project) = project else {
        return Ok(crate::core::animation::edit::Editor::new(rig));
    };
    let mut warnings = Vec::new();
    let project = crate::core::animation::project::Project::load(project, &mut warnings)?;
    let editor = crate::core::animation::edit::Editor::with_project(rig, project, &mut warnings);
    for w in warnings {
        eprintln!("warning: {w}");
    }
    Ok(editor)
}
