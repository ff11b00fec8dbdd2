use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::*;

fn ctx(home: &Path, path: &str) -> Context {
    Context {
        env: BTreeMap::from([("PATH".to_owned(), path.to_owned())]),
        cwd: None,
        home: Some(home.to_path_buf()),
        data_dir: Some(home.join(".local/share/airlock")),
        package_dir: None,
    }
}

fn reads(p: &Profile) -> Vec<&Path> {
    p.read.iter().map(|e| e.path.as_path()).collect()
}

#[cfg(unix)]
fn exe(path: &Path, text: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[cfg(unix)]
#[test]
fn an_interpreter_under_home_is_read_with_its_installation_and_nothing_else() {
    let t = tempfile::tempdir().unwrap();
    let home = t.path();
    let node = home.join(".nvm/versions/node/v20/bin/node");
    exe(&node, "\x7fELF");
    let script = home.join("proj/node_modules/@x/server/dist/index.js");
    std::fs::create_dir_all(script.parent().unwrap()).unwrap();
    std::fs::write(&script, "").unwrap();
    std::fs::create_dir_all(home.join(".ssh")).unwrap();
    let p = infer(
        "node",
        &[script.display().to_string()],
        &SandboxSettings::default(),
        &ctx(home, &node.parent().unwrap().display().to_string()),
    );
    assert_eq!(
        reads(&p),
        vec![
            home.join(".nvm/versions/node/v20").as_path(),
            home.join("proj/node_modules").as_path()
        ]
    );
    assert!(p.write.is_empty());
    assert!(p.hosts.is_empty(), "no host unless a launcher needs one");
}

#[cfg(unix)]
#[test]
fn a_venv_python_brings_its_base_interpreter_and_a_script_its_folder() {
    let t = tempfile::tempdir().unwrap();
    let home = t.path();
    let base = home.join(".pyenv/versions/3.11.7/bin/python3");
    exe(&base, "");
    let venv = home.join("proj/.venv");
    exe(&venv.join("bin/python3"), "");
    std::fs::write(
        venv.join("pyvenv.cfg"),
        format!("home = {}\n", base.parent().unwrap().display()),
    )
    .unwrap();
    std::fs::write(home.join("proj/server.py"), "").unwrap();
    let p = infer(
        &venv.join("bin/python3").display().to_string(),
        &[home.join("proj/server.py").display().to_string()],
        &SandboxSettings::default(),
        &ctx(home, "/usr/bin"),
    );
    let r = reads(&p);
    assert!(
        r.contains(&home.join(".pyenv/versions/3.11.7").as_path()),
        "{r:?}"
    );
    assert!(
        r.contains(&home.join("proj").as_path()),
        "the script's folder holds the venv too: {r:?}"
    );
}

#[cfg(unix)]
#[test]
fn secret_places_and_the_home_folder_are_never_inferred() {
    let t = tempfile::tempdir().unwrap();
    let home = t.path();
    std::fs::create_dir_all(home.join(".ssh")).unwrap();
    std::fs::write(home.join(".ssh/id_rsa"), "k").unwrap();
    std::fs::write(home.join("server.py"), "").unwrap();
    std::fs::write(home.join(".env"), "A=1").unwrap();
    let p = infer(
        "python3",
        &[
            home.join(".ssh/id_rsa").display().to_string(),
            home.join("server.py").display().to_string(),
            home.join(".env").display().to_string(),
            format!("--config={}", home.join(".ssh").display()),
            home.join(".local/share/airlock").display().to_string(),
        ],
        &SandboxSettings::default(),
        &ctx(home, "/usr/bin"),
    );
    assert!(reads(&p).is_empty(), "{:?}", p.read);
    assert!(
        p.notes.iter().any(|n| n.contains("~/.ssh")),
        "{:?}",
        p.notes
    );
    assert!(
        p.notes.iter().any(|n| n.contains("the home folder")),
        "{:?}",
        p.notes
    );
    assert!(p.notes.iter().any(|n| n.contains(".env")), "{:?}", p.notes);
    // Named by the person: then it is theirs to give.
    let mut s = SandboxSettings::default();
    s.allow_path(
        false,
        &home.join(".ssh").display().to_string(),
        GrantSource::User,
    )
    .unwrap();
    let p = infer("python3", &[], &s, &ctx(home, "/usr/bin"));
    assert_eq!(reads(&p), vec![home.join(".ssh").as_path()]);
}

#[test]
fn launchers_get_their_cache_and_registry() {
    let t = tempfile::tempdir().unwrap();
    let home = t.path();
    std::fs::write(
        home.join(".npmrc"),
        "registry=http://127.0.0.1:4873/\n//127.0.0.1:4873/:_authToken=SECRET\n",
    )
    .unwrap();
    let p = infer(
        "npx",
        &["-y".into(), "some-server".into()],
        &SandboxSettings::default(),
        &ctx(home, "/nonexistent"),
    );
    assert_eq!(p.write.len(), 1);
    assert_eq!(p.write[0].path, home.join(".npm"));
    assert_eq!(p.hosts.len(), 1);
    assert_eq!(
        (p.hosts[0].host.as_str(), p.hosts[0].port),
        ("127.0.0.1", Some(4873))
    );
    assert_eq!(
        p.env.get("npm_config_registry").map(String::as_str),
        Some("http://127.0.0.1:4873/")
    );
    assert!(
        !reads(&p).iter().any(|r| r.ends_with(".npmrc")),
        "the npmrc (tokens) stays out"
    );
    let p = infer(
        "uvx",
        &["mcp-server-fetch".into()],
        &SandboxSettings::default(),
        &ctx(home, "/nonexistent"),
    );
    let w: Vec<PathBuf> = p.write.iter().map(|e| e.path.clone()).collect();
    assert!(w.contains(&home.join(".cache/uv")), "{w:?}");
    assert!(p.hosts.iter().any(|h| h.host == "pypi.org"));
}

#[test]
fn the_filesystem_server_writes_its_folders() {
    let t = tempfile::tempdir().unwrap();
    let home = t.path();
    let work = home.join("work");
    std::fs::create_dir_all(&work).unwrap();
    let p = infer(
        "npx",
        &[
            "-y".into(),
            "@modelcontextprotocol/server-filesystem".into(),
            work.display().to_string(),
        ],
        &SandboxSettings::default(),
        &ctx(home, "/nonexistent"),
    );
    assert!(p.write.iter().any(|e| e.path == work), "{:?}", p.write);
}

#[test]
fn containers_are_described_not_wrapped() {
    let t = tempfile::tempdir().unwrap();
    let home = t.path();
    let args: Vec<String> = [
        "run",
        "-i",
        "--rm",
        "-v",
        "/var/run/docker.sock:/var/run/docker.sock",
        "--privileged",
        "-p",
        "8080:80",
        "img",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let p = infer(
        "docker",
        &args,
        &SandboxSettings::default(),
        &ctx(home, "/usr/bin"),
    );
    let c = p.container.unwrap();
    assert_eq!(c.engine, "Docker");
    assert_eq!(c.publishes, vec!["8080:80"]);
    assert_eq!(c.warnings.len(), 2, "{:?}", c.warnings);
}

#[cfg(unix)]
#[test]
fn an_installed_server_reads_its_own_package_folder_and_no_other() {
    let t = tempfile::tempdir().unwrap();
    let home = t.path();
    let data = home.join(".local/share/airlock");
    let mine = data.join("packages/mine");
    let theirs = data.join("packages/theirs");
    for dir in [&mine, &theirs] {
        let script = dir.join("node_modules/srv/dist/index.js");
        std::fs::create_dir_all(script.parent().unwrap()).unwrap();
        std::fs::write(&script, "").unwrap();
    }
    let run = |script: &Path| {
        let mut c = ctx(home, "/usr/bin");
        c.package_dir = Some(mine.clone());
        infer(
            "/usr/bin/node",
            &[script.display().to_string()],
            &SandboxSettings::default(),
            &c,
        )
    };
    let own = run(&mine.join("node_modules/srv/dist/index.js"));
    assert_eq!(reads(&own), vec![mine.join("node_modules").as_path()]);
    assert!(own.write.is_empty(), "read, never written");
    let other = run(&theirs.join("node_modules/srv/dist/index.js"));
    assert!(reads(&other).is_empty(), "{:?}", reads(&other));
    assert!(
        other
            .notes
            .iter()
            .any(|n| n.contains("Airlock's data folder")),
        "{:?}",
        other.notes
    );
}
