//! ZMTP 3.1 framing as the referee speaks it: the incremental parser of harness/match/zmtp.py in Rust.
//!
//! The same state machine, bounds, events and fault texts as the Python `Parser` (its docstring and
//! RFC 23/37 say what the frames are); tests/test_zmtp.py runs its properties on both and checks they
//! give the same events for any bytes in any split. This parses what a bot sends: safe Rust only, every
//! index checked against the bytes held.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyTuple};

pub const GREETING_BYTES: usize = 64;
pub const COMMAND_LIMIT: u64 = 4096;
/// The mechanism field of the referee's greeting (bytes 12..32): "NULL" padded with zeros.
const NULL_MECHANISM: [u8; 20] = *b"NULL\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0";
const RESERVED: u8 = 0xF8;

pub const EV_GREETING: u8 = 0;
pub const EV_READY: u8 = 1;
pub const EV_MESSAGE: u8 = 2;
pub const EV_SKIPPED: u8 = 3;
pub const EV_COMMAND: u8 = 4;
pub const EV_FAULT: u8 = 5;

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    Greet,
    Handshake,
    Traffic,
    Skip,
    Done,
}

/// What one `next` found, before it becomes a Python tuple.
pub enum Event<'a> {
    Greeting(u8, u8),
    Ready(Vec<(String, &'a [u8])>),
    Message(&'a [u8]),
    Skipped(u64),
    Command(&'a [u8], &'a [u8]),
    Fault,
}

/// Python's `_printable`: the bytes up to trailing zeros, as ASCII (others U+FFFD), controls as '?', 40 chars.
fn printable(raw: &[u8]) -> String {
    let end = raw.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
    raw[..end]
        .iter()
        .map(|&b| if b >= 0x80 { '\u{FFFD}' } else if (0x20..0x7F).contains(&b) { b as char } else { '?' })
        .take(40)
        .collect()
}

/// Python's `repr` of a string made by `printable` (no controls): its quotes and escapes.
fn py_repr(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') { '"' } else { '\'' };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        if c == '\\' || c == quote {
            out.push('\\');
        }
        out.push(c);
    }
    out.push(quote);
    out
}

/// A READY's metadata as (name lower-cased, value) in order, or why it is malformed (Python's `_properties`).
fn properties(data: &[u8]) -> Result<Vec<(String, &[u8])>, &'static str> {
    let mut props = Vec::new();
    let (mut i, n) = (0usize, data.len());
    while i < n {
        let k = data[i] as usize;
        if k == 0 || i + 1 + k + 4 > n {
            return Err("a READY property cut short");
        }
        let name = &data[i + 1..i + 1 + k];
        let j = i + 1 + k;
        let v = u32::from_be_bytes([data[j], data[j + 1], data[j + 2], data[j + 3]]) as usize;
        if j + 4 + v > n {
            return Err("a READY property value cut short");
        }
        // latin-1 decoded, then lower-cased as Python's str.lower
        let lowered: String = name.iter().flat_map(|&b| (b as char).to_lowercase()).collect();
        props.push((lowered, &data[j + 4..j + 4 + v]));
        i = j + 4 + v;
    }
    Ok(props)
}

/// The parser's state (no Python in it): `Parser` below binds it.
pub struct Core {
    buf: Vec<u8>,
    pos: usize,
    state: State,
    fault: Option<(&'static str, String)>,
    skip: u64,
    pub frame_limit: u64,
    pub skip_limit: u64,
    pub version: Option<(u8, u8)>,
}

impl Core {
    pub fn new(frame_limit: u64, skip_limit: Option<u64>) -> Core {
        Core {
            buf: Vec::new(),
            pos: 0,
            state: State::Greet,
            fault: None,
            skip: 0,
            frame_limit,
            skip_limit: frame_limit.max(skip_limit.unwrap_or(frame_limit)),
            version: None,
        }
    }

    pub fn buffered(&self) -> usize {
        self.buf.len() - self.pos
    }

