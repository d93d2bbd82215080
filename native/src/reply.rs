//! The referee's fast reply decoder: a bot's well-formed `action` or `discard` reply, from its MessagePack
//! bytes, as protocol/codec.py's `decode_reply` takes it (PROTOCOL.md "Validation").
//!
//! It accepts only what codec.decode accepts with the same result; anything else (an error, or a valid
//! message of a shape it does not read: an amount packed as nil, a duplicate key) is left to the Python
//! codec, which is the one place that says what is wrong (`ReplyDecoder.__call__` returns None). The
//! differential property test (tests/test_protocol_fuzz.py) feeds both random and malformed bytes. This
//! parses what a bot sends: safe Rust only, every read checked against the bytes held.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString, PyTuple};

/// The fields of one reply as read (indices into the decoder's interned strings).
#[derive(Debug, PartialEq, Eq)]
pub enum Reply {
    Action { seq: u64, action: usize, amount: u64 },
    Discard { seq: u64, cards: Vec<usize> },
}

pub const ACTION_NAMES: [&str; 5] = ["fold", "check", "call", "bet", "raise"];
const RANKS: &[u8; 13] = b"23456789TJQKA";
const SUITS: &[u8; 4] = b"cdhs";
const MAX_CARDS: usize = 7;

struct Reader<'a> {
    data: &'a [u8],
    at: usize,
}

enum Value<'a> {
    Int(i128),
    Str(&'a [u8]),
    Array(usize),
    Other,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.at.checked_add(n)?;
        let s = self.data.get(self.at..end)?;
        self.at = end;
        Some(s)
    }

    fn byte(&mut self) -> Option<u8> {
        self.take(1).map(|s| s[0])
    }

    fn be(&mut self, n: usize) -> Option<u64> {
        Some(self.take(n)?.iter().fold(0u64, |acc, &b| (acc << 8) | b as u64))
    }

    /// One value's head: ints and strings whole, an array's length (its items follow); anything else
    /// is `Other` (the fast path does not read it) and stops the fast path.
    fn value(&mut self) -> Option<Value<'a>> {
        let m = self.byte()?;
        Some(match m {
            0x00..=0x7f => Value::Int(m as i128),
            0xe0..=0xff => Value::Int(m as i8 as i128),
            0xcc => Value::Int(self.be(1)? as i128),
            0xcd => Value::Int(self.be(2)? as i128),
            0xce => Value::Int(self.be(4)? as i128),
            0xcf => Value::Int(self.be(8)? as i128),
            0xd0 => Value::Int(self.be(1)? as u8 as i8 as i128),
            0xd1 => Value::Int(self.be(2)? as u16 as i16 as i128),
            0xd2 => Value::Int(self.be(4)? as u32 as i32 as i128),
            0xd3 => Value::Int(self.be(8)? as i64 as i128),
            0xa0..=0xbf => Value::Str(self.take((m & 0x1f) as usize)?),
            0xd9 => {
                let n = self.be(1)? as usize;
                Value::Str(self.take(n)?)
            }
            0xda => {
                let n = self.be(2)? as usize;
                Value::Str(self.take(n)?)
            }
            0xdb => {
                let n = self.be(4)? as usize;
                Value::Str(self.take(n)?)
            }
            0x90..=0x9f => Value::Array((m & 0x0f) as usize),
            0xdc => Value::Array(self.be(2)? as usize),
            0xdd => Value::Array(self.be(4)? as usize),
            _ => Value::Other,
        })
    }
}

fn card_index(s: &[u8]) -> Option<usize> {
    if s.len() != 2 {
        return None;
    }
    let r = RANKS.iter().position(|&c| c == s[0])?;
    let u = SUITS.iter().position(|&c| c == s[1])?;
    Some(r * 4 + u)
}

