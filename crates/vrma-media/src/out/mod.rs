//! One writer per format, each a [`crate::FilmWriter`].

pub(crate) mod apng;
pub(crate) mod gif;
#[cfg(feature = "codecs")]
pub(crate) mod mp4;
pub(crate) mod sequence;
#[cfg(feature = "codecs")]
pub(crate) mod webp;

use std::borrow::Cow;

use crate::FilmSettings;

/// The frame as the format stores it: laid over the background when there is one.
pub(crate) fn with_background<'a>(rgba: &'a [u8], settings: &FilmSettings) -> Cow<'a, [u8]> {
    match settings.background {
        Some(background) => {
            let mut opaque = rgba.to_vec();
            crate::over_background(&mut opaque, background);
            Cow::Owned(opaque)
        }
        None => Cow::Borrowed(rgba),
    }
}

/// Where frame `index` starts, in units of `1 / per_second` s, rounded so that the
/// frames' durations add up to the film's however the rate divides.
pub(crate) fn frame_start(index: usize, fps: u32, per_second: u64) -> u64 {
    (index as u64 * per_second * 2 + fps as u64) / (fps as u64 * 2)
}
