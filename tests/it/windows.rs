//! The Windows build under Wine, checked against the Linux build on the same inputs:
//! `scripts/test-windows` (run first by scripts/test) builds `vrma-maker.exe` and a fresh
//! Wine prefix and names them in VRMA_MAKER_WINDOWS_EXE and VRMA_MAKER_WINE_PREFIX. The
//! program runs from a folder whose path has spaces and Japanese letters, on inputs in
//! another such folder, named by Windows paths (`Z:\…`). Wine 8.0 runs it on the host's
//! lavapipe through winevulkan; its DirectX 12 (vkd3d) cannot give a device, so every
//! render here also proves that the next backend is tried.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use crate::common::*;
use serde_json::{Value, json};

/// The Windows program, copied to a folder as a user might unzip it, and its prefix.
struct Wine {
    exe: PathBuf,
    prefix: PathBuf,
    display: String,
    data: PathBuf,
    // Dropped after `Drop::drop` has stopped Wine: the display it drew on, then the
    // prefix's turn (the last field goes last).
    _xvfb: Xvfb,
    _turn: std::sync::MutexGuard<'static, ()>,
}

/// One Wine test at a time: they share the prefix, and each ends by stopping its server
/// (which would kill another test's programs mid-run).
static PREFIX_TURN: std::sync::Mutex<()> = std::sync::Mutex::new(());

impl Drop for Wine {
    fn drop(&mut self) {
        // The next test starts Wine on a display of its own.
        let _ = Command::new("wineserver")
            .arg("-k")
            .env("WINEPREFIX", &self.prefix)
            .status();
    }
}

/// `C:\…`-style path of a file on this machine, as Wine shows the root folder (Z:).
fn windows_path(path: &Path) -> String {
    format!("Z:{}", path.display()).replace('/', "\\")
}

/// Wine with the Windows build, on an Xvfb display of its own (Vulkan needs one); None
/// where scripts/test-windows has not run (a failure in CI).
fn wine(dir: &Path) -> Option<Wine> {
    let exe = std::env::var_os("VRMA_MAKER_WINDOWS_EXE").map(PathBuf::from);
    let prefix = std::env::var_os("VRMA_MAKER_WINE_PREFIX").map(PathBuf::from);
    let ready = exe.as_ref().is_some_and(|e| e.is_file())
        && prefix.as_ref().is_some_and(|p| p.is_dir())
        && have_display_stack();
    if !required_or_skip(
        "the Windows build and its Wine prefix (scripts/test-windows), Xvfb and Vulkan",
        ready,
    ) {
        return None;
    }
    // Unzipped somewhere a Windows user might: spaces and non-ASCII letters in the path.
    let folder = dir.join("Program Files テスト/VRMA Maker 日本語");
    std::fs::create_dir_all(&folder).unwrap();
    let installed = folder.join("vrma-maker.exe");
    let exe = exe.unwrap();
    std::fs::copy(&exe, &installed).unwrap();
    // The console launcher, named as the zip names it (scripts/package).
    std::fs::copy(
        exe.with_file_name("vrma-maker-cli.exe"),
        folder.join("vrma-maker.com"),
    )
    .expect("scripts/test-windows builds the console launcher beside the program");
    let turn = PREFIX_TURN
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let (xvfb, display) = start_xvfb().expect("Xvfb starts");
    let prefix = prefix.unwrap();
    Some(Wine {
        exe: installed,
        prefix,
        display,
        data: dir.join("AppData ユーザー"),
        _xvfb: xvfb,
        _turn: turn,
    })
}

impl Wine {
    fn command(&self) -> Command {
        let mut command = Command::new("wine");
        command
            .arg(&self.exe)
            .env("WINEPREFIX", &self.prefix)
            .env("WINEDEBUG", "-all")
            // Wine names files in the host's character set: UTF-8 for the Japanese ones.
            .env("LANG", "C.UTF-8")
            .env("DISPLAY", &self.display)
            .env("VRMA_MAKER_DATA_DIR", windows_path(&self.data))
            .env("VRMA_MAKER_NO_MESSAGE_BOX", "1")
            .stdin(Stdio::null());
        command
    }

