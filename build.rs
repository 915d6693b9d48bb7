//! Windows (MinGW) only: gives `vrma-maker.exe` its icon (Explorer, shortcuts) and
//! version details, as a resource compiled by MinGW's `windres` and linked into the
//! program (a few lines here instead of a resource crate: the toolchain that cross-builds
//! it has `windres` already), and links the C++ runtime the OpenXR loader needs.

use std::path::PathBuf;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=assets/icon.ico");
    println!("cargo:rerun-if-changed=build.rs");
    let target_os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let target_env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if target_os != "windows" || target_env != "gnu" {
        return;
    }
    // The OpenXR loader (C++, built into openxr-sys for the `xr` feature) and OpenH264
    // (C++, the `codecs` feature's H.264) expect a C++ runtime on Windows; with MinGW it
    // is libstdc++, linked in statically so that the program needs no libstdc++ DLL
    // (.cargo/config.toml keeps cc from also naming the DLL's import library).
    // After everything else on the link line (a library named by `rustc-link-lib` lands
    // before the crates that need it), with the C runtime it leans on once more after it.
    if std::env::var_os("CARGO_FEATURE_XR").is_some()
        || std::env::var_os("CARGO_FEATURE_CODECS").is_some()
    {
        for arg in [
            "-Wl,-Bstatic",
            "-lstdc++",
            "-lgcc",
            "-lgcc_eh",
            "-l:libpthread.a",
            "-lmingwex",
            "-Wl,-Bdynamic",
            "-lmsvcrt",
            "-lkernel32",
        ] {
            println!("cargo:rustc-link-arg-bins={arg}");
        }
    }
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let icon = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"))
        .join("assets/icon.ico");
    let version = std::env::var("CARGO_PKG_VERSION").unwrap_or_default();
    let numbers: Vec<&str> = version.split(['.', '-']).take(3).collect();
    let comma = format!("{},0", numbers.join(","));
    let script = format!(
        r#"1 ICON "{icon}"
1 VERSIONINFO
FILEVERSION {comma}
PRODUCTVERSION {comma}
BEGIN
  BLOCK "StringFileInfo"
  BEGIN
    BLOCK "040904B0"
    BEGIN
      VALUE "CompanyName", "VRMA Maker"
      VALUE "FileDescription", "VRMA Maker"
      VALUE "FileVersion", "{version}"
      VALUE "ProductName", "VRMA Maker"
      VALUE "ProductVersion", "{version}"
      VALUE "OriginalFilename", "vrma-maker.exe"
      VALUE "LegalCopyright", "MIT OR Apache-2.0"
    END
  END
  BLOCK "VarFileInfo"
  BEGIN
    VALUE "Translation", 0x409, 1200
  END
END
"#,
        icon = icon.display().to_string().replace('\\', "/"),
    );
    let rc = out.join("vrma-maker.rc");
    std::fs::write(&rc, script).expect("the resource script is written");
    let object = out.join("vrma-maker-resources.o");
    let windres = std::env::var("WINDRES").unwrap_or_else(|_| "x86_64-w64-mingw32-windres".into());
    let status = Command::new(&windres)
        .arg(&rc)
        .args(["-O", "coff", "-o"])
        .arg(&object)
        .status()
        .unwrap_or_else(|e| panic!("{windres} (MinGW-w64's binutils) could not run: {e}"));
    assert!(status.success(), "{windres} failed on {}", rc.display());
    println!("cargo:rustc-link-arg-bins={}", object.display());
}
