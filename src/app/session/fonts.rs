//! Fonts for text in any script. egui's own fonts (Latin, Greek, Cyrillic, emoji) come
//! first; then the system's Japanese UI font (Yu Gothic UI, Hiragino Sans, Noto Sans
//! CJK JP …) so that the editor looks native; then our bundled Japanese font (a subset
//! of Noto Sans CJK JP, `assets/fonts`), so that Japanese is never boxes even where the
//! system has no CJK font; then the system's Chinese, Korean and other-script fonts.
//! Japanese comes before Chinese so that shared kanji take their Japanese forms.
//!
//! The system's fonts are found with `fontdb` on a worker thread: the window opens with
//! egui's and the bundled font, and every egui context (the window's, the VR panel's)
//! gets the system's fallbacks the moment the scan is done.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bevy::prelude::*;
use bevy_egui::{EguiContext, egui};

/// Noto Sans CJK JP Regular cut down to Japanese (`scripts/make-japanese-font`; SIL Open
/// Font Licence, `assets/fonts/OFL.txt`).
pub const BUNDLED_JAPANESE: &[u8] =
    include_bytes!("../../../assets/fonts/NotoSansCJKjp-subset.otf");
const BUNDLED_NAME: &str = "Noto Sans CJK JP (subset, built in)";

/// Japanese UI fonts, best first: Windows, macOS, then Linux distributions'.
const JAPANESE_FAMILIES: &[&str] = &[
    "Yu Gothic UI",
    "Meiryo UI",
    "Meiryo",
    "Hiragino Sans",
    "Hiragino Kaku Gothic ProN",
    "Noto Sans CJK JP",
    "Noto Sans JP",
    "Source Han Sans JP",
    "IPAexGothic",
    "IPAGothic",
    "VL Gothic",
    "TakaoGothic",
];

/// Fonts for the other scripts a name may be in, each used where the system has it.
const OTHER_FAMILIES: &[&str] = &[
    // Chinese (simplified, traditional) and Korean.
    "Microsoft YaHei UI",
    "Microsoft JhengHei UI",
    "Malgun Gothic",
    "PingFang SC",
    "PingFang TC",
    "Apple SD Gothic Neo",
    "Noto Sans CJK SC",
    "Noto Sans CJK TC",
    "Noto Sans CJK KR",
    "WenQuanYi Micro Hei",
    "NanumGothic",
    // Thai, Indic, Hebrew, Arabic, symbols and the rest of Latin.
    "Segoe UI",
    "Segoe UI Symbol",
    "Nirmala UI",
    "Leelawadee UI",
    "Noto Sans",
    "Noto Sans Thai",
    "Noto Sans Devanagari",
    "Noto Sans Arabic",
    "Noto Sans Hebrew",
    "DejaVu Sans",
];

/// The most system fonts loaded (each may be tens of megabytes).
const MOST_SYSTEM_FONTS: usize = 10;

/// One system font face to add.
#[derive(Clone)]
pub struct SystemFont {
    pub family: String,
    data: Arc<Vec<u8>>,
    index: u32,
}

/// What the system's font scan found, and how long it took.
#[derive(Clone, Default)]
pub struct SystemFonts {
    pub japanese: Option<SystemFont>,
    pub others: Vec<SystemFont>,
    pub scan_time: Duration,
}

/// The fonts every egui context gets, and a count that changes when they do.
#[derive(Resource)]
pub struct EditorFonts {
    pub definitions: egui::FontDefinitions,
    pub generation: u32,
    scan: Option<Arc<Mutex<Option<SystemFonts>>>>,
}

impl Default for EditorFonts {
    /// egui's fonts and the bundled Japanese font; the system's follow unless
    /// `VRMA_MAKER_NO_SYSTEM_FONTS` is set (tests: the bundled font alone must do).
    fn default() -> EditorFonts {
        let scan = std::env::var_os("VRMA_MAKER_NO_SYSTEM_FONTS")
            .is_none()
            .then(|| {
                let slot = Arc::new(Mutex::new(None));
                let writer = slot.clone();
                std::thread::Builder::new()
                    .name("system fonts".into())
                    .spawn(move || {
                        let found = find_system_fonts();
                        *writer.lock().unwrap_or_else(|e| e.into_inner()) = Some(found);
                    })
                    .ok()
                    .map(|_| slot)
            })
            .flatten();
        EditorFonts {
            definitions: definitions(&SystemFonts::default()),
            generation: 1,
            scan,
        }
    }
}

