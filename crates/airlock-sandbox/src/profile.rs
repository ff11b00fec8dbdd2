//! A server's room worked out from how it starts: its program and
//! interpreter (followed through symlinks, `#!` lines and virtual
//! environments), the paths named in its arguments, its launcher's caches
//! and package registry; then what the person granted on top. Never the
//! secrets' places, unless the person names one.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

use serde::Serialize;

use crate::settings::{GrantSource, SandboxSettings};

pub use container::Container;

/// Where an entry of the room came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum EntryOrigin {
    /// Worked out from the command; `why` in words.
    Inferred { why: String },
    /// Stored with the server.
    Granted { by: GrantSource },
}

impl EntryOrigin {
    fn inferred(why: impl Into<String>) -> Self {
        Self::Inferred { why: why.into() }
    }

    pub fn label(&self) -> String {
        match self {
            Self::Inferred { why } => format!("inferred: {why}"),
            Self::Granted { by } => by.as_str().to_owned(),
        }
    }
}

/// One path of the room.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PathEntry {
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub path: PathBuf,
    pub origin: EntryOrigin,
}

/// One host of the room.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct HostEntry {
    pub host: String,
    pub port: Option<u16>,
    pub origin: EntryOrigin,
}

impl HostEntry {
    pub fn label(&self) -> String {
        crate::settings::host_label(&self.host, self.port)
    }

    pub fn admits(&self, host: &str, port: u16) -> bool {
        crate::settings::host_admits(&self.host, self.port, host, port)
    }
}

/// The room a server gets: what it may read, write and reach.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Profile {
    /// Where the command was found (`None`: nowhere on the server's PATH).
    #[cfg_attr(feature = "ts", ts(type = "string | null"))]
    pub program: Option<PathBuf>,
    pub read: Vec<PathEntry>,
    pub write: Vec<PathEntry>,
    pub hosts: Vec<HostEntry>,
    /// Environment the launcher needs inside (the registry it is configured
    /// to use, its cache folder), on top of the server's.
    #[cfg_attr(feature = "ts", ts(type = "Record<string, string>"))]
    pub env: BTreeMap<String, String>,
    /// Set when a container engine runs the server.
    pub container: Option<Container>,
    /// What was left out and why (a secret place, a path that does not exist).
    pub notes: Vec<String>,
}

/// What the inference reads of the machine: the server's environment as it
/// will start (PATH, HOME, the launchers' variables), its folder, and the
/// places Airlock itself keeps.
#[derive(Debug, Clone, Default)]
pub struct Context {
    pub env: BTreeMap<String, String>,
    pub cwd: Option<PathBuf>,
    pub home: Option<PathBuf>,
    /// Airlock's data folder: never in a room unless the person names it.
    pub data_dir: Option<PathBuf>,
    /// The folder Airlock installed this server into (from a registry):
    /// inside the data folder, yet read by its own server (never written).
    pub package_dir: Option<PathBuf>,
}

impl Context {
    fn var(&self, name: &str) -> Option<&str> {
        self.env
            .get(name)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }

    fn home_path(&self, rel: &str) -> Option<PathBuf> {
        self.home.as_ref().map(|h| h.join(rel))
    }
}

/// Places in the home folder that hold secrets: never inferred into a room.
pub const SECRET_PLACES: &[&str] = &[
    ".ssh",
    ".aws",
    ".gnupg",
    ".azure",
    ".kube",
    ".docker",
    ".netrc",
    ".npmrc",
    ".pypirc",
    ".git-credentials",
    ".config/gcloud",
    ".config/gh",
    ".config/hub",
    ".local/share/keyrings",
    ".password-store",
    ".mozilla",
    ".config/google-chrome",
    ".config/chromium",
    ".config/BraveSoftware",
    ".config/microsoft-edge",
    ".cargo/credentials.toml",
    ".cargo/credentials",
    ".bash_history",
    ".zsh_history",
    ".python_history",
    ".node_repl_history",
];

/// Folders of the system that every room reads (the programs and libraries).
pub const SYSTEM_READ: &[&str] = &[
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt",
];

