//! `vrma-maker`: with a subcommand, one headless command (SPEC §12); without, the
//! editor window.

use std::process::ExitCode;

use clap::Parser;
use vrma_maker::cli::{self, Cli};

/// glibc raises its mmap threshold each time a large block is freed, up to 32 MB, so
/// after the first decoded texture every later one (16 MB for 2048²) comes from heap
/// arenas that are never given back: a VRoid avatar then peaked ~300 MB higher. A fixed
/// 1 MiB threshold keeps big buffers in their own mappings, returned when freed.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn keep_large_allocations_returnable() {
    unsafe extern "C" {
        fn mallopt(param: std::ffi::c_int, value: std::ffi::c_int) -> std::ffi::c_int;
    }
    const M_MMAP_THRESHOLD: std::ffi::c_int = -3;
    // SAFETY: mallopt only changes allocator tuning; called before any other thread exists.
    unsafe {
        mallopt(M_MMAP_THRESHOLD, 1 << 20);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn keep_large_allocations_returnable() {}

fn main() -> ExitCode {
    keep_large_allocations_returnable();
    let cli = Cli::parse(); // usage errors: clap prints them and exits with 2
    let Some(command) = cli.command else {
        return vrma_maker::app::run(vrma_maker::app::Launch {
            file: cli.file,
            screenshot: cli.screenshot,
            exit_after: cli.exit_after,
            save_on_exit: cli.save_on_exit,
            select: cli.select,
            export_png: cli.export_png,
            library_save: cli.library_save,
            play: cli.play,
            recover: cli.recover,
            vr: cli.vr,
            one_euro: cli.one_euro,
            camera_frames: cli.camera_frames,
        });
    };
    // A panic is a bug, but a user still gets one line and exit 1, not a backtrace.
    std::panic::set_hook(Box::new(|info| {
        let msg = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown".into());
        eprintln!("error: internal error ({msg}); please report it");
    }));
    match std::panic::catch_unwind(|| cli::run(command)) {
        Ok(Ok(Some(json))) => {
            println!(
                "{}",
                serde_json::to_string_pretty(&json).expect("JSON serialises")
            );
            ExitCode::SUCCESS
        }
        Ok(Ok(None)) => ExitCode::SUCCESS,
        Ok(Err(e)) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
        Err(_) => ExitCode::from(1),
    }
}