    /// Runs one subcommand; arguments that are paths on this machine are given as
    /// Windows paths.
    fn run(&self, args: &[Arg]) -> Output {
        let mut command = self.command();
        for arg in args {
            match arg {
                Arg::Text(text) => command.arg(text),
                Arg::File(path) => command.arg(windows_path(path)),
            };
        }
        command.output().expect("wine runs")
    }

    /// `vrma-maker ARGS` typed in a command prompt (cmd) in the program's folder.
    fn typed_in_cmd(&self, args: &[&std::ffi::OsStr]) -> Output {
        Command::new("wine")
            .args(["cmd", "/c", "vrma-maker"])
            .args(args)
            .current_dir(self.exe.parent().unwrap())
            .env("WINEPREFIX", &self.prefix)
            .env("WINEDEBUG", "-all")
            .env("LANG", "C.UTF-8")
            .env("DISPLAY", &self.display)
            .env("VRMA_MAKER_DATA_DIR", windows_path(&self.data))
            .stdin(Stdio::null())
            .output()
            .expect("wine runs")
    }

    /// Runs one subcommand here under Wine, or on Linux.
    fn run_on(&self, windows: bool, args: &[Arg]) -> Output {
        if windows { self.run(args) } else { linux(args) }
    }
}

enum Arg<'a> {
    Text(&'a str),
    File(&'a Path),
}
use Arg::{File, Text};

/// The same subcommand on Linux (the paths as they are).
fn linux(args: &[Arg]) -> Output {
    let mut command = bin();
    for arg in args {
        match arg {
            Text(text) => command.arg(text),
            File(path) => command.arg(path),
        };
    }
    command.env_remove("DISPLAY").output().unwrap()
}

fn succeeded(out: &Output, what: &str) -> Value {
    assert!(
        out.status.success(),
        "{what} failed ({:?}): {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or(Value::Null)
}

/// `a` and `b` hold the same things, numbers within `tolerance` (the C maths libraries
/// of Windows and Linux round sines and roots differently in the last bits); strings
/// under `path_keys` are paths and may differ.
fn assert_json_close(a: &Value, b: &Value, tolerance: f64, at: &str) {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
            assert!((x - y).abs() <= tolerance, "{at}: {x} against {y}");
        }
        (Value::Array(x), Value::Array(y)) => {
            assert_eq!(x.len(), y.len(), "{at}: lengths");
            for (i, (x, y)) in x.iter().zip(y).enumerate() {
                assert_json_close(x, y, tolerance, &format!("{at}[{i}]"));
            }
        }
        (Value::Object(x), Value::Object(y)) => {
            let keys = |o: &serde_json::Map<String, Value>| {
                o.keys().cloned().collect::<std::collections::BTreeSet<_>>()
            };
            assert_eq!(keys(x), keys(y), "{at}: keys");
            for (key, value) in x {
                if matches!(key.as_str(), "path" | "file" | "model_path") {
                    continue;
                }
                assert_json_close(value, &y[key], tolerance, &format!("{at}.{key}"));
            }
        }
        _ => assert_eq!(a, b, "{at}"),
    }
}

/// A GLB's JSON and its binary chunk as little-endian floats (every accessor of a VRMA
/// is a float one).
fn glb_parts(path: &Path) -> (Value, Vec<f32>) {
    let bytes = std::fs::read(path).unwrap();
    let json_length = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let json = serde_json::from_slice(&bytes[20..20 + json_length]).unwrap();
    let bin = &bytes[20 + json_length + 8..];
    let floats = bin
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    (json, floats)
}

