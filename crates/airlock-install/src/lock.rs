//! What was installed, to the byte: every file of a server's package folder
//! with its SHA-256 (a symbolic link with its target), and one digest over
//! the whole list. Made once at install; checked at every start, where a
//! file changed, added or removed since holds the server and names the path.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// Most files a package folder may hold.
pub const MAX_FILES: usize = 200_000;
/// Most bytes a package folder may hold.
pub const MAX_TOTAL_BYTES: u64 = 4 << 30;

/// One package of what was installed, as its package manager locked it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Artifact {
    pub name: String,
    pub version: String,
    /// The package manager's hash of the downloaded bytes
    /// (`sha512-…` for npm, `sha256:…` for wheels and bundles).
    pub hash: String,
}

/// The record of an install, kept by Airlock (not in the folder, which the
/// record is checked against).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lock {
    /// `npm`, `pypi` or `mcpb`.
    pub kind: String,
    pub identifier: String,
    pub version: String,
    /// Every package that came with it, hashes as downloaded.
    pub artifacts: Vec<Artifact>,
    /// The package manager's own lock (npm's package-lock.json, the
    /// requirements with `--hash`), to install the same bytes again.
    pub lockfile: String,
    /// Relative path → `sha256:HEX` (a file) or `link:TARGET`.
    pub files: BTreeMap<String, String>,
    /// SHA-256 over `files` (what the person is shown as "the hash").
    pub digest: String,
}

/// How the folder differs from its lock (the first difference found, and
/// how many there are).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Drift {
    pub path: String,
    /// `changed`, `added` or `removed`.
    pub what: &'static str,
    pub count: usize,
}

impl std::fmt::Display for Drift {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} was {} since install", self.path, self.what)?;
        if self.count > 1 {
            write!(f, " ({} differences in all)", self.count)?;
        }
        Ok(())
    }
}

/// Why a folder could not be read as a whole.
#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{0} holds more than {MAX_FILES} files or {MAX_TOTAL_BYTES} bytes")]
    TooBig(PathBuf),
    #[error("{0} is neither a file, a folder nor a link")]
    Odd(PathBuf),
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> ManifestError + '_ {
    move |source| ManifestError::Io {
        path: path.to_owned(),
        source,
    }
}

/// Every file under `root` (links not followed), sorted by path.
pub fn manifest(root: &Path) -> Result<BTreeMap<String, String>, ManifestError> {
    let mut out = BTreeMap::new();
    let mut total = 0u64;
    let mut stack = vec![root.to_owned()];
    let mut buf = vec![0u8; 64 * 1024];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).map_err(io(&dir))? {
            let entry = entry.map_err(io(&dir))?;
            let path = entry.path();
            let meta = std::fs::symlink_metadata(&path).map_err(io(&path))?;
            let rel = path
                .strip_prefix(root)
                .unwrap_or(&path)
                .to_string_lossy()
                .replace('\\', "/");
            if out.len() >= MAX_FILES {
                return Err(ManifestError::TooBig(root.to_owned()));
            }
            let ft = meta.file_type();
            if ft.is_symlink() {
                let target = std::fs::read_link(&path).map_err(io(&path))?;
                out.insert(rel, format!("link:{}", target.to_string_lossy()));
            } else if ft.is_dir() {
                stack.push(path);
            } else if ft.is_file() {
                total = total.saturating_add(meta.len());
                if total > MAX_TOTAL_BYTES {
                    return Err(ManifestError::TooBig(root.to_owned()));
                }
                let mut f = std::fs::File::open(&path).map_err(io(&path))?;
                let mut h = Sha256::new();
                loop {
                    let n = f.read(&mut buf).map_err(io(&path))?;
                    if n == 0 {
                        break;
                    }
                    h.update(&buf[..n]);
                }
                let mode = executable(&meta);
                out.insert(rel, format!("sha256:{}{mode}", hex::encode(h.finalize())));
            } else {
                return Err(ManifestError::Odd(path));
            }
        }
    }
    Ok(out)
}

