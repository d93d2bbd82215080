//! Many tables at once: the rules of `hand`, the deals of `harness.deals` and the encodings of
//! `harness.rl.encoding` (observation, mask, action index) for N self-play tables, written into
//! caller-provided rows. The port of `harness.rl.vector.VectorEnv`'s step: the same seed and
//! actions give the same arrays (tests/test_native_vector.py). Nothing here allocates per step
//! but the hands themselves (a few small vectors per hand, in `Hand::start`).

use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::hand::{Config, Hand, Phase, BET, CALL, CHECK, DRAW, FOLD, MAX_DISCARDS, MAX_SEATS, RAISE};
use crate::mt::{Lanes, Mt, LANES};
use crate::rng::Rng;

type HmacSha256 = Hmac<Sha256>;

/// `encoding.BET_BASE`, `DRAW_BASE`, `N_ACTIONS`: fold, check/call, five bet sizes, 99 draws.
pub const BET_BASE: usize = 2;
pub const DRAW_BASE: usize = BET_BASE + 5;
pub const N_ACTIONS: usize = DRAW_BASE + 99;
/// `encoding.DRAW_KEY` and `NONE_KEY`: the mask keys of the draw and of no decision.
const DRAW_KEY: u32 = 1 << DRAW_BASE;
const NONE_KEY: u32 = DRAW_KEY + 1;
const CHECK_ONLY: u32 = 1 << 1;
const CALL_FOLD: u32 = 1 << 1 | 1;

/// `encoding.DISCARDS`: the positions each draw index discards, sets by size then lexicographic.
const DISCARDS: [(u8, [u8; MAX_DISCARDS]); 99] = discards();

const fn discards() -> [(u8, [u8; MAX_DISCARDS]); 99] {
    let mut out = [(0u8, [0u8; MAX_DISCARDS]); 99];
    let mut at = 0;
    let mut size = 0u32;
    while size <= 4 {
        // subsets of 0..7 of this size in lexicographic order: ascending bit masks reversed per position
        let mut chosen = [0u8; MAX_DISCARDS];
        let mut i = 0;
        while i < size as usize {
            chosen[i] = i as u8;
            i += 1;
        }
        loop {
            out[at] = (size as u8, chosen);
            at += 1;
            // next combination (lexicographic): the rightmost position that can still grow
            let k = size as usize;
            if k == 0 {
                break;
            }
            let mut p = k;
            let mut found = false;
            while p > 0 {
                p -= 1;
                if (chosen[p] as usize) < 7 - k + p {
                    found = true;
                    break;
                }
            }
            if !found {
                break;
            }
            chosen[p] += 1;
            let mut q = p + 1;
            while q < k {
                chosen[q] = chosen[q - 1] + 1;
                q += 1;
            }
        }
        size += 1;
    }
    out
}

/// Offsets of the observation's fields at `n` seats (`encoding.layout`).
#[derive(Clone, Copy, Debug)]
pub struct Layout {
    pub n: usize,
    phase: usize,
    button: usize,
    to_act: usize,
    stacks: usize,
    bets: usize,
    contrib: usize,
    pot: usize,
    legal: usize,
    folded: usize,
    all_in: usize,
    draws: usize,
    actions: usize,
    shown: usize,
    pub size: usize,
}

impl Layout {
    pub fn new(n: usize) -> Layout {
        let phase = 52;
        let button = phase + 4;
        let to_act = button + n;
        let stacks = to_act + n;
        let bets = stacks + n;
        let contrib = bets + n;
        let pot = contrib + n;
        let legal = pot + 1;
        let folded = legal + 3;
        let all_in = folded + n;
        let draws = all_in + n;
        let actions = draws + n;
        let shown = actions + 6 * n;
        let size = shown + 52 * (n - 1);
        Layout { n, phase, button, to_act, stacks, bets, contrib, pot, legal, folded, all_in, draws, actions, shown, size }
    }
}

/// What a table's seat to act may choose: the mask key and the bet sizes' "to" amounts
/// (`encoding.decision`).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Decision {
    pub(crate) key: u32,
    amounts: [i64; 5],
}

