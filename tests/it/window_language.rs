//! Japanese in the real window (Xvfb, lavapipe), read back by OCR (Debian's tesseract
//! with its Japanese data): the editor speaks the system's language, a Japanese avatar
//! name and expression render (also with the bundled font alone), View ▸ Language
//! switches at once and is remembered, a Japanese pose name typed key by key is saved
//! and shown, and a model, project and library under Japanese folder names open, save
//! and open again.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::*;

pub(crate) const TITLE: &str = "テスト アバター 日本語";
const EXPRESSION: &str = "ウインク";
const POSE_NAME: &str = "テスト ポーズ";

pub(crate) fn have_japanese_ocr() -> bool {
    Command::new("tesseract")
        .arg("--list-langs")
        .output()
        .is_ok_and(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .any(|l| l == "jpn")
        })
}

fn have_xmodmap() -> bool {
    Command::new("xmodmap")
        .arg("-version")
        .output()
        .is_ok_and(|o| o.status.success())
}

fn ready() -> bool {
    required_or_skip(
        "Xvfb, a Vulkan driver, xdotool, xmodmap and tesseract with Japanese (tesseract-ocr-jpn)",
        have_display_stack() && have_xdotool() && have_japanese_ocr() && have_xmodmap(),
    )
}

/// The mannequin as a Japanese user's avatar, in a folder with a Japanese name: its
/// title is Japanese and its one expression is a custom one with a Japanese name.
pub(crate) fn japanese_avatar(dir: &Path) -> PathBuf {
    let folder = dir.join("日本語 フォルダ");
    std::fs::create_dir_all(&folder).unwrap();
    let base = folder.join("base.vrm");
    let made = run(&["mannequin", "--output", base.to_str().unwrap()]);
    assert!(made.status.success(), "{made:?}");
    edited_glb(&base, folder.join("アバター.vrm"), |root| {
        let vrm = &mut root["extensions"]["VRMC_vrm"];
        vrm["meta"]["name"] = TITLE.into();
        let happy = vrm["expressions"]["preset"]["happy"].clone();
        assert!(happy.is_object(), "the mannequin has a happy expression");
        vrm["expressions"] = serde_json::json!({ "custom": { EXPRESSION: happy } });
    })
}

/// One word tesseract found, with its box in screen pixels.
struct Word {
    text: String,
    left: i32,
    top: i32,
    right: i32,
    bottom: i32,
}

/// The lines tesseract reads in `region` (x, y, width, height) of a screenshot: the crop
/// is enlarged three times and turned into dark text on light (egui's 14 px light text
/// on a dark theme is too small and the wrong way round for it).
fn read_lines(
    shot: &image::RgbaImage,
    (x, y, width, height): (u32, u32, u32, u32),
    language: &str,
    dir: &Path,
) -> Vec<Vec<Word>> {
    const SCALE: u32 = 3;
    let crop = image::imageops::crop_imm(shot, x, y, width, height).to_image();
    let mut big = image::imageops::resize(
        &crop,
        width * SCALE,
        height * SCALE,
        image::imageops::FilterType::CatmullRom,
    );
    for p in big.pixels_mut() {
        let luma = (p[0] as u32 * 30 + p[1] as u32 * 59 + p[2] as u32 * 11) / 100;
        let inverted = 255 - luma.min(255) as u8;
        *p = image::Rgba([inverted, inverted, inverted, 255]);
    }
    let input = dir.join("ocr.png");
    big.save(&input).unwrap();
    let out = Command::new("tesseract")
        .arg(&input)
        .args(["-", "-l", language, "--psm", "6", "tsv"])
        .stderr(Stdio::null())
        .output()
        .expect("tesseract runs");
    let mut lines: Vec<((u32, u32, u32), Vec<Word>)> = Vec::new();
    for row in String::from_utf8_lossy(&out.stdout).lines().skip(1) {
        let f: Vec<&str> = row.split('\t').collect();
        if f.len() < 12 || f[11].trim().is_empty() {
            continue;
        }
        let n = |i: usize| f[i].parse::<i32>().unwrap_or(0);
        let key = (n(2) as u32, n(3) as u32, n(4) as u32);
        let (left, top) = (
            n(6) / SCALE as i32 + x as i32,
            n(7) / SCALE as i32 + y as i32,
        );
        let word = Word {
            text: f[11].trim().to_string(),
            left,
            top,
            right: left + n(8) / SCALE as i32,
            bottom: top + n(9) / SCALE as i32,
        };
        match lines.last_mut() {
            Some((k, words)) if *k == key => words.push(word),
            _ => lines.push((key, vec![word])),
        }
    }
    lines.into_iter().map(|(_, words)| words).collect()
}

