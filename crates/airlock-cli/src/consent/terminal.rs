//! One terminal for the whole process: a single stdin reader and a prompt
//! lock.
//!
//! - **One reader.** A plain thread (not the runtime's blocking pool, so the
//!   program can exit while a read is pending) reads stdin line by line into
//!   a channel. A question that is dropped before it is answered (a
//!   completion won the race, the server cancelled) leaves no reader behind
//!   that could swallow the user's next line: the line stays in the channel.
//! - **One question at a time.** Every question holds the prompt lock
//!   ([`Prompt`]) while it prints and reads; a request that arrives while a
//!   prompt is open waits its turn (the lock is fair: first come, first
//!   asked), and an answer only ever reaches the prompt on screen.
//! - **No typed-ahead answers on a terminal.** When stdin is a terminal,
//!   lines typed before a question was shown are discarded, and the user is
//!   told. When stdin is a pipe (scripts, tests), every line is kept, in
//!   order, for the next question.
//! - **End of input** answers the question on screen with `None` (cancel).
//!   From a pipe it is final; on a terminal (Ctrl-D) it answers one question
//!   and the next question reads again.

use std::io::{BufRead, IsTerminal, Write};
use std::sync::OnceLock;
use std::time::Duration;

use tokio::sync::{mpsc, Mutex, MutexGuard};

/// Lines read but not yet asked for; the reader waits when it is full.
const QUEUE: usize = 64;
/// Longest line kept; the rest of a longer line is read and dropped.
const MAX_LINE_BYTES: usize = 64 * 1024;
/// On a terminal, how long a newly started reader is given to pick up lines
/// typed before it existed (they are discarded as typed-ahead).
const SETTLE: Duration = Duration::from_millis(150);

/// What the reader saw.
enum Event {
    Line(String),
    /// Ctrl-D on a terminal. (From a pipe, the end closes the channel.)
    Eof,
}

/// The input side, owned by whoever holds the prompt lock.
struct Input {
    /// Is stdin a terminal (discard typed-ahead, Ctrl-D is not final)?
    interactive: bool,
    /// `None` until the first question starts the reader.
    lines: Option<mpsc::Receiver<Event>>,
    /// On a terminal the reader waits after an end of input until a
    /// question has taken it; this lets it read again.
    resume: Option<std::sync::mpsc::Sender<()>>,
}

fn terminal() -> &'static Mutex<Input> {
    static TERMINAL: OnceLock<Mutex<Input>> = OnceLock::new();
    TERMINAL.get_or_init(|| {
        Mutex::new(Input {
            interactive: std::io::stdin().is_terminal(),
            lines: None,
            resume: None,
        })
    })
}

/// On a terminal, start the reader now, in the background, so that the
/// first question does not wait for it: starting it includes a settle time
/// (lines typed before then are typed-ahead), which otherwise sat between a
/// server's request and its prompt (150 ms of the first prompt; see
/// scripts/bench-consent.sh). A question that comes meanwhile waits only for
/// what is left of the settle time. Does nothing when stdin is not a
/// terminal (there is no settle time then, and a pipe may be meant for
/// something else until a question is asked).
pub fn prepare() {
    if !std::io::stdin().is_terminal() {
        return;
    }
    tokio::spawn(async {
        let mut input = terminal().lock().await;
        if input.lines.is_none() {
            start_reader(&mut input).await;
        }
    });
}

/// One question on screen: holds the prompt lock until dropped.
pub struct Prompt {
    input: MutexGuard<'static, Input>,
    /// A question was printed and its answer is not read yet.
    waiting: bool,
}

impl Prompt {
    /// Wait for the screen, then take it. Lines typed on a terminal before
    /// this point are discarded (and the user is told).
    pub async fn open() -> Prompt {
        let mut input = terminal().lock().await;
        if input.lines.is_none() {
            start_reader(&mut input).await;
        }
        let mut prompt = Prompt {
            input,
            waiting: false,
        };
        prompt.discard_typed_ahead();
        prompt
    }

    /// Print one line of the question block. (A method, so that only the
    /// holder of the screen prints a question.)
    #[allow(clippy::unused_self)]
    pub fn say(&self, text: &str) {
        let mut err = std::io::stderr().lock();
        let _ = writeln!(err, "{text}");
    }

    /// Print `question` (no line break), then read one line: as typed,
    /// without its line ending. `None` at the end of input.
    pub async fn ask_raw(&mut self, question: &str) -> Option<String> {
        show(question);
        if self.discard_typed_ahead() {
            show(question);
        }
        self.waiting = true;
        let answer = self.next().await;
        self.waiting = false;
        answer
    }

    /// Like [`Prompt::ask_raw`], trimmed and in lower case (for choices).
    pub async fn ask(&mut self, question: &str) -> Option<String> {
        self.ask_raw(question)
            .await
            .map(|l| l.trim().to_ascii_lowercase())
    }

    async fn next(&mut self) -> Option<String> {
        let event = match self.input.lines.as_mut() {
            Some(rx) => rx.recv().await,
            None => None,
        };
        match event {
            Some(Event::Line(line)) => Some(line),
            Some(Event::Eof) => {
                self.resume_reader();
                None
            }
            None => None,
        }
    }

