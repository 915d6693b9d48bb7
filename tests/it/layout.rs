//! The import rules of ARCHITECTURE.md, checked on the source: a feature folder of the
//! app never uses another feature folder (features talk through `app::session`), the
//! session foundation uses no feature, the app never uses the CLI, and the CLI uses the
//! app only through its entry points at `crate::app::` (never a folder inside it).
//! In the core, a layer uses only the layers below it, the modules beside the layers
//! use no one of each other, and no modules import each other in a circle. No source
//! file is over 700 lines of code, and `src/` has at most two `too_many_arguments` waivers.

use std::path::{Path, PathBuf};

use crate::common::repo;

/// The feature folders of `src/app`; every other folder there is the foundation.
const FEATURES: [&str; 9] = [
    "avatar", "viewport", "ui", "timeline", "library", "files", "render", "vr", "dev",
];
const FOUNDATION: &str = "session";

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `src/app/viewport/posing.rs` → ["app", "viewport", "posing"]; `mod.rs` names its folder.
fn module_path(src: &Path, file: &Path) -> Vec<String> {
    let relative = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Vec<String> = relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts
}

/// Every module path a file's code names (`super::…`, `crate::…`), resolved to the
/// crate's root; comments are left out.
fn referenced_paths(module: &[String], source: &str) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    // One line of code without comments, so `use` groups over several lines are read.
    let code: Vec<&str> = source
        .lines()
        .map(|line| line.split("//").next().unwrap_or(""))
        .collect();
    let code = code.join(" ");
    {
        let mut rest = code.as_str();
        while let Some(at) = rest.find(['s', 'c']) {
            let tail = &rest[at..];
            let before = rest[..at].chars().last();
            let word_start = before.is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
            let (mut base, mut tail) = if word_start && tail.starts_with("crate::") {
                (Vec::new(), &tail["crate::".len()..])
            } else if word_start && tail.starts_with("super::") {
                let mut base = module.to_vec();
                let mut t = tail;
                while let Some(next) = t.strip_prefix("super::") {
                    base.pop();
                    t = next;
                }
                (base, t)
            } else {
                rest = &rest[at + 1..];
                continue;
            };
            // The path's own segments, then one name or a `{…}` group of names.
            loop {
                let name: String = tail
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if name.is_empty() {
                    if let Some(group) = tail.strip_prefix('{') {
                        for item in group.split_inclusive([',', '}']) {
                            let first: String = item
                                .trim()
                                .chars()
                                .take_while(|c| c.is_alphanumeric() || *c == '_')
                                .collect();
                            if !first.is_empty() {
                                let mut path = base.clone();
                                path.push(first);
                                found.push(path);
                            }
                            if item.contains('}') {
                                break;
                            }
                        }
                    }
                    break;
                }
                base.push(name.clone());
                tail = &tail[name.len()..];
                match tail.strip_prefix("::") {
                    Some(next) => tail = next,
                    None => break,
                }
            }
            found.push(base);
            rest = &rest[at + 1..];
        }
    }
    found
}

/// The rule a reference from `module` to `target` breaks, if any.
fn broken_rule(module: &[String], target: &[String]) -> Option<String> {
    let own = module.first().map(String::as_str);
    let (t0, t1) = (
        target.first().map(String::as_str),
        target.get(1).map(String::as_str),
    );
    match (own, t0) {
        (Some("app"), Some("cli")) => Some("the app never uses the CLI".into()),
        (Some("cli"), Some("app")) => match t1 {
            Some(inner) if inner == FOUNDATION || FEATURES.contains(&inner) => Some(format!(
                "the CLI uses the app's entry points only, not app::{inner}"
            )),
            _ => None,
        },
        (Some("app"), Some("app")) => {
            let from = module.get(1).map(String::as_str)?;
            let to = t1?;
            let is_feature = |f: &str| FEATURES.contains(&f);
            if from == FOUNDATION && is_feature(to) {
                Some(format!(
                    "the session foundation uses no feature (app::{to})"
                ))
            } else if is_feature(from) && is_feature(to) && from != to {
                Some(format!(
                    "feature app::{from} uses feature app::{to} (talk through app::session)"
                ))
            } else {
                None
            }
        }
        _ => None,
    }
}

