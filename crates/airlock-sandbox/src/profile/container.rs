//! A server that a container engine runs (`docker run`, `podman run`):
//! not wrapped again; what its flags mount and publish is shown, with the
//! dangerous ones (the engine's socket, the home folder, `/`,
//! `--privileged`, the host's network or processes) as warnings.

use std::path::Path;

use serde::Serialize;

/// Programs that run their server in a container.
const CONTAINER_ENGINES: &[(&str, &str)] = &[("docker", "Docker"), ("podman", "Podman")];

/// A server that a container engine runs: not wrapped again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Container {
    /// `Docker` or `Podman`.
    pub engine: String,
    /// What its flags mount (`-v`, `--mount`) and publish (`-p`).
    pub mounts: Vec<String>,
    pub publishes: Vec<String>,
    /// Sentences: the Docker socket, the home folder, `--privileged`, the host's network.
    pub warnings: Vec<String>,
}

/// What a `docker run` / `podman run` mounts and publishes, and the
/// dangerous ones.
/// The container a `docker`/`podman` command runs, or `None` for another program.
pub(super) fn describe(program: &str, args: &[String], home: Option<&Path>) -> Option<Container> {
    let (_, engine) = CONTAINER_ENGINES.iter().find(|(p, _)| *p == program)?;
    Some(container(engine, args, home))
}

fn container(engine: &str, args: &[String], home: Option<&Path>) -> Container {
    let mut c = Container {
        engine: engine.to_owned(),
        mounts: Vec::new(),
        publishes: Vec::new(),
        warnings: Vec::new(),
    };
    let mut it = args.iter().peekable();
    while let Some(a) = it.next() {
        let (flag, inline) = match a.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v.to_owned())),
            _ => (a.as_str(), None),
        };
        let mut value = || inline.clone().or_else(|| it.next().cloned());
        match flag {
            "-v" | "--volume" | "--mount" => {
                if let Some(v) = value() {
                    c.mounts.push(v);
                }
            }
            "-p" | "--publish" => {
                if let Some(v) = value() {
                    c.publishes.push(v);
                }
            }
            "--privileged" => c
                .warnings
                .push("runs privileged: the container can do anything on this computer".into()),
            "--network" | "--net" | "--pid" => {
                let what = match flag {
                    "--pid" => "sees this computer's processes (--pid host)",
                    _ => "shares this computer's network (--network host)",
                };
                if value().as_deref() == Some("host") {
                    c.warnings.push(what.into());
                }
            }
            _ => {}
        }
    }
    for m in &c.mounts {
        let source = m
            .split(',')
            .find_map(|kv| {
                kv.strip_prefix("source=")
                    .or_else(|| kv.strip_prefix("src="))
            })
            .unwrap_or_else(|| m.split(':').next().unwrap_or_default());
        if source.contains("docker.sock") || source.contains("podman.sock") {
            c.warnings.push(format!(
                "mounts the {engine} socket ({source}): the container can start others with any access"
            ));
        }
        let src = Path::new(source);
        if home == Some(src) || source == "~" || source == "$HOME" {
            c.warnings
                .push(format!("mounts the home folder ({source})"));
        }
        if source == "/" {
            c.warnings.push("mounts the whole file system (/)".into());
        }
    }
    c
}