/// The room for a server started as `command args`, with the person's grants.
pub fn infer(command: &str, args: &[String], settings: &SandboxSettings, ctx: &Context) -> Profile {
    let mut p = Builder {
        ctx,
        profile: Profile {
            program: None,
            read: Vec::new(),
            write: Vec::new(),
            hosts: Vec::new(),
            env: BTreeMap::new(),
            container: None,
            notes: Vec::new(),
        },
    };
    let program = basename(command);
    if let Some(c) = container::describe(&program, args, ctx.home.as_deref()) {
        p.profile.container = Some(c);
        return p.profile;
    }
    // `.` and `..` taken out as the room runs it (room.rs does the same).
    let resolved = resolve(command, ctx).map(|r| lexical(&r));
    p.profile.program = resolved.clone();
    match &resolved {
        Some(path) => p.program(path, 0),
        None => p.note(format!(
            "{command:?} was not found on PATH: nothing inferred for it"
        )),
    }
    let launcher = launcher_of(&program, args);
    p.launcher(launcher);
    p.arguments(&program, args, launcher);
    if let Some(cwd) = &ctx.cwd {
        p.read(cwd.clone(), "the server's working folder");
    }
    for g in &settings.read {
        p.grant(false, &g.path, g.source);
    }
    for g in &settings.write {
        p.grant(true, &g.path, g.source);
    }
    for h in &settings.hosts {
        p.profile.hosts.push(HostEntry {
            host: h.host.clone(),
            port: h.port,
            origin: EntryOrigin::Granted { by: h.source },
        });
    }
    p.profile
}

/// The command's last path component without an extension (`npx.cmd` → `npx`).
fn basename(command: &str) -> String {
    let name = Path::new(command)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    name.split('.')
        .next()
        .unwrap_or_default()
        .to_ascii_lowercase()
}

/// The package launcher a server starts through, if any.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Launcher {
    Npm,
    Uv,
    Pip,
}

fn launcher_of(program: &str, args: &[String]) -> Option<Launcher> {
    match program {
        "npx" | "npm" | "pnpm" | "pnpx" | "yarn" | "bunx" => Some(Launcher::Npm),
        "uvx" | "uv" => Some(Launcher::Uv),
        "pipx" | "pip" | "pip3" => Some(Launcher::Pip),
        p if p.starts_with("python") && args.windows(2).any(|w| w[0] == "-m" && w[1] == "pip") => {
            Some(Launcher::Pip)
        }
        _ => None,
    }
}

/// Where `command` is: itself when it names a path, else the first match on
/// the server's PATH.
fn resolve(command: &str, ctx: &Context) -> Option<PathBuf> {
    if command.contains('/') {
        let p = Path::new(command);
        let p = if p.is_absolute() {
            p.to_path_buf()
        } else {
            ctx.cwd.as_ref()?.join(p)
        };
        return p.is_file().then_some(p);
    }
    let path = ctx.var("PATH")?;
    std::env::split_paths(path)
        .map(|dir| dir.join(command))
        .find(|p| is_executable(p))
}

fn is_executable(p: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        p.metadata()
            .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
            .unwrap_or(false)
    }
    #[cfg(not(unix))]
    {
        p.is_file()
    }
}

fn is_system(p: &Path) -> bool {
    SYSTEM_READ.iter().any(|s| p.starts_with(s))
}

/// `path` with `.` and `..` taken out without touching the disk.
pub(crate) fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

struct Builder<'a> {
    ctx: &'a Context,
    profile: Profile,
}