    pub fn done(&self) -> bool {
        self.state == State::Done
    }

    pub fn feed(&mut self, mut data: &[u8]) {
        if self.state == State::Done || data.is_empty() {
            return;
        }
        if self.state == State::Skip {
            let n = self.skip;
            if (data.len() as u64) < n {
                self.skip = n - data.len() as u64;
                return;
            }
            self.skip = 0;
            self.state = State::Traffic;
            data = &data[n as usize..];
            if data.is_empty() {
                return;
            }
        }
        if self.pos == self.buf.len() {
            self.buf.clear();
            self.pos = 0;
        } else if self.pos > 0 && self.pos * 2 >= self.buf.len() {
            // the consumed head goes once it is half the buffer: each byte is moved O(1) times (amortised)
            self.buf.drain(..self.pos);
            self.pos = 0;
        }
        self.buf.extend_from_slice(data);
    }

    fn fail(&mut self, what: &'static str, detail: String) -> Option<Event<'_>> {
        self.fault = Some((what, detail));
        self.state = State::Done;
        self.buf = Vec::new();
        self.pos = 0;
        Some(Event::Fault)
    }

    pub fn fault(&self) -> Option<&(&'static str, String)> {
        self.fault.as_ref()
    }

    /// The next event (see harness/match/zmtp.py), or None until more bytes come.
    pub fn next(&mut self) -> Option<Event<'_>> {
        let have = self.buf.len() - self.pos;
        match self.state {
            State::Traffic => {
                if have < 2 {
                    return None;
                }
                let flags = self.buf[self.pos];
                if flags == 0 {
                    // the hot path: one short message frame (as Python's, no frame_limit check: < 256 bytes)
                    let start = self.pos + 2;
                    let end = start + self.buf[self.pos + 1] as usize;
                    if end > self.buf.len() {
                        return None;
                    }
                    self.pos = end;
                    return Some(Event::Message(&self.buf[start..end]));
                }
                self.frame(flags, have)
            }
            State::Done => Some(Event::Fault),
            State::Skip => None,
            State::Greet => self.greeting(have),
            State::Handshake => self.handshake(have),
        }
    }

    fn handshake(&mut self, have: usize) -> Option<Event<'_>> {
        if have < 2 {
            return None;
        }
        let flags = self.buf[self.pos];
        if flags & RESERVED != 0 {
            return self.fail("malformed", format!("a frame with flags 0x{flags:02x} (reserved bits set): not ZMTP"));
        }
        if flags & 4 == 0 {
            return self.fail("malformed", "a message frame before the handshake's READY command".into());
        }
        let start = self.pos;
        match self.frame(flags, have) {
            Some(Event::Command(..)) => {}
            Some(Event::Fault) => return Some(Event::Fault),
            _ => return None, // a command frame not all here yet (frame() gives no other event with flag 4)
        }
        // the command is buf[start..self.pos]: parse it again by position, to end the borrow
        let head = if flags & 2 != 0 { 9 } else { 2 };
        let body_start = start + head;
        let k = self.buf[body_start] as usize;
        let (name_at, data_at, end) = (body_start + 1, body_start + 1 + k, self.pos);
        let name = &self.buf[name_at..data_at];
        let data = &self.buf[data_at..end];
        if name == b"ERROR" {
            let detail = format!("the peer sent ERROR in the handshake ({})", printable(data.get(1..).unwrap_or(&[])));
            return self.fail("malformed", detail);
        }
        if name != b"READY" {
            let detail = format!("a {} command instead of READY (mechanism NULL)", py_repr(&printable(name)));
            return self.fail("malformed", detail);
        }
        let kind: Vec<u8> = match properties(data) {
            Err(why) => return self.fail("malformed", why.into()),
            Ok(props) => props.iter().rev().find(|(k, _)| k == "socket-type").map_or(Vec::new(), |(_, v)| v.to_vec()),
        };
        if !matches!(kind.as_slice(), b"DEALER" | b"REQ" | b"ROUTER") {
            let detail = format!(
                "Socket-Type {} cannot talk to the referee's ROUTER: connect a DEALER",
                py_repr(&printable(&kind))
            );
            return self.fail("malformed", detail);
        }
        self.state = State::Traffic;
        let data = &self.buf[data_at..end];
        Some(Event::Ready(properties(data).unwrap_or_default()))
    }

