//! Mutation fuzzing through Bevy's own glTF loader (issue 15): models the core accepts,
//! mutated at random in their JSON, are turned into the display copy as the app does and
//! loaded and spawned by Bevy's loader in a headless app (no GPU), in a child process
//! under a memory limit. Whatever the core lets through must load or fail with an error:
//! never panic, abort, hang or exhaust memory.
//!
//! Coverage-guided fuzzing of Bevy would mean building Bevy with SanitizerCoverage (half
//! an hour on CI's two cores); this seeded random search runs in seconds. Longer runs:
//! `VRMA_LOADER_FUZZ_CASES=5000 VRMA_LOADER_FUZZ_SEED=7 cargo test --release --test it --
//! bevy_loader`.

use std::path::Path;
use std::time::Duration;

use crate::common::*;
use serde_json::{Value, json};
use vrma_maker::core::files::glb;
use vrma_maker::core::model::display::{DeviceLimits, prepare};

/// A small deterministic generator (xorshift64*), so a failure can be replayed by seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Every number and array in the JSON, as pointers (`/meshes/0/primitives`).
fn places(value: &Value, at: String, numbers: &mut Vec<String>, arrays: &mut Vec<String>) {
    match value {
        Value::Number(_) => numbers.push(at),
        Value::Array(items) => {
            arrays.push(at.clone());
            for (i, v) in items.iter().enumerate() {
                places(v, format!("{at}/{i}"), numbers, arrays);
            }
        }
        Value::Object(map) => {
            for (k, v) in map {
                places(
                    v,
                    format!("{at}/{}", k.replace('~', "~0").replace('/', "~1")),
                    numbers,
                    arrays,
                );
            }
        }
        _ => {}
    }
}

/// One to three random edits: a number set to an edge value, an array item repeated
/// many times or dropped.
fn mutate(root: &mut Value, rng: &mut Rng) {
    const EDGES: [f64; 12] = [
        0.0,
        1.0,
        -1.0,
        2.0,
        255.0,
        256.0,
        65_536.0,
        1e6,
        2_147_483_648.0,
        4.5e9,
        1e30,
        0.5,
    ];
    for _ in 0..1 + rng.below(3) {
        let (mut numbers, mut arrays) = (Vec::new(), Vec::new());
        places(root, String::new(), &mut numbers, &mut arrays);
        match rng.below(4) {
            0 | 1 if !numbers.is_empty() => {
                let at = &numbers[rng.below(numbers.len())];
                let edge = EDGES[rng.below(EDGES.len())];
                let old = root.pointer(at).and_then(Value::as_f64).unwrap_or(0.0);
                let new = match rng.below(3) {
                    0 => edge,
                    1 => old + 1.0,
                    _ => old * edge,
                };
                if let Some(slot) = root.pointer_mut(at) {
                    *slot = if new.fract() == 0.0 && new.abs() < 1.8e19 {
                        if new >= 0.0 {
                            json!(new as u64)
                        } else {
                            json!(new as i64)
                        }
                    } else {
                        json!(new)
                    };
                }
            }
            2 if !arrays.is_empty() => {
                let at = &arrays[rng.below(arrays.len())];
                if let Some(Value::Array(items)) = root.pointer_mut(at)
                    && !items.is_empty()
                {
                    let item = items[rng.below(items.len())].clone();
                    let times = [2, 300, 5000][rng.below(3)];
                    items.extend(std::iter::repeat_n(item, times));
                }
            }
            _ if !arrays.is_empty() => {
                let at = &arrays[rng.below(arrays.len())];
                if let Some(Value::Array(items)) = root.pointer_mut(at)
                    && !items.is_empty()
                {
                    let i = rng.below(items.len());
                    items.remove(i);
                }
            }
            _ => {}
        }
    }
}

/// The mutated models the core accepts, as the display copies the app would hand to
/// Bevy: `(case, bytes)`, made one at a time.
fn accepted_copies(
    seeds: Vec<Vec<u8>>,
    cases: usize,
    seed: u64,
) -> impl Iterator<Item = (usize, Vec<u8>)> {
    let mut rng = Rng(seed);
    (0..cases).filter_map(move |case| {
        let model = &seeds[case % seeds.len()];
        let split = glb::split(model).ok()?;
        let mut root: Value = serde_json::from_slice(split.json).ok()?;
        mutate(&mut root, &mut rng);
        let bytes = glb::replace_json(model, root.to_string().as_bytes()).ok()?;
        vrma_maker::core::body::rig::rig_from_bytes(&bytes).ok()?;
        let display = prepare(
            &bytes,
            &DeviceLimits::WGPU_DEFAULT,
            &mut vrma_maker::app::avatar::downscale_texture,
        )
        .ok()?;
        Some((case, display.bytes))
    })
}

