//! Which Airlock processes are alive. Each running Airlock (window, CLI,
//! daemon) holds an exclusive lock on `runs/<run id>.lock` in the data dir
//! for as long as it runs; the operating system releases it however the
//! process ends (kill -9 included). Records whose run holds no lock any more
//! were left open by a process that is gone: the next start marks them
//! `interrupted`.

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
}

impl Drop for Run {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Is the run `id` still alive (its lock held by a process)? A run without
/// a lock file, or whose lock can be taken, is gone; its stale file is
/// removed.
pub fn is_alive(data_dir: &Path, id: &str) -> bool {
    if !valid_id(id) {
        return false;
    }
    let path = lock_path(data_dir, id);
    let Ok(file) = OpenOptions::new().write(true).open(&path) else {
        return false;
    };
    match file.try_lock() {
        Ok(()) => {
            let _ = std::fs::remove_file(&path);
            false
        }
        Err(std::fs::TryLockError::WouldBlock) => true,
        // Cannot tell: treat as alive, so nothing of a live process is touched.
        Err(std::fs::TryLockError::Error(_)) => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_is_alive_while_held_and_gone_after() {
        let dir = tempfile::tempdir().unwrap();
        let run = Run::start(dir.path()).unwrap();
        let id = run.id().to_owned();
        assert!(is_alive(dir.path(), &id));
        drop(run);
        assert!(!is_alive(dir.path(), &id));
        assert!(!is_alive(dir.path(), "123-456"), "never started");
        assert!(!is_alive(dir.path(), "../../etc/passwd"), "not an id");
    }

    #[test]
    fn a_stale_lock_file_of_a_dead_process_is_not_alive() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(RUNS_DIR)).unwrap();
        // What a killed process leaves: the file, but no lock on it.
        std::fs::write(lock_path(dir.path(), "1-2"), b"").unwrap();
        assert!(!is_alive(dir.path(), "1-2"));
        assert!(!lock_path(dir.path(), "1-2").exists(), "stale file removed");
    }
}
