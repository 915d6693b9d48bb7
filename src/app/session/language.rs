//! The editor's words in the user's language: Project Fluent messages in
//! `assets/locales/<tag>/*.ftl`, built into the program. The language is the system's at
//! the first start, then View ▸ Language's (remembered in the settings). Text is looked
//! up when it is drawn, so a switch shows at once. A message the current language lacks
//! falls back to English; English has them all (the tests compare the files). The CLI,
//! the logs and the headless app stay English.
//!
//! ```ignore
//! ui.button(tr!("menu-file-open"));
//! banner.notice(tr!("status-saved", path = path.display().to_string()));
//! ```

use std::sync::LazyLock;
use std::sync::atomic::{AtomicU8, Ordering};

use bevy::log::debug;
use fluent_bundle::concurrent::FluentBundle;
use fluent_bundle::{FluentArgs, FluentResource};

/// A language the editor speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Language {
    English,
    Japanese,
}

/// The message files of each language, one per part of the editor.
macro_rules! locale_files {
    ($tag:literal) => {
        &[
            include_str!(concat!("../../../assets/locales/", $tag, "/app.ftl")),
            include_str!(concat!("../../../assets/locales/", $tag, "/ui.ftl")),
            include_str!(concat!("../../../assets/locales/", $tag, "/names.ftl")),
            include_str!(concat!("../../../assets/locales/", $tag, "/keys.ftl")),
            include_str!(concat!("../../../assets/locales/", $tag, "/timeline.ftl")),
            include_str!(concat!("../../../assets/locales/", $tag, "/library.ftl")),
            include_str!(concat!("../../../assets/locales/", $tag, "/files.ftl")),
            include_str!(concat!("../../../assets/locales/", $tag, "/view.ftl")),
            include_str!(concat!("../../../assets/locales/", $tag, "/vr.ftl")),
        ]
    };
}

impl Language {
    pub const ALL: [Language; 2] = [Language::English, Language::Japanese];

    /// The BCP 47 tag, as the settings file stores it.
    pub fn tag(self) -> &'static str {
        match self {
            Language::English => "en",
            Language::Japanese => "ja",
        }
    }

    /// The language's name in itself: View ▸ Language lists these, so a user who cannot
    /// read the current language still finds theirs.
    pub fn own_name(self) -> &'static str {
        match self {
            Language::English => "English",
            Language::Japanese => "日本語",
        }
    }

    /// The language a tag asks for (`ja`, `ja-JP`, `ja_JP.UTF-8`, `en-GB`), if we speak it.
    pub fn from_tag(tag: &str) -> Option<Language> {
        let primary = tag
            .split(['-', '_', '.', '@'])
            .next()
            .unwrap_or_default()
            .to_ascii_lowercase();
        Language::ALL.into_iter().find(|l| l.tag() == primary)
    }

    /// The first of the system's preferred languages that we speak; English otherwise.
    pub fn of_system() -> Language {
        sys_locale::get_locales()
            .find_map(|tag| Language::from_tag(&tag))
            .unwrap_or(Language::English)
    }

    fn message_files(self) -> &'static [&'static str] {
        match self {
            Language::English => locale_files!("en"),
            Language::Japanese => locale_files!("ja"),
        }
    }

    fn index(self) -> u8 {
        match self {
            Language::English => 0,
            Language::Japanese => 1,
        }
    }
}

/// The language text is drawn in now. A global, not a resource: words are looked up in
/// every corner of the app (messages made on worker threads too), and it changes only
/// when the user picks another language.
static CURRENT: AtomicU8 = AtomicU8::new(0);

pub fn current() -> Language {
    let index = CURRENT.load(Ordering::Relaxed);
    Language::ALL
        .into_iter()
        .find(|l| l.index() == index)
        .unwrap_or(Language::English)
}

pub fn set_current(language: Language) {
    CURRENT.store(language.index(), Ordering::Relaxed);
}

/// Every language's messages, parsed once.
static BUNDLES: LazyLock<Vec<(Language, FluentBundle<FluentResource>)>> = LazyLock::new(|| {
    Language::ALL
        .into_iter()
        .map(|language| (language, bundle(language)))
        .collect()
});

fn bundle(language: Language) -> FluentBundle<FluentResource> {
    let id: unic_langid::LanguageIdentifier = language.tag().parse().expect("our tags are valid");
    let mut bundle = FluentBundle::new_concurrent(vec![id]);
    // No Unicode isolation marks round values: egui would draw them as boxes.
    bundle.set_use_isolating(false);
    for source in language.message_files() {
        // A file that does not parse keeps the messages that do (the tests refuse it).
        let resource = FluentResource::try_new(source.to_string()).unwrap_or_else(|(r, _)| r);
        // A message defined twice keeps its first text (the tests refuse that too).
        let _ = bundle.add_resource(resource);
    }
    bundle
}

fn bundle_of(language: Language) -> &'static FluentBundle<FluentResource> {
    &BUNDLES
        .iter()
        .find(|(l, _)| *l == language)
        .expect("a bundle for every language")
        .1
}

/// A message (`id`) or one of its attributes (`id.attribute`) in `language`, if it has it.
pub fn lookup(language: Language, id: &str, args: Option<&FluentArgs>) -> Option<String> {
    let bundle = bundle_of(language);
    let (message_id, attribute) = match id.split_once('.') {
        Some((m, a)) => (m, Some(a)),
        None => (id, None),
    };
    let message = bundle.get_message(message_id)?;
    let pattern = match attribute {
        Some(name) => message.get_attribute(name)?.value(),
        None => message.value()?,
    };
    let mut errors = Vec::new();
    let text = bundle.format_pattern(pattern, args, &mut errors);
    if !errors.is_empty() {
        // A value the caller did not give shows as `{$name}`: still this language's text.
        debug!("message {id}: {errors:?}");
    }
    Some(text.into_owned())
}

