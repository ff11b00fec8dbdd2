//! `airlock gateway --stdio`: the line an app puts in its config. It owns
//! nothing: it attaches to the running host over the socket (starting
//! `airlock daemon` when nothing listens), says its hello, and then only
//! copies bytes between its stdin/stdout and the socket.

use std::ffi::OsString;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::hello::{self, Hello, Welcome, HELLO_VERSION};
use crate::{limits, place};

/// How long the shim stays after the app closed its stdin.
pub const STDIN_EOF_GRACE: Duration = Duration::from_millis(500);

/// How to attach.
pub struct ShimOptions {
    pub data_dir: PathBuf,
    /// `--client NAME`.
    pub client: Option<String>,
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
}

/// Attach, then copy bytes until either side closes.
pub fn run(options: ShimOptions) -> Result<(), ShimError> {
    if let Some(c) = &options.client {
        hello::check_client_name(c).map_err(ShimError::Usage)?;
    }
    let stream = attach(&options)?;
    let (reader, _) = greet(
        stream
            .try_clone()
            .map_err(connect_error(&options.data_dir))?,
        &options,
    )?;
    pump(stream, reader);
    Ok(())
}

fn connect_error(data_dir: &Path) -> impl Fn(std::io::Error) -> ShimError + '_ {
    move |source| ShimError::Connect {
        path: place::socket_path(data_dir).display().to_string(),
        source,
    }
}

/// Connect to the host, starting one when nothing listens.
fn attach(options: &ShimOptions) -> Result<UnixStream, ShimError> {
    match place::connect(&options.data_dir) {
        Ok(s) => return Ok(s),
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::ConnectionRefused
            ) => {}
        Err(e) => return Err(connect_error(&options.data_dir)(e)),
    }
    let Some((program, args)) = &options.start_host else {
        return Err(ShimError::Start(
            "no host listens and starting one was not allowed".into(),
        ));
    };
    place::create_data_dir(&options.data_dir)
        .map_err(|e| ShimError::Start(format!("{}: {e}", options.data_dir.display())))?;
    let log_at = place::log_path(&options.data_dir);
    let log = {
        use std::os::unix::fs::OpenOptionsExt;
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .mode(0o600)
            .open(&log_at)
    }
    .map_err(|e| ShimError::Start(format!("{}: {e}", log_at.display())))?;
    let mut child = {
        use std::os::unix::process::CommandExt;
        Command::new(program)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            // Its own process group: the app's Ctrl-C or group kill does not
            // stop the host other apps share.
            .process_group(0)
            .spawn()
            .map_err(|e| ShimError::Start(format!("{}: {e}", program.display())))?
    };
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
fn greet(
    mut stream: UnixStream,
    options: &ShimOptions,
) -> Result<(BufReader<UnixStream>, Welcome), ShimError> {
    let hello = Hello {
        airlock_gateway: HELLO_VERSION,
        client: options.client.clone(),
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

/// Copy stdin -> socket (in a thread) and socket -> stdout (here), each
/// write flushed at once; returns when the host closes.
fn pump(to_host: UnixStream, mut from_host: BufReader<UnixStream>) {
    std::thread::spawn(move || {
        let mut to_host = to_host;
        let mut stdin = std::io::stdin().lock();
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            match stdin.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    if to_host.write_all(&buf[..n]).is_err() {
                        break;
                    }
                }
            }
        }
        // The app closed its end (MCP's stdio shutdown): tell the host, give
        // it a moment to close, then leave even if calls are still running
        // there (the host cancels them when the socket closes).
        let _ = to_host.shutdown(std::net::Shutdown::Write);
        std::thread::sleep(STDIN_EOF_GRACE);
        std::process::exit(0);
    });
    let mut stdout = std::io::stdout().lock();
    loop {
        let chunk = match from_host.fill_buf() {
            Ok([]) | Err(_) => break,
            Ok(chunk) => chunk,
        };
        let n = chunk.len();
        if stdout
            .write_all(chunk)
            .and_then(|()| stdout.flush())
            .is_err()
        {
            break;
        }
        from_host.consume(n);
    }
}
