//! PyPI: a virtual environment per server, wheels only, every wheel's
//! SHA-256 written into a requirements file and installed with
//! `--require-hashes`.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::{
    inside, lock_folder, read_bounded, run_tool, Artifact, InstallError, Installed, Lock, Request,
    Tools,
};

/// The requirements file with hashes, as kept in the folder and the lock.
const REQUIREMENTS: &str = "requirements.lock";
/// Largest resolution report read.
const MAX_REPORT: u64 = 16 << 20;

/// A project name PyPI accepts (PEP 508's), nothing else.
fn check_identifier(id: &str) -> Result<(), InstallError> {
    let ok = !id.is_empty()
        && id.len() <= 200
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_'))
        && id.bytes().next().is_some_and(|b| b.is_ascii_alphanumeric())
        && id.bytes().last().is_some_and(|b| b.is_ascii_alphanumeric());
    if ok {
        Ok(())
    } else {
        Err(InstallError::Refused(format!(
            "{id:?} is not a PyPI project name"
        )))
    }
}

/// PEP 503's normal form.
fn normalize(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if matches!(c, '-' | '_' | '.') {
            if !out.ends_with('-') {
                out.push('-');
            }
        } else {
            out.push(c.to_ascii_lowercase());
        }
    }
    out
}

fn venv_python(dir: &Path) -> PathBuf {
    if cfg!(windows) {
        dir.join("venv").join("Scripts").join("python.exe")
    } else {
        dir.join("venv").join("bin").join("python")
    }
}

fn pip(dir: &Path) -> tokio::process::Command {
    let mut cmd = tokio::process::Command::new(venv_python(dir));
    cmd.current_dir(dir)
        .args(["-m", "pip", "--disable-pip-version-check", "--no-input"])
        .env("PIP_NO_COMPILE", "1")
        .env("PYTHONDONTWRITEBYTECODE", "1");
    cmd
}

async fn make_venv(dir: &Path, tools: &Tools) -> Result<(), InstallError> {
    let python = tools.python.as_ref().ok_or(InstallError::Missing {
        kind: "pypi".into(),
        tool: "python3",
    })?;
    run_tool(
        "python3 -m venv",
        tokio::process::Command::new(python)
            .current_dir(dir)
            .args(["-m", "venv", "venv"])
            .env("PYTHONDONTWRITEBYTECODE", "1"),
    )
    .await
}

async fn install_locked(dir: &Path) -> Result<(), InstallError> {
    run_tool(
        "pip install --require-hashes",
        pip(dir).args([
            "install",
            "--require-hashes",
            "--no-deps",
            "--only-binary",
            ":all:",
            "--no-compile",
            "-r",
            REQUIREMENTS,
        ]),
    )
    .await
}

pub(crate) async fn install(req: &Request<'_>, tools: &Tools) -> Result<Installed, InstallError> {
    check_identifier(req.identifier)?;
    make_venv(req.dir, tools).await?;
    // What pip would install, with each wheel's hash, and nothing run.
    run_tool(
        "pip install --dry-run",
        pip(req.dir).args([
            "install",
            "--dry-run",
            "--ignore-installed",
            "--only-binary",
            ":all:",
            "--quiet",
            "--report",
            "resolved.json",
            &format!("{}=={}", req.identifier, req.version),
        ]),
    )
    .await?;
    let report_path = req.dir.join("resolved.json");
    let report = read_bounded(&report_path, MAX_REPORT)?;
    let _ = std::fs::remove_file(&report_path);
    let artifacts = read_report(&report, req.identifier, req.version)?;
    let requirements: String = artifacts
        .iter()
        .map(|a| format!("{}=={} --hash={}\n", a.name, a.version, a.hash))
        .collect();
    let rp = req.dir.join(REQUIREMENTS);
    std::fs::write(&rp, &requirements).map_err(InstallError::io(&rp))?;
    install_locked(req.dir).await?;
    let command = entry(req.dir, req.identifier, req.version)?;
    let lock = lock_folder(
        "pypi",
        req.identifier,
        req.version,
        artifacts,
        requirements,
        req.dir,
    )?;
    Ok(Installed {
        command: command.display().to_string(),
        args: Vec::new(),
        env: [("PYTHONDONTWRITEBYTECODE".to_owned(), "1".to_owned())].into(),
        lock,
        scripts_skipped: Vec::new(),
    })
}

pub(crate) async fn reinstall(lock: &Lock, dir: &Path, tools: &Tools) -> Result<(), InstallError> {
    check_identifier(&lock.identifier)?;
    make_venv(dir, tools).await?;
    let rp = dir.join(REQUIREMENTS);
    std::fs::write(&rp, &lock.lockfile).map_err(InstallError::io(&rp))?;
    install_locked(dir).await
}

