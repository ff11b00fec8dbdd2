//! `airlock-bench relay -- CMD [ARGS...]`: a process that does nothing but
//! copy bytes between its own stdio and a child's, unread. It measures the
//! floor any proxy process on a stdio call path pays (each message crosses
//! one more pipe and wakes one more process), so scripts/bench-gateway.sh
//! can set the gateway (two processes between the app and the server: the
//! shim and the host) beside one and two relays that do no work at all.

use std::fs::File;
use std::io::{Read, Write};
use std::process::{Command, Stdio};

const USAGE: &str = "usage: airlock-bench relay -- CMD [ARGS...]";

pub(crate) fn run(args: &[String]) -> Result<(), String> {
    let sep = args.iter().position(|a| a == "--").ok_or(USAGE)?;
    let command = args.get(sep + 1).ok_or(USAGE)?;
    let mut child = Command::new(command)
        .args(&args[sep + 2..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("relay: could not start {command}: {e}"))?;
    let to_child = child.stdin.take().ok_or("relay: no child stdin")?;
    let from_child = child.stdout.take().ok_or("relay: no child stdout")?;
    // The raw descriptors: std's stdin/stdout buffer, a relay must not.
    let (stdin, stdout) = raw_stdio().map_err(|e| format!("relay: {e}"))?;
    // App -> child on its own thread; closing the child's stdin at the
    // app's end of input lets the child exit, which ends the other copy.
    std::thread::spawn(move || copy(stdin, to_child));
    let _ = copy(from_child, stdout);
    child
        .wait()
        .map_err(|e| format!("relay: waiting for {command}: {e}"))?;
    Ok(())
}

/// This process's stdin and stdout as unbuffered files (a descriptor on
/// Unix, a handle on Windows).
#[cfg(unix)]
fn raw_stdio() -> std::io::Result<(File, File)> {
    use std::os::fd::AsFd;
    Ok((
        File::from(std::io::stdin().as_fd().try_clone_to_owned()?),
        File::from(std::io::stdout().as_fd().try_clone_to_owned()?),
    ))
}

/// This process's stdin and stdout as unbuffered files (a descriptor on
/// Unix, a handle on Windows).
#[cfg(windows)]
fn raw_stdio() -> std::io::Result<(File, File)> {
    use std::os::windows::io::AsHandle;
    Ok((
        File::from(std::io::stdin().as_handle().try_clone_to_owned()?),
        File::from(std::io::stdout().as_handle().try_clone_to_owned()?),
    ))
}

/// Copy until end of input, each read written on at once.
fn copy(mut from: impl Read, mut to: impl Write) -> std::io::Result<()> {
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = from.read(&mut buf)?;
        if n == 0 {
            return Ok(());
        }
        to.write_all(&buf[..n])?;
    }
}