/// egui's fonts with our fallbacks after them, for both of egui's families.
pub fn definitions(system: &SystemFonts) -> egui::FontDefinitions {
    let mut fonts = egui::FontDefinitions::default();
    let mut fallbacks = Vec::new();
    let mut add = |fonts: &mut egui::FontDefinitions, name: String, data: egui::FontData| {
        fonts.font_data.insert(name.clone(), Arc::new(data));
        fallbacks.push(name);
    };
    if let Some(font) = &system.japanese {
        add(&mut fonts, font.family.clone(), font.egui_data());
    }
    add(
        &mut fonts,
        BUNDLED_NAME.into(),
        egui::FontData::from_static(BUNDLED_JAPANESE),
    );
    for font in &system.others {
        add(&mut fonts, font.family.clone(), font.egui_data());
    }
    for family in [egui::FontFamily::Proportional, egui::FontFamily::Monospace] {
        fonts
            .families
            .entry(family)
            .or_default()
            .extend(fallbacks.iter().cloned());
    }
    fonts
}

impl SystemFont {
    fn egui_data(&self) -> egui::FontData {
        // egui wants the bytes for as long as the program runs; the few files are read
        // once, and faces of one collection share them.
        let bytes: &'static [u8] = leak_once(&self.data);
        egui::FontData {
            font: std::borrow::Cow::Borrowed(bytes),
            index: self.index,
            tweak: Default::default(),
        }
    }
}

/// The bytes of a font file for the rest of the run: fonts are found once, and the
/// faces of one collection (Noto Sans CJK's JP, SC, TC, KR) share one copy.
fn leak_once(data: &Arc<Vec<u8>>) -> &'static [u8] {
    static LEAKED: Mutex<Vec<&'static Arc<Vec<u8>>>> = Mutex::new(Vec::new());
    let mut leaked = LEAKED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(kept) = leaked.iter().find(|kept| Arc::ptr_eq(kept, data)) {
        return kept.as_slice();
    }
    let kept: &'static Arc<Vec<u8>> = Box::leak(Box::new(data.clone()));
    leaked.push(kept);
    kept.as_slice()
}

/// The system's fonts for the families above (fontconfig's folders on Linux, the
/// Fonts folders on Windows and macOS).
pub fn find_system_fonts() -> SystemFonts {
    let started = Instant::now();
    let mut db = fontdb::Database::new();
    db.load_system_fonts();
    let mut files: HashMap<PathBuf, Arc<Vec<u8>>> = HashMap::new();
    let mut load = |family: &str| -> Option<SystemFont> {
        let id = db.query(&fontdb::Query {
            families: &[fontdb::Family::Name(family)],
            ..Default::default()
        })?;
        let (source, index) = db.face_source(id)?;
        let path = match source {
            fontdb::Source::File(path) | fontdb::Source::SharedFile(path, _) => path,
            fontdb::Source::Binary(_) => return None,
        };
        let data = match files.get(&path) {
            Some(data) => data.clone(),
            None => {
                let data = Arc::new(std::fs::read(&path).ok()?);
                files.insert(path, data.clone());
                data
            }
        };
        Some(SystemFont {
            family: family.to_string(),
            data,
            index,
        })
    };
    let japanese = JAPANESE_FAMILIES.iter().find_map(|f| load(f));
    let others = OTHER_FAMILIES
        .iter()
        .filter_map(|f| load(f))
        .take(MOST_SYSTEM_FONTS - 1)
        .collect();
    SystemFonts {
        japanese,
        others,
        scan_time: started.elapsed(),
    }
}

pub fn fonts_plugin(app: &mut App) {
    app.init_resource::<EditorFonts>()
        .add_systems(Update, (take_system_fonts, give_contexts_fonts).chain());
}

