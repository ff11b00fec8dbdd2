//! Reading the policy files from where administrators put them.

use std::fmt;
use std::fs::{self, File};
use std::io::Read;
use std::path::{Path, PathBuf};

use crate::decide::Policy;
use crate::model::{PolicyFile, MAX_FILE_BYTES};

/// Most files read from a `policy.d` folder.
pub const MAX_DROP_IN_FILES: usize = 1000;

/// The policy's locations on this platform, in the order they are read: the
/// main file, then the drop-in folder (`*.json` in name order).
///
/// - Linux and other Unix: `/etc/airlock/policy.json`, `/etc/airlock/policy.d/`
/// - macOS: `/Library/Application Support/Airlock/policy.json` and `policy.d/`
/// - Windows: `%ProgramData%\Airlock\policy.json` and `policy.d\`, where
///   ProgramData is `C:\ProgramData` (fixed: the environment variable is not
///   read, since a user can set it).
///
/// Not read yet: the Windows registry key `HKLM\SOFTWARE\Policies\Airlock`
/// and macOS managed preferences (configuration profiles); [`load_default`]
/// says so in [`Loaded::notes`]. No environment variable or flag moves these
/// locations: release builds read only these.
pub fn default_locations() -> Vec<PathBuf> {
    let base = platform_base();
    vec![base.join("policy.json"), base.join("policy.d")]
}

#[cfg(target_os = "macos")]
fn platform_base() -> PathBuf {
    PathBuf::from("/Library/Application Support/Airlock")
}

#[cfg(windows)]
fn platform_base() -> PathBuf {
    // Not `%ProgramData%`: a user can set that variable for the processes
    // they start, and no environment variable may move the policy.
    // TODO(issue 36): ask Windows for FOLDERID_ProgramData
    // (SHGetKnownFolderPath) for a system on another drive.
    PathBuf::from(r"C:\ProgramData\Airlock")
}

#[cfg(not(any(target_os = "macos", windows)))]
fn platform_base() -> PathBuf {
    PathBuf::from("/etc/airlock")
}

/// A policy file that was refused because the user could rewrite it; its
/// rules do not apply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileWarning {
    /// The file.
    pub path: PathBuf,
    /// Why it was refused.
    pub reason: String,
}

impl fmt::Display for FileWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the policy file {} is ignored: {}",
            self.path.display(),
            self.reason
        )
    }
}

/// Why a policy file's text is not a policy: the key path (when the problem
/// is a value), the line and column (1-based; 0 when unknown) and what is
/// wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.describe())]
pub struct ParseError {
    /// The key path, e.g. `deniedServers[2].artifactSha256`.
    pub key: Option<String>,
    /// Line, 1-based (0 when the problem is not at a place in the text).
    pub line: usize,
    /// Column, 1-based.
    pub column: usize,
    /// What is wrong.
    pub message: String,
}

impl ParseError {
    fn describe(&self) -> String {
        let mut s = String::new();
        if let Some(k) = &self.key {
            s.push_str(k);
            s.push_str(": ");
        }
        s.push_str(&self.message);
        if self.line > 0 {
            s.push_str(&format!(" (line {}, column {})", self.line, self.column));
        }
        s
    }
}

/// A policy file that could not be read or parsed. Any such file makes the
/// whole policy fail closed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileError {
    /// The file.
    pub path: PathBuf,
    /// What went wrong (a parse error has its key, line and column).
    pub error: LoadProblem,
}

/// What went wrong with a policy file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoadProblem {
    /// It could not be read (permissions, I/O, too large, not UTF-8).
    Read(String),
    /// Its text is not a valid policy.
    Parse(ParseError),
}

impl fmt::Display for LoadProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadProblem::Read(s) => f.write_str(s),
            LoadProblem::Parse(e) => write!(f, "{e}"),
        }
    }
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.error)
    }
}

impl std::error::Error for FileError {}

