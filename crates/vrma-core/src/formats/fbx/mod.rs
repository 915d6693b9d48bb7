//! FBX (binary and ASCII, 6.x and 7.x) through `ufbx`, the field's reader: sizes bounded
//! before it sees the bytes and its memory capped, the scene converted by it to Y-up
//! metres, one take (animation stack) evaluated frame by frame as a motion source.

pub mod import;
