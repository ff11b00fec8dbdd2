//! The shim hands its stdin and stdout to the host (SCM_RIGHTS on the
//! socket), so an app's messages go straight to the host: no copy and no
//! extra process hop per message. Only pipes and sockets are handed over
//! (a terminal or a file stays with the shim, which then copies bytes).

use std::io::{self, IoSlice, IoSliceMut};
use std::mem::MaybeUninit;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::fs::FileTypeExt;

use rustix::net::{
    RecvAncillaryBuffer, RecvAncillaryMessage, RecvFlags, SendAncillaryBuffer,
    SendAncillaryMessage, SendFlags,
};
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, Interest, ReadBuf};
use tokio_util::sync::CancellationToken;

use crate::catalog::log;

/// The one byte sent with the descriptors.
const MARK: u8 = b'F';

/// What kind of descriptor this is, if it can be handed over.
enum Kind {
    Pipe,
    Socket,
}

fn kind(fd: BorrowedFd<'_>) -> Option<Kind> {
    let meta = std::fs::File::from(fd.try_clone_to_owned().ok()?)
        .metadata()
        .ok()?;
    let t = meta.file_type();
    if t.is_fifo() {
        Some(Kind::Pipe)
    } else if t.is_socket() {
        Some(Kind::Socket)
    } else {
        None
    }
}

/// Can this descriptor be handed to the host (a pipe or a socket)?
pub fn can_pass(fd: BorrowedFd<'_>) -> bool {
    kind(fd).is_some()
}

/// Send `stdin` and `stdout` over `socket` (blocking).
pub fn send_stdio(
    socket: &std::os::unix::net::UnixStream,
    stdin: BorrowedFd<'_>,
    stdout: BorrowedFd<'_>,
) -> io::Result<()> {
    let fds = [stdin, stdout];
    let mut space = [MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(2))];
    let mut control = SendAncillaryBuffer::new(&mut space);
    if !control.push(SendAncillaryMessage::ScmRights(&fds)) {
        return Err(io::Error::other("no room for two descriptors"));
    }
    let sent = rustix::net::sendmsg(
        socket,
        &[IoSlice::new(&[MARK])],
        &mut control,
        SendFlags::empty(),
    )?;
    if sent == 1 {
        Ok(())
    } else {
        Err(io::Error::other("the descriptors were not sent"))
    }
}

/// Receive the shim's stdin and stdout from `socket` (the host's side).
pub async fn recv_stdio(socket: &tokio::net::UnixStream) -> io::Result<(OwnedFd, OwnedFd)> {
    loop {
        socket.readable().await?;
        let received = socket.try_io(Interest::READABLE, || {
            let mut byte = [0u8; 1];
            let mut space = [MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(2))];
            let mut control = RecvAncillaryBuffer::new(&mut space);
            let msg = rustix::net::recvmsg(
                socket,
                &mut [IoSliceMut::new(&mut byte)],
                &mut control,
                RecvFlags::CMSG_CLOEXEC,
            )?;
            let mut fds: Vec<OwnedFd> = Vec::new();
            for m in control.drain() {
                if let RecvAncillaryMessage::ScmRights(rights) = m {
                    fds.extend(rights);
                }
            }
            Ok((msg.bytes, byte[0], fds))
        });
        match received {
            Ok((1, MARK, fds)) if fds.len() == 2 => {
                let mut fds = fds.into_iter();
                if let (Some(stdin), Some(stdout)) = (fds.next(), fds.next()) {
                    return Ok((stdin, stdout));
                }
                return Err(io::Error::other("two descriptors expected"));
            }
            Ok((0, _, _)) => return Err(io::Error::other("the shim left before handing over")),
            Ok(_) => return Err(io::Error::other("expected the shim's stdin and stdout")),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
            Err(e) => return Err(e),
        }
    }
}

/// Where the host reads an app's messages.
pub enum Reader {
    Pipe(tokio::net::unix::pipe::Receiver),
    Socket(tokio::net::UnixStream),
    /// The shim copies: its socket.
    Copied(tokio::io::BufReader<tokio::net::unix::OwnedReadHalf>),
}

/// Where the host writes an app's messages.
pub enum Writer {
    Pipe(tokio::net::unix::pipe::Sender),
    Socket(tokio::net::UnixStream),
    /// The shim copies: its socket.
    Copied(tokio::net::unix::OwnedWriteHalf),
}

impl AsyncRead for Reader {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Reader::Pipe(p) => Pin::new(p).poll_read(cx, buf),
            Reader::Socket(s) => Pin::new(s).poll_read(cx, buf),
            Reader::Copied(c) => Pin::new(c).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for Writer {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Writer::Pipe(p) => Pin::new(p).poll_write(cx, buf),
            Writer::Socket(s) => Pin::new(s).poll_write(cx, buf),
            Writer::Copied(c) => Pin::new(c).poll_write(cx, buf),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Writer::Pipe(p) => Pin::new(p).poll_flush(cx),
            Writer::Socket(s) => Pin::new(s).poll_flush(cx),
            Writer::Copied(c) => Pin::new(c).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Writer::Pipe(p) => Pin::new(p).poll_shutdown(cx),
            Writer::Socket(s) => Pin::new(s).poll_shutdown(cx),
            Writer::Copied(c) => Pin::new(c).poll_shutdown(cx),
        }
    }
}