/// The child: mutates the seed models, and loads and spawns each one the core accepts
/// through Bevy's glTF loader, printing one line per model.
#[test]
#[ignore = "a child process of the loader fuzz test; it runs it"]
fn loader_child() {
    use bevy::asset::io::memory::{Dir, MemoryAssetReader};
    use bevy::asset::io::{AssetSourceBuilder, AssetSourceId};
    use bevy::asset::{LoadState, RenderAssetUsages};
    use bevy::gltf::GltfAssetLabel;
    use bevy::prelude::*;
    use bevy::world_serialization::{WorldAsset, WorldAssetRoot, WorldSerializationPlugin};

    let Some(folder) = std::env::var_os("VRMA_LOADER_SEEDS") else {
        return;
    };
    let number = |key: &str| std::env::var(key).unwrap().parse::<u64>().unwrap();
    let mut seeds: Vec<_> = std::fs::read_dir(&folder)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "vrm"))
        .collect();
    seeds.sort();
    let seeds = seeds.iter().map(|p| std::fs::read(p).unwrap()).collect();
    let dir = Dir::default();
    let reader = MemoryAssetReader { root: dir.clone() };
    let mut app = App::new();
    app.register_asset_source(
        AssetSourceId::Default,
        AssetSourceBuilder::new(move || Box::new(reader.clone())),
    )
    .add_plugins((
        TaskPoolPlugin::default(),
        AssetPlugin::default(),
        WorldSerializationPlugin,
        bevy::mesh::MeshPlugin,
        bevy::image::ImagePlugin::default(),
        bevy::gltf::GltfPlugin::default(),
    ));
    app.finish();
    app.cleanup();
    // As the app asks, with meshes kept in the main world (there is no render world).
    let settings = vrma_maker::app::avatar::loader_settings(RenderAssetUsages::MAIN_WORLD);
    let cases = number("VRMA_LOADER_FUZZ_CASES") as usize;
    for (case, bytes) in accepted_copies(seeds, cases, number("VRMA_LOADER_FUZZ_SEED")) {
        let name = format!("{case:05}.glb");
        dir.insert_asset(Path::new(&name), bytes);
        let server = app.world().resource::<AssetServer>().clone();
        let scene: Handle<WorldAsset> = server
            .load_builder()
            .with_settings(settings)
            .load(GltfAssetLabel::Scene(0).from_asset(name.clone()));
        let root = app.world_mut().spawn(WorldAssetRoot(scene.clone())).id();
        let mut outcome = None;
        for _ in 0..5_000 {
            app.update();
            match server.get_load_state(scene.id()) {
                Some(LoadState::Failed(e)) => outcome = Some(format!("failed {name}: {e}")),
                Some(LoadState::Loaded) if server.is_loaded_with_dependencies(&scene) => {
                    app.update();
                    let spawned = app.world().get::<Children>(root).map_or(0, |c| c.len());
                    outcome = Some(format!("loaded {name} ({spawned} roots)"));
                }
                _ => {}
            }
            if outcome.is_some() {
                break;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        println!("{}", outcome.unwrap_or_else(|| format!("stuck {name}")));
        app.world_mut().entity_mut(root).despawn();
        dir.remove_asset(Path::new(&name));
        app.update();
    }
    println!("done");
}

#[test]
fn mutated_models_the_core_accepts_never_take_down_bevys_gltf_loader() {
    if !required_or_skip("/usr/bin/time", have_time_and_import()) {
        return;
    }
    let dir = scratch("bevy-loader");
    let seeds = dir.join("seeds");
    std::fs::create_dir_all(&seeds).unwrap();
    mannequins(&seeds);
    test_avatar(&seeds, "small-vroid.vrm", false, &["--texture-size", "32"]);
    let setting = |key: &str, default: u64| {
        std::env::var(key)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let cases = setting("VRMA_LOADER_FUZZ_CASES", 600);
    let seed = setting("VRMA_LOADER_FUZZ_SEED", 0x5EED_0F15);
    let mut command = std::process::Command::new("sh");
    command
        .arg("-c")
        // A limit on address space turns runaway allocation into a failed run, not a
        // machine that swaps.
        .arg("ulimit -v 8000000; exec \"$0\" \"$@\"")
        .arg(std::env::current_exe().unwrap())
        .args([
            "--ignored",
            "--exact",
            "bevy_loader::loader_child",
            "--nocapture",
        ])
        .env("VRMA_LOADER_SEEDS", &seeds)
        .env("VRMA_LOADER_FUZZ_CASES", cases.to_string())
        .env("VRMA_LOADER_FUZZ_SEED", seed.to_string());
    let mut child = under_time(&command)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let (stdout, stderr) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let stdout = std::thread::spawn(move || std::io::read_to_string(stdout).unwrap());
    let stderr = std::thread::spawn(move || std::io::read_to_string(stderr).unwrap());
    let status = wait_with_timeout(&mut child, Duration::from_secs(600));
    if status.is_none() {
        let _ = child.kill();
    }
    let (stdout, stderr) = (stdout.join().unwrap(), stderr.join().unwrap());
    assert!(status.is_some(), "the loader hung after:\n{stdout}");
    let peak = peak_memory(&stderr);
    assert!(
        status.unwrap().success(),
        "the loader went down:\n{stdout}\n{stderr}"
    );
    let lines: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("loaded ") || l.starts_with("failed ") || l.starts_with("stuck "))
        .collect();
    assert!(stdout.contains("\ndone"), "the child finished:\n{stdout}");
    let accepted = lines.len();
    assert!(
        accepted as u64 > cases / 10,
        "only {accepted} of {cases} mutations were accepted: too few to fuzz the loader"
    );
    let stuck: Vec<&&str> = lines.iter().filter(|l| l.starts_with("stuck ")).collect();
    assert!(stuck.is_empty(), "never finished loading: {stuck:?}");
    // Bevy catches a loader's panic, but each is a case the core should have refused
    // with a reason (the user would see only "panicked").
    let panicked: Vec<&&str> = lines.iter().filter(|l| l.contains("panicked")).collect();
    assert!(
        panicked.is_empty(),
        "the loader panicked: {panicked:?}\n{stderr}"
    );
    let loaded = lines.iter().filter(|l| l.starts_with("loaded ")).count();
    eprintln!(
        "{cases} mutations, {accepted} accepted by the core, {loaded} loaded by Bevy, peak {:.0} MB",
        peak as f64 / 1e6
    );
    assert!(loaded > 0, "{stdout}");
    // Bevy's asset storage grows over a long run; the bound is for the default count.
    assert!(cases > 1000 || peak < 1_500_000_000, "peak {peak} bytes");
}
