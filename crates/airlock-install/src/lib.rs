//! Servers installed from registry packages, locked to their bytes
//! (issue 35).
//!
//! Each server gets a folder of its own; what is installed there is the
//! exact version the registry entry names, and nothing of it runs while it
//! is installed:
//!
//! - **npm**: `npm install --ignore-scripts` of the exact version into the
//!   folder, with npm's lockfile (its `sha512` integrity of every package);
//!   the server is run as `node <its bin file>`, never through `npx` (which
//!   resolves the version again). Packages that want install scripts are
//!   named; their scripts do not run.
//! - **PyPI**: a virtual environment of its own; pip resolves wheels only
//!   (`--only-binary :all:`: an sdist's build would run code), the hashes
//!   are written into a requirements file and installed with
//!   `--require-hashes`; bytecode is never written (`--no-compile`, and
//!   `PYTHONDONTWRITEBYTECODE` for the server), so any `.pyc` is a change.
//! - **mcpb**: downloaded within a bound, its SHA-256 checked against the
//!   registry's `fileSha256` (refused on a mismatch, both shown), unpacked
//!   with no path leaving the folder and no links, run as its manifest says.
//!
//! Then every file of the folder is hashed into a [`lock::Lock`], which the
//! caller keeps outside the folder and checks at every start
//! ([`lock::verify`]). [`reinstall`] puts the same bytes back from the lock
//! (npm's and pip's hashes refuse different bytes from the registry).

pub mod lock;
mod mcpb;
mod npm;
mod pypi;
pub mod tools;

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

pub use lock::{Artifact, Drift, Lock};
pub use tools::Tools;

/// Longest a package manager may take.
pub const INSTALL_TIMEOUT: Duration = Duration::from_secs(600);

/// Package kinds this crate installs.
pub const KINDS: &[&str] = &["npm", "pypi", "mcpb"];

/// What to install.
#[derive(Debug, Clone)]
pub struct Request<'a> {
    /// `npm`, `pypi` or `mcpb`.
    pub kind: &'a str,
    /// The package's name (npm, PyPI) or the bundle's URL (mcpb).
    pub identifier: &'a str,
    /// Exact.
    pub version: &'a str,
    /// The registry's hash of the file (required for mcpb).
    pub file_sha256: Option<&'a str>,
    /// The folder it goes into (made; must not exist yet).
    pub dir: &'a Path,
}

/// What was installed and how it runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Installed {
    /// An absolute path.
    pub command: String,
    pub args: Vec<String>,
    /// Fixed environment the server runs with.
    pub env: BTreeMap<String, String>,
    pub lock: Lock,
    /// Packages whose install scripts did not run (`name@version: script`).
    pub scripts_skipped: Vec<String>,
}

/// Why an install failed.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    #[error("{kind} packages need {tool}, which this computer does not have on its PATH")]
    Missing { kind: String, tool: &'static str },
    #[error("{what} failed: {detail}")]
    Tool { what: String, detail: String },
    #[error("the downloaded file's SHA-256 is {got}, but the registry says {expected}: refused")]
    HashMismatch { expected: String, got: String },
    #[error("{0}")]
    Refused(String),
    #[error(transparent)]
    Manifest(#[from] lock::ManifestError),
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
}

impl InstallError {
    pub(crate) fn io(path: &Path) -> impl FnOnce(std::io::Error) -> InstallError + '_ {
        move |source| InstallError::Io {
            path: path.display().to_string(),
            source,
        }
    }
}

/// Can this computer install and run a package of `kind`?
pub fn runnable(kind: &str, tools: &Tools) -> Result<(), InstallError> {
    let missing = |tool| {
        Err(InstallError::Missing {
            kind: kind.to_owned(),
            tool,
        })
    };
    match kind {
        "npm" if tools.node.is_none() => missing("node"),
        "npm" if tools.npm.is_none() => missing("npm"),
        "pypi" if tools.python.is_none() => missing("python3"),
        "npm" | "pypi" | "mcpb" => Ok(()),
        "oci" => Err(InstallError::Refused(
            "container images (oci) are not installed by Airlock yet".into(),
        )),
        other => Err(InstallError::Refused(format!(
            "{other} packages are not installed by Airlock"
        ))),
    }
}

/// Install `req` into `req.dir` and lock it. On failure the folder is
/// removed.
pub async fn install(req: &Request<'_>, tools: &Tools) -> Result<Installed, InstallError> {
    runnable(req.kind, tools)?;
    if req.dir.exists() {
        return Err(InstallError::Refused(format!(
            "{} already exists: remove the server that uses it first",
            req.dir.display()
        )));
    }
    std::fs::create_dir_all(req.dir).map_err(InstallError::io(req.dir))?;
    let done = match req.kind {
        "npm" => npm::install(req, tools).await,
        "pypi" => pypi::install(req, tools).await,
        _ => mcpb::install(req, tools).await,
    };
    if done.is_err() {
        let _ = std::fs::remove_dir_all(req.dir);
    }
    done
}