/// Everything read in a region, without spaces (tesseract spaces Japanese at will).
pub(crate) fn read_text(
    shot: &image::RgbaImage,
    region: (u32, u32, u32, u32),
    language: &str,
    dir: &Path,
) -> String {
    read_lines(shot, region, language, dir)
        .iter()
        .flatten()
        .map(|w| w.text.as_str())
        .collect::<String>()
        .split_whitespace()
        .collect()
}

/// The screen point in the middle of `needle` where it is read in `region` (its words
/// on one line joined, since tesseract cuts Japanese into pieces).
fn find_text(
    shot: &image::RgbaImage,
    region: (u32, u32, u32, u32),
    language: &str,
    needle: &str,
    dir: &Path,
) -> Option<(i32, i32)> {
    let needle: String = needle.split_whitespace().map(unvoiced).collect();
    for words in read_lines(shot, region, language, dir) {
        let mut joined = String::new();
        let mut owner = Vec::new(); // the word each character of `joined` came from
        for (i, word) in words.iter().enumerate() {
            for c in word.text.chars().filter(|c| !c.is_whitespace()) {
                joined.push(unvoiced_char(c));
                owner.push(i);
            }
        }
        if let Some(at) = joined.find(&needle) {
            let first = joined[..at].chars().count();
            let last = first + needle.chars().count() - 1;
            let (a, b) = (&words[owner[first]], &words[owner[last]]);
            return Some((
                (a.left + b.right) / 2,
                (a.top.min(b.top) + a.bottom.max(b.bottom)) / 2,
            ));
        }
    }
    None
}

/// Katakana without its voicing marks: at 14 px tesseract reads ポ as ボ now and then
/// (the small circle as two strokes), which is no fault of ours.
fn unvoiced_char(c: char) -> char {
    let code = c as u32;
    let base = match code {
        // カ…ヂ and ツ…ド come in pairs (plain, voiced), with ッ alone between them.
        0x30AB..=0x30C2 => code - (code - 0x30AB) % 2,
        0x30C4..=0x30C9 => code - (code - 0x30C4) % 2,
        // ハ…ポ come in threes (plain, voiced, half-voiced).
        0x30CF..=0x30DD => code - (code - 0x30CF) % 3,
        _ => code,
    };
    char::from_u32(base).unwrap_or(c)
}

fn unvoiced(text: &str) -> String {
    text.chars().map(unvoiced_char).collect()
}

/// Waits for `needle` to be read in `region`, taking screenshots; where it was read.
pub(crate) fn wait_for_text(
    display: &str,
    region: (u32, u32, u32, u32),
    language: &str,
    needle: &str,
    dir: &Path,
) -> (i32, i32) {
    let start = Instant::now();
    let shot_path = dir.join("screen.png");
    loop {
        let shot = grab_display(display, &shot_path);
        if let Some(at) = find_text(&shot, region, language, needle, dir) {
            return at;
        }
        if start.elapsed() > Duration::from_secs(60) {
            let seen = read_text(&shot, region, language, dir);
            shot.save(dir.join("not-found.png")).unwrap();
            panic!("'{needle}' never showed in {region:?}; read: {seen}");
        }
        std::thread::sleep(Duration::from_millis(500));
    }
}