/// Once the scan is done: the system's fonts join the definitions.
fn take_system_fonts(mut fonts: ResMut<EditorFonts>) {
    let Some(slot) = &fonts.scan else { return };
    let Some(found) = slot.lock().unwrap_or_else(|e| e.into_inner()).take() else {
        return;
    };
    fonts.scan = None;
    info!(
        "system fonts in {:.0} ms: {}",
        found.scan_time.as_secs_f64() * 1000.0,
        found
            .japanese
            .iter()
            .chain(&found.others)
            .map(|f| f.family.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    );
    if found.japanese.is_none() && found.others.is_empty() {
        return;
    }
    fonts.definitions = definitions(&found);
    fonts.generation += 1;
}

/// Every egui context (new ones, and all of them when the fonts change) gets the fonts.
fn give_contexts_fonts(
    fonts: Res<EditorFonts>,
    mut contexts: Query<(Entity, &mut EguiContext)>,
    mut given: Local<HashMap<Entity, u32>>,
) {
    for (entity, mut context) in &mut contexts {
        if given.get(&entity) != Some(&fonts.generation) {
            context.get_mut().set_fonts(fonts.definitions.clone());
            given.insert(entity, fonts.generation);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The characters of `text` no font of `definitions` draws. egui's check first; it
    /// says no to a character that the font holding its replacement glyph '◻' has
    /// (egui's emoji font: ▶, ◀ …), so the fonts' own character maps decide those.
    fn covers(definitions: egui::FontDefinitions, text: &str) -> Vec<char> {
        use skrifa::MetadataProvider;
        let chain = definitions.families[&egui::FontFamily::Proportional].clone();
        let in_a_font = |c: char| {
            chain.iter().any(|name| {
                let data = &definitions.font_data[name];
                skrifa::FontRef::from_index(&data.font, data.index)
                    .is_ok_and(|font| font.charmap().map(c).is_some())
            })
        };
        let mut fonts = egui::epaint::text::Fonts::new(Default::default(), definitions.clone());
        let font = egui::FontId::proportional(14.0);
        text.chars()
            .filter(|c| !c.is_whitespace() && !fonts.has_glyph(&font, *c) && !in_a_font(*c))
            .collect()
    }

    #[test]
    fn the_bundled_font_alone_covers_japanese_names_and_every_message() {
        let bundled_only = || definitions(&SystemFonts::default());
        let names = "テスト アバター 日本語 ウインク 喜び 怒り 悲しみ 驚き まばたき 右手 左足 \
                     髪の毛 制服 眼鏡 猫耳 桜 雪 鬼 響 薔薇 檸檬 溜息 「」『』【】・ー〜！？（）";
        assert_eq!(covers(bundled_only(), names), Vec::<char>::new());
        use super::super::language::{Language, lookup, message_ids};
        let mut every_message = String::new();
        for language in Language::ALL {
            for id in message_ids(Language::English) {
                every_message.push_str(&lookup(language, &id, None).unwrap_or_default());
            }
            every_message.push_str(language.own_name());
        }
        assert_eq!(covers(bundled_only(), &every_message), Vec::<char>::new());
    }

    #[test]
    fn the_systems_fonts_draw_chinese_and_korean_names() {
        let found = find_system_fonts();
        let korean = "한국어 이름";
        let chinese = "中文名字 简体 繁體";
        if covers(definitions(&found), korean).len() == korean.chars().filter(|c| *c != ' ').count()
        {
            // No Korean font on this machine: CI installs fonts-noto-cjk, so there it fails.
            assert!(
                std::env::var_os("CI").is_none(),
                "no CJK system font found in CI"
            );
            eprintln!("SKIPPED: no Korean system font; this test checked nothing");
            return;
        }
        assert_eq!(covers(definitions(&found), korean), Vec::<char>::new());
        assert_eq!(covers(definitions(&found), chinese), Vec::<char>::new());
        // The bundled font is Japanese only: Korean needs the system's.
        assert!(!covers(definitions(&SystemFonts::default()), korean).is_empty());
        assert!(
            found.scan_time < Duration::from_secs(5),
            "{:?}",
            found.scan_time
        );
    }

    #[test]
    fn egui_alone_would_draw_japanese_as_boxes() {
        // The check above means something: egui's own fonts lack kana.
        assert!(!covers(egui::FontDefinitions::default(), "テスト").is_empty());
    }
}
