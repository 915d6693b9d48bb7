//! The command line (SPEC §12): the same engine as the window, no window. Each
//! subcommand is a thin call into [`crate::core`]; output is JSON on stdout, errors are
//! one line on stderr with exit code 1 (bad input) or 2 (usage).

mod apply;
mod inspect;
mod mannequin;

use std::path::PathBuf;

use clap::{Parser, Subcommand};

use crate::core::LoadError;

/// VRMA Maker: pose VRM avatars and export VRM Animation.
#[derive(Parser, Debug)]
#[command(name = "vrma-maker", version, about)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    /// A .vrm model (or, later, a project .json) to open in the editor window.
    pub file: Option<PathBuf>,
    /// Testing: save a screenshot of the window once the model shows, then exit.
    #[arg(long, hide = true)]
    pub screenshot: Option<PathBuf>,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Print model facts: version, title, normalized bones, rest hips, expressions.
    Inspect {
        /// The .vrm file.
        model: PathBuf,
    },
    /// Run an edit script on a model and print {pose, keys, world}.
    Apply {
        #[arg(long)]
        model: PathBuf,
        /// The edit script: a JSON array of operations.
        #[arg(long)]
        script: PathBuf,
        /// Also write the resulting pose JSON here.
        #[arg(short = 'o', long = "output")]
        output: Option<PathBuf>,
    },
    /// Write the built-in mannequin as a VRM file.
    Mannequin {
        #[arg(short = 'o', long = "output")]
        output: PathBuf,
        /// Write VRM 0.x instead of VRM 1.0.
        #[arg(long)]
        vrm0: bool,
    },
}

/// Runs a subcommand; returns the JSON to print, or the one-line error.
pub fn run(command: Command) -> Result<Option<serde_json::Value>, LoadError> {
    match command {
        Command::Inspect { model } => inspect::run(&model).map(Some),
        Command::Apply {
            model,
            script,
            output,
        } => apply::run(&model, &script, output.as_deref()).map(Some),
        Command::Mannequin { output, vrm0 } => mannequin::run(&output, vrm0).map(|()| None),
    }
}

/// Reads a JSON file with a message naming the file.
pub fn read_json(path: &std::path::Path) -> Result<serde_json::Value, LoadError> {
    let bytes = std::fs::read(path)
        .map_err(|e| LoadError::new(format!("cannot read {}: {e}", path.display())))?;
    serde_json::from_slice(&bytes)
        .map_err(|e| LoadError::new(format!("{}: invalid JSON: {e}", path.display())))
}