/// Gives each non-ASCII character of `text` a spare keycode of its own (xmodmap), so
/// that xdotool types it without remapping a key for it. xdotool's remapping is undone
/// the moment the key is sent, and a window that fetches the keymap after that reads no
/// character: whole characters were lost. (Run while the app is connected: Xvfb resets
/// its keymap when its last client leaves.)
fn put_on_the_keyboard(display: &str, text: &str) {
    let table = Command::new("xmodmap")
        .arg("-pke")
        .env("DISPLAY", display)
        .output()
        .expect("xmodmap runs");
    let spare: Vec<String> = String::from_utf8_lossy(&table.stdout)
        .lines()
        .filter_map(|l| {
            let (code, syms) = l.strip_prefix("keycode")?.split_once('=')?;
            let code = code.trim().parse::<u32>().ok()?;
            (syms.trim().is_empty() && code > 8).then(|| code.to_string())
        })
        .collect();
    let mut wanted: Vec<char> = text.chars().filter(|c| !c.is_ascii()).collect();
    wanted.sort();
    wanted.dedup();
    assert!(wanted.len() <= spare.len(), "spare keycodes for {wanted:?}");
    for (c, code) in wanted.iter().zip(&spare) {
        let set = Command::new("xmodmap")
            .arg("-e")
            .arg(format!("keycode {code} = U{:04X}", *c as u32))
            .env("DISPLAY", display)
            .status()
            .expect("xmodmap runs");
        assert!(set.success());
    }
    std::thread::sleep(Duration::from_millis(500));
}

fn click(display: &str, (x, y): (i32, i32)) {
    xdotool(display, &["mousemove", &x.to_string(), &y.to_string()]);
    std::thread::sleep(Duration::from_millis(400));
    xdotool(display, &["click", "1"]);
    std::thread::sleep(Duration::from_millis(400));
}

const MENU_BAR: (u32, u32, u32, u32) = (0, 0, 340, 24);
const INSPECTOR_TITLE: (u32, u32, u32, u32) = (0, 24, 270, 28);
const RIGHT_PANEL: (u32, u32, u32, u32) = (1115, 24, 165, 620);

/// A screenshot of the window opened on `file` with the system language `lang`.
fn screenshot(
    file: &Path,
    lang: &str,
    system_fonts: bool,
    data: &Path,
    dir: &Path,
) -> image::RgbaImage {
    let (_xvfb, display) = start_xvfb().expect("Xvfb starts");
    let shot = dir.join(format!("{lang}-{system_fonts}.png"));
    let mut command = bin();
    command
        .arg(file)
        .arg("--screenshot")
        .arg(&shot)
        .env("DISPLAY", &display)
        .env("LANG", lang)
        .env("VRMA_MAKER_DATA_DIR", data)
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(dir.join(format!("{lang}-{system_fonts}.log"))).unwrap());
    if !system_fonts {
        command.env("VRMA_MAKER_NO_SYSTEM_FONTS", "1");
    }
    let mut child = command.spawn().unwrap();
    let status = wait_with_timeout(&mut child, Duration::from_secs(180));
    assert!(
        status.is_some_and(|s| s.success()),
        "the window took its screenshot and closed"
    );
    image::open(&shot).unwrap().to_rgba8()
}

#[test]
fn the_editor_speaks_the_systems_language_and_draws_japanese_names() {
    if !ready() {
        return;
    }
    let dir = scratch("language-system");
    let model = japanese_avatar(&dir);
    for (lang, system_fonts, ocr, menu, other) in [
        ("ja_JP.UTF-8", true, "jpn", "ファイル", "File"),
        ("ja_JP.UTF-8", false, "jpn", "ファイル", "File"),
        ("en_US.UTF-8", true, "eng", "File", "ファイル"),
    ] {
        let data = dir.join(format!("data-{lang}-{system_fonts}"));
        let shot = screenshot(&model, lang, system_fonts, &data, &dir);
        let bar = read_text(&shot, MENU_BAR, ocr, &dir);
        assert!(
            bar.contains(menu) && !bar.contains(other),
            "{lang}: the menu bar reads {bar}"
        );
        // The avatar's own names, whatever the editor's language (system fonts or not).
        let title = read_text(&shot, INSPECTOR_TITLE, "jpn", &dir);
        let want: String = TITLE.split_whitespace().collect();
        assert!(
            title.contains(&want),
            "{lang}, system fonts {system_fonts}: the title reads {title}"
        );
        let panel = read_text(&shot, RIGHT_PANEL, "jpn", &dir);
        assert!(
            panel.contains(EXPRESSION),
            "{lang}: the expressions read {panel}"
        );
    }
}