/// Every wheel pip chose, with its SHA-256 (`sha256:HEX`).
fn read_report(
    report: &str,
    identifier: &str,
    version: &str,
) -> Result<Vec<Artifact>, InstallError> {
    let bad = |why: String| InstallError::Refused(format!("pip's resolution: {why}"));
    let v: Value = serde_json::from_str(report).map_err(|e| bad(e.to_string()))?;
    let items = v
        .get("install")
        .and_then(Value::as_array)
        .ok_or_else(|| bad("no install list".into()))?;
    let mut out = Vec::new();
    let mut found = false;
    for item in items {
        let meta = item.get("metadata");
        let name = meta
            .and_then(|m| m.get("name"))
            .and_then(Value::as_str)
            .ok_or_else(|| bad("a package without a name".into()))?;
        let ver = meta
            .and_then(|m| m.get("version"))
            .and_then(Value::as_str)
            .ok_or_else(|| bad(format!("{name} without a version")))?;
        check_identifier(name)?;
        if !ver
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'+' | b'-' | b'!'))
        {
            return Err(bad(format!("{name}: odd version {ver:?}")));
        }
        let info = item.get("download_info");
        let url = info
            .and_then(|i| i.get("url"))
            .and_then(Value::as_str)
            .unwrap_or_default();
        if !url.ends_with(".whl") {
            return Err(bad(format!("{name} {ver} is not a wheel ({url})")));
        }
        let sha = info
            .and_then(|i| i.get("archive_info"))
            .and_then(|a| {
                a.get("hashes")
                    .and_then(|h| h.get("sha256"))
                    .and_then(Value::as_str)
                    .map(str::to_owned)
                    .or_else(|| {
                        a.get("hash")
                            .and_then(Value::as_str)
                            .and_then(|h| h.strip_prefix("sha256="))
                            .map(str::to_owned)
                    })
            })
            .filter(|h| h.len() == 64 && h.bytes().all(|b| b.is_ascii_hexdigit()))
            .ok_or_else(|| bad(format!("{name} {ver} has no SHA-256")))?;
        if normalize(name) == normalize(identifier) {
            if ver != version {
                return Err(InstallError::Refused(format!(
                    "pip chose {identifier} {ver}, not the version asked for ({version})"
                )));
            }
            found = true;
        }
        out.push(Artifact {
            name: normalize(name),
            version: ver.to_owned(),
            hash: format!("sha256:{sha}"),
        });
    }
    if !found {
        return Err(bad(format!("{identifier} is not in it")));
    }
    Ok(out)
}

/// The console script to run: the one named like the project, else the
/// project's only one.
fn entry(dir: &Path, identifier: &str, version: &str) -> Result<PathBuf, InstallError> {
    let bin = venv_python(dir)
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let named = bin.join(identifier);
    if named.is_file() {
        return inside(dir, &named);
    }
    // The project's own entry points.
    let dist = format!(
        "{}-{version}.dist-info",
        normalize(identifier).replace('-', "_")
    );
    let lib = dir.join("venv").join("lib");
    let points = std::fs::read_dir(&lib)
        .map_err(InstallError::io(&lib))?
        .flatten()
        .map(|py| {
            py.path()
                .join("site-packages")
                .join(&dist)
                .join("entry_points.txt")
        })
        .find(|p| p.is_file());
    let mut scripts = Vec::new();
    if let Some(p) = points {
        let text = read_bounded(&p, 1 << 20)?;
        let mut in_console = false;
        for line in text.lines() {
            let line = line.trim();
            if line.starts_with('[') {
                in_console = line == "[console_scripts]";
            } else if in_console {
                if let Some((name, _)) = line.split_once('=') {
                    scripts.push(name.trim().to_owned());
                }
            }
        }
    }
    match scripts.as_slice() {
        [one] if bin.join(one).is_file() => Ok(bin.join(one)),
        [] => Err(InstallError::Refused(format!(
            "{identifier} has no program to run (no console script)"
        ))),
        many => Err(InstallError::Refused(format!(
            "{identifier} has several programs ({}) and none is named {identifier}",
            many.join(", ")
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_checked_and_normalized() {
        check_identifier("mcp-server-fetch").unwrap();
        for bad in ["", "-x", "x y", "../x", "x==1", "x; rm -rf /", "https://x"] {
            assert!(check_identifier(bad).is_err(), "{bad}");
        }
        assert_eq!(normalize("Foo__Bar.baz"), "foo-bar-baz");
    }

    #[test]
    fn a_resolution_without_hashes_or_with_an_sdist_is_refused() {
        let good = r#"{"install": [
          {"metadata": {"name": "Srv", "version": "1.0.0"},
           "download_info": {"url": "http://x/srv-1.0.0-py3-none-any.whl",
                             "archive_info": {"hashes": {"sha256": "ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef0123456789"}}}}
        ]}"#;
        let a = read_report(good, "srv", "1.0.0").unwrap();
        assert_eq!(a[0].name, "srv");
        assert!(a[0].hash.starts_with("sha256:"));
        assert!(read_report(good, "srv", "1.0.1").is_err());
        let sdist = good.replace("py3-none-any.whl", "tar.gz");
        assert!(read_report(&sdist, "srv", "1.0.0").is_err());
        let nohash = good.replace("sha256", "md5");
        assert!(read_report(&nohash, "srv", "1.0.0").is_err());
    }
}