impl Builder<'_> {
    fn note(&mut self, text: String) {
        if !self.profile.notes.contains(&text) {
            self.profile.notes.push(text);
        }
    }

    /// Is `p` a secret place, inside one, or a folder that holds one (or
    /// the home folder, or Airlock's data folder)?
    fn touches_secrets(&self, p: &Path) -> Option<String> {
        if let Some(home) = &self.ctx.home {
            if p == home.as_path() {
                return Some("the home folder".into());
            }
            for s in SECRET_PLACES {
                let place = home.join(s);
                if p.starts_with(&place) || place.starts_with(p) {
                    return Some(format!("~/{s}"));
                }
            }
        }
        if let Some(own) = &self.ctx.package_dir {
            if p.starts_with(own) {
                return None;
            }
        }
        if let Some(data) = &self.ctx.data_dir {
            if p.starts_with(data) || data.starts_with(p) {
                return Some("Airlock's data folder".into());
            }
        }
        let name = p.file_name().map(|n| n.to_string_lossy().into_owned());
        if name
            .as_deref()
            .is_some_and(|n| n == ".env" || n.starts_with(".env."))
        {
            return Some("a .env file".into());
        }
        None
    }

    fn push(&mut self, write: bool, path: PathBuf, origin: EntryOrigin) {
        let list = if write {
            &mut self.profile.write
        } else {
            &mut self.profile.read
        };
        // One entry covers another when it holds it both where it is
        // named and where it really is (a linked venv inside a script's
        // folder lives elsewhere: both stay).
        let real = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
        let covers = |outer: &Path, inner: &Path| {
            inner.starts_with(outer) && real(inner).starts_with(real(outer))
        };
        if list.iter().any(|e| covers(&e.path, &path)) {
            return;
        }
        list.retain(|e| !covers(&path, &e.path));
        list.push(PathEntry { path, origin });
    }

    /// An inferred read: left out (with a note) when it touches a secret
    /// place, a system folder (every room reads those), or does not exist.
    fn read(&mut self, path: PathBuf, why: &str) {
        self.inferred(false, path, why)
    }

    fn write(&mut self, path: PathBuf, why: &str) {
        self.inferred(true, path, why)
    }

    fn inferred(&mut self, write: bool, path: PathBuf, why: &str) {
        let path = lexical(&path);
        if !write && is_system(&path) {
            return;
        }
        if let Some(secret) = self.touches_secrets(&path) {
            self.note(format!(
                "{} ({why}) left out: it is or holds {secret}",
                path.display()
            ));
            return;
        }
        self.push(write, path, EntryOrigin::inferred(why));
    }

    fn grant(&mut self, write: bool, path: &str, by: GrantSource) {
        self.push(write, PathBuf::from(path), EntryOrigin::Granted { by });
    }

    /// The program and what it needs to run: its install prefix, the real
    /// file behind a symlink, its `#!` interpreter, a venv's base Python.
    fn program(&mut self, path: &Path, depth: u8) {
        if depth > 3 {
            return;
        }
        let real = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        for p in [path, real.as_path()] {
            if !is_system(p) {
                let prefix = install_prefix(p);
                match prefix {
                    Some(prefix) if self.touches_secrets(&prefix).is_none() => {
                        self.read(prefix, "the program's installation")
                    }
                    _ => self.read(p.to_path_buf(), "the program"),
                }
            }
        }
        if let Some(venv) = venv_home(&real) {
            self.program(&venv, depth + 1);
        }
        if let Some(interp) = shebang(&real) {
            let interp = resolve(&interp, self.ctx).unwrap_or_else(|| PathBuf::from(&interp));
            if interp.is_file() {
                self.program(&interp, depth + 1);
            }
        }
    }

    fn launcher(&mut self, launcher: Option<Launcher>) {
        let Some(launcher) = launcher else { return };
        match launcher {
            Launcher::Npm => {
                let cache = self
                    .ctx
                    .var("npm_config_cache")
                    .map(PathBuf::from)
                    .or_else(|| self.ctx.home_path(".npm"));
                if let Some(cache) = cache {
                    let _ = std::fs::create_dir_all(&cache);
                    self.write(cache.clone(), "npm's cache");
                    self.profile
                        .env
                        .insert("npm_config_cache".into(), cache.display().to_string());
                }
                let registry = self
                    .ctx
                    .var("npm_config_registry")
                    .map(str::to_owned)
                    .or_else(|| self.npmrc_registry())
                    .unwrap_or_else(|| "https://registry.npmjs.org/".into());
                self.registry_host(&registry, "npm's registry");
                self.profile
                    .env
                    .insert("npm_config_registry".into(), registry);
                self.profile
                    .env
                    .insert("npm_config_update_notifier".into(), "false".into());
            }
            Launcher::Uv => {
                let cache = self
                    .ctx
                    .var("UV_CACHE_DIR")
                    .map(PathBuf::from)
                    .or_else(|| self.xdg_cache("uv"));
                if let Some(cache) = cache {
                    let _ = std::fs::create_dir_all(&cache);
                    self.write(cache.clone(), "uv's cache");
                    self.profile
                        .env
                        .insert("UV_CACHE_DIR".into(), cache.display().to_string());
                }
                if let Some(data) = self.xdg_data("uv") {
                    let _ = std::fs::create_dir_all(&data);
                    self.write(data, "uv's Pythons and tools");
                }
                let index = self
                    .ctx
                    .var("UV_DEFAULT_INDEX")
                    .or_else(|| self.ctx.var("UV_INDEX_URL"))
                    .or_else(|| self.ctx.var("PIP_INDEX_URL"))
                    .map(str::to_owned);
                self.python_index(index, "uv's package index");
            }
            Launcher::Pip => {
                if let Some(cache) = self.xdg_cache("pip") {
                    let _ = std::fs::create_dir_all(&cache);
                    self.write(cache, "pip's cache");
                }
                let index = self.ctx.var("PIP_INDEX_URL").map(str::to_owned);
                self.python_index(index, "pip's package index");
            }
        }
    }

    fn xdg_cache(&self, name: &str) -> Option<PathBuf> {
        self.ctx
            .var("XDG_CACHE_HOME")
            .map(|d| PathBuf::from(d).join(name))
            .or_else(|| self.ctx.home_path(&format!(".cache/{name}")))
    }

    fn xdg_data(&self, name: &str) -> Option<PathBuf> {
        self.ctx
            .var("XDG_DATA_HOME")
            .map(|d| PathBuf::from(d).join(name))
            .or_else(|| self.ctx.home_path(&format!(".local/share/{name}")))
    }

    /// `registry=` of the user's `~/.npmrc` (read here, never put in the
    /// room: the file may hold tokens).
    fn npmrc_registry(&self) -> Option<String> {
        let text = std::fs::read_to_string(self.ctx.home_path(".npmrc")?).ok()?;
        text.lines().find_map(|l| {
            let (k, v) = l.split_once('=')?;
            (k.trim() == "registry").then(|| v.trim().to_owned())
        })
    }

    fn python_index(&mut self, index: Option<String>, why: &str) {
        match index {
            Some(url) => {
                self.registry_host(&url, why);
                self.profile
                    .env
                    .insert("UV_DEFAULT_INDEX".into(), url.clone());
                self.profile.env.insert("PIP_INDEX_URL".into(), url);
            }
            None => {
                for host in ["pypi.org", "files.pythonhosted.org"] {
                    self.host(host, Some(443), why);
                }
                // uv's own Python builds, when none is installed.
                self.host("github.com", Some(443), "uv's Python downloads");
                self.host(
                    "objects.githubusercontent.com",
                    Some(443),
                    "uv's Python downloads",
                );
            }
        }
    }

    fn registry_host(&mut self, registry: &str, why: &str) {
        match url::Url::parse(registry) {
            Ok(u) => {
                if let Some(host) = u.host_str() {
                    let host = host.trim_start_matches('[').trim_end_matches(']');
                    self.host(host, u.port_or_known_default(), why);
                }
            }
            Err(_) => self.note(format!(
                "{why} {registry:?} is not a URL: no host allowed for it"
            )),
        }
    }

    fn host(&mut self, host: &str, port: Option<u16>, why: &str) {
        let host = host.to_ascii_lowercase();
        if !self
            .profile
            .hosts
            .iter()
            .any(|h| h.host == host && h.port == port)
        {
            self.profile.hosts.push(HostEntry {
                host,
                port,
                origin: EntryOrigin::inferred(why),
            });
        }
    }

    /// Paths named in the arguments: readable (a script's folder, a
    /// package's `node_modules`), writable where the program's convention
    /// says the folders are its workspace.
    fn arguments(&mut self, program: &str, args: &[String], launcher: Option<Launcher>) {
        let workspace = writes_its_folders(program, args);
        let words = Self::script_words(program, args);
        for arg in args.iter().chain(&words) {
            let value = match arg.split_once('=') {
                Some((k, v)) if k.starts_with('-') => v,
                _ => arg.as_str(),
            };
            let Some(path) = self.path_of(value) else {
                continue;
            };
            if !path.exists() {
                continue;
            }
            if path.is_dir() {
                if workspace {
                    self.write(path, "a folder named in its arguments (its workspace)");
                } else {
                    self.read(path, "a folder named in its arguments");
                }
                continue;
            }
            if let Some(modules) = enclosing_node_modules(&path) {
                self.read(modules, "the packages of a script named in its arguments");
            } else if is_script(&path) && launcher.is_none() {
                if let Some(dir) = path.parent() {
                    self.read(
                        dir.to_path_buf(),
                        "the folder of a script named in its arguments",
                    );
                }
                if is_node_script(&path) {
                    // Node looks for packages in every node_modules above the script.
                    for modules in path
                        .ancestors()
                        .skip(1)
                        .map(|a| a.join("node_modules"))
                        .filter(|m| m.is_dir())
                    {
                        self.read(
                            modules,
                            "the packages a script named in its arguments can import",
                        );
                    }
                }
            } else if is_executable(&path) {
                // An interpreter handed to a wrapper (`proxy.py /venv/bin/python server.py`).
                self.program(&path, 1);
            } else {
                self.read(path, "a file named in its arguments");
            }
        }
    }

    /// Absolute paths inside a shell's `-c` script (`sh -c "exec python3
    /// '/srv/server.py'"`): each word, quotes stripped.
    fn script_words(program: &str, args: &[String]) -> Vec<String> {
        let shells = ["sh", "bash", "dash", "zsh"];
        if !shells.contains(&program) {
            return Vec::new();
        }
        let Some(i) = args.iter().position(|a| a == "-c") else {
            return Vec::new();
        };
        args.get(i + 1)
            .map(|script| {
                script
                    .split(|c: char| c.is_whitespace() || matches!(c, ';' | '&' | '|' | '(' | ')'))
                    .map(|w| w.trim_matches(|c| c == '\'' || c == '"').to_owned())
                    .filter(|w| w.starts_with('/'))
                    .collect()
            })
            .unwrap_or_default()
    }

    fn path_of(&self, value: &str) -> Option<PathBuf> {
        if value.starts_with('/') {
            Some(PathBuf::from(value))
        } else if let Some(rest) = value.strip_prefix("~/") {
            self.ctx.home_path(rest)
        } else if value.starts_with("./") || value.starts_with("../") {
            Some(self.ctx.cwd.as_ref()?.join(value))
        } else {
            None
        }
    }
}

