//! mcpb (MCP Bundles): a zip with a `manifest.json`. Downloaded within a
//! bound, checked against the registry's SHA-256, unpacked with nothing
//! leaving the folder, run as the manifest's `server.mcp_config` says.

use std::io::Read;
use std::path::{Component, Path, PathBuf};

use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::{
    inside, lock_folder, read_bounded, Artifact, InstallError, Installed, Lock, Request, Tools,
};

/// Largest bundle downloaded.
pub const MAX_BUNDLE_BYTES: u64 = 512 << 20;
/// Most entries a bundle may hold.
pub const MAX_ENTRIES: usize = 50_000;
/// Most bytes a bundle may unpack to.
pub const MAX_UNPACKED_BYTES: u64 = 2 << 30;
/// Where the bundle is unpacked, inside the server's folder.
const UNPACKED: &str = "bundle";

/// Only `https`, or `http` to this computer.
fn check_url(s: &str) -> Result<url::Url, InstallError> {
    let u = url::Url::parse(s)
        .map_err(|_| InstallError::Refused(format!("{s:?} is not a bundle URL")))?;
    let loopback = matches!(
        u.host(),
        Some(url::Host::Ipv4(ip)) if ip.is_loopback()
    ) || matches!(u.host(), Some(url::Host::Ipv6(ip)) if ip.is_loopback())
        || u.host_str() == Some("localhost");
    if u.scheme() == "https" || (u.scheme() == "http" && loopback) {
        Ok(u)
    } else {
        Err(InstallError::Refused(format!(
            "{s} is not https: a bundle is only downloaded over https"
        )))
    }
}

async fn download(u: &url::Url) -> Result<Vec<u8>, InstallError> {
    let fail = |detail: String| InstallError::Tool {
        what: format!("downloading {u}"),
        detail,
    };
    let client = reqwest::Client::builder()
        .timeout(crate::INSTALL_TIMEOUT)
        .redirect(reqwest::redirect::Policy::limited(5))
        .build()
        .map_err(|e| fail(e.to_string()))?;
    let mut resp = client
        .get(u.clone())
        .send()
        .await
        .map_err(|e| fail(e.to_string()))?;
    if !resp.status().is_success() {
        return Err(fail(format!("the server answered {}", resp.status())));
    }
    let mut out = Vec::new();
    while let Some(chunk) = resp.chunk().await.map_err(|e| fail(e.to_string()))? {
        if out.len() as u64 + chunk.len() as u64 > MAX_BUNDLE_BYTES {
            return Err(fail(format!("larger than {MAX_BUNDLE_BYTES} bytes")));
        }
        out.extend_from_slice(&chunk);
    }
    Ok(out)
}

fn check_hash(bytes: &[u8], expected: Option<&str>) -> Result<String, InstallError> {
    let got = hex::encode(Sha256::digest(bytes));
    let Some(expected) = expected else {
        return Err(InstallError::Refused(
            "the registry gives no SHA-256 for this bundle (fileSha256 is required for mcpb): refused"
                .into(),
        ));
    };
    if !got.eq_ignore_ascii_case(expected) {
        return Err(InstallError::HashMismatch {
            expected: expected.to_ascii_lowercase(),
            got,
        });
    }
    Ok(got)
}

/// A path inside the bundle: relative, no `..`, no root or prefix.
fn safe_path(name: &str) -> Option<PathBuf> {
    let p = Path::new(name);
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::Normal(s) => out.push(s),
            Component::CurDir => {}
            _ => return None,
        }
    }
    (!out.as_os_str().is_empty()).then_some(out)
}