fn clip(x: i64, lo: i64, hi: i64) -> i64 {
    if x < lo {
        lo
    } else if x > hi {
        hi
    } else {
        x
    }
}

/// `encoding.decision`: the key and amounts of the seat to act in `h`.
pub(crate) fn decide(h: &Hand) -> Decision {
    let s = match (h.phase, h.to_act) {
        (Phase::Draw, _) => return Decision { key: DRAW_KEY, amounts: [0; 5] },
        (Phase::Complete, _) | (_, None) => return Decision { key: NONE_KEY, amounts: [0; 5] },
        (_, Some(s)) => s,
    };
    let lg = h.legal();
    let call = lg.call_amount;
    let mut key = if call > 0 { CALL_FOLD } else { CHECK_ONLY };
    let lo = lg.min_to;
    if lo == 0 {
        return Decision { key, amounts: [0; 5] };
    }
    let hi = lg.max_to;
    let after = h.bets[s] + call;
    let grown = (h.pot() + call) as f64;
    // int(f * grown) as Python computes it: a double, truncated
    let half = clip(after + (0.5 * grown) as i64, lo, hi);
    let full = clip(after + grown as i64, lo, hi);
    let two = clip(after + (2.0 * grown) as i64, lo, hi);
    key |= 1 << BET_BASE;
    if half != lo {
        key |= 1 << (BET_BASE + 1);
    }
    if full != half {
        key |= 1 << (BET_BASE + 2);
    }
    if two != full {
        key |= 1 << (BET_BASE + 3);
    }
    if hi != two {
        key |= 1 << (BET_BASE + 4);
    }
    Decision { key, amounts: [lo, half, full, two, hi] }
}

/// `encoding.MASKS[key]` written into `row` (N_ACTIONS int8).
pub(crate) fn write_mask(row: &mut [i8], key: u32) {
    row.fill(0);
    if key == DRAW_KEY {
        row[DRAW_BASE..].fill(1);
    } else if key != NONE_KEY {
        for (i, m) in row[..DRAW_BASE].iter_mut().enumerate() {
            *m = (key >> i & 1) as i8;
        }
    }
}

/// `encoding.observe_into`: what `seat` sees of `h`, written over `v` (obs_size floats, zeroed here).
pub fn observe(v: &mut [f32], lay: &Layout, unit: f64, h: &Hand, seat: usize) {
    v.fill(0.0);
    let n = lay.n;
    for &c in &h.cards[seat] {
        v[c as usize] = 1.0;
    }
    let phase = match h.phase {
        Phase::Bet1 => 0,
        Phase::Draw => 1,
        Phase::Bet2 => 2,
        Phase::Complete => 3,
    };
    v[lay.phase + phase] = 1.0;
    let rel = |s: usize| (s + n - seat) % n; // the slot of seat s in the observer's order
    v[lay.button + rel(h.button)] = 1.0;
    if let Some(t) = h.to_act {
        v[lay.to_act + rel(t)] = 1.0;
    }
    let mut pot = 0i64;
    for k in 0..n {
        let s = (seat + k) % n;
        v[lay.stacks + k] = (h.stacks[s] as f64 / unit) as f32;
        v[lay.bets + k] = (h.bets[s] as f64 / unit) as f32;
        v[lay.contrib + k] = (h.contrib[s] as f64 / unit) as f32;
        pot += h.contrib[s];
        if h.folded[s] {
            v[lay.folded + k] = 1.0;
        }
        if h.all_in[s] {
            v[lay.all_in + k] = 1.0;
        }
        v[lay.draws + k] = match h.draws[s] {
            None => -1.0,
            Some(x) => x as f32,
        };
    }
    v[lay.pot] = (pot as f64 / unit) as f32;
    if h.to_act == Some(seat) && h.phase != Phase::Draw {
        let lg = h.legal();
        v[lay.legal] = (lg.call_amount as f64 / unit) as f32;
        v[lay.legal + 1] = (lg.min_to as f64 / unit) as f32;
        v[lay.legal + 2] = (lg.max_to as f64 / unit) as f32;
    }
    let mut round = 0;
    for e in &h.events {
        let column = match e.what {
            CHECK => 0,
            CALL => 1,
            BET | RAISE => 2,
            DRAW => {
                round = 1;
                continue;
            }
            _ => continue, // folds and the forced bets are not counted
        };
        v[lay.actions + (round * n + rel(e.seat as usize)) * 3 + column] += 1.0;
    }
    if let Some(r) = h.result() {
        for &(s, _, _) in &r.shown {
            let s = s as usize;
            if s != seat {
                let at = lay.shown + 52 * (rel(s) - 1);
                for &c in &h.cards[s] {
                    v[at + c as usize] = 1.0;
                }
            }
        }
    }
}