#[test]
fn the_command_line_tools_give_the_linux_results_from_a_japanese_folder() {
    let dir = scratch("windows-cli");
    let Some(wine) = wine(&dir) else { return };
    let inputs = dir.join("モデル と ポーズ");
    let (on_windows, on_linux) = (inputs.join("windows"), inputs.join("linux"));
    std::fs::create_dir_all(&on_windows).unwrap();
    std::fs::create_dir_all(&on_linux).unwrap();

    // The built-in avatar: the same bytes from both.
    let model = on_linux.join("アバター.vrm");
    let model_windows = on_windows.join("アバター.vrm");
    succeeded(
        &linux(&[Text("mannequin"), Text("-o"), File(&model)]),
        "mannequin",
    );
    succeeded(
        &wine.run(&[Text("mannequin"), Text("-o"), File(&model_windows)]),
        "mannequin under Wine",
    );
    assert_eq!(
        std::fs::read(&model).unwrap(),
        std::fs::read(&model_windows).unwrap(),
        "the same avatar file"
    );

    // inspect: bones and rest offsets.
    let facts = |out: Output| succeeded(&out, "inspect");
    let linux_facts = facts(linux(&[Text("inspect"), File(&model)]));
    let windows_facts = facts(wine.run(&[Text("inspect"), File(&model_windows)]));
    assert!(
        linux_facts.as_object().is_some_and(|o| !o.is_empty()),
        "{linux_facts}"
    );
    assert_json_close(&windows_facts, &linux_facts, 1e-6, "inspect");
    // Typed in a command prompt in the program's folder, `vrma-maker …` is the console
    // launcher (.com before .exe): cmd waits for it, and its output and exit code are
    // the program's.
    let typed = wine.typed_in_cmd(&["inspect".as_ref(), windows_path(&model_windows).as_ref()]);
    assert_json_close(&facts(typed), &linux_facts, 1e-6, "inspect typed in cmd");
    let missing = wine.typed_in_cmd(&["inspect".as_ref(), "missing.vrm".as_ref()]);
    assert_eq!(missing.status.code(), Some(1), "the program's exit code");
    assert!(String::from_utf8_lossy(&missing.stderr).contains("missing.vrm"));

    // apply: an edit script, the project written; a second run saves over it.
    let script = json!([
        {"op": "rotate", "bone": "spine", "quat": [0, 0, 0.2, 0.98]},
        {"op": "key"},
        {"op": "seek", "t": 1},
        {"op": "ik", "end": "leftHand", "target": [0.3, 1.1, 0.25]},
        {"op": "key"},
        {"op": "hand", "side": "both", "preset": "fist"},
        {"op": "mirror"},
        {"op": "ease", "value": "IN-OUT"}
    ]);
    let mut projects = Vec::new();
    for (folder, windows) in [(&on_linux, false), (&on_windows, true)] {
        let script_file = folder.join("スクリプト.json");
        std::fs::write(&script_file, script.to_string()).unwrap();
        let project = folder.join("my project.json");
        std::fs::write(&project, b"an older file, to be replaced").unwrap();
        let model = folder.join("アバター.vrm");
        let args = [
            Text("apply"),
            Text("--model"),
            File(&model),
            Text("--script"),
            File(&script_file),
            Text("-o"),
            File(&project),
        ];
        succeeded(&wine.run_on(windows, &args), "apply");
        let saved: Value = serde_json::from_slice(&std::fs::read(&project).unwrap())
            .expect("the older file was replaced by the project");
        projects.push((project, saved));
    }
    assert_eq!(projects[0].1["keys"].as_array().unwrap().len(), 2);
    assert_json_close(&projects[1].1, &projects[0].1, 1e-6, "project");
    let leftovers: Vec<_> = std::fs::read_dir(&on_windows)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().contains(".tmp-"))
        .collect();
    assert!(
        leftovers.is_empty(),
        "no temporary file is left: {leftovers:?}"
    );

    // export-vrma: the same tracks, the same samples.
    let mut exported = Vec::new();
    for (folder, (project, _)) in [&on_linux, &on_windows].into_iter().zip(&projects) {
        let vrma = folder.join("アニメ.vrma");
        let args = [
            Text("export-vrma"),
            Text("--model"),
            File(&folder.join("アバター.vrm")),
            Text("--project"),
            File(project),
            Text("-o"),
            File(&vrma),
        ];
        succeeded(&wine.run_on(folder == &on_windows, &args), "export-vrma");
        exported.push(vrma);
    }
    let (linux_json, linux_samples) = glb_parts(&exported[0]);
    let (windows_json, windows_samples) = glb_parts(&exported[1]);
    assert!(
        !linux_json["animations"][0]["channels"]
            .as_array()
            .unwrap()
            .is_empty()
    );
    assert_json_close(&windows_json, &linux_json, 1e-5, "vrma");
    assert_eq!(windows_samples.len(), linux_samples.len());
    let worst = linux_samples
        .iter()
        .zip(&windows_samples)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0f32, f32::max);
    eprintln!(
        "VRMA from Windows: {} samples, differing from Linux's by at most {worst:e}",
        linux_samples.len()
    );
    assert!(worst < 1e-5, "samples differ by up to {worst}");

    // import-anim: Linux's file read back on both into the same keys.
    let mut imported = Vec::new();
    for folder in [&on_linux, &on_windows] {
        let project = folder.join("imported.json");
        let args = [
            Text("import-anim"),
            Text("--model"),
            File(&folder.join("アバター.vrm")),
            Text("--anim"),
            File(&exported[0]),
            Text("-o"),
            File(&project),
        ];
        succeeded(&wine.run_on(folder == &on_windows, &args), "import-anim");
        imported.push(serde_json::from_slice::<Value>(&std::fs::read(&project).unwrap()).unwrap());
    }
    assert_eq!(imported[0]["keys"].as_array().unwrap().len(), 2);
    assert_json_close(&imported[1], &imported[0], 1e-6, "imported");
}