/// The policy in force and what happened while reading it.
#[derive(Debug, Clone, Default)]
pub struct Loaded {
    /// The merged policy. Refuses everything when `errors` is not empty.
    pub policy: Policy,
    /// The files whose rules apply, in the order merged.
    pub files: Vec<PathBuf>,
    /// Files refused because the user could rewrite them (their rules do
    /// not apply).
    pub warnings: Vec<FileWarning>,
    /// Files that could not be read or parsed (the policy fails closed).
    pub errors: Vec<FileError>,
    /// Other things an administrator should know (a restriction a later file
    /// tried to lift, sources not read on this platform).
    pub notes: Vec<String>,
}

/// Parses a policy file's text. Unknown keys, bad values and strings or
/// lists over their bounds are errors with their key path, line and column.
pub fn parse_policy(text: &str) -> Result<PolicyFile, ParseError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.len() as u64 > MAX_FILE_BYTES {
        return Err(ParseError {
            key: None,
            line: 0,
            column: 0,
            message: format!(
                "the file is {} bytes, more than the limit of {MAX_FILE_BYTES}",
                text.len()
            ),
        });
    }
    let split = |e: serde_json::Error, key: Option<String>| {
        let (line, column) = (e.line(), e.column());
        let mut message = e.to_string();
        if let Some(at) = message.rfind(" at line ") {
            message.truncate(at);
        }
        ParseError {
            key,
            line,
            column,
            message,
        }
    };
    // Syntax first, and objects where objects belong: serde would also read
    // a struct from an array, by position, which a policy must not allow.
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| split(e, None))?;
    check_objects(&value)?;
    let mut de = serde_json::Deserializer::from_str(text);
    let parsed: Result<PolicyFile, _> = serde_path_to_error::deserialize(&mut de);
    match parsed {
        Ok(p) => de.end().map(|()| p).map_err(|e| split(e, None)),
        Err(e) => {
            let path = e.path().to_string();
            let key = (!path.is_empty() && path != ".").then_some(path);
            Err(split(e.into_inner(), key))
        }
    }
}

/// The values that must be JSON objects are objects.
fn check_objects(v: &serde_json::Value) -> Result<(), ParseError> {
    use serde_json::Value;
    let fail = |key: Option<String>| ParseError {
        key,
        line: 0,
        column: 0,
        message: "expected an object `{...}`".to_owned(),
    };
    let Value::Object(top) = v else {
        return Err(fail(None));
    };
    for key in ["elicitationDomains", "apps", "audit", "contact"] {
        if let Some(x) = top.get(key) {
            if !x.is_object() && !x.is_null() {
                return Err(fail(Some(key.to_owned())));
            }
        }
    }
    for key in ["allowedServers", "deniedServers", "approvedTools"] {
        if let Some(Value::Array(items)) = top.get(key) {
            if let Some(i) = items.iter().position(|x| !x.is_object()) {
                return Err(fail(Some(format!("{key}[{i}]"))));
            }
        }
    }
    Ok(())
}

/// Reads the policy from [`default_locations`]. What the core calls.
pub fn load_default() -> Loaded {
    let mut loaded = load(&default_locations());
    if cfg!(windows) {
        loaded.notes.push(
            r"the registry key HKLM\SOFTWARE\Policies\Airlock is not read yet: only the policy files are"
                .to_owned(),
        );
    }
    if cfg!(target_os = "macos") {
        loaded.notes.push(
            "macOS managed preferences (configuration profiles) are not read yet: only the policy files are"
                .to_owned(),
        );
    }
    loaded
}

/// Reads the policy from `root/policy.json` and `root/policy.d/`, with the
/// same checks as [`load_default`] (files and folders owned by root). For
/// tests, for example in a mount namespace of their own (bubblewrap) where
/// the test's files appear owned by root; release builds call
/// [`load_default`].
pub fn load_from_root(root: &Path) -> Loaded {
    load(&[root.join("policy.json"), root.join("policy.d")])
}

