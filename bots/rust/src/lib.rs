//! A Seven Card Draw bot's brain and wire format, without the socket (src/main.rs has that).
//!
//! * `eval`: the best five of seven cards (category and ranks), checked against the harness's
//!   engine by the shared vectors (protocol/vectors/hands.msgpack).
//! * `wire`: MessagePack maps in and out (PROTOCOL.md sections 2 and 5). Replies are built as
//!   `rmpv::Value::Map`s with string keys. (With serde, a struct must be packed with
//!   `rmp_serde::to_vec_named`: `rmp_serde::to_vec` packs it as an array, which the referee refuses.)
//! * `strategy`: Monte Carlo equity against random hands for betting, keep what plays in the draw.
//! * `vectors`: runs protocol/vectors/ through all of the above (`cargo test`, `./bot --vectors DIR`).

pub mod eval {
    //! Cards are `u8`s `rank * 4 + suit` (rank 0..12 for 2..A, suit 0..3 for c d h s), as the engine's.

    pub const RANKS: &[u8; 13] = b"23456789TJQKA";
    pub const SUITS: &[u8; 4] = b"cdhs";
    pub const CATEGORIES: [&str; 9] = ["high_card", "one_pair", "two_pair", "three_of_a_kind", "straight",
                                       "flush", "full_house", "four_of_a_kind", "straight_flush"];

    /// "As" -> 51; None for anything that is not rank+suit.
    pub fn parse_card(text: &str) -> Option<u8> {
        let b = text.as_bytes();
        if b.len() != 2 {
            return None;
        }
        let r = RANKS.iter().position(|&c| c == b[0])?;
        let s = SUITS.iter().position(|&c| c == b[1])?;
        Some((r * 4 + s) as u8)
    }

    pub fn card_str(card: u8) -> String {
        let (r, s) = ((card / 4) as usize, (card % 4) as usize);
        String::from_utf8(vec![RANKS[r], SUITS[s]]).unwrap()
    }

    /// A hand's strength: category 0..8 (CATEGORIES) then five ranks, most significant first (R5.3);
    /// in the wheel the ace plays low and comes last (R5.4). Compares like the engine's value.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
    pub struct Strength {
        pub category: u8,
        pub ranks: [u8; 5],
    }

    impl Strength {
        /// The ranks as text, e.g. "777AK" (the vectors' `ranks`).
        pub fn ranks_text(&self) -> String {
            self.ranks.iter().map(|&r| RANKS[r as usize] as char).collect()
        }
    }

    /// The top rank of the best straight in a 13-bit rank mask (3 for the wheel, 5-high).
    fn straight_top(mask: u16) -> Option<u8> {
        for top in (4..13).rev() {
            let run = 0b11111u16 << (top - 4);
            if mask & run == run {
                return Some(top as u8);
            }
        }
        if mask & 0b1_0000_0000_1111 == 0b1_0000_0000_1111 { Some(3) } else { None }
    }

    fn straight_ranks(top: u8) -> [u8; 5] {
        if top == 3 { [3, 2, 1, 0, 12] } else { [top, top - 1, top - 2, top - 3, top - 4] }
    }

    /// The best five of 5 to 7 distinct cards (R5.1-R5.4).
    pub fn evaluate(cards: &[u8]) -> Strength {
        let mut count = [0u8; 13];
        let mut suit_mask = [0u16; 4];
        for &c in cards {
            count[(c / 4) as usize] += 1;
            suit_mask[(c % 4) as usize] |= 1 << (c / 4);
        }
        // A flush excludes quads and a full house with at most seven cards.
        if let Some(mask) = suit_mask.iter().copied().find(|m| m.count_ones() >= 5) {
            if let Some(top) = straight_top(mask) {
                return Strength { category: 8, ranks: straight_ranks(top) };
            }
            let mut ranks = [0u8; 5];
            let mut n = 0;
            for r in (0..13).rev() {
                if n < 5 && mask & (1 << r) != 0 {
                    ranks[n] = r as u8;
                    n += 1;
                }
            }
            return Strength { category: 5, ranks };
        }
        // Ranks grouped by count, then rank, both descending.
        let mut groups: Vec<(u8, u8)> = (0..13u8).rev().filter(|&r| count[r as usize] > 0)
            .map(|r| (count[r as usize], r)).collect();
        groups.sort_by(|a, b| b.cmp(a));
        let rank_mask = (0..13).filter(|&r| count[r] > 0).fold(0u16, |m, r| m | 1 << r);
        let (c0, c1) = (groups[0].0, groups.get(1).map_or(0, |g| g.0));
        let kickers = |skip: &[u8], n: usize| -> Vec<u8> {
            (0..13u8).rev().filter(|r| count[*r as usize] > 0 && !skip.contains(r)).take(n).collect()
        };
        let (category, ranks): (u8, Vec<u8>) = if c0 == 4 {
            let q = groups[0].1;
            (7, [vec![q; 4], kickers(&[q], 1)].concat())
        } else if c0 == 3 && c1 >= 2 {
            (6, [vec![groups[0].1; 3], vec![groups[1].1; 2]].concat())
        } else if let Some(top) = straight_top(rank_mask) {
            (4, straight_ranks(top).to_vec())
        } else if c0 == 3 {
            let t = groups[0].1;
            (3, [vec![t; 3], kickers(&[t], 2)].concat())
        } else if c0 == 2 && c1 == 2 {
            let (p, q) = (groups[0].1, groups[1].1);
            (2, [vec![p; 2], vec![q; 2], kickers(&[p, q], 1)].concat())
        } else if c0 == 2 {
            let p = groups[0].1;
            (1, [vec![p; 2], kickers(&[p], 3)].concat())
        } else {
            (0, kickers(&[], 5))
        };
        let mut out = [0u8; 5];
        out.copy_from_slice(&ranks[..5]);
        Strength { category, ranks: out }
    }
}