    fn greeting(&mut self, have: usize) -> Option<Event<'_>> {
        let g = &self.buf[self.pos..self.pos + have.min(GREETING_BYTES)];
        if !g.is_empty() && g[0] != 0xFF {
            return self.fail("malformed", "not a ZMTP greeting (the first byte is not 0xFF): speak ZeroMQ".into());
        }
        if g.len() > 9 && g[9] & 1 == 0 {
            return self.fail(
                "malformed",
                "a ZMTP 1.0 greeting: ZMTP 3.0 or later is needed (libzmq 4 or later)".into(),
            );
        }
        if g.len() > 10 && g[10] < 3 {
            let detail = format!("ZMTP version {}: 3.0 or later is needed (libzmq 4 or later)", g[10]);
            return self.fail("malformed", detail);
        }
        if g.len() >= 32 && g[12..32] != NULL_MECHANISM {
            let detail = format!("mechanism {}: the referee speaks only NULL", py_repr(&printable(&g[12..32])));
            return self.fail("malformed", detail);
        }
        if have < GREETING_BYTES {
            return None;
        }
        let version = (g[10], g[11]);
        self.pos += GREETING_BYTES;
        self.version = Some(version);
        self.state = State::Handshake;
        Some(Event::Greeting(version.0, version.1))
    }

    /// Any frame but a short message frame with no flags (Python's `_frame`).
    fn frame(&mut self, flags: u8, have: usize) -> Option<Event<'_>> {
        if flags & RESERVED != 0 {
            return self.fail("malformed", format!("a frame with flags 0x{flags:02x} (reserved bits set): not ZMTP"));
        }
        let pos = self.pos;
        let (size, head) = if flags & 2 != 0 {
            if have < 9 {
                return None;
            }
            let mut be = [0u8; 8];
            be.copy_from_slice(&self.buf[pos + 1..pos + 9]);
            (u64::from_be_bytes(be), 9usize)
        } else {
            (self.buf[pos + 1] as u64, 2usize)
        };
        if flags & 4 != 0 {
            if flags & 1 != 0 {
                return self.fail("malformed", "a command frame with the MORE flag".into());
            }
            if size > COMMAND_LIMIT {
                return self.fail("oversized", format!("a command frame of {size} bytes (at most {COMMAND_LIMIT})"));
            }
        } else if flags & 1 != 0 {
            let detail = format!(
                "a message of more than one frame (its first frame: {size} bytes): send one frame per message"
            );
            return self.fail("malformed", detail);
        } else if size > self.frame_limit {
            if size > self.skip_limit {
                let detail =
                    format!("a frame announcing {size} bytes (the transport's limit is {})", self.skip_limit);
                return self.fail("oversized", detail);
            }
            let rest = (have - head) as u64;
            if rest >= size {
                self.pos = pos + head + size as usize;
            } else {
                self.buf.clear();
                self.pos = 0;
                self.skip = size - rest;
                self.state = State::Skip;
            }
            return Some(Event::Skipped(size));
        }
        // size is at most max(frame_limit, COMMAND_LIMIT) here; the sum cannot overflow
        let end = (pos + head).saturating_add(size as usize);
        if end > self.buf.len() {
            return None;
        }
        self.pos = end;
        if flags & 4 != 0 {
            let k = if end > pos + head { self.buf[pos + head] as usize } else { 0 };
            if k == 0 || k + 1 > end - pos - head {
                return self.fail("malformed", "a command frame without a valid name".into());
            }
            let body = &self.buf[pos + head..end];
            return Some(Event::Command(&body[1..1 + k], &body[1 + k..]));
        }
        Some(Event::Message(&self.buf[pos + head..end]))
    }
}