/// The app's stdin (handed over) to read from.
pub fn reader(fd: OwnedFd) -> io::Result<Reader> {
    match kind(fd.as_fd()) {
        Some(Kind::Pipe) => Ok(Reader::Pipe(
            tokio::net::unix::pipe::Receiver::from_owned_fd(fd)?,
        )),
        Some(Kind::Socket) => Ok(Reader::Socket(socket(fd)?)),
        None => Err(io::Error::other("stdin is not a pipe or a socket")),
    }
}

/// The app's stdout (handed over) to write to.
pub fn writer(fd: OwnedFd) -> io::Result<Writer> {
    match kind(fd.as_fd()) {
        Some(Kind::Pipe) => Ok(Writer::Pipe(tokio::net::unix::pipe::Sender::from_owned_fd(
            fd,
        )?)),
        Some(Kind::Socket) => Ok(Writer::Socket(socket(fd)?)),
        None => Err(io::Error::other("stdout is not a pipe or a socket")),
    }
}

/// The host's side after a hello with `"fds": true`: receive the shim's
/// stdin and stdout (bounded by the hello time-out) and serve the app on
/// them. The socket then only says whether the shim is still there:
/// `shim_left` is cancelled when it goes; the socket is closed when `ended`
/// is cancelled, which lets the shim exit. `None` (logged) when the
/// descriptors did not come or cannot be used.
pub async fn take_over(
    reader: tokio::io::BufReader<tokio::net::unix::OwnedReadHalf>,
    write: tokio::net::unix::OwnedWriteHalf,
    who: &str,
    shim_left: CancellationToken,
    ended: CancellationToken,
) -> Option<(Reader, Writer)> {
    let handed = tokio::time::timeout(
        crate::hello::HELLO_TIMEOUT,
        recv_stdio(reader.get_ref().as_ref()),
    )
    .await;
    let (stdin, stdout) = match handed {
        Ok(Ok(fds)) => fds,
        Ok(Err(e)) => {
            log(&format!("app {who}: no stdin/stdout from the shim: {e}"));
            return None;
        }
        Err(_) => {
            log(&format!(
                "app {who}: the shim did not hand over stdin/stdout"
            ));
            return None;
        }
    };
    let streams = self::reader(stdin).and_then(|r| Ok((r, writer(stdout)?)));
    let (r, w) = match streams {
        Ok(rw) => rw,
        Err(e) => {
            log(&format!(
                "app {who}: cannot use the shim's stdin/stdout: {e}"
            ));
            return None;
        }
    };
    tokio::spawn(async move {
        let mut reader = reader;
        let mut sink = [0u8; 64];
        loop {
            tokio::select! {
                read = tokio::io::AsyncReadExt::read(&mut reader, &mut sink) => match read {
                    Ok(0) | Err(_) => {
                        shim_left.cancel();
                        break;
                    }
                    Ok(_) => {}
                },
                () = ended.cancelled() => break,
            }
        }
        drop(write);
    });
    Some((r, w))
}

fn socket(fd: OwnedFd) -> io::Result<tokio::net::UnixStream> {
    let s = std::os::unix::net::UnixStream::from(fd);
    s.set_nonblocking(true)?;
    tokio::net::UnixStream::from_std(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    #[tokio::test]
    async fn a_pipe_and_a_socket_travel_and_work_on_the_other_side() {
        let (a, b) = std::os::unix::net::UnixStream::pair().unwrap();
        let (pipe_r, mut pipe_w) = std::io::pipe().unwrap();
        let (sock_here, sock_there) = std::os::unix::net::UnixStream::pair().unwrap();
        assert!(can_pass(pipe_r.as_fd()) && can_pass(sock_there.as_fd()));
        send_stdio(&a, pipe_r.as_fd(), sock_there.as_fd()).unwrap();
        drop((pipe_r, sock_there));
        b.set_nonblocking(true).unwrap();
        let b = tokio::net::UnixStream::from_std(b).unwrap();
        let (stdin, stdout) = recv_stdio(&b).await.unwrap();
        let (mut r, mut w) = (reader(stdin).unwrap(), writer(stdout).unwrap());
        std::io::Write::write_all(&mut pipe_w, b"ping\n").unwrap();
        let mut buf = [0u8; 5];
        r.read_exact(&mut buf).await.unwrap();
        assert_eq!(&buf, b"ping\n");
        w.write_all(b"pong\n").await.unwrap();
        w.flush().await.unwrap();
        let mut got = [0u8; 5];
        std::io::Read::read_exact(&mut &sock_here, &mut got).unwrap();
        assert_eq!(&got, b"pong\n");
    }

    #[test]
    fn files_stay_with_the_shim() {
        let f = tempfile::tempfile().unwrap();
        assert!(!can_pass(f.as_fd()));
    }
}