pub mod wire {
    //! One MessagePack map per frame (PROTOCOL.md section 2).
    use rmpv::Value;

    /// The value of `key` in a map, if it is one.
    pub fn get<'a>(map: &'a Value, key: &str) -> Option<&'a Value> {
        map.as_map()?.iter().find(|(k, _)| k.as_str() == Some(key)).map(|(_, v)| v)
    }

    pub fn get_u64(map: &Value, key: &str) -> Option<u64> {
        get(map, key)?.as_u64()
    }

    pub fn get_str<'a>(map: &'a Value, key: &str) -> Option<&'a str> {
        get(map, key)?.as_str()
    }

    pub fn get_strs(map: &Value, key: &str) -> Vec<String> {
        get(map, key).and_then(Value::as_array)
            .map(|a| a.iter().filter_map(|v| v.as_str().map(str::to_owned)).collect())
            .unwrap_or_default()
    }

    pub fn get_u64s(map: &Value, key: &str) -> Vec<u64> {
        get(map, key).and_then(Value::as_array)
            .map(|a| a.iter().map(|v| v.as_u64().unwrap_or(0)).collect())
            .unwrap_or_default()
    }

    /// One frame's map, or None when it is not exactly one MessagePack map.
    pub fn unpack(frame: &[u8]) -> Option<Value> {
        let mut rest = frame;
        let value = rmpv::decode::read_value(&mut rest).ok()?;
        if !rest.is_empty() || !value.is_map() {
            return None;
        }
        Some(value)
    }

    pub fn pack(fields: Vec<(&str, Value)>) -> Vec<u8> {
        let map = Value::Map(fields.into_iter().map(|(k, v)| (Value::from(k), v)).collect());
        let mut out = Vec::new();
        rmpv::encode::write_value(&mut out, &map).expect("writing to a Vec cannot fail");
        out
    }

    pub fn hello(secret: &str, name: &str) -> Vec<u8> {
        pack(vec![("type", "hello".into()), ("v", 1.into()), ("secret", secret.into()), ("name", name.into())])
    }

    /// `amount` is the "to" total for bet/raise and 0 for fold/check/call.
    pub fn action(seq: u64, action: &str, amount: u64) -> Vec<u8> {
        pack(vec![("type", "action".into()), ("v", 1.into()), ("seq", seq.into()), ("action", action.into()),
                  ("amount", amount.into())])
    }

    /// An empty `cards` is standing pat: an empty array, never nil.
    pub fn discard(seq: u64, cards: &[String]) -> Vec<u8> {
        let cards = Value::Array(cards.iter().map(|c| Value::from(c.as_str())).collect());
        pack(vec![("type", "discard".into()), ("v", 1.into()), ("seq", seq.into()), ("cards", cards)])
    }

    /// What a request (`act` or `draw`) says, the fields a bot reads (protocol/vectors/README.md).
    #[derive(Debug, Default, Clone)]
    pub struct Request {
        pub kind: String,
        pub seq: u64,
        pub phase: String,
        pub seat: u64,
        pub button: u64,
        pub cards: Vec<String>,
        pub stacks: Vec<u64>,
        pub bets: Vec<u64>,
        pub folded: Vec<bool>,
        pub pot: u64,
        pub actions: Vec<String>,
        pub call_amount: u64,
        pub min_to: u64,
        pub max_to: u64,
        pub max_discards: u64,
        pub decision_ms: u64,
        pub bank_ms: u64,
    }

    impl Request {
        /// None unless `msg` is an act/draw request with a usable `seq`.
        pub fn of(msg: &Value) -> Option<Request> {
            let kind = get_str(msg, "type")?;
            if kind != "act" && kind != "draw" {
                return None;
            }
            let seq = get_u64(msg, "seq")?;
            let empty = Value::Nil;
            let state = get(msg, "state").unwrap_or(&empty);
            let legal = get(msg, "legal").unwrap_or(&empty);
            let time = get(msg, "time").unwrap_or(&empty);
            let folded = get(state, "folded").and_then(Value::as_array)
                .map(|a| a.iter().map(|v| v.as_bool().unwrap_or(false)).collect()).unwrap_or_default();
            Some(Request {
                kind: kind.to_owned(),
                seq,
                phase: get_str(state, "phase").unwrap_or("").to_owned(),
                seat: get_u64(state, "seat").unwrap_or(0),
                button: get_u64(state, "button").unwrap_or(0),
                cards: get_strs(state, "cards"),
                stacks: get_u64s(state, "stacks"),
                bets: get_u64s(state, "bets"),
                folded,
                pot: get_u64(state, "pot").unwrap_or(0),
                actions: get_strs(legal, "actions"),
                call_amount: get_u64(legal, "call_amount").unwrap_or(0),
                min_to: get_u64(legal, "min_to").unwrap_or(0),
                max_to: get_u64(legal, "max_to").unwrap_or(0),
                max_discards: get_u64(legal, "max_discards").unwrap_or(0),
                decision_ms: get_u64(time, "decision_ms").unwrap_or(0),
                bank_ms: get_u64(time, "bank_ms").unwrap_or(0),
            })
        }

        pub fn can(&self, action: &str) -> bool {
            self.actions.iter().any(|a| a == action)
        }
    }
}