/// A message in the current language, else in English. Only a message English lacks
/// (which the tests forbid) would show its id.
pub fn tr_args(id: &str, args: Option<&FluentArgs>) -> String {
    lookup(current(), id, args)
        .or_else(|| lookup(Language::English, id, args))
        .unwrap_or_else(|| id.to_string())
}

/// `tr!("id")`, or `tr!("id", name = value, …)` with values a Fluent variable takes
/// (strings and integers; format decimals into a string first).
#[macro_export]
macro_rules! tr {
    ($id:expr) => {
        $crate::app::session::language::tr_args($id, None)
    };
    ($id:expr, $($name:ident = $value:expr),+ $(,)?) => {{
        let mut args = fluent_bundle::FluentArgs::new();
        $(args.set(stringify!($name), $value);)+
        $crate::app::session::language::tr_args($id, Some(&args))
    }};
}

/// Every message and attribute id of a language (for the tests and the check that lists
/// what a translation lacks).
pub fn message_ids(language: Language) -> Vec<String> {
    let mut ids = Vec::new();
    for source in language.message_files() {
        let resource = FluentResource::try_new(source.to_string()).unwrap_or_else(|(r, _)| r);
        for entry in resource.entries() {
            if let fluent_syntax::ast::Entry::Message(message) = entry {
                let id = message.id.name;
                if message.value.is_some() {
                    ids.push(id.to_string());
                }
                for attribute in &message.attributes {
                    ids.push(format!("{id}.{}", attribute.id.name));
                }
            }
        }
    }
    ids
}

/// What is wrong with a language's files: parse errors and messages defined twice.
pub fn file_problems(language: Language) -> Vec<String> {
    let mut problems = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (n, source) in language.message_files().iter().enumerate() {
        let resource = match FluentResource::try_new(source.to_string()) {
            Ok(r) => r,
            Err((r, errors)) => {
                problems.push(format!("{} file {n}: {errors:?}", language.tag()));
                r
            }
        };
        for entry in resource.entries() {
            if let fluent_syntax::ast::Entry::Message(message) = entry
                && !seen.insert(message.id.name.to_string())
            {
                problems.push(format!(
                    "{}: {} defined twice",
                    language.tag(),
                    message.id.name
                ));
            }
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_languages_have_every_message_and_their_files_parse() {
        for language in Language::ALL {
            assert_eq!(file_problems(language), Vec::<String>::new());
        }
        let english = message_ids(Language::English);
        assert!(
            english.len() > 100,
            "English has {} messages",
            english.len()
        );
        for language in Language::ALL {
            let ids = message_ids(language);
            let missing: Vec<_> = english.iter().filter(|id| !ids.contains(id)).collect();
            let extra: Vec<_> = ids.iter().filter(|id| !english.contains(id)).collect();
            assert!(
                missing.is_empty() && extra.is_empty(),
                "{}: missing {missing:?}, not in English {extra:?}",
                language.tag()
            );
        }
    }

    #[test]
    fn every_message_formats_in_both_languages_and_japanese_differs() {
        let mut same = Vec::new();
        for id in message_ids(Language::English) {
            // Variables missing: Fluent writes `{$name}` and reports it, which is fine here;
            // what must not happen is a message that has no text at all.
            let english = lookup(Language::English, &id, None).unwrap();
            let japanese = lookup(Language::Japanese, &id, None).unwrap();
            assert!(!english.trim().is_empty(), "{id} is empty in English");
            assert!(!japanese.trim().is_empty(), "{id} is empty in Japanese");
            if english == japanese && english.chars().any(|c| c.is_ascii_lowercase()) {
                same.push(id);
            }
        }
        // Names (VRMA, PNG, FPS, …) may read the same; a sentence may not.
        assert!(
            same.iter().all(|id| lookup(Language::English, id, None)
                .unwrap()
                .split_whitespace()
                .count()
                <= 2),
            "left in English in the Japanese files: {same:?}"
        );
    }

    #[test]
    fn tags_from_the_system_name_our_languages() {
        for (tag, language) in [
            ("ja", Some(Language::Japanese)),
            ("ja-JP", Some(Language::Japanese)),
            ("ja_JP.UTF-8", Some(Language::Japanese)),
            ("en-GB", Some(Language::English)),
            ("EN", Some(Language::English)),
            ("fr-FR", None),
            ("", None),
        ] {
            assert_eq!(Language::from_tag(tag), language, "{tag}");
        }
    }

    #[test]
    fn a_message_falls_back_to_english_and_takes_its_values() {
        let english = lookup(Language::English, "ui-menu-file", None).unwrap();
        let japanese = lookup(Language::Japanese, "ui-menu-file", None).unwrap();
        assert_ne!(english, japanese);
        let mut args = FluentArgs::new();
        args.set("path", "/tmp/テスト.vrm");
        let text = lookup(Language::Japanese, "files-status-opened", Some(&args)).unwrap();
        assert!(text.contains("/tmp/テスト.vrm"), "{text}");
        assert!(!text.contains('\u{2068}'), "no isolation marks: {text:?}");
    }
}
