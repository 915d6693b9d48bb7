//! Formats: animation files in and out, one folder per format (`vrma` today), and the one
//! table of what File ▸ Export offers (`table`). A new import or export format is a folder
//! here and a row in the table. Uses `animation`, `body`, `model`, `files`.

pub mod table;
pub mod vrma;
