//! The stdio transport: newline-delimited JSON-RPC, read by us so that
//! every message is bounded and checked before rmcp parses it.
//!
//! rmcp's own transport hands each line to serde_json, which keeps the
//! last of two equal keys and allocates for whatever depth and size it is
//! sent. Here a line longer than the limit is never held whole (its first
//! bytes are kept, to find its id); a line within it passes gate 1 as a
//! whole message ([`Limits::check`]) before rmcp sees it. A `tools/call`
//! that passes carries its `arguments` exactly as sent, so the toolbox's
//! gates read the client's bytes, not rmcp's re-serialized map. A message
//! refused here is answered: a `tools/call` with a rejection the model
//! reads, any other request with a JSON-RPC error. A line that is not
//! JSON text at all (not UTF-8, or not well-formed) is answered with
//! JSON-RPC's parse error, which names no request: none could be read,
//! and a guess at its id from bytes that are not JSON would be a guess.

use std::sync::Arc;

use bytes::BytesMut;
use futures::{SinkExt as _, StreamExt as _};
use rmcp::RoleServer;
use rmcp::model::{
    ClientJsonRpcMessage, ErrorData, GetExtensions as _, JsonRpcError, ServerJsonRpcMessage,
};
use rmcp::transport::Transport;
use rmcp::transport::async_rw::{JsonRpcMessageCodec, JsonRpcMessageCodecError};
use serde_json::value::RawValue;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio_util::codec::{Decoder, FramedRead, FramedWrite};
use toolgate::{Code, Limits, Rejection};

/// The arguments of a `tools/call` exactly as the client sent them.
#[derive(Clone, Debug)]
pub(crate) struct RawArguments(pub(crate) Arc<str>);

/// A request refused before rmcp parsed it: the handler answers with this.
#[derive(Clone, Debug)]
pub(crate) struct Refused(pub(crate) Rejection);

/// Bytes of an over-long line kept to find its id and method.
const PREFIX: usize = 4 * 1024;

/// One line of input, or the start of one that was too long.
#[derive(Debug)]
enum Line {
    Whole(BytesMut),
    TooLong(BytesMut),
}

/// Splits input at newlines, never holding more than `max` bytes of one
/// line: past it, the line's first [`PREFIX`] bytes are kept and the rest
/// dropped as it arrives.
struct Lines {
    max: usize,
    /// Where to look for the next newline in the buffer.
    searched: usize,
    /// The kept start of a line past the limit, while its rest is dropped.
    discarding: Option<BytesMut>,
}

impl Decoder for Lines {
    type Item = Line;
    type Error = std::io::Error;

    fn decode(&mut self, buf: &mut BytesMut) -> Result<Option<Line>, std::io::Error> {
        let newline = buf
            .get(self.searched..)
            .and_then(|rest| rest.iter().position(|&b| b == b'\n'))
            .map(|i| i + self.searched);
        match (newline, self.discarding.take()) {
            (Some(end), Some(prefix)) => {
                let _ = buf.split_to(end + 1);
                self.searched = 0;
                Ok(Some(Line::TooLong(prefix)))
            }
            (Some(end), None) => {
                let mut line = buf.split_to(end + 1);
                line.truncate(end);
                self.searched = 0;
                if line.len() > self.max {
                    line.truncate(PREFIX);
                    return Ok(Some(Line::TooLong(line)));
                }
                Ok(Some(Line::Whole(line)))
            }
            (None, Some(prefix)) => {
                buf.clear();
                self.searched = 0;
                self.discarding = Some(prefix);
                Ok(None)
            }
            (None, None) if buf.len() > self.max => {
                let mut prefix = buf.split();
                prefix.truncate(PREFIX);
                self.searched = 0;
                self.discarding = Some(prefix);
                Ok(None)
            }
            (None, None) => {
                self.searched = buf.len();
                Ok(None)
            }
        }
    }

    fn decode_eof(&mut self, buf: &mut BytesMut) -> Result<Option<Line>, std::io::Error> {
        if let Some(line) = self.decode(buf)? {
            return Ok(Some(line));
        }
        self.searched = 0;
        if let Some(prefix) = self.discarding.take() {
            buf.clear();
            return Ok(Some(Line::TooLong(prefix)));
        }
        if buf.is_empty() {
            return Ok(None);
        }
        let line = buf.split();
        if line.len() > self.max {
            let mut prefix = line;
            prefix.truncate(PREFIX);
            return Ok(Some(Line::TooLong(prefix)));
        }
        Ok(Some(Line::Whole(line)))
    }
}

