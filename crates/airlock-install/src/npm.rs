//! npm: the exact version installed into the server's folder with
//! `--ignore-scripts`, npm's lockfile kept, the bin file run with node.

use std::path::Path;

use serde_json::{json, Value};

use crate::{
    inside, lock_folder, read_bounded, run_tool, Artifact, InstallError, Installed, Lock, Request,
    Tools,
};

/// Largest package-lock.json or package.json read.
const MAX_JSON: u64 = 64 << 20;

/// The package.json Airlock writes: one dependency, exact.
fn manifest_json(identifier: &str, version: &str) -> String {
    json!({
        "name": "airlock-installed-server",
        "private": true,
        "description": "Installed by Airlock: one package at one exact version. Do not edit.",
        "dependencies": {identifier: version},
    })
    .to_string()
}

fn npm_cmd(tools: &Tools, dir: &Path, verb: &str) -> Result<tokio::process::Command, InstallError> {
    let npm = tools.npm.as_ref().ok_or(InstallError::Missing {
        kind: "npm".into(),
        tool: "npm",
    })?;
    let mut cmd = tokio::process::Command::new(npm);
    cmd.current_dir(dir)
        .arg(verb)
        .args([
            "--ignore-scripts",
            "--no-audit",
            "--no-fund",
            "--omit=dev",
            "--loglevel=error",
        ])
        .env("npm_config_update_notifier", "false");
    Ok(cmd)
}

/// A package name npm accepts (`name` or `@scope/name`), nothing that
/// could be read as a path, URL or flag.
fn check_identifier(id: &str) -> Result<(), InstallError> {
    let part_ok = |p: &str| {
        !p.is_empty()
            && !p.starts_with('.')
            && p.bytes().all(|b| {
                b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'-' | b'.' | b'_')
            })
    };
    let ok = id.len() <= 214
        && match id.strip_prefix('@').map(|r| r.split_once('/')) {
            Some(Some((scope, name))) => part_ok(scope) && part_ok(name),
            Some(None) => false,
            None => part_ok(id),
        };
    if ok {
        Ok(())
    } else {
        Err(InstallError::Refused(format!(
            "{id:?} is not an npm package name"
        )))
    }
}

pub(crate) async fn install(req: &Request<'_>, tools: &Tools) -> Result<Installed, InstallError> {
    check_identifier(req.identifier)?;
    let pj = req.dir.join("package.json");
    std::fs::write(&pj, manifest_json(req.identifier, req.version))
        .map_err(InstallError::io(&pj))?;
    run_tool("npm install", &mut npm_cmd(tools, req.dir, "install")?).await?;
    let lockfile = read_bounded(&req.dir.join("package-lock.json"), MAX_JSON)?;
    let (artifacts, scripts_skipped) = read_lock(&lockfile, req.identifier, req.version)?;
    let (command, args) = entry(req.dir, req.identifier, tools)?;
    let lock = lock_folder(
        "npm",
        req.identifier,
        req.version,
        artifacts,
        lockfile,
        req.dir,
    )?;
    Ok(Installed {
        command,
        args,
        env: Default::default(),
        lock,
        scripts_skipped,
    })
}

pub(crate) async fn reinstall(lock: &Lock, dir: &Path, tools: &Tools) -> Result<(), InstallError> {
    check_identifier(&lock.identifier)?;
    let pj = dir.join("package.json");
    std::fs::write(&pj, manifest_json(&lock.identifier, &lock.version))
        .map_err(InstallError::io(&pj))?;
    let pl = dir.join("package-lock.json");
    std::fs::write(&pl, &lock.lockfile).map_err(InstallError::io(&pl))?;
    // `npm ci` installs what the lockfile says and checks each package's
    // integrity: different bytes from the registry are refused.
    run_tool("npm ci", &mut npm_cmd(tools, dir, "ci")?).await
}

/// Every package npm locked, and those that want install scripts.
fn read_lock(
    lockfile: &str,
    identifier: &str,
    version: &str,
) -> Result<(Vec<Artifact>, Vec<String>), InstallError> {
    let bad = |why: &str| InstallError::Refused(format!("npm's package-lock.json: {why}"));
    let v: Value = serde_json::from_str(lockfile).map_err(|e| bad(&e.to_string()))?;
    let packages = v
        .get("packages")
        .and_then(Value::as_object)
        .ok_or_else(|| bad("no packages (lockfile version 2 or later is needed)"))?;
    let top = packages
        .get(&format!("node_modules/{identifier}"))
        .ok_or_else(|| bad(&format!("{identifier} is not in it")))?;
    let got = top.get("version").and_then(Value::as_str).unwrap_or("?");
    if got != version {
        return Err(InstallError::Refused(format!(
            "npm installed {identifier}@{got}, not the version asked for ({version})"
        )));
    }
    let mut artifacts = Vec::new();
    let mut scripts = Vec::new();
    for (path, p) in packages {
        let Some(name) = path.rsplit_once("node_modules/").map(|(_, n)| n) else {
            continue;
        };
        let version = p.get("version").and_then(Value::as_str).unwrap_or("?");
        if p.get("hasInstallScript").and_then(Value::as_bool) == Some(true) {
            scripts.push(format!("{name}@{version}"));
        }
        if p.get("link").and_then(Value::as_bool) == Some(true) {
            return Err(bad(&format!("{name} is a link to a folder, not a package")));
        }
        let Some(integrity) = p.get("integrity").and_then(Value::as_str) else {
            // Bundled with its parent: covered by the parent's integrity.
            if p.get("inBundle").and_then(Value::as_bool) == Some(true) {
                continue;
            }
            return Err(bad(&format!("{name} has no integrity hash")));
        };
        artifacts.push(Artifact {
            name: name.to_owned(),
            version: version.to_owned(),
            hash: integrity.to_owned(),
        });
    }
    Ok((artifacts, scripts))
}