#[test]
fn view_language_switches_at_once_and_japanese_names_and_folders_work() {
    if !ready() {
        return;
    }
    let dir = scratch("language-switch");
    let model = japanese_avatar(&dir);
    let data = dir.join("データ 日本語");
    let project = model.with_file_name("プロジェクト.json");
    let log = dir.join("run-1.log");
    let (xvfb, display) = start_xvfb().expect("Xvfb starts");
    let mut child = bin()
        .arg(&model)
        .args(["--exit-after", "240", "--save-on-exit"])
        .arg(&project)
        .env("DISPLAY", &display)
        .env("LANG", "ja_JP.UTF-8")
        .env("VRMA_MAKER_DATA_DIR", &data)
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    let window = wait_for_window(&display);
    wait_for_log(&log, "model ready to pose", Duration::from_secs(120));
    xdotool(&display, &["windowfocus", "--sync", &window]);

    // A Japanese pose name, typed key by key into the library's name field.
    let library = (270, 470, 330, 170);
    // The field (its grey hint is too faint to read) is left of the Save button.
    let save = wait_for_text(&display, library, "jpn", "ポーズを保存", &dir);
    click(&display, (save.0 - 85, save.1));
    put_on_the_keyboard(&display, POSE_NAME);
    xdotool(&display, &["type", "--delay", "120", POSE_NAME]);
    std::thread::sleep(Duration::from_millis(800));
    click(&display, save);
    let library_dir = data.join("library");
    let start = Instant::now();
    let saved = loop {
        let entries = vrma_maker::core::animation::library::Library::open(&library_dir)
            .map(|l| l.entries)
            .unwrap_or_default();
        if !entries.is_empty() || start.elapsed() > Duration::from_secs(30) {
            break entries;
        }
        std::thread::sleep(Duration::from_millis(300));
    };
    let names: Vec<&str> = saved.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, vec![POSE_NAME], "the typed name reached the library");
    // …and the library shows it by that name.
    wait_for_text(&display, library, "jpn", POSE_NAME, &dir);

    // View ▸ Language ▸ English: the menus change at once.
    let view = wait_for_text(&display, MENU_BAR, "jpn", "表示", &dir);
    click(&display, view);
    let language = wait_for_text(&display, (0, 24, 420, 520), "eng", "Language", &dir);
    xdotool(
        &display,
        &[
            "mousemove",
            &language.0.to_string(),
            &language.1.to_string(),
        ],
    );
    let english = wait_for_text(
        &display,
        (language.0 as u32, 24, 600, 560),
        "eng",
        "English",
        &dir,
    );
    click(&display, english);
    wait_for_text(&display, MENU_BAR, "eng", "File", &dir);
    let settings = data.join("settings.json");
    let start = Instant::now();
    while !std::fs::read_to_string(&settings).is_ok_and(|s| s.contains(r#""language": "en""#)) {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "settings.json remembers English"
        );
        std::thread::sleep(Duration::from_millis(300));
    }
    ctrl_chord(&display, "q");
    let status = wait_with_timeout(&mut child, Duration::from_secs(90));
    assert!(status.is_some_and(|s| s.success()), "Ctrl+Q quits");
    drop(xvfb);

    // The project saved in the Japanese folder opens again, in English though the
    // system still says Japanese, and the recent list holds its path.
    let saved: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&project).unwrap()).unwrap();
    assert_eq!(
        saved["model"]["path"], "アバター.vrm",
        "the model beside the project"
    );
    let shot = screenshot(&project, "ja_JP.UTF-8", true, &data, &dir);
    let bar = read_text(&shot, MENU_BAR, "eng", &dir);
    assert!(bar.contains("File"), "English is remembered: {bar}");
    let title = read_text(&shot, INSPECTOR_TITLE, "jpn", &dir);
    assert!(
        title.contains("アバター"),
        "the project's model opened: {title}"
    );
    let prefs = vrma_maker::core::prefs::Preferences::load(&settings).0;
    let recent: Vec<PathBuf> = prefs.recent.iter().map(|r| r.path.clone()).collect();
    assert!(
        recent.contains(&std::path::absolute(&project).unwrap()),
        "the project is in Open recent: {recent:?}"
    );
    assert_eq!(prefs.language.as_deref(), Some("en"));
}