/// The parts of a message's envelope needed to answer it, found without
/// parsing the message: its id, method, and the tool's name and `_meta`
/// of a `tools/call`.
#[derive(Debug, Default)]
struct Envelope<'a> {
    id: Option<&'a str>,
    method: Option<&'a str>,
    name: Option<&'a str>,
    meta: Option<&'a str>,
}

/// Reads the top-level keys of a JSON object (and those of its `params`)
/// without recursion: nested values are skipped by counting brackets. On
/// anything unexpected, or at the end of a truncated text, it stops with
/// what it found.
fn envelope(text: &str) -> Envelope<'_> {
    let mut found = Envelope::default();
    let bytes = text.as_bytes();
    let mut top = Skim { bytes, pos: 0 };
    top.object(&mut |key, skim| {
        match key {
            "id" => found.id = skim.value_text(text),
            "method" => found.method = skim.value_text(text),
            "params" => {
                let mut inner = Skim {
                    bytes,
                    pos: skim.pos,
                };
                inner.object(&mut |key, skim| {
                    match key {
                        "name" => found.name = skim.value_text(text),
                        "_meta" => found.meta = skim.value_text(text),
                        _ => {
                            skim.value()?;
                        }
                    }
                    Some(())
                });
                skim.value()?;
            }
            _ => {
                skim.value()?;
            }
        }
        Some(())
    });
    found
}

/// A forgiving reader of JSON structure, for [`envelope`].
struct Skim<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Skim<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn blank(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\r' | b'\n')) {
            self.pos += 1;
        }
    }

    /// Skips a string starting at its opening quote; its contents' range.
    fn string(&mut self) -> Option<(usize, usize)> {
        if self.peek() != Some(b'"') {
            return None;
        }
        self.pos += 1;
        let start = self.pos;
        loop {
            match self.peek()? {
                b'"' => {
                    self.pos += 1;
                    return Some((start, self.pos - 1));
                }
                b'\\' => self.pos += 2,
                _ => self.pos += 1,
            }
        }
    }

    /// Skips one value; its range.
    fn value(&mut self) -> Option<(usize, usize)> {
        self.blank();
        let start = self.pos;
        match self.peek()? {
            b'"' => {
                self.string()?;
            }
            b'{' | b'[' => {
                let mut depth = 0usize;
                loop {
                    match self.peek()? {
                        b'"' => {
                            self.string()?;
                            continue;
                        }
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => {
                            depth -= 1;
                            if depth == 0 {
                                self.pos += 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                    self.pos += 1;
                }
            }
            _ => {
                while !matches!(
                    self.peek(),
                    None | Some(b',' | b'}' | b']' | b' ' | b'\t' | b'\r' | b'\n')
                ) {
                    self.pos += 1;
                }
            }
        }
        Some((start, self.pos))
    }

    /// Skips one value; its text.
    fn value_text<'t>(&mut self, text: &'t str) -> Option<&'t str> {
        let (start, end) = self.value()?;
        text.get(start..end)
    }

    /// Calls `each` with every key of the object here, positioned at its
    /// value, which `each` must skip.
    fn object(&mut self, each: &mut dyn FnMut(&str, &mut Self) -> Option<()>) {
        let _ = (|| {
            self.blank();
            if self.peek()? != b'{' {
                return None;
            }
            self.pos += 1;
            loop {
                self.blank();
                if self.peek()? == b'}' {
                    return Some(());
                }
                let (from, to) = self.string()?;
                let key = core::str::from_utf8(self.bytes.get(from..to)?).ok()?;
                self.blank();
                if self.peek()? != b':' {
                    return None;
                }
                self.pos += 1;
                self.blank();
                each(key, self)?;
                self.blank();
                match self.peek()? {
                    b',' => self.pos += 1,
                    _ => return Some(()),
                }
            }
        })();
    }
}