/// Why an action index is refused, as `encoding.action_of` words it.
pub fn refusal(index: i64, h: &Hand) -> String {
    if h.phase == Phase::Complete {
        format!("action {index} is not legal: the hand is complete")
    } else {
        format!("action {index} is not legal now (phase {})", h.phase.name())
    }
}

/// An engine action: kind code, "to" amount, discards (`count` cards).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Chosen {
    pub(crate) kind: u8,
    pub(crate) to: i64,
    pub(crate) discards: [i64; MAX_DISCARDS],
    pub(crate) count: usize,
}

/// `encoding.action_of`: the engine action of `index` for the seat to act, or None when illegal.
pub(crate) fn action_of(h: &Hand, d: &Decision, index: i64) -> Option<Chosen> {
    if d.key == DRAW_KEY {
        if !(DRAW_BASE as i64..N_ACTIONS as i64).contains(&index) {
            return None;
        }
        let s = h.to_act?;
        let (count, positions) = DISCARDS[index as usize - DRAW_BASE];
        let mut discards = [0i64; MAX_DISCARDS];
        for (d, &p) in discards.iter_mut().zip(&positions[..count as usize]) {
            *d = h.cards[s][p as usize] as i64;
        }
        return Some(Chosen { kind: DRAW, to: 0, discards, count: count as usize });
    }
    if d.key == NONE_KEY || !(0..DRAW_BASE as i64).contains(&index) || d.key >> index & 1 == 0 {
        return None;
    }
    let i = index as usize;
    let chosen = |kind, to| Some(Chosen { kind, to, ..Chosen::default() });
    if i == 1 {
        return chosen(if d.key & 1 == 1 { CALL } else { CHECK }, 0);
    }
    if i == 0 {
        return chosen(FOLD, 0);
    }
    chosen(if h.legal().has(BET) { BET } else { RAISE }, d.amounts[i - BET_BASE])
}

/// One table: its hand, the match seed's keyed HMAC (hand seeds), the hand number and the decision
/// of its seat to act.
#[derive(Clone)]
struct Table {
    hand: Hand,
    mac: HmacSha256,
    number: u64,
    decision: Decision,
}

/// `harness.deals.hand_seed(match_seed, number)`: the first 8 bytes of HMAC-SHA256(match seed,
/// "hand\0" + the decimal number), big-endian.
fn hand_seed(mac: &HmacSha256, number: u64) -> u64 {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut x = number;
    loop {
        at -= 1;
        digits[at] = b'0' + (x % 10) as u8;
        x /= 10;
        if x == 0 {
            break;
        }
    }
    let mut m = mac.clone();
    m.update(b"hand\x00");
    m.update(&digits[at..]);
    let out = m.finalize().into_bytes();
    u64::from_be_bytes([out[0], out[1], out[2], out[3], out[4], out[5], out[6], out[7]])
}

/// The settings every table shares.
#[derive(Clone, Copy, Debug)]
pub struct Settings {
    pub config: Config,
    pub n: usize,
    pub stack: i64,
}

/// Hand `number` of a table, and the ones after it while a hand is over before anyone acts
/// (`VectorEnv._next_hand`: every stack all-in on its forced bets).
fn deal(set: &Settings, mac: &HmacSha256, mut number: u64) -> Result<(Hand, u64), String> {
    let stacks = [set.stack; MAX_SEATS];
    loop {
        let rng = Mt::from_u64(hand_seed(mac, number));
        let button = (number % set.n as u64) as usize;
        let hand = Hand::start(set.config, &stacks[..set.n], button, rng, None, true).map_err(|e| e.0)?;
        if !hand.is_complete() {
            return Ok((hand, number));
        }
        number += 1;
    }
}

