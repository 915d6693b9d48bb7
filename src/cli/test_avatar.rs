//! `vrma-maker test-avatar -o OUT.vrm [--vrm0] …`: a generated VRoid-scale avatar (and
//! crafted variants) for tests and benchmarks; see `core::model::test_avatar`.

use std::path::Path;

use crate::core::model::mannequin::MannequinVariant;
use crate::core::model::test_avatar::{TestAvatarSpec, build};
use crate::core::{Refusal, write_atomic};

pub struct Options {
    pub vrm0: bool,
    pub texture_size: u32,
    pub textures: usize,
    pub oversized_texture: Option<u32>,
    pub crafted_morph_vertices: Option<u32>,
}

pub fn run(output: &Path, options: &Options) -> Result<(), Refusal> {
    if !(1..=8192).contains(&options.texture_size) || options.textures > 64 {
        return Err(Refusal::new(
            "--texture-size must be 1–8192 and --textures at most 64",
        ));
    }
    let variant = if options.vrm0 {
        MannequinVariant::Vrm0
    } else {
        MannequinVariant::Vrm1
    };
    let spec = TestAvatarSpec {
        variant,
        texture_size: options.texture_size,
        textures: options.textures,
        oversized_texture: options
            .oversized_texture
            .filter(|s| (1..=65_535).contains(s)),
        crafted_morph_vertices: options
            .crafted_morph_vertices
            .map(|v| v.clamp(3, 2_000_000)),
    };
    write_atomic(output, &build(&spec))
        .map_err(|e| Refusal::new(format!("cannot write {}: {e}", output.display())))
}