pub mod strategy {
    //! Betting by Monte Carlo equity against random hands; in the draw, keep what plays.
    use crate::eval::{evaluate, parse_card};
    use crate::wire::Request;

    /// A small xorshift generator: no dependency for randomness.
    pub struct Rng(u64);

    impl Rng {
        pub fn new(seed: u64) -> Rng {
            Rng(seed | 1)
        }

        pub fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % n as u64) as usize
        }
    }

    /// The chance that `cards` beat `opponents` random seven-card hands (ties count half), by `trials` deals.
    pub fn equity(cards: &[u8], opponents: usize, trials: usize, rng: &mut Rng) -> f64 {
        let mine = evaluate(cards);
        let mut deck: Vec<u8> = (0..52).filter(|c| !cards.contains(c)).collect();
        let mut score = 0.0;
        for _ in 0..trials {
            let mut result = 1.0;
            for o in 0..opponents {
                // Deal seven cards to opponent o from the shuffled tail of the deck.
                let start = o * 7;
                for i in start..start + 7 {
                    let j = i + rng.below(deck.len() - i);
                    deck.swap(i, j);
                }
                let theirs = evaluate(&deck[start..start + 7]);
                if theirs > mine {
                    result = 0.0;
                    break;
                }
                if theirs == mine {
                    result = 0.5;
                }
            }
            score += result;
        }
        score / trials as f64
    }

    /// (action, amount): raise/bet the pot with a strong hand, call at good pot odds, else check or fold.
    pub fn act(req: &Request, rng: &mut Rng) -> (String, u64) {
        let cards: Vec<u8> = req.cards.iter().filter_map(|c| parse_card(c)).collect();
        let opponents = req.folded.iter().filter(|f| !**f).count().saturating_sub(1).clamp(1, 5);
        let e = if cards.len() == 7 { equity(&cards, opponents, 400, rng) } else { 0.0 };
        let strong = e > 0.5 + 0.1 * opponents as f64 / 2.0;
        for wager in ["raise", "bet"] {
            if strong && req.can(wager) {
                let to = (req.pot + req.call_amount).max(req.min_to).min(req.max_to);
                return (wager.to_owned(), to);
            }
        }
        if req.can("check") {
            return ("check".to_owned(), 0);
        }
        let odds = req.call_amount as f64 / (req.pot + req.call_amount) as f64;
        if req.can("call") && e * 1.1 >= odds {
            return ("call".to_owned(), 0);
        }
        ("fold".to_owned(), 0)
    }

    /// The cards to throw away: those outside the best five when it is a straight or better; else
    /// keep pairs and better (or four to a flush) and throw the lowest others, at most max_discards.
    pub fn draw(req: &Request) -> Vec<String> {
        let cards: Vec<u8> = req.cards.iter().filter_map(|c| parse_card(c)).collect();
        if cards.len() != req.cards.len() || cards.len() < 5 {
            return Vec::new();
        }
        let limit = (req.max_discards as usize).min(cards.len() - 1);
        let best = evaluate(&cards);
        let mut count = [0u8; 13];
        let mut suits = [0u8; 4];
        for &c in &cards {
            count[(c / 4) as usize] += 1;
            suits[(c % 4) as usize] += 1;
        }
        let flush_suit = (0..4).find(|&s| suits[s] >= 4);
        let keep = |c: u8| -> bool {
            if best.category >= 4 {
                // Keep every card that can be part of the made hand: its ranks (or suit, for a flush).
                return best.ranks.contains(&(c / 4)) && (best.category != 5 || suits[(c % 4) as usize] >= 5);
            }
            if best.category <= 1 {
                if let Some(s) = flush_suit {
                    return (c % 4) as usize == s;
                }
            }
            count[(c / 4) as usize] >= 2
        };
        let mut throw: Vec<u8> = cards.iter().copied().filter(|&c| !keep(c)).collect();
        throw.sort_by_key(|c| c / 4); // lowest first
        if best.category < 4 {
            throw.truncate(limit);
        } else {
            throw.truncate(limit.min(cards.len() - 5));
        }
        let thrown: Vec<String> = throw.iter().map(|&c| crate::eval::card_str(c)).collect();
        // Keep the request's spelling and order.
        req.cards.iter().filter(|c| thrown.contains(c)).cloned().collect()
    }
}