/// What a refused message becomes: the same request (id, method, tool
/// name and `_meta`) with nothing in it, for the server to answer with the
/// refusal as it answers any request: a `tools/call` stays one, anything
/// else becomes a `ping`, answered with the refusal as its error. A
/// message without an id cannot be answered: `None`.
///
/// A request of the 2026-07-28 generation needs its `_meta`; when the
/// refused text does not show it (it comes after arguments too long to
/// keep), the last `_meta` this connection sent stands in.
fn substitute(text: &str, last_meta: &mut Option<String>) -> Option<String> {
    let envelope = envelope(text);
    if let Some(meta) = envelope
        .meta
        .filter(|meta| Limits::default().check(meta.as_bytes()).is_ok())
    {
        *last_meta = Some(meta.to_owned());
    }
    let id = envelope.id?;
    let id: serde_json::Value = serde_json::from_str(id).ok()?;
    if !(id.is_string() || id.is_number()) {
        return None;
    }
    let is_call = envelope.method == Some("\"tools/call\"");
    let mut params = serde_json::Map::new();
    if is_call {
        let name = envelope
            .name
            .and_then(|name| serde_json::from_str::<String>(name).ok())
            .unwrap_or_default();
        params.insert("name".to_owned(), name.into());
    }
    if let Some(meta) = last_meta
        .as_deref()
        .and_then(|m| serde_json::from_str(m).ok())
    {
        params.insert("_meta".to_owned(), meta);
    }
    let method = if is_call { "tools/call" } else { "ping" };
    Some(
        serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
            .to_string(),
    )
}

/// A frame-level refusal, in the words of the arguments where it is in
/// them: its path is made relative to `arguments`.
fn at_arguments(rejection: Rejection, limits: &Limits) -> Rejection {
    const ARGUMENTS: &str = "/params/arguments";
    let path = rejection.path().to_owned();
    let inside = path.strip_prefix(ARGUMENTS).map(str::to_owned);
    let rejection = match rejection.code() {
        Code::TooDeep => Rejection::new(
            Code::TooDeep,
            format!(
                "the message nests deeper than this server reads ({} levels); send flatter arguments",
                limits.depth()
            ),
        ),
        Code::TooManyNodes => Rejection::new(
            Code::TooManyNodes,
            format!(
                "the message holds more values than this server reads ({}); send fewer",
                limits.nodes()
            ),
        ),
        _ => rejection,
    };
    match inside {
        Some(inside) => rejection.at(inside),
        None => rejection,
    }
}

/// What the transport does with one message.
#[derive(Debug)]
pub(crate) enum Checked {
    /// Within the limits: hand it on, with the arguments exactly as sent
    /// if it is a `tools/call`.
    Pass { arguments: Option<Arc<str>> },
    /// Refused: hand on this substitute instead, carrying the refusal; or
    /// nothing, for a message without an id (a notification), which no
    /// answer can name.
    Refuse {
        substitute: Option<String>,
        rejection: Rejection,
    },
    /// Not JSON text: answer with JSON-RPC's parse error, hand on nothing.
    Unreadable(Unreadable),
    /// A blank line: nothing to answer.
    Drop,
}

