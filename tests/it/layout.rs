//! The import rules of ARCHITECTURE.md, checked on the source: a feature folder of the
//! app never uses another feature folder (features talk through `app::session`), the
//! session foundation uses no feature, the app never uses the CLI, and the CLI uses the
//! app only through its entry points at `crate::app::` (never a folder inside it).

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
