//! Animation: poses over time and the edits that make them (timeline, planted feet, `edit`, undo,
//! handles, project, library); a new edit goes in `edit`. Uses `body`, `model`, `files`.

pub mod edit;
pub mod film;
pub mod handle;
pub mod history;
pub mod library;
pub mod pins;
pub mod plant;
pub mod project;
pub mod timeline;
