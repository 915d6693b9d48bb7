//! Each writer read back by its format's own decoder crate (the outside readers,
//! Pillow and ffmpeg, are in `tests/it/render_anim.rs`).

use super::*;

/// A disc moving right over a transparent background, with a colour ramp across it.
fn frame(settings: &FilmSettings, index: usize) -> Vec<u8> {
    let (w, h) = (settings.width as usize, settings.height as usize);
    let centre = (
        w as f32 * (0.3 + 0.4 * index as f32 / settings.frames.max(2) as f32),
        h as f32 / 2.0,
    );
    let radius = h as f32 / 3.0;
    let mut rgba = vec![0u8; w * h * 4];
    for y in 0..h {
        for x in 0..w {
            let d = ((x as f32 - centre.0).powi(2) + (y as f32 - centre.1).powi(2)).sqrt();
            if d < radius {
                let p = &mut rgba[(y * w + x) * 4..][..4];
                p.copy_from_slice(&[(x * 255 / w) as u8, (y * 255 / h) as u8, 180, 255]);
            }
        }
    }
    rgba
}

fn settings(frames: usize) -> FilmSettings {
    FilmSettings {
        width: 64,
        height: 47,
        fps: 30,
        frames,
        loop_count: 0,
        background: None,
    }
}

fn write(name: &str, settings: &FilmSettings) -> (tempdir::Dir, PathBuf) {
    let dir = tempdir::Dir::new();
    let path = dir.0.join(name);
    let mut writer = open(&path, settings).expect("opens");
    for i in 0..settings.frames {
        writer.push(&frame(settings, i)).expect("pushes");
    }
    let written = writer.finish().expect("finishes");
    (dir, written)
}

mod tempdir {
    /// A scratch folder removed at the end of the test.
    pub struct Dir(pub std::path::PathBuf);

    impl Dir {
        pub fn new() -> Dir {
            use std::sync::atomic::{AtomicU32, Ordering};
            static N: AtomicU32 = AtomicU32::new(0);
            let path = std::env::temp_dir().join(format!(
                "vrma-media-{}-{}",
                std::process::id(),
                N.fetch_add(1, Ordering::Relaxed)
            ));
            std::fs::create_dir_all(&path).expect("scratch folder");
            Dir(path)
        }
    }

    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

#[test]
fn the_format_follows_the_name() {
    let cases = [
        ("a.webp", FilmFormat::WebP),
        ("a.PNG", FilmFormat::Apng),
        ("a.gif", FilmFormat::Gif),
        ("a.mp4", FilmFormat::Mp4),
        ("frames/", FilmFormat::PngSequence),
    ];
    for (name, format) in cases {
        assert_eq!(FilmFormat::of_path(Path::new(name)).expect(name), format);
    }
    let refusal = FilmFormat::of_path(Path::new("a.mkv")).unwrap_err();
    assert!(refusal.0.contains(".webp"), "{refusal}");
}

#[test]
fn hostile_settings_are_refused_before_anything_is_allocated() {
    let mut s = settings(10);
    s.frames = MAX_FRAMES + 1;
    assert!(open(Path::new("x.webp"), &s).is_err());
    let mut s = settings(10);
    s.width = 100_000;
    assert!(open(Path::new("x.gif"), &s).is_err());
    let mut s = settings(10);
    s.fps = 0;
    assert!(open(Path::new("x.mp4"), &s).is_err());
    let mut s = settings(10);
    s.fps = 60;
    let refusal = open(Path::new("x.gif"), &s)
        .err()
        .expect("a 60 fps GIF is refused");
    assert!(refusal.0.contains("50"), "{refusal}");
}

#[test]
fn an_apng_has_every_frame_its_alpha_and_its_rate() {
    let s = settings(7);
    let (_dir, path) = write("film.png", &s);
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&path).unwrap()));
    let mut reader = decoder.read_info().expect("a PNG");
    let info = reader.info();
    let control = info.animation_control().expect("animated");
    assert_eq!(control.num_frames as usize, s.frames);
    assert_eq!(control.num_plays, 0);
    assert_eq!(info.color_type, png::ColorType::Rgba);
    let mut buffer = vec![0; reader.output_buffer_size().unwrap()];
    let mut frames = 0;
    while let Ok(output) = reader.next_frame(&mut buffer) {
        let control = reader.info().frame_control().expect("a frame control");
        assert_eq!((control.delay_num, control.delay_den), (1, 30));
        assert_eq!(&buffer[..output.buffer_size()], &frame(&s, frames)[..]);
        frames += 1;
    }
    assert_eq!(frames, s.frames);
}

