//! The console launcher for Windows, shipped as `vrma-maker.com` beside `vrma-maker.exe`.
//! `vrma-maker.exe` is a GUI program (no console window behind the editor), and cmd and
//! PowerShell return to the prompt at once for a GUI program, its output arriving after
//! the prompt. A console program named `.com` is what they pick first for `vrma-maker …`
//! (PATHEXT lists .COM before .EXE): it runs the `.exe` beside it with the same arguments
//! and console, waits, and ends with its exit code, so the command-line tools behave as
//! console programs do. Elsewhere it does the same with `vrma-maker`.

use std::process::ExitCode;

fn main() -> ExitCode {
    let name = if cfg!(windows) {
        "vrma-maker.exe"
    } else {
        "vrma-maker"
    };
    let program = std::env::current_exe()
        .ok()
        .and_then(|me| Some(me.parent()?.join(name)))
        .filter(|program| program.is_file());
    let Some(program) = program else {
        eprintln!("error: {name} is not beside this launcher; unpack the whole folder again");
        return ExitCode::from(1);
    };
    match std::process::Command::new(&program)
        .args(std::env::args_os().skip(1))
        .status()
    {
        Ok(status) => match status.code() {
            Some(0) => ExitCode::SUCCESS,
            Some(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
            None => ExitCode::from(1),
        },
        Err(e) => {
            eprintln!("error: cannot start {}: {e}", program.display());
            ExitCode::from(1)
        }
    }
}
