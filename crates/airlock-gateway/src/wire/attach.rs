//! How a shim reaches the host: connect to the endpoint (starting
//! `airlock daemon` on its own when nothing listens, or waiting for a host
//! that is taking the socket over), then say the hello and read the
//! host's answer. The shim's first attach ([`crate::wire::shim`]) and each
//! attach after a host change ([`crate::wire::relay`]) go through here.

use crate::wire::endpoint::Stream as UnixStream;
use std::ffi::OsString;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::wire::hello::{self, Hello, Welcome, HELLO_VERSION};
use crate::{limits, wire::place};

/// How to attach.
pub struct ShimOptions {
    pub data_dir: PathBuf,
    /// `--app NAME`.
    pub app: Option<String>,
    /// The program and arguments that start a host when none listens
    /// (`airlock --data-dir .. daemon ..`); `None`: fail instead.
    pub start_host: Option<(PathBuf, Vec<OsString>)>,
}

#[derive(Debug, thiserror::Error)]
pub enum ShimError {
    #[error("{0}")]
    Usage(String),
    #[error("cannot start the Airlock host (`airlock daemon`): {0}")]
    Start(String),
    #[error("cannot reach the Airlock host at {path}: {source}")]
    Connect {
        path: String,
        source: std::io::Error,
    },
    #[error("the Airlock host refused this app: {0}")]
    Refused(String),
    #[error("the Airlock host did not answer the hello: {0}")]
    Hello(String),
    #[error("the Airlock host is handing over to another")]
    Moving,
}

fn connect_error(data_dir: &Path) -> impl Fn(std::io::Error) -> ShimError + '_ {
    move |source| ShimError::Connect {
        path: place::socket_path(data_dir).display().to_string(),
        source,
    }
}

/// Connect to the host, starting one when nothing listens.
pub(crate) fn attach(options: &ShimOptions) -> Result<UnixStream, ShimError> {
    match place::connect(&options.data_dir) {
        Ok(s) => return Ok(s),
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::ConnectionRefused
            ) => {}
        Err(e) => return Err(connect_error(&options.data_dir)(e)),
    }
    // A host is taking the socket over (crate::wire::handover): wait for it
    // rather than start a daemon that would race it for the socket.
    let successor = crate::wire::handover::successor_lock_path(&options.data_dir);
    let until = Instant::now() + crate::wire::handover::TAKE_OVER_WITHIN;
    while place::lock_holder(&successor).is_some() && Instant::now() < until {
        if let Ok(s) = place::connect(&options.data_dir) {
            return Ok(s);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let Some((program, args)) = &options.start_host else {
        return Err(ShimError::Start(
            "no host listens and starting one was not allowed".into(),
        ));
    };
    place::create_data_dir(&options.data_dir)
        .map_err(|e| ShimError::Start(format!("{}: {e}", options.data_dir.display())))?;
    let log_at = place::log_path(&options.data_dir);
    let log = airlock_platform::private_files::open(
        &log_at,
        std::fs::OpenOptions::new().create(true).append(true),
    )
    .map_err(|e| ShimError::Start(format!("{}: {e}", log_at.display())))?;
    // On its own (crate::wire::detached): the app's Ctrl-C or group kill
    // does not stop the host other apps share.
    let mut child = crate::wire::detached::spawn(
        Command::new(program)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log),
    )
    .map_err(|e| ShimError::Start(format!("{}: {e}", program.display())))?;
    let deadline = Instant::now() + limits::DAEMON_START_TIMEOUT;
    loop {
        if let Ok(s) = place::connect(&options.data_dir) {
            // Reap it when it exits, so no zombie is left behind us.
            std::thread::spawn(move || {
                let _ = child.wait();
            });
            return Ok(s);
        }
        if let Ok(Some(status)) = child.try_wait() {
            // Another shim's host may have won the race: attach to it.
            if let Ok(s) = place::connect(&options.data_dir) {
                return Ok(s);
            }
            if place::running_host(&options.data_dir).is_some() {
                std::thread::sleep(Duration::from_millis(50));
                continue;
            }
            return Err(ShimError::Start(format!(
                "it exited ({status}); its log: {}{}",
                log_at.display(),
                log_tail(&log_at)
            )));
        }
        if Instant::now() > deadline {
            return Err(ShimError::Start(format!(
                "it did not listen within {} s; its log: {}",
                limits::DAEMON_START_TIMEOUT.as_secs(),
                log_at.display()
            )));
        }
        std::thread::sleep(Duration::from_millis(25));
    }
}

/// The last lines of the host's log, for an error message.
fn log_tail(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().rev().take(3).collect();
    if lines.is_empty() {
        String::new()
    } else {
        let mut lines = lines;
        lines.reverse();
        format!(" (last lines: {})", lines.join(" | "))
    }
}

/// Say hello and read the host's answer (bounded in size and time).
/// Returns the reader with whatever the host sent after its answer.
pub(crate) fn greet(
    mut stream: UnixStream,
    options: &ShimOptions,
) -> Result<(BufReader<UnixStream>, Welcome), ShimError> {
    let hello = Hello {
        airlock_gateway: HELLO_VERSION,
        app: options.app.clone(),
        handover: false,
        flush_history: false,
    };
    stream
        .write_all(&hello::line(&hello))
        .map_err(|e| ShimError::Hello(e.to_string()))?;
    stream
        .set_read_timeout(Some(hello::HELLO_TIMEOUT))
        .map_err(|e| ShimError::Hello(e.to_string()))?;
    let mut reader = BufReader::new(stream);
    let mut line = Vec::new();
    let n = (&mut reader)
        .take(hello::MAX_HELLO_BYTES as u64)
        .read_until(b'\n', &mut line)
        .map_err(|e| ShimError::Hello(e.to_string()))?;
    if n == 0 || !line.ends_with(b"\n") {
        return Err(ShimError::Hello("the connection closed".into()));
    }
    let welcome: Welcome = serde_json::from_slice(&line)
        .map_err(|_| ShimError::Hello("an answer that is not Airlock's".into()))?;
    if welcome.moving {
        return Err(ShimError::Moving);
    }
    if !welcome.ok {
        return Err(ShimError::Refused(
            welcome.error.unwrap_or_else(|| "no reason given".into()),
        ));
    }
    reader
        .get_ref()
        .set_read_timeout(None)
        .map_err(|e| ShimError::Hello(e.to_string()))?;
    Ok((reader, welcome))
}
