//! Animation: poses over time and the edits that make them — the timeline and its keys,
//! planted feet, the one edit path (`edit::Editor::apply`) with undo, the handle table,
//! the project file and the pose library. A new edit goes in `edit`. Uses `body`, `model`, `files`.

pub mod edit;
pub mod handle;
pub mod history;
pub mod library;
pub mod plant;
pub mod project;
pub mod timeline;
