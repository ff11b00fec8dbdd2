//! Messages from a server larger than its limit ([`crate::limits::MAX_MESSAGE_BYTES`],
//! or the server's own `--max-message-bytes`) are never held whole: a stdio
//! server's stdout is read line by line through [`CappedLines`], which
//! holds at most the limit; a longer line is dropped as it streams by. So
//! that the request it answered does not wait forever, the dropped line is
//! scanned on the way (constant memory, [`Envelope`]) for its JSON-RPC
//! envelope: when it was a response, the transport gets in its place an
//! error response with the same id that names the limit, and the caller
//! (an app's tool call, say) gets a clear error. A dropped request or
//! notification of the server's is only logged.

use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, ReadBuf};

/// JSON-RPC code of the error that stands for a dropped response.
pub const TOO_LARGE_CODE: i32 = -32603;
/// Longest id kept from a dropped message, in bytes.
const MAX_ID_BYTES: usize = 256;

/// What the top level of a JSON-RPC message said, read byte by byte.
#[derive(Debug, Default)]
pub struct Envelope {
    depth: usize,
    in_string: bool,
    escaped: bool,
    /// The string just read at depth 1 (a key, or a value), bounded.
    text: Vec<u8>,
    text_overflow: bool,
    /// The last key read at depth 1, waiting for its value.
    key: Option<Vec<u8>>,
    after_colon: bool,
    /// The id's raw JSON (a number, or a string with its quotes).
    id: Option<Vec<u8>>,
    id_raw: Vec<u8>,
    reading_id: bool,
    /// Saw `result` or `error` (a response), or `method` (a request or
    /// notification) at the top level.
    pub response: bool,
    pub request: bool,
}

impl Envelope {
    /// Read the next bytes of the message.
    pub fn feed(&mut self, mut bytes: &[u8]) {
        while let Some((&first, rest)) = bytes.split_first() {
            // Inside a nested string (a result's text, say: nearly all of a
            // huge message) only a quote or a backslash matters.
            if self.in_string && self.depth >= 2 && !self.escaped {
                match bytes.iter().position(|b| matches!(b, b'"' | b'\\')) {
                    Some(i) => bytes = &bytes[i..],
                    None => return,
                }
                if let Some((&b, rest)) = bytes.split_first() {
                    self.byte(b);
                    bytes = rest;
                }
                continue;
            }
            self.byte(first);
            bytes = rest;
        }
    }

    fn end_id(&mut self) {
        if self.reading_id {
            self.reading_id = false;
            let raw = std::mem::take(&mut self.id_raw);
            let trimmed = raw.trim_ascii();
            if !trimmed.is_empty() && trimmed.len() <= MAX_ID_BYTES {
                self.id = Some(trimmed.to_vec());
            }
        }
    }

    fn byte(&mut self, b: u8) {
        if self.in_string {
            if self.depth == 1 {
                if self.text.len() < MAX_ID_BYTES {
                    self.text.push(b);
                } else {
                    self.text_overflow = true;
                }
                if self.reading_id && self.id_raw.len() <= MAX_ID_BYTES {
                    self.id_raw.push(b);
                }
            }
            if self.escaped {
                self.escaped = false;
            } else if b == b'\\' {
                self.escaped = true;
            } else if b == b'"' {
                self.in_string = false;
                if self.depth == 1 {
                    self.text.pop();
                    let text = std::mem::take(&mut self.text);
                    let overflow = std::mem::take(&mut self.text_overflow);
                    if self.after_colon {
                        // A string value at the top level.
                        self.after_colon = false;
                        self.end_id();
                        self.key = None;
                    } else if !overflow {
                        self.key = Some(text);
                    }
                }
            }
            return;
        }
        match b {
            b'"' => {
                self.in_string = true;
                if self.depth == 1 && self.reading_id {
                    self.id_raw.push(b);
                }
            }
            b'{' | b'[' => {
                if self.depth == 1 && self.after_colon {
                    self.note_key_value();
                    self.reading_id = false;
                    self.id_raw.clear();
                }
                self.depth += 1;
            }
            b'}' | b']' => {
                if self.depth == 1 {
                    self.end_id();
                }
                self.depth = self.depth.saturating_sub(1);
                if self.depth == 1 {
                    self.after_colon = false;
                    self.key = None;
                }
            }
            b':' if self.depth == 1 => {
                self.after_colon = true;
                self.note_key_value();
            }
            b',' if self.depth == 1 => {
                self.end_id();
                self.after_colon = false;
                self.key = None;
            }
            _ => {
                if self.depth == 1 && self.reading_id && self.id_raw.len() <= MAX_ID_BYTES {
                    self.id_raw.push(b);
                }
            }
        }
    }