fn violations(src: &Path) -> Vec<String> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    files.sort();
    let mut out = Vec::new();
    for file in files {
        let module = module_path(src, &file);
        let source = std::fs::read_to_string(&file).unwrap();
        for target in referenced_paths(&module, &source) {
            if let Some(rule) = broken_rule(&module, &target) {
                out.push(format!(
                    "{}: {} ({rule})",
                    file.strip_prefix(src).unwrap().display(),
                    target.join("::")
                ));
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

#[test]
fn feature_folders_import_only_the_session_foundation() {
    let src = repo().join("src");
    let folders: Vec<String> = std::fs::read_dir(src.join("app"))
        .unwrap()
        .flatten()
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    for folder in &folders {
        assert!(
            folder == FOUNDATION || FEATURES.contains(&folder.as_str()),
            "src/app/{folder} is neither the foundation nor a known feature: add it to \
             FEATURES here and to ARCHITECTURE.md"
        );
    }
    let broken = violations(&src);
    assert!(
        broken.is_empty(),
        "import rules broken:\n{}",
        broken.join("\n")
    );
}

#[test]
fn architecture_md_lists_every_folder() {
    let text = std::fs::read_to_string(repo().join("ARCHITECTURE.md")).unwrap();
    for folder in FEATURES.iter().chain([&FOUNDATION]) {
        assert!(
            text.contains(&format!("`app::{folder}`")),
            "ARCHITECTURE.md does not describe app::{folder}"
        );
    }
}

#[test]
fn the_check_sees_each_kind_of_broken_import() {
    let module = |p: &str| p.split('/').map(String::from).collect::<Vec<_>>();
    let cases = [
        ("app/ui/menu", "use crate::app::files::FileDialogs;"),
        ("app/ui", "use super::timeline::draw;"),
        (
            "app/viewport/posing",
            "let x = super::super::render::plugin;",
        ),
        ("app/session", "use super::{avatar::Avatar, Banner};"),
        ("app/files", "crate::cli::read_json(path)"),
        ("cli/render_png", "use crate::app::render::StillRequest;"),
    ];
    for (from, line) in cases {
        let m = module(from);
        let broken: Vec<_> = referenced_paths(&m, line)
            .into_iter()
            .filter_map(|t| broken_rule(&m, &t))
            .collect();
        assert!(!broken.is_empty(), "{from}: `{line}` should break a rule");
    }
    for (from, line) in [
        (
            "app/ui/menu",
            "use crate::app::session::{Banner, FileRequest};",
        ),
        ("app/viewport/posing", "use super::cursor::ViewCursor;"),
        ("app", "app.add_plugins((ui::plugin, files::plugin));"),
        ("cli/render_png", "crate::app::render_still(model)"),
    ] {
        let m = module(from);
        let broken: Vec<_> = referenced_paths(&m, line)
            .into_iter()
            .filter_map(|t| broken_rule(&m, &t))
            .collect();
        assert!(broken.is_empty(), "{from}: `{line}` is allowed: {broken:?}");
    }
}

// ---- The core's layers ------------------------------------------------------------

/// The core's layers, lowest first: each may use the ones before it, never one after.
const CORE_LAYERS: [&str; 5] = ["files", "model", "body", "animation", "formats"];
/// Beside the layers: each may use any layer, but not another of these, and no layer
/// uses them.
const CORE_BESIDE: [&str; 4] = ["capture", "prefs", "recovery", "vr"];

/// A file's library code: what comes before its `#[cfg(test)] mod …` (tests may use a
/// generated avatar from any layer to make their input).
fn library_code(source: &str) -> String {
    let lines: Vec<&str> = source.lines().collect();
    let end = (0..lines.len())
        .find(|&i| {
            lines[i].trim() == "#[cfg(test)]"
                && lines[i + 1..]
                    .iter()
                    .find(|l| !l.trim().is_empty())
                    .is_some_and(|l| {
                        l.trim_start().starts_with("mod ")
                            || l.trim_start().starts_with("pub(crate) mod ")
                    })
        })
        .unwrap_or(lines.len());
    lines[..end].join("\n")
}

/// The rule a reference from core module `module` to `target` (both from the crate's
/// root) breaks, if any.
fn broken_core_rule(module: &[String], target: &[String]) -> Option<String> {
    let rank = |m: &str| CORE_LAYERS.iter().position(|l| *l == m);
    let beside = |m: &str| CORE_BESIDE.contains(&m);
    let to = target.first().map(String::as_str)?;
    if rank(to).is_none() && !beside(to) {
        return None; // the crate's ground: `Refusal`, bounded reads, atomic writes, numbers
    }
    let Some(own) = module.first().map(String::as_str) else {
        return Some(format!(
            "the crate's ground (lib.rs) uses no layer (core::{to})"
        ));
    };
    if own == to {
        return None;
    }
    match (rank(own), rank(to), beside(own), beside(to)) {
        (Some(from), Some(up), _, _) if up > from => Some(format!(
            "layer core::{own} uses core::{to}, a layer above it"
        )),
        (Some(_), None, _, true) => Some(format!(
            "layer core::{own} uses core::{to}, which sits beside the layers"
        )),
        (None, None, true, true) => Some(format!(
            "core::{own} uses core::{to}: the modules beside the layers use no one of each other"
        )),
        _ => None,
    }
}

/// A core file, its module path and the module paths its library code names.
type CoreFile = (PathBuf, Vec<String>, Vec<Vec<String>>);

/// Every core file's module path and the module paths its library code names.
fn core_references(src: &Path) -> Vec<CoreFile> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    files.sort();
    files
        .into_iter()
        .map(|file| {
            let mut module = module_path(src, &file);
            if module == ["lib"] {
                module.clear();
            }
            let source = std::fs::read_to_string(&file).unwrap();
            let targets = referenced_paths(&module, &library_code(&source));
            (file, module, targets)
        })
        .collect()
}

/// Imports between units that close a circle: the units are the core's top-level
/// modules, and inside each layer its own modules. Each circle is named by its imports.
fn circles(edges: &[(String, String, String)]) -> Vec<String> {
    use std::collections::{BTreeMap, BTreeSet};
    let mut graph: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for (from, to, _) in edges {
        graph.entry(from).or_default().insert(to);
    }
    // Depth-first search; a grey node met again closes a circle.
    fn visit<'a>(
        node: &'a str,
        graph: &BTreeMap<&'a str, BTreeSet<&'a str>>,
        state: &mut BTreeMap<&'a str, u8>,
        path: &mut Vec<&'a str>,
        found: &mut Vec<Vec<&'a str>>,
    ) {
        state.insert(node, 1);
        path.push(node);
        for &next in graph.get(node).into_iter().flatten() {
            match state.get(next) {
                Some(1) => {
                    let at = path.iter().position(|n| *n == next).unwrap();
                    let mut circle = path[at..].to_vec();
                    circle.push(next);
                    found.push(circle);
                }
                None => visit(next, graph, state, path, found),
                _ => {}
            }
        }
        path.pop();
        state.insert(node, 2);
    }
    let mut state = BTreeMap::new();
    let mut found = Vec::new();
    let nodes: Vec<&str> = graph.keys().copied().collect();
    for node in nodes {
        if !state.contains_key(node) {
            visit(node, &graph, &mut state, &mut Vec::new(), &mut found);
        }
    }
    found
        .into_iter()
        .map(|circle| {
            circle
                .windows(2)
                .map(|pair| {
                    let (_, _, import) = edges
                        .iter()
                        .find(|(f, t, _)| f == pair[0] && t == pair[1])
                        .unwrap();
                    format!("{} → {} ({import})", pair[0], pair[1])
                })
                .collect::<Vec<_>>()
                .join(", ")
        })
        .collect()
}

/// The unit a core module path belongs to: a top-level module, or a layer's module.
fn core_unit(path: &[String]) -> Option<String> {
    let first = path.first()?;
    if CORE_LAYERS.contains(&first.as_str()) {
        Some(match path.get(1) {
            Some(second) => format!("{first}::{second}"),
            None => first.clone(),
        })
    } else if CORE_BESIDE.contains(&first.as_str()) {
        Some(first.clone())
    } else {
        None
    }
}

/// The edges between units (`from`, `to`, the import), top-level and within layers.
fn core_edges(references: &[CoreFile], src: &Path) -> Vec<(String, String, String)> {
    let mut edges = Vec::new();
    for (file, module, targets) in references {
        for target in targets {
            let (Some(from), Some(to)) = (core_unit(module), core_unit(target)) else {
                continue;
            };
            let import = format!(
                "{}: crate::{}",
                file.strip_prefix(src).unwrap_or(file).display(),
                target.join("::")
            );
            let top = |unit: &str| unit.split("::").next().unwrap().to_string();
            if top(&from) != top(&to) {
                edges.push((top(&from), top(&to), import));
            } else if from != to && from.contains("::") && to.contains("::") {
                edges.push((from, to, import));
            }
        }
    }
    edges
}

fn core_violations(src: &Path) -> Vec<String> {
    let references = core_references(src);
    let mut out = Vec::new();
    for (file, module, targets) in &references {
        for target in targets {
            if let Some(rule) = broken_core_rule(module, target) {
                out.push(format!(
                    "{}: crate::{} ({rule})",
                    file.strip_prefix(src).unwrap().display(),
                    target.join("::")
                ));
            }
        }
    }
    for circle in circles(&core_edges(&references, src)) {
        out.push(format!("a circle: {circle}"));
    }
    out.sort();
    out.dedup();
    out
}

#[test]
fn the_core_is_layers_each_using_only_those_below_without_circles() {
    let src = repo().join("crates/vrma-core/src");
    let top: Vec<String> = std::fs::read_dir(&src)
        .unwrap()
        .flatten()
        .map(|e| {
            e.path()
                .with_extension("")
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|name| name != "lib")
        .collect();
    for name in &top {
        assert!(
            CORE_LAYERS.contains(&name.as_str()) || CORE_BESIDE.contains(&name.as_str()),
            "crates/vrma-core/src/{name} is neither a layer nor beside them: add it to \
             CORE_LAYERS or CORE_BESIDE here and to ARCHITECTURE.md"
        );
    }
    for layer in CORE_LAYERS {
        let head = std::fs::read_to_string(src.join(layer).join("mod.rs")).unwrap();
        assert!(
            head.starts_with("//! ") && head.contains("Uses "),
            "core::{layer}'s mod.rs says what it is and what it uses"
        );
    }
    let broken = core_violations(&src);
    assert!(
        broken.is_empty(),
        "the core's import rules broken:\n{}",
        broken.join("\n")
    );
}

#[test]
fn the_core_check_sees_an_import_upward_sideways_and_in_a_circle() {
    let module = |p: &str| {
        p.split('/')
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect::<Vec<_>>()
    };
    let broken_by = |from: &str, line: &str| -> Vec<String> {
        let m = module(from);
        referenced_paths(&m, line)
            .into_iter()
            .filter_map(|t| broken_core_rule(&m, &t))
            .collect()
    };
    for (from, line) in [
        ("model/vrm", "use crate::body::pose::Pose;"),
        (
            "files/budget",
            "use crate::{Refusal, model::display::index_of};",
        ),
        ("body/rig", "let x = crate::animation::timeline::FPS;"),
        ("animation/edit", "use crate::vr::Grabber;"),
        ("capture", "use crate::vr::{OneEuroVec3};"),
        ("", "pub fn f() -> crate::body::rig::Rig { todo!() }"),
    ] {
        assert!(
            !broken_by(from, line).is_empty(),
            "{from}: `{line}` should break a rule"
        );
    }
    for (from, line) in [
        (
            "body/rig",
            "use crate::{Refusal, model::vrm::Model, files::glb};",
        ),
        (
            "formats/vrma/import",
            "use super::extras; use crate::animation::timeline::Key;",
        ),
        ("vr", "use crate::animation::edit::Edit;"),
        ("body/springs", "use crate::body::nodes::NodeWorlds;"),
    ] {
        assert!(
            broken_by(from, line).is_empty(),
            "{from}: `{line}` is allowed"
        );
    }
    // A circle between two modules of one layer is named with the imports closing it.
    let src = Path::new("/src");
    let references = vec![
        (
            PathBuf::from("/src/body/pose.rs"),
            module("body/pose"),
            referenced_paths(&module("body/pose"), "use crate::body::rig::Rig;"),
        ),
        (
            PathBuf::from("/src/body/rig.rs"),
            module("body/rig"),
            referenced_paths(&module("body/rig"), "use crate::body::pose::Pose;"),
        ),
    ];
    let found = circles(&core_edges(&references, src));
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].contains("body/pose.rs: crate::body::rig::Rig")
            && found[0].contains("body/rig.rs: crate::body::pose::Pose"),
        "{}",
        found[0]
    );
    // Tests beside the code may use any layer; library code may not.
    let source =
        "use crate::files::glb;\n#[cfg(test)]\nmod tests {\n    use crate::model::mannequin;\n}\n";
    assert!(!library_code(source).contains("mannequin"));
    assert!(
        library_code("#[cfg(test)]\nuse crate::body::math::slerp_shortest;\nfn f() {}")
            .contains("fn f")
    );
}