fn unpack(bytes: &[u8], to: &Path) -> Result<(), InstallError> {
    let bad = |why: String| InstallError::Refused(format!("the bundle: {why}"));
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes))
        .map_err(|e| bad(format!("not a zip file ({e})")))?;
    if zip.len() > MAX_ENTRIES {
        return Err(bad(format!("more than {MAX_ENTRIES} entries")));
    }
    let mut total = 0u64;
    for i in 0..zip.len() {
        let mut f = zip.by_index(i).map_err(|e| bad(e.to_string()))?;
        let name = f.name().to_owned();
        let Some(rel) = safe_path(&name) else {
            return Err(bad(format!("{name:?} would be written outside its folder")));
        };
        if f.is_symlink() {
            return Err(bad(format!("{name:?} is a link")));
        }
        let out = to.join(&rel);
        if f.is_dir() {
            std::fs::create_dir_all(&out).map_err(InstallError::io(&out))?;
            continue;
        }
        if let Some(parent) = out.parent() {
            std::fs::create_dir_all(parent).map_err(InstallError::io(parent))?;
        }
        // The declared size is not trusted: the copy itself is bounded.
        let room = MAX_UNPACKED_BYTES.saturating_sub(total);
        let mut file = std::fs::File::create_new(&out).map_err(InstallError::io(&out))?;
        let copied = std::io::copy(&mut (&mut f).take(room + 1), &mut file)
            .map_err(InstallError::io(&out))?;
        total += copied;
        if total > MAX_UNPACKED_BYTES {
            return Err(bad(format!(
                "unpacks to more than {MAX_UNPACKED_BYTES} bytes"
            )));
        }
        #[cfg(unix)]
        if f.unix_mode().is_some_and(|m| m & 0o111 != 0) {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o755))
                .map_err(InstallError::io(&out))?;
        }
    }
    Ok(())
}

/// `${__dirname}` and `${/}` put in; any other placeholder refused.
fn fill(text: &str, dirname: &str) -> Result<String, InstallError> {
    let out = text
        .replace("${__dirname}", dirname)
        .replace("${/}", std::path::MAIN_SEPARATOR_STR)
        .replace("${pathSeparator}", std::path::MAIN_SEPARATOR_STR);
    if let Some(at) = out.find("${") {
        let rest: String = out[at..].chars().take(40).collect();
        return Err(InstallError::Refused(format!(
            "the bundle's manifest asks for a setting Airlock does not fill in yet ({rest})"
        )));
    }
    Ok(out)
}

/// How a bundle runs: program, arguments, environment.
type Launch = (String, Vec<String>, Vec<(String, String)>);

/// The command and arguments the manifest gives, made absolute.
fn command_of(root: &Path, tools: &Tools) -> Result<Launch, InstallError> {
    let text = read_bounded(&root.join("manifest.json"), 1 << 20)?;
    let bad = |why: String| InstallError::Refused(format!("the bundle's manifest.json: {why}"));
    let m: Value = serde_json::from_str(&text).map_err(|e| bad(e.to_string()))?;
    let server = m.get("server").ok_or_else(|| bad("no server".into()))?;
    let config = server
        .get("mcp_config")
        .ok_or_else(|| bad("no server.mcp_config".into()))?;
    let dirname = std::fs::canonicalize(root)
        .map_err(InstallError::io(root))?
        .display()
        .to_string();
    let command = config
        .get("command")
        .and_then(Value::as_str)
        .ok_or_else(|| bad("no command".into()))?;
    let command = fill(command, &dirname)?;
    let args = config
        .get("args")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .take(256)
                .filter_map(Value::as_str)
                .map(|s| fill(s, &dirname))
                .collect()
        })
        .transpose()?
        .unwrap_or_default();
    let mut env = Vec::new();
    if let Some(e) = config.get("env").and_then(Value::as_object) {
        for (k, v) in e.iter().take(256) {
            if !k.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
                return Err(bad(format!("odd environment name {k:?}")));
            }
            env.push((k.clone(), fill(v.as_str().unwrap_or_default(), &dirname)?));
        }
    }
    let program = match command.as_str() {
        "node" => tools.node.clone().ok_or(InstallError::Missing {
            kind: "mcpb".into(),
            tool: "node",
        })?,
        "python" | "python3" => tools.python.clone().ok_or(InstallError::Missing {
            kind: "mcpb".into(),
            tool: "python3",
        })?,
        // Anything else must be a program of the bundle's own.
        other => inside(root, Path::new(other))?,
    };
    Ok((program.display().to_string(), args, env))
}

pub(crate) async fn install(req: &Request<'_>, tools: &Tools) -> Result<Installed, InstallError> {
    let u = check_url(req.identifier)?;
    let bytes = download(&u).await?;
    let sha = check_hash(&bytes, req.file_sha256)?;
    let root = req.dir.join(UNPACKED);
    std::fs::create_dir_all(&root).map_err(InstallError::io(&root))?;
    unpack(&bytes, &root)?;
    let (command, args, env) = command_of(&root, tools)?;
    let lock = lock_folder(
        "mcpb",
        req.identifier,
        req.version,
        vec![Artifact {
            name: req.identifier.to_owned(),
            version: req.version.to_owned(),
            hash: format!("sha256:{sha}"),
        }],
        String::new(),
        req.dir,
    )?;
    Ok(Installed {
        command,
        args,
        env: env.into_iter().collect(),
        lock,
        scripts_skipped: Vec::new(),
    })
}