/// An executable file is marked: making a file executable changes it.
#[cfg(unix)]
fn executable(meta: &std::fs::Metadata) -> &'static str {
    use std::os::unix::fs::PermissionsExt;
    if meta.permissions().mode() & 0o111 != 0 {
        " x"
    } else {
        ""
    }
}

#[cfg(not(unix))]
fn executable(_meta: &std::fs::Metadata) -> &'static str {
    ""
}

/// One digest over a manifest.
pub fn digest(files: &BTreeMap<String, String>) -> String {
    let mut h = Sha256::new();
    for (path, hash) in files {
        h.update(path.as_bytes());
        h.update([0]);
        h.update(hash.as_bytes());
        h.update([b'\n']);
    }
    format!("sha256:{}", hex::encode(h.finalize()))
}

/// Is `root` still what `lock` recorded?
pub fn verify(root: &Path, lock: &Lock) -> Result<Result<(), Drift>, ManifestError> {
    let now = manifest(root)?;
    if digest(&now) == lock.digest && now == lock.files {
        return Ok(Ok(()));
    }
    let mut first: Option<(String, &'static str)> = None;
    let mut count = 0usize;
    for (path, hash) in &lock.files {
        let what = match now.get(path) {
            None => "removed",
            Some(h) if h != hash => "changed",
            Some(_) => continue,
        };
        count += 1;
        first.get_or_insert((path.clone(), what));
    }
    for path in now.keys() {
        if !lock.files.contains_key(path) {
            count += 1;
            first.get_or_insert((path.clone(), "added"));
        }
    }
    let (path, what) = first.unwrap_or_else(|| (String::from("(the folder)"), "changed"));
    Ok(Err(Drift {
        path: root.join(path).display().to_string(),
        what,
        count,
    }))
}

/// SHA-256 of bytes, as `HEX`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lock_of(root: &Path) -> Lock {
        let files = manifest(root).unwrap();
        Lock {
            kind: "npm".into(),
            identifier: "x".into(),
            version: "1.0.0".into(),
            artifacts: vec![],
            lockfile: String::new(),
            digest: digest(&files),
            files,
        }
    }

    #[test]
    fn a_changed_added_or_removed_file_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("a/b")).unwrap();
        std::fs::write(root.join("a/b/index.js"), "ok").unwrap();
        std::fs::write(root.join("package.json"), "{}").unwrap();
        let lock = lock_of(root);
        assert_eq!(lock.files.len(), 2);
        assert!(verify(root, &lock).unwrap().is_ok());

        std::fs::write(root.join("a/b/index.js"), "evil").unwrap();
        let d = verify(root, &lock).unwrap().unwrap_err();
        assert!(
            d.path.ends_with("a/b/index.js") && d.what == "changed",
            "{d}"
        );

        std::fs::write(root.join("a/b/index.js"), "ok").unwrap();
        std::fs::write(root.join("a/b/extra.js"), "more").unwrap();
        let d = verify(root, &lock).unwrap().unwrap_err();
        assert_eq!((d.what, d.count), ("added", 1), "{d}");

        std::fs::remove_file(root.join("a/b/extra.js")).unwrap();
        std::fs::remove_file(root.join("package.json")).unwrap();
        let d = verify(root, &lock).unwrap().unwrap_err();
        assert_eq!(d.what, "removed", "{d}");
    }

    #[cfg(unix)]
    #[test]
    fn a_link_or_a_new_executable_bit_is_a_change() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("run"), "#!/bin/sh\n").unwrap();
        std::os::unix::fs::symlink("run", root.join("link")).unwrap();
        let lock = lock_of(root);
        assert_eq!(lock.files["link"], "link:run");
        std::fs::set_permissions(root.join("run"), std::fs::Permissions::from_mode(0o755)).unwrap();
        assert!(verify(root, &lock).unwrap().is_err());
        std::fs::set_permissions(root.join("run"), std::fs::Permissions::from_mode(0o644)).unwrap();
        std::fs::remove_file(root.join("link")).unwrap();
        std::os::unix::fs::symlink("/etc/passwd", root.join("link")).unwrap();
        let d = verify(root, &lock).unwrap().unwrap_err();
        assert!(d.path.ends_with("link") && d.what == "changed", "{d}");
    }
}
