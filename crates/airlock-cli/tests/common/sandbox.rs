//! One temp dir and one Airlock data dir per test.

use super::*;

// ----- a sandbox: one temp dir and one Airlock data dir per test -----

pub struct Sandbox {
    pub tmp: tempfile::TempDir,
    pub data: PathBuf,
}

impl Default for Sandbox {
    fn default() -> Self {
        Self::new()
    }
}

impl Sandbox {
    pub fn new() -> Self {
        let tmp = tempfile::Builder::new()
            .prefix("airlock-e2e-")
            .tempdir()
            .expect("temp dir");
        let data = tmp.path().join("data");
        Self { tmp, data }
    }

    pub fn dir(&self) -> &Path {
        self.tmp.path()
    }

    /// Nothing is installed from a registry: `packages/` is absent or empty.
    pub fn no_packages(&self) -> bool {
        std::fs::read_dir(self.data.join("packages")).map_or(true, |mut d| d.next().is_none())
    }

    /// A folder a confined server may write to (`--allow-write`), for what a
    /// test peer reports (spawn logs, events): its room holds nothing else
    /// of the test's.
    pub fn peer_out(&self) -> PathBuf {
        let d = self.dir().join("peer-out");
        std::fs::create_dir_all(&d).expect("peer-out");
        d
    }

    /// `airlock --data-dir <this sandbox>`; add arguments, then `.run()`.
    pub fn cmd(&self) -> Cmd {
        Cmd::new(airlock_bin()).arg("--data-dir").arg(&self.data)
    }

    pub fn run(&self, args: &[&str]) -> Out {
        self.cmd().args(args).run()
    }

    pub fn write(&self, name: &str, text: &str) -> PathBuf {
        let p = self.dir().join(name);
        std::fs::write(&p, text).expect("write file");
        p
    }

    /// `servers add NAME --command node -- <server-everything> stdio`.
    pub fn add_everything(&self, name: &str) {
        self.run(&[
            "servers",
            "add",
            name,
            "--command",
            "node",
            "--",
            &s(&everything_js()),
            "stdio",
        ])
        .ok();
    }

    /// `servers add NAME [--env K=V]... --command <venv python> -- py_server.py stdio`.
    pub fn add_py(&self, name: &str, env: &[&str]) {
        let mut args: Vec<String> = vec!["servers".into(), "add".into(), name.into()];
        for e in env {
            args.push("--env".into());
            args.push((*e).into());
        }
        let out = s(&self.peer_out());
        if env.iter().any(|e| e.contains(&out)) {
            args.extend(["--allow-write".into(), out]);
        }
        args.extend([
            "--command".into(),
            s(&py()),
            "--".into(),
            s(&py_server()),
            "stdio".into(),
        ]);
        self.cmd().args(&args).run().ok();
    }

    /// py_server behind the legacy proxy: a 2025-11-25-only stdio server.
    pub fn add_py_legacy(&self, name: &str, env: &[&str]) {
        let mut args: Vec<String> = vec!["servers".into(), "add".into(), name.into()];
        for e in env {
            args.push("--env".into());
            args.push((*e).into());
        }
        args.extend([
            "--command".into(),
            "python3".into(),
            "--".into(),
            s(&legacy_proxy()),
            s(&py()),
            s(&py_server()),
            "stdio".into(),
        ]);
        self.cmd().args(&args).run().ok();
    }

    pub fn add_url(&self, name: &str, url: &str) {
        self.run(&["servers", "add", name, "--url", url]).ok();
    }

    /// `servers list --json`.
    pub fn servers(&self) -> Vec<Value> {
        self.run(&["--json", "servers", "list"])
            .ok()
            .json()
            .as_array()
            .expect("servers list --json is an array")
            .clone()
    }

    pub fn server_names(&self) -> Vec<String> {
        self.servers()
            .iter()
            .map(|v| v["name"].as_str().expect("name").to_owned())
            .collect()
    }

    /// `history --json [extra...]` -> the `calls` array.
    pub fn history(&self, extra: &[&str]) -> Vec<Value> {
        let mut args = vec!["--json", "history"];
        args.extend_from_slice(extra);
        self.run(&args).ok().json()["calls"]
            .as_array()
            .expect("calls array")
            .clone()
    }

    /// `elicitations --json`, newest first.
    pub fn elicitations(&self) -> Vec<Value> {
        self.run(&["--json", "elicitations", "--limit", "100"])
            .ok()
            .json()
            .as_array()
            .expect("array")
            .clone()
    }

    /// The number of the change of `server`'s `name` that waits for review
    /// (`tools review --json`), as `tools approve --change` takes it.
    pub fn change_id(&self, server: &str, name: &str) -> String {
        let review = self.run(&["--json", "tools", "review", server]).ok().json();
        review
            .as_array()
            .expect("changes")
            .iter()
            .find(|c| c["name"] == name)
            .and_then(|c| c["id"].as_i64())
            .unwrap_or_else(|| panic!("no change of {server}'s {name} waits: {review}"))
            .to_string()
    }

    /// The newest elicitation record.
    pub fn newest_elicitation(&self) -> Value {
        self.elicitations()
            .into_iter()
            .next()
            .expect("an elicitation was recorded")
    }

    /// `audit --json`, oldest first.
    pub fn audit(&self) -> Vec<Value> {
        let mut v = self
            .run(&["--json", "audit", "--limit", "1000"])
            .ok()
            .json()
            .as_array()
            .expect("array")
            .clone();
        v.reverse();
        v
    }

    /// The states an elicitation record went through, oldest first (from the audit trail).
    pub fn states_of(&self, record_id: i64) -> Vec<String> {
        self.audit()
            .iter()
            .filter(|e| {
                e["kind"] == "elicitation" && e["detail"]["record_id"].as_i64() == Some(record_id)
            })
            .map(|e| e["detail"]["state"].as_str().unwrap_or("?").to_owned())
            .collect()
    }

    /// The texts of `logs NAME --json`.
    pub fn log_texts(&self, server: &str) -> Vec<String> {
        self.run(&["--json", "logs", server, "--limit", "1000"])
            .ok()
            .json()
            .as_array()
            .expect("array")
            .iter()
            .map(|l| l["text"].as_str().unwrap_or_default().to_owned())
            .collect()
    }
}

/// An elicitation record's id (for [`Sandbox::states_of`]).
pub fn id_of(record: &Value) -> i64 {
    record["id"].as_i64().expect("record id")
}
