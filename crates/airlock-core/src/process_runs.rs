//! Which Airlock processes are alive. Each running Airlock (window, CLI,
//! daemon) holds an exclusive lock on `runs/<run id>.lock` in the data dir
//! for as long as it runs; the operating system releases it however the
//! process ends (kill -9 included). A clean end removes the file. A file
//! whose lock nobody holds is a run that crashed or was killed: the next
//! start marks the records it left open `interrupted`.

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};

/// The folder of run locks inside the data dir.
pub const RUNS_DIR: &str = "runs";

/// This process's run: its lock is held until the run is dropped.
#[derive(Debug)]
pub struct Run {
    id: String,
    path: PathBuf,
    _lock: File,
}

fn lock_path(data_dir: &Path, id: &str) -> PathBuf {
    data_dir.join(RUNS_DIR).join(format!("{id}.lock"))
}

/// A run id is ours only if it has this shape (digits and one dash): a
/// database edited by hand cannot make us touch another path.
fn valid_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 64
        && id.chars().all(|c| c.is_ascii_digit() || c == '-')
        && id.matches('-').count() == 1
}

impl Run {
    /// Register this process as a run of the data dir.
    pub fn start(data_dir: &Path) -> std::io::Result<Run> {
        let dir = data_dir.join(RUNS_DIR);
        crate::store::create_private_dir(&dir)?;
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default();
        let id = format!("{}-{nanos}", std::process::id());
        let path = lock_path(data_dir, &id);
        let file = OpenOptions::new()
            .create(true)
            .truncate(true)
            .write(true)
            .open(&path)?;
        file.try_lock().map_err(|e| match e {
            std::fs::TryLockError::Error(e) => e,
            std::fs::TryLockError::WouldBlock => {
                std::io::Error::other("the run lock is already held")
            }
        })?;
        Ok(Run {
            id,
            path,
            _lock: file,
        })
    }

    pub fn id(&self) -> &str {
        &self.id
    }

    /// This run ends cleanly (the process is about to exit).
    pub fn end(&self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

impl Drop for Run {
    fn drop(&mut self) {
        self.end();
    }
}

/// What became of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunState {
    /// A process holds its lock.
    Alive,
    /// It ended cleanly (its file is gone).
    Ended,
    /// Its file is there but nobody holds the lock: killed or crashed. The
    /// stale file is removed.
    Crashed,
}

/// What became of the run `id`.
pub fn run_state(data_dir: &Path, id: &str) -> RunState {
    if !valid_id(id) {
        return RunState::Ended;
    }
    let path = lock_path(data_dir, id);
    let Ok(file) = OpenOptions::new().write(true).open(&path) else {
        return RunState::Ended;
    };
    match file.try_lock() {
        Ok(()) => {
            let _ = std::fs::remove_file(&path);
            RunState::Crashed
        }
        Err(std::fs::TryLockError::WouldBlock) => RunState::Alive,
        // Cannot tell: treat as alive, so nothing of a live process is touched.
        Err(std::fs::TryLockError::Error(_)) => RunState::Alive,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_is_alive_while_held_and_ended_after() {
        let dir = tempfile::tempdir().unwrap();
        let run = Run::start(dir.path()).unwrap();
        let id = run.id().to_owned();
        assert_eq!(run_state(dir.path(), &id), RunState::Alive);
        drop(run);
        assert_eq!(run_state(dir.path(), &id), RunState::Ended);
        assert_eq!(
            run_state(dir.path(), "123-456"),
            RunState::Ended,
            "never started"
        );
        assert_eq!(
            run_state(dir.path(), "../../etc/passwd"),
            RunState::Ended,
            "not an id"
        );
    }

    #[test]
    fn a_stale_lock_file_is_a_crashed_run() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(RUNS_DIR)).unwrap();
        // What a killed process leaves: the file, but no lock on it.
        std::fs::write(lock_path(dir.path(), "1-2"), b"").unwrap();
        assert_eq!(run_state(dir.path(), "1-2"), RunState::Crashed);
        assert!(!lock_path(dir.path(), "1-2").exists(), "stale file removed");
    }
}