pub(crate) async fn reinstall(lock: &Lock, dir: &Path) -> Result<(), InstallError> {
    let u = check_url(&lock.identifier)?;
    let expected = lock
        .artifacts
        .first()
        .and_then(|a| a.hash.strip_prefix("sha256:"))
        .map(str::to_owned);
    let bytes = download(&u).await?;
    check_hash(&bytes, expected.as_deref())?;
    let root = dir.join(UNPACKED);
    std::fs::create_dir_all(&root).map_err(InstallError::io(&root))?;
    unpack(&bytes, &root)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn zip_of(entries: &[(&str, &[u8])]) -> Vec<u8> {
        let mut buf = std::io::Cursor::new(Vec::new());
        {
            let mut z = zip::ZipWriter::new(&mut buf);
            for (name, data) in entries {
                z.start_file(*name, zip::write::SimpleFileOptions::default())
                    .unwrap();
                z.write_all(data).unwrap();
            }
            z.finish().unwrap();
        }
        buf.into_inner()
    }

    #[test]
    fn a_path_out_of_the_folder_is_refused() {
        for bad in ["../x", "/etc/passwd", "a/../../x", ""] {
            assert!(safe_path(bad).is_none(), "{bad}");
        }
        let dir = tempfile::tempdir().unwrap();
        let z = zip_of(&[("ok.txt", b"ok"), ("../evil.txt", b"x")]);
        let e = unpack(&z, dir.path()).unwrap_err().to_string();
        assert!(e.contains("outside its folder"), "{e}");
        assert!(!dir.path().parent().unwrap().join("evil.txt").exists());
    }

    #[test]
    fn hashes_must_match_and_be_given() {
        let h = hex::encode(Sha256::digest(b"bundle"));
        assert_eq!(check_hash(b"bundle", Some(&h.to_uppercase())).unwrap(), h);
        let e = check_hash(b"other", Some(&h)).unwrap_err().to_string();
        assert!(e.contains(&h) && e.contains("refused"), "{e}");
        assert!(check_hash(b"bundle", None).is_err());
    }

    #[test]
    fn the_manifest_says_how_it_runs() {
        let dir = tempfile::tempdir().unwrap();
        let z = zip_of(&[
            ("manifest.json", br#"{"server": {"type": "node", "entry_point": "server/index.js",
              "mcp_config": {"command": "node", "args": ["${__dirname}/server/index.js"], "env": {"MODE": "x"}}}}"#),
            ("server/index.js", b"// server"),
        ]);
        unpack(&z, dir.path()).unwrap();
        let tools = Tools {
            node: Some("/usr/bin/node".into()),
            ..Tools::default()
        };
        let (cmd, args, env) = command_of(dir.path(), &tools).unwrap();
        assert_eq!(cmd, "/usr/bin/node");
        assert!(args[0].ends_with("/server/index.js") && !args[0].contains("${"));
        assert_eq!(env, vec![("MODE".to_owned(), "x".to_owned())]);
        // A program outside the bundle, or a setting not filled in: refused.
        std::fs::write(
            dir.path().join("manifest.json"),
            r#"{"server": {"mcp_config": {"command": "/bin/sh", "args": []}}}"#,
        )
        .unwrap();
        assert!(command_of(dir.path(), &tools).is_err());
        std::fs::write(
            dir.path().join("manifest.json"),
            r#"{"server": {"mcp_config": {"command": "node", "args": ["${user_config.key}"]}}}"#,
        )
        .unwrap();
        let e = command_of(dir.path(), &tools).unwrap_err().to_string();
        assert!(e.contains("user_config.key"), "{e}");
    }

    #[test]
    fn only_https_or_this_computer() {
        check_url("https://example.com/x.mcpb").unwrap();
        check_url("http://127.0.0.1:8080/x.mcpb").unwrap();
        assert!(check_url("http://example.com/x.mcpb").is_err());
        assert!(check_url("file:///etc/passwd").is_err());
    }
}
