//! `airlock --version` names the version and the MCP revisions, from the one
//! source the window's About reads too (`airlock_core::about`).

use std::process::Command;

#[test]
fn version_names_the_workspace_version_and_protocol_revisions() {
    let out = Command::new(env!("CARGO_BIN_EXE_airlock"))
        .arg("--version")
        .output()
        .expect("run airlock --version");
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        text.trim_end(),
        format!(
            "airlock {} (MCP 2026-07-28, 2025-11-25)",
            env!("CARGO_PKG_VERSION")
        )
    );
    assert_eq!(
        text.trim_end(),
        format!("airlock {}", airlock_core::about::version_line())
    );
}