/// Servers whose folder arguments are their workspace: the filesystem
/// server, the git server's repository.
fn writes_its_folders(program: &str, args: &[String]) -> bool {
    let named = |needle: &str| program.contains(needle) || args.iter().any(|a| a.contains(needle));
    named("server-filesystem") || named("mcp-server-git") || named("server-git")
}

fn is_script(p: &Path) -> bool {
    matches!(
        p.extension().and_then(|e| e.to_str()),
        Some("js" | "mjs" | "cjs" | "ts" | "py" | "rb" | "sh" | "pl" | "php" | "lua")
    )
}

fn is_node_script(p: &Path) -> bool {
    matches!(
        p.extension().and_then(|e| e.to_str()),
        Some("js" | "mjs" | "cjs" | "ts")
    )
}

/// `.../node_modules` above a file inside a package.
fn enclosing_node_modules(p: &Path) -> Option<PathBuf> {
    p.ancestors()
        .find(|a| a.file_name().is_some_and(|n| n == "node_modules"))
        .map(Path::to_path_buf)
}

/// The prefix of an installation whose `bin` holds `p` (`~/.nvm/versions/node/v20`
/// for `.../v20/bin/node`), or the version manager whose `shims` holds it
/// (`~/.pyenv` for `~/.pyenv/shims/python3`: the shim runs the manager,
/// which picks a version under its root; asdf, rbenv and mise alike).
fn install_prefix(p: &Path) -> Option<PathBuf> {
    let bin = p.parent()?;
    if bin.file_name()? != "bin" && bin.file_name()? != "shims" {
        return None;
    }
    bin.parent().map(Path::to_path_buf)
}

