//! Video files (MP4/MOV with H.264): any bytes are either refused with a one-line
//! message, or read frame by frame into pictures of the size they say, each frame's
//! failure a one-line refusal; nothing allocates past the bounds or panics.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vrma_media::video::{MAX_VIDEO_SIDE, VideoReader};

/// Longer videos read the same way, only slower: the fuzzer looks at the first frames.
const MOST_FRAMES: usize = 8;

fuzz_target!(|data: &[u8]| {
    let one_line = |refusal: &vrma_media::Refusal| {
        assert!(!refusal.to_string().contains('\n'), "{refusal}");
    };
    match VideoReader::from_reader(std::io::Cursor::new(data), data.len() as u64) {
        Err(refusal) => one_line(&refusal),
        Ok(mut video) => {
            let info = video.info().clone();
            assert!(info.width <= MAX_VIDEO_SIDE && info.height <= MAX_VIDEO_SIDE);
            for _ in 0..MOST_FRAMES {
                match video.next_frame() {
                    Ok(Some(frame)) => {
                        assert_eq!(
                            frame.rgb.len(),
                            frame.width as usize * frame.height as usize * 3
                        );
                        assert!(frame.time.is_finite());
                    }
                    Ok(None) => break,
                    Err(refusal) => {
                        one_line(&refusal);
                        break;
                    }
                }
            }
        }
    }
});