/// Motion from Blender (a BVH and a Z-up FBX) and an MMD dance written here (a VMD with
/// Shift-JIS names) imported from a folder with spaces and Japanese in its name, and
/// sent out again as BVH and animated glTF: the same keys and the same files under Wine
/// as on Linux (ufbx's C code built by mingw included).
#[test]
fn motion_capture_comes_in_and_goes_out_the_same_on_windows() {
    let dir = scratch("windows-motion");
    let Some(wine) = wine(&dir) else { return };
    let (Some(bvh), Some(fbx)) = (
        crate::motion_capture::blender_file("mixamo_t_m.bvh"),
        crate::motion_capture::blender_file("blender_a_cm_rolled.fbx"),
    ) else {
        return;
    };
    let folder = dir.join("モーション キャプチャ");
    std::fs::create_dir_all(&folder).unwrap();
    let (model, _) = mannequins(&folder);
    // And an MMD dance (Shift-JIS names, a Japanese file name).
    let vmd = crate::motion_vmd::write_dance(&dir);
    for source in [&bvh, &fbx, &vmd] {
        let name = source.file_name().unwrap().to_string_lossy().into_owned();
        let anim = folder.join(&name);
        std::fs::copy(source, &anim).unwrap();
        let mut projects = Vec::new();
        let mut bvh_numbers = Vec::new();
        let mut glb_json = Vec::new();
        for windows in [false, true] {
            let tag = if windows { "windows" } else { "linux" };
            let project = folder.join(format!("{name} {tag}.json"));
            let args = [
                Text("import-anim"),
                Text("--model"),
                File(&model),
                Text("--anim"),
                File(&anim),
                Text("-o"),
                File(&project),
            ];
            let facts = succeeded(&wine.run_on(windows, &args), "import-anim");
            assert!(
                facts["mapping"]["mapped"]
                    .as_array()
                    .is_some_and(|m| m.len() > 20),
                "{facts}"
            );
            projects
                .push(serde_json::from_slice::<Value>(&std::fs::read(&project).unwrap()).unwrap());
            let out_bvh = folder.join(format!("{name} {tag}.out.bvh"));
            let args = [
                Text("export-anim"),
                Text("--model"),
                File(&model),
                Text("--project"),
                File(&project),
                Text("-o"),
                File(&out_bvh),
            ];
            succeeded(&wine.run_on(windows, &args), "export-anim bvh");
            let text = std::fs::read_to_string(&out_bvh).unwrap();
            bvh_numbers.push(
                text.split_whitespace()
                    .filter_map(|w| w.parse::<f64>().ok())
                    .collect::<Vec<_>>(),
            );
            let out_glb = folder.join(format!("{name} {tag}.glb"));
            let args = [
                Text("export-anim"),
                Text("--model"),
                File(&model),
                Text("--project"),
                File(&project),
                Text("-o"),
                File(&out_glb),
            ];
            succeeded(&wine.run_on(windows, &args), "export-anim glb");
            glb_json.push(glb_parts(&out_glb));
        }
        assert_json_close(
            &projects[1],
            &projects[0],
            1e-5,
            &format!("{name}: imported"),
        );
        assert_eq!(
            bvh_numbers[0].len(),
            bvh_numbers[1].len(),
            "{name}: the BVH's numbers"
        );
        let worst = bvh_numbers[0]
            .iter()
            .zip(&bvh_numbers[1])
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        assert!(worst < 1e-3, "{name}: BVH numbers differ by {worst}");
        assert_eq!(
            glb_json[0].0["animations"], glb_json[1].0["animations"],
            "{name}: the glTF's animation"
        );
    }
}