/// The reply in `data` if the fast path reads it and codec.decode would accept it with these fields;
/// None for anything else (then the Python codec decides).
pub fn read_reply(data: &[u8], version: i128, max_amount: i128) -> Option<Reply> {
    let mut r = Reader { data, at: 0 };
    let m = r.byte()?;
    let entries = match m {
        0x80..=0x8f => (m & 0x0f) as usize,
        0xde => r.be(2)? as usize,
        0xdf => r.be(4)? as usize,
        _ => return None,
    };
    if entries > 5 {
        return None; // more keys than any reply has: some is unknown (or repeated)
    }
    const TYPE: u8 = 1;
    const V: u8 = 2;
    const SEQ: u8 = 4;
    const ACTION: u8 = 8;
    const AMOUNT: u8 = 16;
    const CARDS: u8 = 32;
    let mut seen = 0u8;
    let (mut kind, mut seq, mut action, mut amount) = (0u8, 0u64, usize::MAX, 0u64);
    let mut cards: Vec<usize> = Vec::new();
    for _ in 0..entries {
        let key = match r.value()? {
            Value::Str(k) => k,
            _ => return None,
        };
        let bit = match key {
            b"type" => TYPE,
            b"v" => V,
            b"seq" => SEQ,
            b"action" => ACTION,
            b"amount" => AMOUNT,
            b"cards" => CARDS,
            _ => return None,
        };
        if seen & bit != 0 {
            return None; // a repeated key: the Python codec keeps the last
        }
        seen |= bit;
        let value = r.value()?;
        match (bit, value) {
            (TYPE, Value::Str(b"action")) => kind = ACTION,
            (TYPE, Value::Str(b"discard")) => kind = CARDS,
            (V, Value::Int(v)) if v == version => {}
            (SEQ, Value::Int(s)) if (0..=max_amount).contains(&s) => seq = s as u64,
            (ACTION, Value::Str(a)) => action = ACTION_NAMES.iter().position(|n| n.as_bytes() == a)?,
            (AMOUNT, Value::Int(a)) if (0..=max_amount).contains(&a) => amount = a as u64,
            (CARDS, Value::Array(n)) if n <= MAX_CARDS => {
                for _ in 0..n {
                    match r.value()? {
                        Value::Str(c) => cards.push(card_index(c)?),
                        _ => return None,
                    }
                }
            }
            _ => return None,
        }
    }
    if r.at != data.len() || seen & (TYPE | V | SEQ) != (TYPE | V | SEQ) {
        return None;
    }
    if kind == ACTION && seen & !(TYPE | V | SEQ | ACTION | AMOUNT) == 0 && seen & ACTION != 0 {
        if amount == 0 && action >= 3 {
            return None; // a bet or raise needs its 'to' total: the codec says so
        }
        return Some(Reply::Action { seq, action, amount });
    }
    if kind == CARDS && seen & !(TYPE | V | SEQ | CARDS) == 0 && seen & CARDS != 0 {
        return Some(Reply::Discard { seq, cards });
    }
    None
}

/// protocol/codec.py's `decode_reply` fast path in Rust: built once with the message classes and their
/// slot setters, it makes the reply object directly (interned action and card strings).
#[pyclass(module = "harness_core")]
pub struct ReplyDecoder {
    action_cls: Py<PyAny>,
    discard_cls: Py<PyAny>,
    new: Py<PyAny>,
    set_action: [Py<PyAny>; 4],
    set_discard: [Py<PyAny>; 3],
    actions: Vec<Py<PyString>>,
    cards: Vec<Py<PyString>>,
    version: i128,
    max_amount: i128,
}

#[pymethods]
impl ReplyDecoder {
    /// Args: the ActionReply and DiscardReply classes, ``object.__new__``, the setters of ActionReply's
    /// (seq, action, amount, v) and DiscardReply's (seq, cards, v) slots, the protocol version and
    /// MAX_AMOUNT.
    #[new]
    fn new(
        py: Python<'_>,
        action_cls: Py<PyAny>,
        discard_cls: Py<PyAny>,
        new: Py<PyAny>,
        set_action: (Py<PyAny>, Py<PyAny>, Py<PyAny>, Py<PyAny>),
        set_discard: (Py<PyAny>, Py<PyAny>, Py<PyAny>),
        version: i64,
        max_amount: i64,
    ) -> Self {
        let intern = |s: &str| PyString::intern(py, s).unbind();
        let mut cards = Vec::with_capacity(52);
        for r in RANKS.iter() {
            for u in SUITS.iter() {
                cards.push(intern(std::str::from_utf8(&[*r, *u]).unwrap_or("??")));
            }
        }
        ReplyDecoder {
            action_cls,
            discard_cls,
            new,
            set_action: [set_action.0, set_action.1, set_action.2, set_action.3],
            set_discard: [set_discard.0, set_discard.1, set_discard.2],
            actions: ACTION_NAMES.iter().map(|a| intern(a)).collect(),
            cards,
            version: version as i128,
            max_amount: max_amount as i128,
        }
    }

    /// The reply decoded, or None when the Python codec must decide (see the module docs).
    fn __call__(&self, py: Python<'_>, data: &Bound<'_, PyAny>, max_bytes: i64) -> PyResult<Option<Py<PyAny>>> {
        let Ok(data) = data.cast::<PyBytes>() else {
            return Ok(None); // a bytearray or memoryview: the codec reads it
        };
        let data = data.as_bytes();
        if data.len() as i64 > max_bytes {
            return Ok(None);
        }
        let v = self.version as i64;
        Ok(match read_reply(data, self.version, self.max_amount) {
            None => None,
            Some(Reply::Action { seq, action, amount }) => {
                let obj = self.new.call1(py, (&self.action_cls,))?;
                let [s, a, m, vv] = &self.set_action;
                s.call1(py, (&obj, seq))?;
                a.call1(py, (&obj, &self.actions[action]))?;
                m.call1(py, (&obj, amount))?;
                vv.call1(py, (&obj, v))?;
                Some(obj)
            }
            Some(Reply::Discard { seq, cards }) => {
                let obj = self.new.call1(py, (&self.discard_cls,))?;
                let [s, c, vv] = &self.set_discard;
                let held = PyTuple::new(py, cards.iter().map(|&i| self.cards[i].bind(py)))?;
                s.call1(py, (&obj, seq))?;
                c.call1(py, (&obj, held))?;
                vv.call1(py, (&obj, v))?;
                Some(obj)
            }
        })
    }
}