#[test]
fn a_gif_has_every_frame_one_bit_of_alpha_and_durations_adding_up() {
    let s = settings(9);
    let (_dir, path) = write("film.gif", &s);
    let mut options = gif::DecodeOptions::new();
    options.set_color_output(gif::ColorOutput::RGBA);
    let mut decoder = options
        .read_info(std::fs::File::open(&path).unwrap())
        .expect("a GIF");
    let (mut frames, mut centiseconds) = (0, 0u32);
    while let Some(decoded) = decoder.read_next_frame().expect("a frame") {
        let original = frame(&s, frames);
        // Dithering trades each pixel's error for the area's: small on average, no bias.
        let (mut error, mut bias, mut drawn) = (0f64, [0f64; 3], 0);
        for (got, want) in decoded.buffer.chunks_exact(4).zip(original.chunks_exact(4)) {
            assert_eq!(
                got[3] == 255,
                want[3] >= 128,
                "the figure's outline is kept"
            );
            if want[3] >= 128 {
                drawn += 1;
                for c in 0..3 {
                    error += (got[c] as f64 - want[c] as f64).abs() / 3.0;
                    bias[c] += got[c] as f64 - want[c] as f64;
                }
            }
        }
        assert!(
            error / drawn as f64 <= 12.0,
            "mean colour error {}",
            error / drawn as f64
        );
        for b in bias {
            assert!(
                (b / drawn as f64).abs() <= 2.0,
                "colour bias {}",
                b / drawn as f64
            );
        }
        centiseconds += decoded.delay as u32;
        frames += 1;
    }
    assert_eq!(frames, s.frames);
    assert_eq!(
        centiseconds,
        (s.frames as u32 * 100).div_ceil(s.fps),
        "9 frames at 30 fps"
    );
}

#[test]
fn odd_sides_are_made_even_for_mp4() {
    assert_eq!(even_size(512, 683), (512, 684));
    assert_eq!(even_size(1, 2), (2, 2));
}

#[cfg(feature = "codecs")]
#[test]
fn a_webp_keeps_alpha_and_lasts_the_film() {
    let s = settings(6);
    let (_dir, path) = write("film.webp", &s);
    let bytes = std::fs::read(&path).unwrap();
    let decoder = webp_animation::Decoder::new(&bytes).expect("a WebP");
    let frames: Vec<_> = decoder.into_iter().collect();
    assert_eq!(frames.len(), s.frames);
    for (i, decoded) in frames.iter().enumerate() {
        // Lossless where the figure is; libwebp may change the colour of clear pixels.
        for (got, want) in decoded
            .data()
            .chunks_exact(4)
            .zip(frame(&s, i).chunks_exact(4))
        {
            assert_eq!(got[3], want[3], "alpha kept");
            if want[3] > 0 {
                assert_eq!(got, want, "lossless");
            }
        }
        // libwebp's decoder gives each frame's end.
        assert_eq!(decoded.timestamp(), ((i as i32 + 1) * 1000 + 15) / 30);
    }
}

#[cfg(feature = "codecs")]
#[test]
fn an_mp4_has_every_frame_at_an_even_size_and_repeats_for_loops() {
    let mut s = settings(10);
    s.loop_count = 2;
    let (_dir, path) = write("film.mp4", &s);
    let file = std::fs::File::open(&path).unwrap();
    let size = file.metadata().unwrap().len();
    let reader = mp4::Mp4Reader::read_header(std::io::BufReader::new(file), size).expect("an MP4");
    let track = reader.tracks().values().next().expect("a track");
    assert_eq!((track.width(), track.height()), (64, 48));
    assert_eq!(track.sample_count() as usize, s.frames * 2);
    let seconds = (2 * s.frames) as f64 / s.fps as f64;
    assert!(
        (track.duration().as_secs_f64() - seconds).abs() < 1e-3,
        "{:?}",
        track.duration()
    );
    assert!(track.sequence_parameter_set().is_ok());
}

#[test]
fn a_png_sequence_is_a_folder_of_numbered_frames() {
    let s = settings(3);
    let (dir, folder) = write("frames/", &s);
    let names: Vec<String> = std::fs::read_dir(&folder)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let mut names = names;
    names.sort();
    assert_eq!(
        names,
        ["frame_0001.png", "frame_0002.png", "frame_0003.png"]
    );
    let hidden = std::fs::read_dir(&dir.0).unwrap().count();
    assert_eq!(hidden, 1, "no staging folder is left");
}

#[test]
fn an_unfinished_film_leaves_nothing() {
    let names: &[&str] = if cfg!(feature = "codecs") {
        &["a.webp", "a.png", "a.gif", "a.mp4", "seq/"]
    } else {
        &["a.png", "a.gif", "seq/"]
    };
    for &name in names {
        let dir = tempdir::Dir::new();
        let s = settings(5);
        let mut writer = open(&dir.0.join(name), &s).expect("opens");
        writer.push(&frame(&s, 0)).expect("pushes");
        drop(writer);
        assert_eq!(
            std::fs::read_dir(&dir.0).unwrap().count(),
            0,
            "{name} left something"
        );
    }
}

#[test]
fn a_frame_of_the_wrong_size_is_refused() {
    let dir = tempdir::Dir::new();
    let s = settings(2);
    let mut writer = open(&dir.0.join("a.gif"), &s).unwrap();
    assert!(writer.push(&[0; 16]).is_err());
}

#[test]
fn the_background_makes_every_format_opaque() {
    let mut s = settings(2);
    s.background = Some([10, 200, 30]);
    let (_dir, path) = write("film.png", &s);
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&path).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buffer = vec![0; reader.output_buffer_size().unwrap()];
    reader.next_frame(&mut buffer).unwrap();
    assert!(buffer.chunks_exact(4).all(|p| p[3] == 255));
    assert_eq!(
        &buffer[..4],
        &[10, 200, 30, 255],
        "a corner shows the background"
    );
}