/// The share of pixels covered in either picture that are covered in both.
fn silhouette_iou(a: &image::RgbaImage, b: &image::RgbaImage) -> f64 {
    assert_eq!(a.dimensions(), b.dimensions());
    let (mut both, mut either) = (0u64, 0u64);
    for (p, q) in a.pixels().zip(b.pixels()) {
        let (x, y) = (p[3] > 127, q[3] > 127);
        both += (x && y) as u64;
        either += (x || y) as u64;
    }
    both as f64 / either.max(1) as f64
}

#[test]
fn a_still_rendered_on_windows_matches_linux() {
    let dir = scratch("windows-still");
    let Some(wine) = wine(&dir) else { return };
    let folder = dir.join("写真 stills");
    std::fs::create_dir_all(&folder).unwrap();
    let (model, _) = mannequins(&folder);
    let pose = folder.join("ポーズ.json");
    std::fs::write(
        &pose,
        json!({"v": 1, "bones": {"leftUpperArm": [0, 0, 0.5, 0.866], "spine": [0, 0.2, 0, 0.98]}})
            .to_string(),
    )
    .unwrap();
    let flags = ["--size", "240x320", "--camera", "three-quarter"];
    let linux_still = render_png(&model, &pose, &folder.join("linux.png"), &flags);
    let windows_png = folder.join("windows.png");
    let mut args = vec![
        Text("render-png"),
        Text("--model"),
        File(&model),
        Text("--pose"),
        File(&pose),
        Text("-o"),
        File(&windows_png),
    ];
    args.extend(flags.map(Text));
    // No WGPU_BACKEND: DirectX 12 is tried first and refused under Wine, then Vulkan.
    succeeded(&wine.run(&args), "render-png under Wine");
    let windows_still = image::open(&windows_png).unwrap().to_rgba8();
    let covered = linux_still.pixels().filter(|p| p[3] > 127).count();
    assert!(
        covered > 2000,
        "the Linux still shows the avatar ({covered} pixels)"
    );
    let iou = silhouette_iou(&windows_still, &linux_still);
    eprintln!("silhouette of the Windows still against Linux's: IoU {iou:.4}");
    assert!(iou >= 0.98, "silhouettes overlap by {iou:.4}");
}