/// A virtual environment's base interpreter (`home = ...` in `pyvenv.cfg`).
fn venv_home(python: &Path) -> Option<PathBuf> {
    let prefix = install_prefix(python)?;
    let cfg = std::fs::read_to_string(prefix.join("pyvenv.cfg")).ok()?;
    let home = cfg.lines().find_map(|l| {
        let (k, v) = l.split_once('=')?;
        (k.trim() == "home").then(|| PathBuf::from(v.trim()))
    })?;
    let name = python.file_name()?;
    let candidate = home.join(name);
    if candidate.is_file() {
        return Some(candidate);
    }
    ["python3", "python"]
        .iter()
        .map(|n| home.join(n))
        .find(|c| c.is_file())
}

/// The interpreter a `#!` line names (`/usr/bin/env node` → `node`).
fn shebang(p: &Path) -> Option<String> {
    use std::io::Read;
    let mut head = [0u8; 256];
    let n = std::fs::File::open(p).ok()?.read(&mut head).ok()?;
    let head = head.get(..n)?;
    let line = head.strip_prefix(b"#!")?;
    let line = line.split(|b| *b == b'\n').next()?;
    let line = std::str::from_utf8(line).ok()?;
    let mut words = line.split_whitespace();
    let first = words.next()?;
    if basename(first) == "env" {
        words.find(|w| !w.starts_with('-')).map(str::to_owned)
    } else {
        Some(first.to_owned())
    }
}

mod container;
#[cfg(test)]
mod tests;