/// Why a message is not JSON text, as JSON-RPC's parse error (-32700).
#[derive(Debug)]
pub(crate) struct Unreadable(&'static str);

impl Unreadable {
    const NOT_UTF8: Unreadable = Unreadable("Parse error: the message is not UTF-8 text");
    const MALFORMED: Unreadable = Unreadable("Parse error: the message is not well-formed JSON");
    pub(crate) const EMPTY: Unreadable = Unreadable("Parse error: the message is empty");

    /// The answer: an error with no id, since none could be read
    /// (JSON-RPC 2.0 §5; MCP omits the id then).
    pub(crate) fn answer(&self) -> ServerJsonRpcMessage {
        ServerJsonRpcMessage::Error(JsonRpcError::new(
            None,
            ErrorData::parse_error(self.0, None),
        ))
    }
}

/// The text of `bytes`, the start of a line too long to hold: UTF-8 but
/// for a character the cut may have split at its end. `None` if the bytes
/// are not UTF-8 before that.
fn cut_text(bytes: &[u8]) -> Option<&str> {
    match core::str::from_utf8(bytes) {
        Ok(text) => Some(text),
        Err(error) if error.error_len().is_none() => {
            core::str::from_utf8(bytes.get(..error.valid_up_to())?).ok()
        }
        Err(_) => None,
    }
}

/// Checks one message (`whole` is false for the kept start of one that
/// was too long) against `limits`. `last_meta` is the connection's last
/// `_meta`, kept up to date here.
///
/// The message is read as it was sent: bytes that are not UTF-8 are
/// refused, never replaced, so that what the gates read is what the
/// client wrote.
pub(crate) fn check(
    bytes: &[u8],
    whole: bool,
    limits: &Limits,
    last_meta: &mut Option<String>,
) -> Checked {
    // A whole line is within the byte limit: reading it once for UTF-8
    // costs what the limit allows.
    let text = if whole {
        core::str::from_utf8(bytes).ok()
    } else {
        cut_text(bytes)
    };
    let Some(text) = text else {
        return Checked::Unreadable(Unreadable::NOT_UTF8);
    };
    let text = text.trim_start_matches('\u{feff}').trim();
    if text.is_empty() {
        return Checked::Drop;
    }
    let refuse = |rejection: Rejection, last_meta: &mut Option<String>| Checked::Refuse {
        substitute: substitute(text, last_meta),
        rejection,
    };
    if !whole {
        let rejection = Rejection::new(
            Code::PayloadTooLarge,
            format!(
                "the message is longer than this server reads ({} bytes); send less data",
                limits.bytes()
            ),
        );
        return refuse(rejection, last_meta);
    }
    if let Err(rejection) = limits.check(text.as_bytes()) {
        // Not JSON: JSON-RPC's parse error. Well-formed but past a limit
        // (depth, a repeated key): refused as a request, answered by id.
        if rejection.code() == Code::MalformedJson {
            return Checked::Unreadable(Unreadable::MALFORMED);
        }
        return refuse(at_arguments(rejection, limits), last_meta);
    }
    // Within the limits: any parse after this one is bounded by them.
    #[derive(serde::Deserialize)]
    struct Frame<'a> {
        #[serde(borrow)]
        method: Option<&'a str>,
        #[serde(borrow)]
        params: Option<Params<'a>>,
    }
    #[derive(serde::Deserialize)]
    struct Params<'a> {
        #[serde(borrow)]
        arguments: Option<&'a RawValue>,
        #[serde(borrow, rename = "_meta")]
        meta: Option<&'a RawValue>,
    }
    // A message this cannot read is rmcp's to answer.
    let Ok(frame) = serde_json::from_str::<Frame<'_>>(text) else {
        return Checked::Pass { arguments: None };
    };
    if let Some(meta) = frame.params.as_ref().and_then(|p| p.meta) {
        *last_meta = Some(meta.get().to_owned());
    }
    let arguments = (frame.method == Some("tools/call")).then(|| {
        Arc::from(
            frame
                .params
                .and_then(|p| p.arguments)
                .map_or("{}", RawValue::get),
        )
    });
    Checked::Pass { arguments }
}

/// What one line becomes.
enum Admitted {
    /// A message for rmcp.
    Message(ClientJsonRpcMessage),
    /// An answer the transport sends itself: rmcp never sees the line.
    Answer(ServerJsonRpcMessage),
    /// Nothing.
    Nothing,
}

/// Checks one line and turns it into what rmcp reads (the message with
/// its raw arguments, or a substitute carrying a refusal), an answer of
/// the transport's own, or nothing.
fn admit(line: Line, limits: &Limits, last_meta: &mut Option<String>) -> Admitted {
    let (whole, bytes) = match line {
        Line::Whole(bytes) => (true, bytes),
        Line::TooLong(prefix) => (false, prefix),
    };
    let (text, arguments, refusal) = match check(&bytes, whole, limits, last_meta) {
        Checked::Drop => return Admitted::Nothing,
        Checked::Unreadable(error) => return Admitted::Answer(error.answer()),
        // Passed: UTF-8, as `check` found.
        Checked::Pass { arguments } => match core::str::from_utf8(&bytes) {
            Ok(text) => (text.to_owned(), arguments, None),
            Err(_) => return Admitted::Answer(Unreadable::NOT_UTF8.answer()),
        },
        Checked::Refuse {
            substitute: Some(substitute),
            rejection,
        } => (substitute, None, Some(rejection)),
        Checked::Refuse {
            substitute: None, ..
        } => return Admitted::Nothing,
    };
    let mut message = match serde_json::from_str::<ClientJsonRpcMessage>(&text) {
        Ok(message) => message,
        Err(_) => {
            let rejection = Rejection::new(
                Code::MalformedJson,
                "the message is not a JSON-RPC request this server reads",
            );
            let Some(substitute) = substitute(&text, last_meta) else {
                return Admitted::Nothing;
            };
            let Ok(mut message) = serde_json::from_str::<ClientJsonRpcMessage>(&substitute) else {
                return Admitted::Nothing;
            };
            if let ClientJsonRpcMessage::Request(request) = &mut message {
                request.request.extensions_mut().insert(Refused(rejection));
            }
            return Admitted::Message(message);
        }
    };
    if let ClientJsonRpcMessage::Request(request) = &mut message {
        if let Some(rejection) = refusal {
            request.request.extensions_mut().insert(Refused(rejection));
        }
        if let Some(arguments) = arguments {
            request
                .request
                .extensions_mut()
                .insert(RawArguments(arguments));
        }
    }
    Admitted::Message(message)
}