/// Put back in `dir` the bytes `lock` recorded (after a file changed).
/// The package managers check their hashes; the folder must then match
/// the lock file for file.
pub async fn reinstall(lock: &Lock, dir: &Path, tools: &Tools) -> Result<(), InstallError> {
    runnable(&lock.kind, tools)?;
    if dir.exists() {
        std::fs::remove_dir_all(dir).map_err(InstallError::io(dir))?;
    }
    std::fs::create_dir_all(dir).map_err(InstallError::io(dir))?;
    match lock.kind.as_str() {
        "npm" => npm::reinstall(lock, dir, tools).await?,
        "pypi" => pypi::reinstall(lock, dir, tools).await?,
        _ => mcpb::reinstall(lock, dir).await?,
    }
    match lock::verify(dir, lock)? {
        Ok(()) => Ok(()),
        Err(drift) => Err(InstallError::Refused(format!(
            "installed again, but not the same bytes: {drift}"
        ))),
    }
}

/// Run a package manager with a time bound; its output's tail on failure.
pub(crate) async fn run_tool(
    what: &str,
    cmd: &mut tokio::process::Command,
) -> Result<(), InstallError> {
    cmd.stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true);
    let out = tokio::time::timeout(INSTALL_TIMEOUT, cmd.output())
        .await
        .map_err(|_| InstallError::Tool {
            what: what.to_owned(),
            detail: format!("it took longer than {} s", INSTALL_TIMEOUT.as_secs()),
        })?
        .map_err(|e| InstallError::Tool {
            what: what.to_owned(),
            detail: e.to_string(),
        })?;
    if out.status.success() {
        return Ok(());
    }
    let mut text = String::from_utf8_lossy(&out.stderr).into_owned();
    if text.trim().is_empty() {
        text = String::from_utf8_lossy(&out.stdout).into_owned();
    }
    Err(InstallError::Tool {
        what: what.to_owned(),
        detail: tail(&text, 1500),
    })
}

/// The last `max` bytes of `text` (on a character boundary), trimmed, with
/// control characters but newlines dropped.
pub(crate) fn tail(text: &str, max: usize) -> String {
    let text = text.trim();
    let mut start = text.len().saturating_sub(max);
    while !text.is_char_boundary(start) {
        start += 1;
    }
    text[start..]
        .chars()
        .filter(|c| !c.is_control() || *c == '\n')
        .collect()
}

/// Read a file the install made, within `max` bytes.
pub(crate) fn read_bounded(path: &Path, max: u64) -> Result<String, InstallError> {
    let meta = std::fs::metadata(path).map_err(InstallError::io(path))?;
    if meta.len() > max {
        return Err(InstallError::Refused(format!(
            "{} is larger than {max} bytes",
            path.display()
        )));
    }
    std::fs::read_to_string(path).map_err(InstallError::io(path))
}

/// `path` (made absolute and without links) lies inside `root`.
pub(crate) fn inside(root: &Path, path: &Path) -> Result<std::path::PathBuf, InstallError> {
    let real_root = std::fs::canonicalize(root).map_err(InstallError::io(root))?;
    let real = std::fs::canonicalize(path).map_err(InstallError::io(path))?;
    if real.starts_with(&real_root) {
        Ok(real)
    } else {
        Err(InstallError::Refused(format!(
            "{} leads outside the package ({})",
            path.display(),
            real.display()
        )))
    }
}

/// Lock the folder as it is now.
pub(crate) fn lock_folder(
    req_kind: &str,
    identifier: &str,
    version: &str,
    artifacts: Vec<Artifact>,
    lockfile: String,
    dir: &Path,
) -> Result<Lock, InstallError> {
    let files = lock::manifest(dir)?;
    Ok(Lock {
        kind: req_kind.to_owned(),
        identifier: identifier.to_owned(),
        version: version.to_owned(),
        artifacts,
        lockfile,
        digest: lock::digest(&files),
        files,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tails_keep_the_end_and_drop_controls() {
        assert_eq!(tail("  abc\u{1b}[31mdef  ", 4), "mdef");
        assert_eq!(tail("ééé", 3), "é");
    }

    #[test]
    fn what_cannot_run_here_is_said() {
        let none = Tools::default();
        let e = runnable("npm", &none).unwrap_err().to_string();
        assert!(e.contains("node"), "{e}");
        assert!(runnable("oci", &none).is_err());
        assert!(runnable("nuget", &none).is_err());
        assert!(runnable("mcpb", &none).is_ok());
    }
}