    /// On a terminal, drop every line that arrived before now; say so.
    /// Returns whether anything was dropped.
    fn discard_typed_ahead(&mut self) -> bool {
        if !self.input.interactive {
            return false;
        }
        let (mut lines, mut eof) = (0usize, false);
        if let Some(rx) = self.input.lines.as_mut() {
            // Bounded: the reader adds at most QUEUE lines, plus one end of
            // input that it waits behind until resumed (below).
            for _ in 0..=QUEUE {
                match rx.try_recv() {
                    Ok(Event::Line(_)) => lines += 1,
                    Ok(Event::Eof) => eof = true,
                    Err(_) => break,
                }
            }
        }
        if eof {
            self.resume_reader();
        }
        if lines == 0 && !eof {
            return false;
        }
        let what = match (lines, eof) {
            (0, _) => "an end of input (Ctrl-D)".to_owned(),
            (1, false) => "1 line".to_owned(),
            (n, false) => format!("{n} lines"),
            (1, true) => "1 line and an end of input (Ctrl-D)".to_owned(),
            (n, true) => format!("{n} lines and an end of input (Ctrl-D)"),
        };
        let mut err = std::io::stderr().lock();
        let _ = writeln!(err);
        let _ = writeln!(
            err,
            "(ignored {what} typed before the question below was shown)"
        );
        true
    }

    fn resume_reader(&self) {
        if let Some(resume) = &self.input.resume {
            let _ = resume.send(());
        }
    }
}

impl Drop for Prompt {
    /// A question dropped before its answer (a completion came, the server
    /// cancelled, Airlock gave up) is closed on screen too, so that nobody
    /// answers a question that no longer exists.
    fn drop(&mut self) {
        if self.waiting {
            let mut err = std::io::stderr().lock();
            let _ = writeln!(err);
            let _ = writeln!(
                err,
                "(this question was withdrawn; it needs no answer any more)"
            );
        }
    }
}

fn show(question: &str) {
    let mut err = std::io::stderr().lock();
    let _ = write!(err, "{question}");
    let _ = err.flush();
}

/// Start the one reader thread. On a terminal, wait until it reads, and a
/// little longer, so that lines typed before it existed are picked up now
/// and discarded as typed-ahead rather than taken as an answer later.
async fn start_reader(input: &mut Input) {
    let interactive = input.interactive;
    let (tx, rx) = mpsc::channel(QUEUE);
    let (resume_tx, resume_rx) = std::sync::mpsc::channel::<()>();
    let (ready_tx, ready_rx) = tokio::sync::oneshot::channel::<()>();
    let spawned = std::thread::Builder::new()
        .name("airlock-stdin".into())
        .spawn(move || {
            let _ = ready_tx.send(());
            loop {
                let read = {
                    let mut stdin = std::io::stdin().lock();
                    read_line_bounded(&mut stdin)
                };
                match read {
                    Ok(Some(line)) => {
                        if tx.blocking_send(Event::Line(line)).is_err() {
                            return;
                        }
                    }
                    // The end of a pipe is final: closing the channel says so.
                    _ if !interactive => return,
                    // Ctrl-D (or a read error) on a terminal: one question's
                    // end of input; read again once it has been taken.
                    _ => {
                        if tx.blocking_send(Event::Eof).is_err() || resume_rx.recv().is_err() {
                            return;
                        }
                    }
                }
            }
        });
    // Without a reader every question reads end of input (cancel).
    input.lines = Some(rx);
    if spawned.is_err() {
        return;
    }
    input.resume = Some(resume_tx);
    if interactive {
        let _ = tokio::time::timeout(Duration::from_secs(1), ready_rx).await;
        tokio::time::sleep(SETTLE).await;
    }
}

/// One line without its line ending (`\n` or `\r\n`), at most
/// [`MAX_LINE_BYTES`] of it, invalid UTF-8 replaced. `None` at the end of
/// input.
fn read_line_bounded(r: &mut impl BufRead) -> std::io::Result<Option<String>> {
    let mut kept = Vec::new();
    let mut seen_any = false;
    loop {
        let available = match r.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            return Ok(seen_any.then(|| finish_line(kept)));
        }
        seen_any = true;
        let (chunk, ends) = match available.iter().position(|&b| b == b'\n') {
            Some(i) => (&available[..i], Some(i + 1)),
            None => (available, None),
        };
        let room = MAX_LINE_BYTES.saturating_sub(kept.len());
        kept.extend_from_slice(&chunk[..chunk.len().min(room)]);
        let used = ends.unwrap_or(available.len());
        r.consume(used);
        if ends.is_some() {
            return Ok(Some(finish_line(kept)));
        }
    }
}

fn finish_line(mut bytes: Vec<u8>) -> String {
    if bytes.last() == Some(&b'\r') {
        bytes.pop();
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8]) -> Vec<Option<String>> {
        let mut r = std::io::BufReader::with_capacity(7, input);
        let mut out = Vec::new();
        loop {
            let l = read_line_bounded(&mut r).ok().flatten();
            let end = l.is_none();
            out.push(l);
            if end {
                return out;
            }
        }
    }

    #[test]
    fn lines_lose_their_endings_and_the_last_needs_none() {
        assert_eq!(
            lines(b"y\r\n\nsome text\nlast"),
            [
                Some("y".into()),
                Some(String::new()),
                Some("some text".into()),
                Some("last".into()),
                None
            ]
        );
        assert_eq!(lines(b""), [None]);
    }

    #[test]
    fn a_long_line_is_cut_and_the_next_line_is_intact() {
        let mut input = vec![b'a'; MAX_LINE_BYTES + 1000];
        input.extend_from_slice(b"\nnext\n");
        let got = lines(&input);
        assert_eq!(got.len(), 3);
        assert_eq!(got[0].as_deref().map(str::len), Some(MAX_LINE_BYTES));
        assert_eq!(got[1].as_deref(), Some("next"));
    }

    #[test]
    fn invalid_utf8_is_replaced_not_an_error() {
        assert_eq!(lines(b"\xffy\n")[0].as_deref(), Some("\u{fffd}y"));
    }
}
