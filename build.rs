//! Release builds of the `convo` binary on x86_64 Linux hand `assets/hot-functions.txt` to the
//! linker as a symbol ordering file (lld, the toolchain's default linker there since Rust
//! 1.90): the functions `convo list` and `convo summary` run are laid out together, so a walk
//! faults in a few hundred KiB of code instead of most of the 8 MiB text segment. Only memory
//! (peak RSS) changes, never behaviour; names the file lacks or no longer match are ignored.
//! `scripts/hot-functions.sh` regenerates the file. Any other target, profile, or a linker set
//! by hand (`-C linker`, `-C link-arg=-fuse-ld=…`) builds as before.
//! (The build's name for `--version` is made by crates/commands/build.rs.)

use std::env;
use std::path::Path;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=assets/hot-functions.txt");
    println!("cargo:rerun-if-env-changed=CONVO_NO_ORDER_FILE");
    let var = |k: &str| env::var(k).unwrap_or_default();
    let wanted = var("PROFILE") == "release"
        && var("CARGO_CFG_TARGET_OS") == "linux"
        && var("CARGO_CFG_TARGET_ARCH") == "x86_64"
        && var("CARGO_CFG_TARGET_ENV") == "gnu"
        && env::var_os("CONVO_NO_ORDER_FILE").is_none()
        && !var("CARGO_ENCODED_RUSTFLAGS").contains("link")
        && default_linker_is_lld();
    let file = Path::new(&var("CARGO_MANIFEST_DIR")).join("assets/hot-functions.txt");
    if wanted && file.is_file() {
        println!(
            "cargo:rustc-link-arg-bin=convo=-Wl,--symbol-ordering-file={}",
            file.display()
        );
        println!("cargo:rustc-link-arg-bin=convo=-Wl,--no-warn-symbol-ordering");
    }
}

/// rustc 1.90 and later link x86_64-unknown-linux-gnu with its own lld by default; GNU ld
/// would refuse the option.
fn default_linker_is_lld() -> bool {
    let rustc = env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let Ok(out) = Command::new(rustc).arg("--version").output() else {
        return false;
    };
    let text = String::from_utf8_lossy(&out.stdout);
    let minor = text
        .split_whitespace()
        .nth(1)
        .and_then(|v| v.split('.').nth(1))
        .and_then(|m| m.parse::<u32>().ok());
    minor.is_some_and(|m| m >= 90)
}