type Sink<W> = FramedWrite<W, JsonRpcMessageCodec<ServerJsonRpcMessage>>;

/// The stdio transport over any reader and writer, for rmcp's `serve`:
/// lines in through [`admit`], rmcp's messages out, and between them the
/// answers to lines rmcp never sees.
pub(crate) struct Stdio<R, W> {
    lines: FramedRead<R, Lines>,
    /// Shared with each send rmcp makes, which must own what it writes to.
    sink: Arc<tokio::sync::Mutex<Sink<W>>>,
    limits: Limits,
    last_meta: Option<String>,
}

impl<R, W> Stdio<R, W>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    pub(crate) fn new(reader: R, writer: W, limits: Limits) -> Self {
        Stdio {
            lines: FramedRead::new(
                reader,
                Lines {
                    max: limits.bytes(),
                    searched: 0,
                    discarding: None,
                },
            ),
            sink: Arc::new(tokio::sync::Mutex::new(FramedWrite::new(
                writer,
                JsonRpcMessageCodec::default(),
            ))),
            limits,
            last_meta: None,
        }
    }
}

impl<R, W> Transport<RoleServer> for Stdio<R, W>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = JsonRpcMessageCodecError;

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let sink = Arc::clone(&self.sink);
        async move { sink.lock().await.send(item).await }
    }

    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        loop {
            // The end of input, or input that cannot be read: the end.
            let line = self.lines.next().await?.ok()?;
            match admit(line, &self.limits, &mut self.last_meta) {
                Admitted::Message(message) => return Some(message),
                Admitted::Answer(answer) => {
                    // A client that stopped reading ends the connection.
                    self.sink.lock().await.send(answer).await.ok()?;
                }
                Admitted::Nothing => {}
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.sink.lock().await.close().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8], max: usize) -> Vec<String> {
        let mut decoder = Lines {
            max,
            searched: 0,
            discarding: None,
        };
        let mut out = Vec::new();
        // Fed in small chunks, as a pipe delivers them.
        let mut buf = BytesMut::new();
        for chunk in input.chunks(7) {
            buf.extend_from_slice(chunk);
            while let Some(line) = decoder.decode(&mut buf).unwrap() {
                out.push(describe(line));
            }
            assert!(buf.len() <= max + 7, "held {} bytes", buf.len());
        }
        while let Some(line) = decoder.decode_eof(&mut buf).unwrap() {
            out.push(describe(line));
        }
        out
    }

    fn describe(line: Line) -> String {
        match line {
            Line::Whole(b) => format!("whole:{}", String::from_utf8(b.to_vec()).unwrap()),
            Line::TooLong(b) => {
                assert!(b.len() <= PREFIX, "kept {} bytes", b.len());
                format!("long:{}", &String::from_utf8(b.to_vec()).unwrap()[..1])
            }
        }
    }

    #[test]
    fn lines_past_the_limit_are_cut_without_being_held() {
        let long = "x".repeat(100);
        let input = format!("ab\n{long}\ncd\n{long}");
        assert_eq!(
            lines(input.as_bytes(), 50),
            ["whole:ab", "long:x", "whole:cd", "long:x"]
        );
    }

    #[test]
    fn the_envelope_is_found_without_parsing() {
        let text = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":{"a":[1]},"name":"book_hotel","arguments":{"x":[[[[["#;
        let found = envelope(text);
        assert_eq!(found.id, Some("7"));
        assert_eq!(found.method, Some("\"tools/call\""));
        assert_eq!(found.name, Some("\"book_hotel\""));
        assert_eq!(found.meta, Some(r#"{"a":[1]}"#));
    }
}