    /// A value of the last key starts: note which key it was.
    fn note_key_value(&mut self) {
        let Some(key) = self.key.as_deref() else {
            return;
        };
        match key {
            b"result" | b"error" => self.response = true,
            b"method" => self.request = true,
            b"id" if self.after_colon && !self.reading_id && self.id.is_none() => {
                self.reading_id = true;
                self.id_raw.clear();
            }
            _ => {}
        }
    }

    /// The id of a response (not of a request of the server's).
    pub fn response_id(&self) -> Option<&[u8]> {
        (self.response && !self.request)
            .then_some(self.id.as_deref())
            .flatten()
    }
}

/// The error response that stands for a dropped one.
pub fn too_large_response(id: &[u8], server: &str, limit: usize) -> Vec<u8> {
    let message = format!(
        "the answer of {server} was larger than Airlock's limit of {limit} bytes per message, so it was not read (`airlock servers edit {server} --max-message-bytes N` changes the limit)"
    );
    let mut line = b"{\"jsonrpc\":\"2.0\",\"id\":".to_vec();
    line.extend_from_slice(id);
    line.extend_from_slice(b",\"error\":{\"code\":");
    line.extend_from_slice(TOO_LARGE_CODE.to_string().as_bytes());
    line.extend_from_slice(b",\"message\":");
    line.extend_from_slice(
        serde_json::to_string(&message)
            .unwrap_or_else(|_| "\"too large\"".to_owned())
            .as_bytes(),
    );
    line.extend_from_slice(b"}}\n");
    line
}

/// A server's stdout, line by line, each at most `limit` bytes (see the
/// module docs). `on_drop` is told of each dropped message.
pub struct CappedLines<R> {
    inner: R,
    limit: usize,
    server: String,
    /// The line read so far (at most `limit`).
    line: Vec<u8>,
    /// Dropping the rest of an oversized line.
    dropping: Option<Envelope>,
    /// Whole lines ready to hand out, and how far they were handed out.
    ready: Vec<u8>,
    at: usize,
    on_drop: Box<dyn Fn(String) + Send>,
    eof: bool,
}

impl<R> CappedLines<R> {
    pub fn new(inner: R, limit: usize, server: &str, on_drop: Box<dyn Fn(String) + Send>) -> Self {
        Self {
            inner,
            limit,
            server: server.to_owned(),
            line: Vec::new(),
            dropping: None,
            ready: Vec::new(),
            at: 0,
            on_drop,
            eof: false,
        }
    }