/// What to do with one frame from the referee.
#[derive(Debug, PartialEq, Eq)]
pub enum Handled {
    /// Send these bytes (an `action` or `discard`).
    Reply(Vec<u8>),
    /// Stop: `match_end` or a fatal `error`.
    Exit,
    /// Nothing to send (a notification, or a frame that is not a message).
    Nothing,
}

/// The bot's answer to one frame; prints why to stderr when it ignores one.
pub fn handle(frame: &[u8], rng: &mut strategy::Rng) -> Handled {
    let Some(msg) = wire::unpack(frame) else {
        eprintln!("[rust-bot] ignored a frame that is not one MessagePack map ({} bytes)", frame.len());
        return Handled::Nothing;
    };
    match wire::get_str(&msg, "type") {
        Some("act") | Some("draw") => match wire::Request::of(&msg) {
            Some(req) if req.kind == "act" => {
                let (action, amount) = strategy::act(&req, rng);
                Handled::Reply(wire::action(req.seq, &action, amount))
            }
            Some(req) => Handled::Reply(wire::discard(req.seq, &strategy::draw(&req))),
            None => {
                eprintln!("[rust-bot] ignored a request without a usable seq");
                Handled::Nothing
            }
        },
        Some("match_end") => Handled::Exit,
        Some("error") => {
            eprintln!("[rust-bot] referee: {}", wire::get_str(&msg, "message").unwrap_or("?"));
            if wire::get(&msg, "fatal").and_then(rmpv::Value::as_bool) == Some(true) {
                Handled::Exit
            } else {
                Handled::Nothing
            }
        }
        Some("welcome") | Some("match_start") | Some("hand_start") | Some("hand_end") => Handled::Nothing,
        other => {
            eprintln!("[rust-bot] ignored a message of unknown type {:?}", other);
            Handled::Nothing
        }
    }
}

pub mod vectors {
    //! protocol/vectors/ (its README.md): messages.msgpack and hands.msgpack through this bot's code.
    use crate::eval::{evaluate, parse_card, CATEGORIES};
    use crate::wire::{self, get, get_str, get_u64, Request};
    use crate::{handle, strategy::Rng, Handled};
    use rmpv::Value;
    use std::path::Path;

    fn load(dir: &Path, name: &str) -> Result<Value, String> {
        let path = dir.join(name);
        let data = std::fs::read(&path).map_err(|e| format!("{}: {}", path.display(), e))?;
        wire::unpack(&data).ok_or_else(|| format!("{}: not one MessagePack map", path.display()))
    }

