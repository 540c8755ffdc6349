//! The systemd unit in assets/systemd/ (issue 40, item 7): `systemd-analyze verify` is clean
//! and `systemd-analyze security` scores below 3.0. Verified on a copy whose ExecStart is the
//! binary under test (the unit's /usr/bin/convo is where the Debian package puts it). Skipped,
//! with a message, where systemd-analyze is not installed.

use std::process::Command;

fn unit_with_binary(dir: &std::path::Path) -> std::path::PathBuf {
    let root = env!("CARGO_MANIFEST_DIR");
    let unit = std::fs::read_to_string(format!("{root}/assets/systemd/convo-exporter.service"))
        .expect("the unit");
    assert!(unit.contains("ExecStart=/usr/bin/convo exporter"), "{unit}");
    let path = dir.join("convo-exporter.service");
    std::fs::write(
        &path,
        unit.replace(
            "ExecStart=/usr/bin/convo",
            &format!("ExecStart={}", env!("CARGO_BIN_EXE_convo")),
        ),
    )
    .unwrap();
    path
}

#[test]
fn the_unit_verifies_clean_and_scores_below_3() {
    if Command::new("systemd-analyze")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("SKIPPED: systemd-analyze is not installed (apt-get install systemd)");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let unit = unit_with_binary(tmp.path());
    let v = Command::new("systemd-analyze")
        .arg("verify")
        .arg(&unit)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&v.stderr).to_string() + &String::from_utf8_lossy(&v.stdout);
    // Only lines about this unit count (a host's own units may have problems of their own).
    let ours: Vec<&str> = said
        .lines()
        .filter(|l| l.contains("convo-exporter.service"))
        .collect();
    assert!(v.status.success() && ours.is_empty(), "verify: {said}");

    let s = Command::new("systemd-analyze")
        .args(["security", "--offline=true", "--no-pager"])
        .arg(&unit)
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&s.stdout).to_string();
    let score: f64 = out
        .lines()
        .find_map(|l| {
            l.split("Overall exposure level for convo-exporter.service: ")
                .nth(1)
        })
        .and_then(|r| r.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no score:\n{out}\n{}", String::from_utf8_lossy(&s.stderr)));
    assert!(score < 3.0, "exposure {score}:\n{out}");
    eprintln!("systemd-analyze security: {score}");
}
