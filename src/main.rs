//! `vrma-maker`: with a subcommand, one headless command (SPEC §12); without, the
//! editor window.

// On Windows the editor opens without a console window behind it; the command-line
// tools attach to the console they were started from (`attach_to_the_starting_console`).
#![cfg_attr(windows, windows_subsystem = "windows")]

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

/// A Windows program without a console of its own prints nowhere: where it was started
/// from a console (cmd, PowerShell, Windows Terminal), its output and errors go there,
/// as a console program's would; output redirected to a file or a pipe stays so.
#[cfg(windows)]
fn attach_to_the_starting_console() {
    use windows_sys::Win32::Foundation::{GENERIC_READ, GENERIC_WRITE, INVALID_HANDLE_VALUE};
    use windows_sys::Win32::Storage::FileSystem::{
        CreateFileW, FILE_SHARE_READ, FILE_SHARE_WRITE, OPEN_EXISTING,
    };
    use windows_sys::Win32::System::Console::{
        ATTACH_PARENT_PROCESS, AttachConsole, GetStdHandle, STD_ERROR_HANDLE, STD_HANDLE,
        STD_INPUT_HANDLE, STD_OUTPUT_HANDLE, SetStdHandle,
    };
    let missing = |which: STD_HANDLE| {
        // SAFETY: reading this process's standard handle.
        let handle = unsafe { GetStdHandle(which) };
        handle.is_null() || handle == INVALID_HANDLE_VALUE
    };
    let wanted: Vec<STD_HANDLE> = [STD_INPUT_HANDLE, STD_OUTPUT_HANDLE, STD_ERROR_HANDLE]
        .into_iter()
        .filter(|&which| missing(which))
        .collect();
    // SAFETY: attaching to the parent's console; fails harmlessly when it has none
    // (started from Explorer or a shortcut).
    if wanted.is_empty() || unsafe { AttachConsole(ATTACH_PARENT_PROCESS) } == 0 {
        return;
    }
    for which in wanted {
        if !missing(which) {
            continue; // attaching filled it in
        }
        let device: Vec<u16> = if which == STD_INPUT_HANDLE {
            "CONIN$"
        } else {
            "CONOUT$"
        }
        .encode_utf16()
        .chain([0])
        .collect();
        // SAFETY: opening the console just attached, with a NUL-terminated name; the
        // handle lives as long as the process, as a standard handle does.
        unsafe {
            let handle = CreateFileW(
                device.as_ptr(),
                GENERIC_READ | GENERIC_WRITE,
                FILE_SHARE_READ | FILE_SHARE_WRITE,
                std::ptr::null(),
                OPEN_EXISTING,
                0,
                std::ptr::null_mut(),
            );
            if handle != INVALID_HANDLE_VALUE {
                SetStdHandle(which, handle);
            }
        }
    }
}

#[cfg(not(windows))]
fn attach_to_the_starting_console() {}

fn main() -> ExitCode {
    attach_to_the_starting_console();
    keep_large_allocations_returnable();
    let cli = Cli::parse(); // usage errors: clap prints them and exits with 2
    let Some(command) = cli.command else {
        return vrma_maker::app::run(vrma_maker::app::Launch {
            file: cli.file,
            screenshot: cli.screenshot,
            exit_after: cli.exit_after,
            quit_when: cli.quit_when,
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