    /// Take in bytes read from the server.
    fn take_in(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            let newline = bytes.iter().position(|b| *b == b'\n');
            let (part, rest) = match newline {
                Some(i) => (&bytes[..=i], &bytes[i + 1..]),
                None => (bytes, &[][..]),
            };
            bytes = rest;
            if let Some(envelope) = self.dropping.as_mut() {
                envelope.feed(part);
                if newline.is_some() {
                    self.dropped();
                }
                continue;
            }
            if self.line.len() + part.len() > self.limit {
                let mut envelope = Envelope::default();
                envelope.feed(&self.line);
                envelope.feed(part);
                self.line.clear();
                self.line.shrink_to(64 * 1024);
                self.dropping = Some(envelope);
                if newline.is_some() {
                    self.dropped();
                }
                continue;
            }
            self.line.extend_from_slice(part);
            if newline.is_some() {
                self.ready.append(&mut self.line);
            }
        }
    }

    /// An oversized line ended: stand in for it if it was a response.
    fn dropped(&mut self) {
        let Some(envelope) = self.dropping.take() else {
            return;
        };
        match envelope.response_id() {
            Some(id) => {
                let line = too_large_response(id, &self.server, self.limit);
                self.ready.extend_from_slice(&line);
                (self.on_drop)(format!(
                    "a response larger than {} bytes was dropped unread; its request gets an error naming the limit",
                    self.limit
                ));
            }
            None => (self.on_drop)(format!(
                "a message larger than {} bytes was dropped unread",
                self.limit
            )),
        }
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for CappedLines<R> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        out: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        loop {
            if this.at < this.ready.len() {
                let n = out.remaining().min(this.ready.len() - this.at);
                out.put_slice(&this.ready[this.at..this.at + n]);
                this.at += n;
                if this.at == this.ready.len() {
                    this.ready.clear();
                    this.at = 0;
                }
                return Poll::Ready(Ok(()));
            }
            if this.eof {
                return Poll::Ready(Ok(()));
            }
            let mut chunk = [0u8; 16 * 1024];
            let mut buf = ReadBuf::new(&mut chunk);
            match Pin::new(&mut this.inner).poll_read(cx, &mut buf) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Ready(Ok(())) => {
                    let filled = buf.filled();
                    if filled.is_empty() {
                        this.eof = true;
                        // A last line without its newline goes as it is.
                        if !this.line.is_empty() && this.dropping.is_none() {
                            this.ready.append(&mut this.line);
                        }
                        continue;
                    }
                    let filled = filled.to_vec();
                    this.take_in(&filled);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    fn envelope(text: &str) -> Envelope {
        let mut e = Envelope::default();
        // Fed in small pieces, as a stream would bring it.
        for chunk in text.as_bytes().chunks(3) {
            e.feed(chunk);
        }
        e
    }

    #[test]
    fn the_id_of_a_response_is_found_wherever_it_is() {
        let first = envelope(
            r#"{"jsonrpc":"2.0","id":17,"result":{"content":[{"type":"text","text":"x"}]}}"#,
        );
        assert_eq!(first.response_id(), Some(&b"17"[..]));
        // The TypeScript SDK writes the result first, the id last.
        let last = envelope(
            r#"{"result":{"content":[{"id":99,"text":"a \"}\" b"}]},"jsonrpc":"2.0","id":"abc"}"#,
        );
        assert_eq!(last.response_id(), Some(&b"\"abc\""[..]));
        let error = envelope(r#"{"jsonrpc":"2.0","id":3,"error":{"code":-1,"message":"m"}}"#);
        assert_eq!(error.response_id(), Some(&b"3"[..]));
        // A request of the server's is not a response, whatever its id.
        let request =
            envelope(r#"{"jsonrpc":"2.0","id":4,"method":"sampling/createMessage","params":{}}"#);
        assert_eq!(request.response_id(), None);
        // A nested "id" is not the message's.
        let nested = envelope(r#"{"jsonrpc":"2.0","result":{"id":5}}"#);
        assert_eq!(nested.response_id(), None);
    }

    async fn through(input: Vec<u8>, limit: usize) -> (String, Vec<String>) {
        let dropped = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let sink = dropped.clone();
        let mut capped = CappedLines::new(
            std::io::Cursor::new(input),
            limit,
            "big",
            Box::new(move |m| sink.lock().unwrap().push(m)),
        );
        let mut out = Vec::new();
        capped.read_to_end(&mut out).await.unwrap();
        let d = dropped.lock().unwrap().clone();
        (String::from_utf8(out).unwrap(), d)
    }

    #[tokio::test]
    async fn an_oversized_response_becomes_an_error_naming_the_limit() {
        let big = format!(
            "{{\"result\":{{\"content\":[{{\"type\":\"text\",\"text\":\"{}\"}}]}},\"jsonrpc\":\"2.0\",\"id\":7}}\n",
            "x".repeat(10_000)
        );
        let small = "{\"jsonrpc\":\"2.0\",\"id\":8,\"result\":{}}\n";
        let (out, dropped) = through(format!("{small}{big}{small}").into_bytes(), 1000).await;
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 3, "{out}");
        assert_eq!(lines[0], small.trim_end());
        let stand_in: serde_json::Value = serde_json::from_str(lines[1]).unwrap();
        assert_eq!(stand_in["id"], 7);
        assert_eq!(stand_in["error"]["code"], TOO_LARGE_CODE);
        let message = stand_in["error"]["message"].as_str().unwrap();
        assert!(message.contains("limit of 1000 bytes"), "{message}");
        assert!(message.contains("--max-message-bytes"), "{message}");
        assert_eq!(lines[2], small.trim_end());
        assert_eq!(dropped.len(), 1);
    }

    #[tokio::test]
    async fn an_oversized_request_is_only_dropped_and_lines_at_the_limit_pass() {
        let request = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":{{\"p\":\"{}\"}}}}\n",
            "y".repeat(5000)
        );
        let (out, dropped) = through(request.into_bytes(), 1000).await;
        assert!(out.is_empty(), "{out}");
        assert_eq!(dropped.len(), 1);
        let exact = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":\"{}\"}}\n",
            "z".repeat(100)
        );
        let (out, dropped) = through(exact.clone().into_bytes(), exact.len()).await;
        assert_eq!(out, exact, "a line of exactly the limit passes");
        assert!(dropped.is_empty());
        let (out, _) = through(exact.clone().into_bytes(), exact.len() - 1).await;
        assert!(out.contains("\"error\""), "one byte over is dropped: {out}");
    }
}