/// The bytes one peer sends, as ZMTP events: harness/match/zmtp.py's `Parser` in Rust (same API, events,
/// bounds and fault texts).
#[pyclass(module = "harness_core")]
pub struct ZmtpParser {
    pub core: Core,
}

pub fn event_to_py(py: Python<'_>, ev: Event<'_>, fault: Option<&(&'static str, String)>) -> PyResult<Py<PyAny>> {
    let t: Bound<'_, PyTuple> = match ev {
        Event::Message(body) => (EV_MESSAGE, PyBytes::new(py, body), py.None()).into_pyobject(py)?,
        Event::Greeting(major, minor) => (EV_GREETING, (major, minor), py.None()).into_pyobject(py)?,
        Event::Ready(props) => {
            let d = PyDict::new(py);
            for (k, v) in props {
                d.set_item(k, PyBytes::new(py, v))?;
            }
            (EV_READY, d, py.None()).into_pyobject(py)?
        }
        Event::Skipped(size) => (EV_SKIPPED, size, py.None()).into_pyobject(py)?,
        Event::Command(name, data) => (EV_COMMAND, PyBytes::new(py, name), PyBytes::new(py, data)).into_pyobject(py)?,
        Event::Fault => {
            let (what, detail) = fault.expect("a fault event has its fault");
            (EV_FAULT, *what, detail.as_str()).into_pyobject(py)?
        }
    };
    Ok(t.into_any().unbind())
}

#[pymethods]
impl ZmtpParser {
    #[new]
    #[pyo3(signature = (frame_limit, skip_limit=None))]
    fn new(frame_limit: u64, skip_limit: Option<u64>) -> Self {
        ZmtpParser { core: Core::new(frame_limit, skip_limit) }
    }

    /// Add bytes as they arrived (any split; bytes or bytearray, copied). Ignored after a fault.
    fn feed(&mut self, data: &Bound<'_, PyAny>) -> PyResult<()> {
        if let Ok(b) = data.cast::<PyBytes>() {
            self.core.feed(b.as_bytes());
        } else {
            let owned: Vec<u8> = data.extract()?;
            self.core.feed(&owned);
        }
        Ok(())
    }

    /// The next event as a tuple (kind, a, b), or None until more bytes come.
    fn next(&mut self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        let core = &mut self.core;
        let ev = match core.next() {
            None => return Ok(None),
            Some(Event::Fault) => None,
            Some(ev) => Some(ev),
        };
        match ev {
            Some(ev) => Ok(Some(event_to_py(py, ev, None)?)),
            None => Ok(Some(event_to_py(py, Event::Fault, self.core.fault())?)),
        }
    }

    /// Bytes fed and not yet handed out as an event.
    #[getter]
    fn buffered(&self) -> usize {
        self.core.buffered()
    }

    /// True after a fault: the parser takes no more bytes.
    #[getter]
    fn done(&self) -> bool {
        self.core.done()
    }

    /// The peer's ZMTP version (major, minor) once its greeting is read.
    #[getter]
    fn version(&self) -> Option<(u8, u8)> {
        self.core.version
    }

    #[getter]
    fn frame_limit(&self) -> u64 {
        self.core.frame_limit
    }

    #[getter]
    fn skip_limit(&self) -> u64 {
        self.core.skip_limit
    }

    /// Most bytes of one message frame kept (set after the hello, as the Python parser's attribute).
    #[setter]
    fn set_frame_limit(&mut self, value: u64) {
        self.core.frame_limit = value;
    }

    /// Most bytes of one message frame skipped (a plain attribute, as the Python parser's).
    #[setter]
    fn set_skip_limit(&mut self, value: u64) {
        self.core.skip_limit = value;
    }
}