    fn items<'a>(v: &'a Value, key: &str) -> &'a [Value] {
        get(v, key).and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[])
    }

    fn bytes(v: &Value) -> Vec<u8> {
        let hex = get_str(v, "hex").unwrap_or("");
        (0..hex.len() / 2).map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap()).collect()
    }

    fn hex(data: &[u8]) -> String {
        data.iter().map(|b| format!("{:02x}", b)).collect()
    }

    /// Every vector checked; Ok(the replies this bot built, as `reply NAME HEX` lines) or Err(each failure).
    pub fn run(dir: &Path) -> Result<Vec<String>, Vec<String>> {
        let mut bad = Vec::new();
        let mut lines = Vec::new();
        let messages = load(dir, "messages.msgpack").map_err(|e| vec![e])?;
        let hands = load(dir, "hands.msgpack").map_err(|e| vec![e])?;
        let mut rng = Rng::new(7);
        for v in items(&messages, "requests") {
            let name = get_str(v, "name").unwrap_or("?");
            let want = get(v, "read").unwrap();
            let Some(req) = wire::unpack(&bytes(v)).as_ref().and_then(Request::of) else {
                bad.push(format!("request {}: not read as a request", name));
                continue;
            };
            let strs = |k| wire::get_strs(want, k);
            let nums = |k| wire::get_u64s(want, k);
            let num = |k| get_u64(want, k).unwrap_or(u64::MAX);
            let got_ok = req.kind == get_str(want, "type").unwrap_or("") && req.seq == num("seq")
                && req.phase == get_str(want, "phase").unwrap_or("") && req.seat == num("seat")
                && req.button == num("button") && req.cards == strs("cards") && req.stacks == nums("stacks")
                && req.bets == nums("bets") && req.pot == num("pot") && req.actions == strs("actions")
                && req.call_amount == num("call_amount") && req.min_to == num("min_to")
                && req.max_to == num("max_to") && req.max_discards == num("max_discards")
                && req.decision_ms == num("decision_ms") && req.bank_ms == num("bank_ms");
            if !got_ok {
                bad.push(format!("request {}: read {:?}, expected {}", name, req, want));
            }
            // The bot answers it with the right reply type and seq.
            match handle(&bytes(v), &mut rng) {
                Handled::Reply(data) => {
                    let reply = wire::unpack(&data).unwrap_or(Value::Nil);
                    let kind = if req.kind == "act" { "action" } else { "discard" };
                    if get_str(&reply, "type") != Some(kind) || get_u64(&reply, "seq") != Some(req.seq) {
                        bad.push(format!("request {}: answered {}", name, reply));
                    }
                }
                other => bad.push(format!("request {}: answered {:?}", name, other)),
            }
        }
        for v in items(&messages, "notifications") {
            let name = get_str(v, "name").unwrap_or("?");
            let exit = get(v, "exit").and_then(Value::as_bool) == Some(true);
            let want = if exit { Handled::Exit } else { Handled::Nothing };
            let got = handle(&bytes(v), &mut rng);
            if got != want {
                bad.push(format!("notification {}: {:?}, expected {:?}", name, got, want));
            }
        }
        for v in items(&messages, "bad_requests") {
            let got = handle(&bytes(v), &mut rng);
            if got != Handled::Nothing {
                bad.push(format!("bad request {}: {:?}, expected it ignored", get_str(v, "name").unwrap_or("?"), got));
            }
        }
        for v in items(&messages, "replies") {
            let name = get_str(v, "name").unwrap_or("?");
            let d = get(v, "decision").unwrap();
            let seq = get_u64(d, "seq").unwrap_or(0);
            let data = match get_str(d, "action") {
                Some(action) => wire::action(seq, action, get_u64(d, "amount").unwrap_or(0)),
                None => wire::discard(seq, &wire::get_strs(d, "cards")),
            };
            let got = wire::unpack(&data).unwrap_or(Value::Nil);
            let want = get(v, "value").unwrap();
            let same = want.as_map().map(|m| m.len()) == got.as_map().map(|m| m.len())
                && want.as_map().unwrap().iter().all(|(k, x)| get(&got, k.as_str().unwrap()) == Some(x));
            if !same {
                bad.push(format!("reply {}: built {}, expected {}", name, got, want));
            }
            lines.push(format!("reply {} {}", name, hex(&data)));
        }
        let mut checked = 0;
        for v in items(&hands, "hands") {
            let cards: Vec<u8> = wire::get_strs(v, "cards").iter().filter_map(|c| parse_card(c)).collect();
            let s = evaluate(&cards);
            let (category, ranks) = (CATEGORIES[s.category as usize], s.ranks_text());
            if Some(category) != get_str(v, "category") || Some(ranks.as_str()) != get_str(v, "ranks") {
                bad.push(format!("hand {:?}: {} {}, expected {} {}", wire::get_strs(v, "cards"), category, ranks,
                                 get_str(v, "category").unwrap_or("?"), get_str(v, "ranks").unwrap_or("?")));
            }
            checked += 1;
        }
        lines.push(format!("ok {} hands", checked));
        if bad.is_empty() { Ok(lines) } else { Err(bad) }
    }
}
