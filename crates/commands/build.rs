//! Names the build for `convo --version`, `convo doctor` and the exporter's `convo_build_info`
//! (`CONVO_BUILD`): the commit (`git rev-parse --short`) and the build date
//! (`SOURCE_DATE_EPOCH` when set, for reproducible builds; else today, UTC), so a bug report
//! says what was run. Outside a git checkout (a crate tarball) only the date. Here, in the
//! lowest crate that shows it, so that a new commit rebuilds only this crate and those above.

use std::env;
use std::path::Path;
use std::process::Command;

fn main() {
    build_name();
    println!("cargo:rerun-if-changed=build.rs");
}

/// Sets `CONVO_BUILD` to `COMMIT DATE` (or `DATE`), and asks to be run again on a new commit.
fn build_name() {
    println!("cargo:rerun-if-env-changed=SOURCE_DATE_EPOCH");
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .filter(|s| !s.is_empty())
    };
    let commit = git(&["rev-parse", "--short=7", "HEAD"]);
    // A new commit or checkout changes HEAD or the branch it names (or packed-refs); in a
    // worktree they live in different directories, which --git-path resolves.
    let mut watched = vec!["HEAD".to_string(), "packed-refs".to_string()];
    watched.extend(git(&["symbolic-ref", "-q", "HEAD"]));
    for name in watched {
        // A path that does not exist (a packed branch) would make cargo run this every time.
        if let Some(path) = git(&["rev-parse", "--git-path", &name])
            && Path::new(&path).exists()
        {
            println!("cargo:rerun-if-changed={path}");
        }
    }
    let secs = env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|s| s.trim().parse::<i64>().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs() as i64)
        });
    let date = civil_date(secs.div_euclid(86_400));
    let name = match commit {
        Some(c) => format!("{c} {date}"),
        None => date,
    };
    println!("cargo:rustc-env=CONVO_BUILD={name}");
}

/// `YYYY-MM-DD` of a day number since 1970-01-01 (Howard Hinnant's civil_from_days).
fn civil_date(days: i64) -> String {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}