/// Reads the policy from `paths`, in order: each is a file, or a folder
/// whose `*.json` files (not those starting with `.`) are read in name
/// order. A path that does not exist is skipped.
///
/// A file the user could write is refused with a warning (on Unix: the file
/// or one of its folders up to `/` is not owned by root, or the file is
/// writable by group or others, or a folder is without the sticky bit). A
/// file that cannot be read or parsed makes the policy fail closed.
pub fn load(paths: &[PathBuf]) -> Loaded {
    load_with_trusted_owner(paths, 0)
}

/// [`load`] with another trusted owner besides root (its uid on Unix;
/// ignored elsewhere), so tests can create files as themselves.
#[doc(hidden)]
pub fn load_with_trusted_owner(paths: &[PathBuf], trusted_uid: u32) -> Loaded {
    let mut loaded = Loaded::default();
    let mut parsed: Vec<(PathBuf, PolicyFile)> = Vec::new();
    if !cfg!(unix) {
        loaded.notes.push(
            "who owns the policy files is not checked on this platform yet: make sure only administrators can write them"
                .to_owned(),
        );
    }
    for location in paths {
        let files = match list_location(location) {
            Ok(f) => f,
            Err(e) => {
                loaded.errors.push(FileError {
                    path: location.clone(),
                    error: LoadProblem::Read(e),
                });
                continue;
            }
        };
        for file in files {
            if let Err(reason) = trust::check(&file, trusted_uid) {
                loaded.warnings.push(FileWarning { path: file, reason });
                continue;
            }
            match read_bounded(&file, trusted_uid) {
                Ok(Some(text)) => match parse_policy(&text) {
                    Ok(p) => {
                        loaded.files.push(file.clone());
                        parsed.push((file, p));
                    }
                    Err(e) => loaded.errors.push(FileError {
                        path: file,
                        error: LoadProblem::Parse(e),
                    }),
                },
                Ok(None) => {}
                Err(ReadFailure::Untrusted(reason)) => {
                    loaded.warnings.push(FileWarning { path: file, reason })
                }
                Err(ReadFailure::Io(e)) => loaded.errors.push(FileError {
                    path: file,
                    error: LoadProblem::Read(e),
                }),
            }
        }
    }
    let mut notes = Vec::new();
    loaded.policy = Policy::merge(&parsed, &mut notes);
    loaded.notes.extend(notes);
    if let Some(first) = loaded.errors.first() {
        let why = first.error.to_string();
        loaded.policy.set_broken(&first.path, &why);
    }
    loaded
}

/// The files at a location: the file itself, or a folder's `*.json`.
fn list_location(location: &Path) -> Result<Vec<PathBuf>, String> {
    let meta = match fs::metadata(location) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(format!("cannot be read: {e}")),
    };
    if !meta.is_dir() {
        return Ok(vec![location.to_owned()]);
    }
    let mut files = Vec::new();
    let entries = fs::read_dir(location).map_err(|e| format!("cannot be listed: {e}"))?;
    for entry in entries {
        let entry = entry.map_err(|e| format!("cannot be listed: {e}"))?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else {
            continue;
        };
        if name.starts_with('.') || !name.ends_with(".json") {
            continue;
        }
        files.push(entry.path());
        if files.len() > MAX_DROP_IN_FILES {
            return Err(format!("has more than {MAX_DROP_IN_FILES} policy files"));
        }
    }
    files.sort();
    Ok(files)
}

enum ReadFailure {
    Untrusted(String),
    Io(String),
}

/// The file's text, read from the handle whose owner and mode were checked;
/// `None` when it vanished meanwhile.
fn read_bounded(path: &Path, trusted_uid: u32) -> Result<Option<String>, ReadFailure> {
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(ReadFailure::Io(format!("cannot be opened: {e}"))),
    };
    let meta = file
        .metadata()
        .map_err(|e| ReadFailure::Io(format!("cannot be read: {e}")))?;
    trust::check_file_meta(&meta, trusted_uid).map_err(ReadFailure::Untrusted)?;
    if meta.len() > MAX_FILE_BYTES {
        return Err(ReadFailure::Io(format!(
            "is {} bytes, more than the limit of {MAX_FILE_BYTES}",
            meta.len()
        )));
    }
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| ReadFailure::Io(format!("cannot be read: {e}")))?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(ReadFailure::Io(format!(
            "is more than the limit of {MAX_FILE_BYTES} bytes"
        )));
    }
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|e| ReadFailure::Io(format!("is not UTF-8: {e}")))
}