/// Reseed the generators of the tables `chunk` from `seeds` (in order), `L` lanes side by side.
fn reseed<const L: usize>(seeds: &[u64], chunk: &[usize], tables: &mut [Table]) {
    let mut lanes = [0u64; L];
    lanes.copy_from_slice(&seeds[..L]);
    let seeded = Lanes::seed(&lanes);
    for (l, &i) in chunk.iter().enumerate() {
        seeded.write(l, tables[i].hand.rng_mut());
    }
}

/// Views of the output rows of one step (every element is written).
pub struct Outputs<'a> {
    pub obs: &'a mut [f32],
    pub masks: &'a mut [i8],
    pub seats: &'a mut [i64],
    pub rewards: &'a mut [f32],
    pub terminated: &'a mut [bool],
    pub every: &'a mut [f32],
    pub views: &'a mut [f32],
    pub acted: &'a mut [i64],
}

/// N tables of the same settings.
pub struct Tables {
    set: Settings,
    lay: Layout,
    unit: f64,
    tables: Vec<Table>,
    chosen: Vec<Chosen>,
    ended: Vec<usize>,
    rng: Rng,
}

impl Tables {
    /// Tables keyed by their match seeds (32 bytes each, big-endian), dealing hand 0.
    pub fn new(set: Settings, match_seeds: &[[u8; 32]], chooser_seed: u64) -> Result<Tables, String> {
        let lay = Layout::new(set.n);
        let mut tables = Vec::with_capacity(match_seeds.len());
        for key in match_seeds {
            let mac = HmacSha256::new_from_slice(key).map_err(|e| e.to_string())?;
            let (hand, number) = deal(&set, &mac, 0)?;
            let decision = decide(&hand);
            tables.push(Table { hand, mac, number, decision });
        }
        let chosen = vec![Chosen::default(); tables.len()];
        let ended = Vec::with_capacity(tables.len());
        Ok(Tables { set, lay, unit: set.config.unit() as f64, tables, chosen, ended, rng: Rng::new(chooser_seed) })
    }

    pub fn len(&self) -> usize {
        self.tables.len()
    }

    pub fn players(&self) -> usize {
        self.set.n
    }

    pub fn obs_size(&self) -> usize {
        self.lay.size
    }

    pub fn hand(&self, i: usize) -> &Hand {
        &self.tables[i].hand
    }

    pub fn hand_number(&self, i: usize) -> u64 {
        self.tables[i].number
    }

    /// The rows of the decisions now: observation, mask and seat to act per table.
    pub fn rows(&self, obs: &mut [f32], masks: &mut [i8], seats: &mut [i64]) {
        let size = self.lay.size;
        for (i, t) in self.tables.iter().enumerate() {
            let s = t.hand.to_act.unwrap_or(0);
            observe(&mut obs[i * size..(i + 1) * size], &self.lay, self.unit, &t.hand, s);
            write_mask(&mut masks[i * N_ACTIONS..(i + 1) * N_ACTIONS], t.decision.key);
            seats[i] = s as i64;
        }
    }

