//! `vrma-maker mannequin -o OUT.vrm [--vrm0]`: the built-in avatar as a file.

use std::path::Path;

use crate::core::model::mannequin::{MannequinVariant, build};
use crate::core::{Refusal, write_atomic};

pub fn run(output: &Path, vrm0: bool) -> Result<(), Refusal> {
    let variant = if vrm0 {
        MannequinVariant::Vrm0
    } else {
        MannequinVariant::Vrm1
    };
    write_atomic(output, &build(variant))
        .map_err(|e| Refusal::new(format!("cannot write {}: {e}", output.display())))
}