#[cfg(unix)]
mod trust {
    use std::collections::BTreeSet;
    use std::fs::{self, Metadata};
    use std::os::unix::fs::MetadataExt;
    use std::path::{Path, PathBuf};

    const GROUP_OR_OTHER_WRITE: u32 = 0o022;
    const STICKY: u32 = 0o1000;

    fn owner_ok(meta: &Metadata, trusted_uid: u32) -> bool {
        meta.uid() == 0 || meta.uid() == trusted_uid
    }

    fn who(trusted_uid: u32) -> String {
        if trusted_uid == 0 {
            "root".to_owned()
        } else {
            format!("root or uid {trusted_uid}")
        }
    }

    /// The file itself, from its open handle.
    pub(super) fn check_file_meta(meta: &Metadata, trusted_uid: u32) -> Result<(), String> {
        if !meta.is_file() {
            return Err("it is not a regular file".to_owned());
        }
        if !owner_ok(meta, trusted_uid) {
            return Err(format!(
                "it is owned by uid {}, not {}, so that user could rewrite the rules",
                meta.uid(),
                who(trusted_uid)
            ));
        }
        if meta.mode() & GROUP_OR_OTHER_WRITE != 0 {
            return Err(format!(
                "it is writable by its group or by others (mode {:o})",
                meta.mode() & 0o7777
            ));
        }
        Ok(())
    }

    /// The file and every folder above it, for the path as given and for
    /// its real path (a symbolic link is followed, and its folder checked).
    pub(super) fn check(path: &Path, trusted_uid: u32) -> Result<(), String> {
        let meta = fs::metadata(path).map_err(|e| format!("it cannot be read: {e}"))?;
        check_file_meta(&meta, trusted_uid)?;
        let real = fs::canonicalize(path).map_err(|e| format!("it cannot be read: {e}"))?;
        let mut folders: BTreeSet<PathBuf> = BTreeSet::new();
        for p in [path, real.as_path()] {
            let absolute = if p.is_absolute() {
                p.to_owned()
            } else {
                std::env::current_dir()
                    .map_err(|e| format!("its folder cannot be read: {e}"))?
                    .join(p)
            };
            folders.extend(absolute.ancestors().skip(1).map(Path::to_owned));
        }
        for folder in folders {
            let m = fs::metadata(&folder)
                .map_err(|e| format!("the folder {} cannot be read: {e}", folder.display()))?;
            if !owner_ok(&m, trusted_uid) {
                return Err(format!(
                    "the folder {} is owned by uid {}, not {}, so that user could replace the file",
                    folder.display(),
                    m.uid(),
                    who(trusted_uid)
                ));
            }
            if m.mode() & GROUP_OR_OTHER_WRITE != 0 && m.mode() & STICKY == 0 {
                return Err(format!(
                    "the folder {} is writable by its group or by others (mode {:o}), so they could replace the file",
                    folder.display(),
                    m.mode() & 0o7777
                ));
            }
        }
        Ok(())
    }
}

#[cfg(not(unix))]
mod trust {
    use std::fs::Metadata;
    use std::path::Path;

    // TODO(issue 36): check the owner (Administrators/SYSTEM) and the ACL
    // on Windows; a note in Loaded::notes says it is not checked.
    pub(super) fn check_file_meta(meta: &Metadata, _trusted_uid: u32) -> Result<(), String> {
        if !meta.is_file() {
            return Err("it is not a regular file".to_owned());
        }
        Ok(())
    }

    pub(super) fn check(path: &Path, trusted_uid: u32) -> Result<(), String> {
        let meta = std::fs::metadata(path).map_err(|e| format!("it cannot be read: {e}"))?;
        check_file_meta(&meta, trusted_uid)
    }
}