    /// Check every action (all or none move), then apply them, deal the next hand where one ended
    /// and write the rows. Returns how many hands ended; on a refused action, `(table, message)`.
    pub fn step(&mut self, actions: &[i64], out: Outputs<'_>) -> Result<usize, (usize, String)> {
        for (i, (t, &a)) in self.tables.iter().zip(actions).enumerate() {
            match action_of(&t.hand, &t.decision, a) {
                Some(c) => self.chosen[i] = c,
                None => return Err((i, refusal(a, &t.hand))),
            }
        }
        let (n, size) = (self.set.n, self.lay.size);
        let unit32 = self.set.config.unit() as f32;
        self.ended.clear();
        for (i, t) in self.tables.iter_mut().enumerate() {
            let c = &self.chosen[i];
            let seat = t.hand.to_act.unwrap_or(0);
            t.hand.apply(c.kind, c.to, &c.discards[..c.count]).map_err(|e| (i, format!("{e:?}")))?;
            let every = &mut out.every[i * n..(i + 1) * n];
            let views = &mut out.views[i * n * size..(i + 1) * n * size];
            if let Some(r) = t.hand.result() {
                self.ended.push(i);
                for (e, &net) in every.iter_mut().zip(&r.net) {
                    *e = net as f32 / unit32; // float32 as VectorEnv divides
                }
                out.rewards[i] = every[seat];
                out.terminated[i] = true;
                out.acted[i] = seat as i64;
                for s in 0..n {
                    observe(&mut views[s * size..(s + 1) * size], &self.lay, self.unit, &t.hand, s);
                }
            } else {
                every.fill(0.0);
                views.fill(0.0);
                out.rewards[i] = 0.0;
                out.terminated[i] = false;
                out.acted[i] = 0;
                t.decision = decide(&t.hand);
            }
        }
        self.deal_next()?;
        self.rows(out.obs, out.masks, out.seats);
        Ok(self.ended.len())
    }

    /// The next hand at the tables whose hand ended (`ended`), in place (`Hand::restart`), their
    /// generators seeded `LANES` at a time (`mt::Lanes`: seeding is most of a hand's cost).
    fn deal_next(&mut self) -> Result<(), (usize, String)> {
        let set = self.set;
        let stacks = [set.stack; MAX_SEATS];
        for chunk in self.ended.chunks(LANES) {
            let mut seeds = [0u64; LANES];
            for (seed, &i) in seeds.iter_mut().zip(chunk) {
                let t = &mut self.tables[i];
                t.number += 1;
                *seed = hand_seed(&t.mac, t.number);
            }
            // a batch no wider than needed: every lane costs the same, used or not
            match chunk.len() {
                1 => self.tables[chunk[0]].hand.rng_mut().reseed_u64(seeds[0]),
                2..=4 => reseed::<4>(&seeds, chunk, &mut self.tables),
                _ => reseed::<LANES>(&seeds, chunk, &mut self.tables),
            }
            for &i in chunk {
                let t = &mut self.tables[i];
                loop {
                    let button = (t.number % set.n as u64) as usize;
                    t.hand.restart(&stacks[..set.n], button).map_err(|e| (i, e.0))?;
                    if !t.hand.is_complete() {
                        break;
                    }
                    // over before anyone acts (every stack all-in on its forced bets): the next one
                    t.number += 1;
                    let seed = hand_seed(&t.mac, t.number);
                    t.hand.rng_mut().reseed_u64(seed);
                }
                t.decision = decide(&t.hand);
            }
        }
        Ok(())
    }

    /// A uniformly random legal index per table (the chooser's own numbers, `rng`).
    pub fn sample(&mut self, out: &mut [i64]) {
        for (t, o) in self.tables.iter().zip(out.iter_mut()) {
            let key = t.decision.key;
            *o = if key == DRAW_KEY {
                (DRAW_BASE as u64 + self.rng.below(99)) as i64
            } else {
                let legal = key & ((1 << DRAW_BASE) - 1);
                let mut k = self.rng.below(legal.count_ones().max(1) as u64);
                let mut index = 0;
                for b in 0..DRAW_BASE {
                    if legal >> b & 1 == 1 {
                        if k == 0 {
                            index = b;
                            break;
                        }
                        k -= 1;
                    }
                }
                index as i64
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn discards_are_python_s_combinations() {
        assert_eq!(DISCARDS[0].0, 0);
        assert_eq!(DISCARDS[1], (1, [0, 0, 0, 0]));
        assert_eq!(DISCARDS[7], (1, [6, 0, 0, 0]));
        assert_eq!(DISCARDS[8], (2, [0, 1, 0, 0]));
        assert_eq!(DISCARDS[98], (4, [3, 4, 5, 6]));
    }

    #[test]
    fn layout_size_is_encoding_s() {
        assert_eq!(Layout::new(2).size, 140);
        assert_eq!(Layout::new(6).size, 8 + 66 * 6);
    }
}