#[test]
fn architecture_md_shows_the_core_layers() {
    let text = std::fs::read_to_string(repo().join("ARCHITECTURE.md")).unwrap();
    for module in CORE_LAYERS.iter().chain(&CORE_BESIDE) {
        assert!(
            text.contains(&format!("`core::{module}`")),
            "ARCHITECTURE.md does not describe core::{module}"
        );
    }
    for walk in ["### Add an import format", "### Add an edit"] {
        assert!(
            text.contains(walk),
            "ARCHITECTURE.md walks through {walk:?}"
        );
    }
}

// ---- Room in every file ----------------------------------------------------------

/// Lines of code before a file's tests: no blank lines, no `//` comments.
fn lines_of_code(source: &str) -> usize {
    library_code(source)
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("//"))
        .count()
}

#[test]
fn no_source_file_is_over_700_lines_of_code_and_waivers_stay_rare() {
    let mut files = Vec::new();
    rust_files(&repo().join("src"), &mut files);
    for krate in std::fs::read_dir(repo().join("crates")).unwrap().flatten() {
        rust_files(&krate.path().join("src"), &mut files);
    }
    let long: Vec<String> = files
        .iter()
        .filter_map(|file| {
            let lines = lines_of_code(&std::fs::read_to_string(file).unwrap());
            (lines > 700).then(|| format!("{} ({lines} lines of code)", file.display()))
        })
        .collect();
    assert!(
        long.is_empty(),
        "split these by what they do:\n{}",
        long.join("\n")
    );
    let mut app = Vec::new();
    rust_files(&repo().join("src"), &mut app);
    let waivers: Vec<String> = app
        .iter()
        .flat_map(|file| {
            let source = std::fs::read_to_string(file).unwrap();
            let count = source.matches("allow(clippy::too_many_arguments)").count();
            std::iter::repeat_n(file.display().to_string(), count)
        })
        .collect();
    assert!(
        waivers.len() <= 2,
        "at most two too_many_arguments waivers in src/ (group parameters in a named SystemParam): {waivers:?}"
    );
    assert_eq!(
        lines_of_code(
            "fn a() {}\n\n// why\n    let b = 1;\n#[cfg(test)]\nmod tests {\n fn c() {}\n}\n"
        ),
        2
    );
}