/// `render-anim` under Wine from a Japanese folder: the WebP (libwebp) and the MP4
/// (OpenH264), both cross-built C, have the frames Linux's have, the WebP's middle frame
/// the same silhouette (read by Pillow), the MP4 the same H.264 stream shape (ffprobe).
#[test]
fn animations_rendered_on_windows_match_linux() {
    let dir = scratch("windows-film");
    let Some(wine) = wine(&dir) else { return };
    let Some(python) = crate::render_anim::pillow() else {
        required_or_skip("Pillow (scripts/setup-pillow)", false);
        return;
    };
    let folder = dir.join("動画 films");
    std::fs::create_dir_all(&folder).unwrap();
    let (model, _) = mannequins(&folder);
    let project = folder.join("アニメ.json");
    std::fs::write(
        &project,
        json!({"v": 1, "fps": 10, "model": {"path": model}, "keys": [
            {"id": 1, "t": 0, "pose": {"bones": {"leftUpperArm": [0, 0, 0.5, 0.866]}}},
            {"id": 2, "t": 1, "pose": {"bones": {"rightUpperArm": [0, 0, -0.5, 0.866]}}}]})
        .to_string(),
    )
    .unwrap();
    let read_webp = |film: &Path, middle: &Path| -> Value {
        let out = Command::new(&python)
            .arg(repo().join("tests/python/film_frames.py"))
            .arg(film)
            .arg("5")
            .arg(middle)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let probe = |film: &Path| -> Value {
        let out = Command::new("ffprobe")
            .args(["-v", "error", "-count_frames", "-select_streams", "v:0"])
            .args([
                "-show_entries",
                "stream=codec_name,pix_fmt,width,height,nb_read_frames",
            ])
            .args(["-of", "json"])
            .arg(film)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice::<Value>(&out.stdout).unwrap()["streams"][0].clone()
    };
    let mut webp = Vec::new();
    let mut mp4 = Vec::new();
    for windows in [false, true] {
        let side = if windows { "windows" } else { "linux" };
        for (name, into) in [("webp", &mut webp), ("mp4", &mut mp4)] {
            let film = folder.join(format!("{side} 動画.{name}"));
            let args = [
                Text("render-anim"),
                Text("--model"),
                File(&model),
                Text("--project"),
                File(&project),
                Text("-o"),
                File(&film),
                Text("--size"),
                Text("120x161"),
            ];
            succeeded(
                &wine.run_on(windows, &args),
                &format!("render-anim {name} on {side}"),
            );
            into.push(film);
        }
    }
    let middles = [
        folder.join("linux middle.png"),
        folder.join("windows middle.png"),
    ];
    let (linux, windows) = (
        read_webp(&webp[0], &middles[0]),
        read_webp(&webp[1], &middles[1]),
    );
    assert_eq!(linux["frames"], 11, "1 s at 10 fps: {linux}");
    assert_eq!(windows["frames"], linux["frames"], "{windows}");
    assert_eq!(windows["alpha"], true);
    let iou = silhouette_iou(
        &image::open(&middles[1]).unwrap().to_rgba8(),
        &image::open(&middles[0]).unwrap().to_rgba8(),
    );
    assert!(iou >= 0.98, "the middle frames overlap by {iou:.4}");
    let (linux, windows) = (probe(&mp4[0]), probe(&mp4[1]));
    assert_eq!(linux["nb_read_frames"], "11", "{linux}");
    assert_eq!(windows, linux, "the same H.264 stream shape");
}

#[test]
fn the_window_opens_takes_a_key_and_quits_by_itself_and_vr_says_what_it_needs() {
    let dir = scratch("windows-window");
    let Some(wine) = wine(&dir) else { return };
    if !required_or_skip("xdotool", have_xdotool()) {
        return;
    }
    let folder = dir.join("プロジェクト folder");
    std::fs::create_dir_all(&folder).unwrap();
    let (model, _) = mannequins(&folder);
    let saved = folder.join("保存 saved.json");
    let log = std::fs::File::create(dir.join("log.txt")).unwrap();
    let mut app = wine
        .command()
        .arg(windows_path(&model))
        // In VR from the start: the OpenXR loader built into the program finds no
        // runtime here, and the window says so and stays on the desktop.
        .args(["--vr", "--exit-after", "40", "--save-on-exit"])
        .arg(windows_path(&saved))
        .stdout(log.try_clone().unwrap())
        .stderr(log)
        .spawn()
        .unwrap();
    let window = wait_for_window(&wine.display);
    wait_for_log(
        &dir.join("log.txt"),
        "model ready to pose",
        Duration::from_secs(150),
    );
    std::thread::sleep(Duration::from_secs(2));
    // (Wine's desktop has no window manager to activate with: a click gives focus.)
    xdotool(
        &wine.display,
        &["mousemove", "--window", &window, "640", "400"],
    );
    xdotool(&wine.display, &["click", "1"]);
    std::thread::sleep(Duration::from_millis(500));
    // K adds a key at the playhead.
    xdotool(&wine.display, &["key", "--delay", "150", "k"]);
    let status = wait_with_timeout(&mut app, Duration::from_secs(150));
    let said = std::fs::read_to_string(dir.join("log.txt")).unwrap_or_default();
    assert!(
        status.is_some_and(|s| s.code() == Some(0)),
        "the window did not quit by itself with exit code 0: {status:?}\n{said}"
    );
    let project: Value = serde_json::from_slice(
        &std::fs::read(&saved).unwrap_or_else(|e| panic!("no project saved ({e}):\n{said}")),
    )
    .unwrap();
    assert_eq!(
        written_key_times(&project),
        [0.0],
        "the key pressed is in the saved project\n{said}"
    );
    assert!(
        said.contains("VR is not available: no OpenXR runtime is active")
            && said.contains("Set Meta Quest Link as active"),
        "--vr without a runtime says which to start, on the desktop:\n{said}"
    );
}

/// Started from Explorer there is no console to read: when no backend gives a device,
/// the window's start says so in a message box (here DirectX 12 alone is allowed, which
/// Wine cannot start), and ends with exit code 1 once it is dismissed.
#[test]
fn without_a_graphics_device_the_window_says_so_in_a_message_box() {
    let dir = scratch("windows-no-device");
    let Some(wine) = wine(&dir) else { return };
    if !required_or_skip("xdotool", have_xdotool()) {
        return;
    }
    let (model, _) = mannequins(&dir);
    let mut app = wine
        .command()
        .arg(windows_path(&model))
        .env("WGPU_BACKEND", "dx12")
        .env_remove("VRMA_MAKER_NO_MESSAGE_BOX")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The message box is titled as the program; the editor's window never opens.
    let message_box = wait_for_window(&wine.display);
    let title = xdotool(&wine.display, &["getwindowname", &message_box]);
    let title = String::from_utf8_lossy(&title.stdout);
    assert_eq!(
        title.trim(),
        "VRMA Maker",
        "the message box, not the editor"
    );
    std::thread::sleep(Duration::from_millis(500));
    xdotool(
        &wine.display,
        &["mousemove", "--window", &message_box, "10", "10"],
    );
    xdotool(&wine.display, &["click", "1"]);
    xdotool(&wine.display, &["key", "--delay", "150", "Return"]);
    let status = wait_with_timeout(&mut app, Duration::from_secs(60));
    let mut said = String::new();
    if let Some(mut stderr) = app.stderr.take() {
        use std::io::Read;
        let _ = stderr.read_to_string(&mut said);
    }
    assert_eq!(
        status.and_then(|s| s.code()),
        Some(1),
        "dismissing the message ends it with exit code 1: {said}"
    );
    assert!(
        said.contains("no graphics device could be started (tried DirectX 12")
            && said.contains("Update the graphics driver"),
        "{said}"
    );
}

/// The Windows program in Japanese (the language remembered in its settings): the menus
/// read ファイル, and the avatar's Japanese title is drawn, read back by OCR from Wine's
/// desktop. Fonts come from the program (bundled) and Windows' font folder (fontdb).
#[test]
fn the_windows_program_speaks_japanese_and_draws_a_japanese_avatar_name() {
    use crate::window_language::{TITLE, have_japanese_ocr, japanese_avatar, wait_for_text};
    let dir = scratch("windows-japanese");
    let Some(wine) = wine(&dir) else { return };
    if !required_or_skip("tesseract with Japanese", have_japanese_ocr()) {
        return;
    }
    let model = japanese_avatar(&dir);
    std::fs::create_dir_all(&wine.data).unwrap();
    std::fs::write(wine.data.join("settings.json"), r#"{"language": "ja"}"#).unwrap();
    let log_path = dir.join("log.txt");
    let log = std::fs::File::create(&log_path).unwrap();
    let mut app = wine
        .command()
        .arg(windows_path(&model))
        .args(["--exit-after", "120"])
        .stdout(log.try_clone().unwrap())
        .stderr(log)
        .spawn()
        .unwrap();
    wait_for_window(&wine.display);
    wait_for_log(&log_path, "model ready to pose", Duration::from_secs(150));
    // Wine's desktop may put the window below a title bar of its own: a generous region.
    wait_for_text(&wine.display, (0, 0, 700, 90), "jpn", "ファイル", &dir);
    wait_for_text(&wine.display, (0, 0, 700, 140), "jpn", TITLE, &dir);
    // Ctrl+Q quits (a click first: Wine's desktop has no window manager to focus with).
    let window = wait_for_window(&wine.display);
    xdotool(
        &wine.display,
        &["mousemove", "--window", &window, "640", "120"],
    );
    xdotool(&wine.display, &["click", "1"]);
    std::thread::sleep(Duration::from_millis(500));
    ctrl_chord(&wine.display, "q");
    let status = wait_with_timeout(&mut app, Duration::from_secs(60));
    let said = std::fs::read_to_string(&log_path).unwrap_or_default();
    assert!(
        status.is_some_and(|s| s.code() == Some(0)),
        "Ctrl+Q quit with exit code 0: {status:?}\n{said}"
    );
    assert!(
        said.contains("system fonts in"),
        "the font scan ran on Windows:\n{said}"
    );
}