/// How the package runs: node and its bin file (the one bin, or the one
/// named like the package).
fn entry(
    dir: &Path,
    identifier: &str,
    tools: &Tools,
) -> Result<(String, Vec<String>), InstallError> {
    let root = dir.join("node_modules").join(identifier);
    let text = read_bounded(&root.join("package.json"), MAX_JSON)?;
    let pkg: Value = serde_json::from_str(&text)
        .map_err(|e| InstallError::Refused(format!("{identifier}'s package.json: {e}")))?;
    let short = identifier.rsplit('/').next().unwrap_or(identifier);
    let file = match pkg.get("bin") {
        Some(Value::String(f)) => f.clone(),
        Some(Value::Object(bins)) if bins.len() == 1 => bins
            .values()
            .next()
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
        Some(Value::Object(bins)) => match bins.get(short).and_then(Value::as_str) {
            Some(f) => f.to_owned(),
            None => {
                let names: Vec<&str> = bins.keys().map(String::as_str).take(10).collect();
                return Err(InstallError::Refused(format!(
                    "{identifier} has several programs ({}) and none is named {short}",
                    names.join(", ")
                )));
            }
        },
        _ => {
            return Err(InstallError::Refused(format!(
                "{identifier} has no program to run (no \"bin\" in its package.json)"
            )))
        }
    };
    let bin = inside(&root, &root.join(&file))?;
    let node = tools.node.as_ref().ok_or(InstallError::Missing {
        kind: "npm".into(),
        tool: "node",
    })?;
    Ok((node.display().to_string(), vec![bin.display().to_string()]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_package_names_are_taken() {
        for ok in ["server", "@scope/server-x", "a.b_c"] {
            check_identifier(ok).unwrap();
        }
        for bad in [
            "",
            "../x",
            "@scope",
            "@scope/../x",
            "https://evil.test/x.tgz",
            "--registry=http://evil",
            "git+ssh://x",
            "Upper",
            "a/b",
            "file:..",
        ] {
            assert!(check_identifier(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_lock_names_every_package_and_its_scripts() {
        let lock = json!({
            "lockfileVersion": 3,
            "packages": {
                "": {"dependencies": {"@x/srv": "1.0.0"}},
                "node_modules/@x/srv": {"version": "1.0.0", "integrity": "sha512-aaa"},
                "node_modules/esbuild": {"version": "0.1.0", "integrity": "sha512-bbb", "hasInstallScript": true},
                "node_modules/@x/srv/node_modules/dep": {"version": "2.0.0", "inBundle": true}
            }
        })
        .to_string();
        let (a, s) = read_lock(&lock, "@x/srv", "1.0.0").unwrap();
        assert_eq!(a.len(), 2);
        assert_eq!(s, vec!["esbuild@0.1.0"]);
        let e = read_lock(&lock, "@x/srv", "1.0.1").unwrap_err().to_string();
        assert!(e.contains("not the version asked for"), "{e}");
        let no_hash = lock.replace("\"integrity\":\"sha512-bbb\",", "");
        assert!(read_lock(&no_hash, "@x/srv", "1.0.0").is_err());
    }

    #[test]
    fn a_bin_leading_out_of_the_package_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("node_modules/x");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(dir.path().join("outside.js"), "").unwrap();
        std::fs::write(root.join("package.json"), r#"{"bin": "../../outside.js"}"#).unwrap();
        let tools = Tools {
            node: Some("/usr/bin/node".into()),
            ..Tools::default()
        };
        let e = entry(dir.path(), "x", &tools).unwrap_err().to_string();
        assert!(e.contains("outside the package"), "{e}");
        std::fs::write(root.join("index.js"), "").unwrap();
        std::fs::write(
            root.join("package.json"),
            r#"{"bin": {"x": "index.js", "y": "y.js"}}"#,
        )
        .unwrap();
        let (cmd, args) = entry(dir.path(), "x", &tools).unwrap();
        assert_eq!(cmd, "/usr/bin/node");
        assert!(args[0].ends_with("node_modules/x/index.js"));
    }
}
