//! harness_core: the Seven Card Draw rules of docs/RULES.md in Rust, bound to Python with PyO3.
//!
//! `mt` (CPython's Mersenne Twister, so the same seed deals the same cards), `eval` (the best five,
//! R5), `hand` (the hand state machine, R2-R5), `bench` (random legal hands without Python), `rng`
//! (the random chooser's numbers), `tables` (many self-play tables stepped at once into NumPy rows), `aec`
//! (one table of the PettingZoo AEC environment, observation and mask written into new NumPy arrays),
//! `zmtp` and `reply` (the referee's hot path: ZMTP framing, a bot's reply decoded). The
//! Python engine `harness.engine` is the reference: the differential test plays random hands
//! through both (tests/test_native_core.py).
#![forbid(unsafe_code)]

mod aec;
mod bench;
mod eval;
mod hand;
mod mt;
mod reply;
mod rng;
mod tables;
mod zmtp;

use hand::{Config, Hand, LogEntry, Refusal, DECK, KIND_NAMES, MAX_STACK};
use mt::Mt;
use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use numpy::{PyUntypedArrayMethods, PyReadonlyArray1, PyReadwriteArray1, PyReadwriteArray2, PyReadwriteArray3};
use pyo3::types::{PyBytes, PyTuple};

create_exception!(harness_core, InvalidActionError, PyValueError, "A malformed action (a card not held, a duplicate discard, an unknown kind).");
create_exception!(harness_core, IllegalActionError, PyValueError, "A well-formed action the rules forbid now; the message names the rule id.");

fn refused(r: Refusal) -> PyErr {
    match r {
        Refusal::Invalid(m) => InvalidActionError::new_err(m),
        Refusal::Illegal(m) => IllegalActionError::new_err(m),
    }
}

/// The 32-bit words of `abs(seed)`, least significant first: CPython's key for `random.Random(seed)`.
fn seed_key(seed: &Bound<'_, PyAny>) -> PyResult<Vec<u32>> {
    if let Ok(v) = seed.extract::<i64>() {
        let mut a = v.unsigned_abs();
        let mut key = Vec::with_capacity(2);
        while a > 0 {
            key.push(a as u32);
            a >>= 32;
        }
        return Ok(key);
    }
    let a = seed.call_method0("__abs__")?;
    let nbits: usize = a.call_method0("bit_length")?.extract()?;
    let nbytes = nbits.div_ceil(32).max(1) * 4;
    let raw = a.call_method1("to_bytes", (nbytes, "little"))?;
    let bytes = raw.cast::<PyBytes>()?.as_bytes();
    Ok(bytes.chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
}

fn chips(name: &str, value: i64) -> PyResult<i64> {
    if !(0..=MAX_STACK).contains(&value) {
        return Err(PyValueError::new_err(format!("{name} must be 0..{MAX_STACK} chips, got {value}")));
    }
    Ok(value)
}

#[allow(clippy::too_many_arguments)]
fn make_config(
    structure: &str,
    small_blind: i64,
    big_blind: i64,
    ante: i64,
    blinds: bool,
    min_bet: Option<i64>,
    cap: u32,
    replacements: &str,
) -> PyResult<Config> {
    let fixed_limit = match structure {
        "no-limit" => false,
        "fixed-limit" => true,
        _ => return Err(PyValueError::new_err(format!("R3.6/R3.7: structure must be 'no-limit' or 'fixed-limit', got {structure:?}"))),
    };
    let per_seat = match replacements {
        "stock" => false,
        "per-seat" => true,
        _ => return Err(PyValueError::new_err(format!("R4.4: replacements must be 'stock' or 'per-seat', got {replacements:?}"))),
    };
    let min_bet = match (blinds, min_bet) {
        (false, None) => return Err(PyValueError::new_err("R2.5: an ante-only game (blinds = false) needs min_bet")),
        (false, Some(m)) => chips("min_bet", m)?,
        (true, _) => 0,
    };
    if cap > 1000 {
        return Err(PyValueError::new_err(format!("R3.7: cap must be at most 1000, got {cap}")));
    }
    let config = Config {
        fixed_limit,
        small_blind: chips("small_blind", small_blind)?,
        big_blind: chips("big_blind", big_blind)?,
        ante: chips("ante", ante)?,
        blinds,
        min_bet,
        cap,
        per_seat,
    };
    if config.unit() < 1 {
        return Err(PyValueError::new_err("R2.2/R2.5: the big blind (or min_bet) must be at least 1 chip"));
    }
    Ok(config)
}

fn kind_code(kind: &str) -> PyResult<u8> {
    KIND_NAMES[..6]
        .iter()
        .position(|&k| k == kind)
        .map(|k| k as u8)
        .ok_or_else(|| InvalidActionError::new_err(format!("unknown action kind {kind:?}; one of fold, check, call, bet, raise, draw")))
}

/// One hand of Seven Card Draw in the native core (the counterpart of `harness.engine.HandState`).
///
/// `Hand(stacks, button, seed, *, <GameConfig's fields>, deck=None, raise_cap=True)` shuffles with
/// Python's `random.Random(seed)` sequence, posts and deals (R2); drive it with `apply(kind,
/// amount, discards)`. Chip amounts are ints; kinds and phases are `ActionKind`/`Phase` values.
#[pyclass(module = "harness_core")]
struct NativeHand {
    h: Hand,
}

#[pymethods]
impl NativeHand {
    #[new]
    #[pyo3(signature = (stacks, button, seed, *, structure="no-limit", small_blind=5, big_blind=10, ante=0,
                        blinds=true, min_bet=None, cap=4, replacements="stock", deck=None, raise_cap=true))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        stacks: Vec<i64>,
        button: usize,
        seed: &Bound<'_, PyAny>,
        structure: &str,
        small_blind: i64,
        big_blind: i64,
        ante: i64,
        blinds: bool,
        min_bet: Option<i64>,
        cap: u32,
        replacements: &str,
        deck: Option<Vec<i64>>,
        raise_cap: bool,
    ) -> PyResult<Self> {
        let config = make_config(structure, small_blind, big_blind, ante, blinds, min_bet, cap, replacements)?;
        let order = match deck {
            None => None,
            Some(d) => {
                let mut order = [0u8; DECK];
                let mut seen = 0u64;
                if d.len() != DECK {
                    return Err(PyValueError::new_err("R1.1: a stacked deck must hold each of the 52 cards exactly once"));
                }
                for (i, &c) in d.iter().enumerate() {
                    if !(0..DECK as i64).contains(&c) || seen >> c & 1 == 1 {
                        return Err(PyValueError::new_err("R1.1: a stacked deck must hold each of the 52 cards exactly once"));
                    }
                    seen |= 1 << c;
                    order[i] = c as u8;
                }
                Some(order)
            }
        };
        let rng = Mt::from_key(&seed_key(seed)?);
        let h = Hand::start(config, &stacks, button, rng, order, raise_cap).map_err(|e| PyValueError::new_err(e.0))?;
        Ok(NativeHand { h })
    }

    /// "bet1", "draw", "bet2" or "complete".
    #[getter]
    fn phase(&self) -> &'static str {
        self.h.phase.name()
    }
    #[getter]
    fn to_act(&self) -> Option<usize> {
        self.h.to_act
    }
    #[getter]
    fn n(&self) -> usize {
        self.h.n
    }
    #[getter]
    fn is_complete(&self) -> bool {
        self.h.is_complete()
    }
    #[getter]
    fn pot(&self) -> i64 {
        self.h.pot()
    }
    #[getter]
    fn stacks(&self) -> Vec<i64> {
        self.h.stacks[..self.h.n].to_vec()
    }
    #[getter]
    fn bets(&self) -> Vec<i64> {
        self.h.bets[..self.h.n].to_vec()
    }
    #[getter]
    fn contrib(&self) -> Vec<i64> {
        self.h.contrib[..self.h.n].to_vec()
    }
    #[getter]
    fn folded(&self) -> Vec<bool> {
        self.h.folded[..self.h.n].to_vec()
    }
    #[getter]
    fn all_in(&self) -> Vec<bool> {
        self.h.all_in[..self.h.n].to_vec()
    }
    #[getter]
    fn draws(&self) -> Vec<Option<u8>> {
        self.h.draws[..self.h.n].to_vec()
    }
    /// Current cards per seat (card ints, in the order the Python engine keeps them).
    #[getter]
    fn cards(&self) -> Vec<Vec<u16>> {
        self.h.cards[..self.h.n].iter().map(|c| ints(c)).collect()
    }
    #[getter]
    fn hole_cards(&self) -> Vec<Vec<u16>> {
        self.h.hole_cards[..self.h.n].iter().map(|c| ints(c)).collect()
    }

    /// Everything a referee reads after an action, in one call (`harness.engine.native_state`):
    /// `(phase, to_act, stacks, bets, contrib, folded, all_in, draws, events, legal)`, `events` those
    /// from index `since` on (as `events()`), `legal` `(kinds, call_amount, min_to, max_to,
    /// max_discards)` with kinds a bit set (bit = kind code: fold 0 .. draw 5).
    #[allow(clippy::type_complexity)]
    fn view(
        &self,
        since: usize,
    ) -> (
        &'static str,
        Option<usize>,
        Vec<i64>,
        Vec<i64>,
        Vec<i64>,
        Vec<bool>,
        Vec<bool>,
        Vec<Option<u8>>,
        Vec<(u8, &'static str, i64, bool)>,
        (u8, i64, i64, i64, u8),
    ) {
        let h = &self.h;
        let n = h.n;
        let lg = h.legal();
        let events = h.events.get(since..).unwrap_or(&[]);
        (
            h.phase.name(),
            h.to_act,
            h.stacks[..n].to_vec(),
            h.bets[..n].to_vec(),
            h.contrib[..n].to_vec(),
            h.folded[..n].to_vec(),
            h.all_in[..n].to_vec(),
            h.draws[..n].to_vec(),
            events.iter().map(|e| (e.seat, KIND_NAMES[e.what as usize], e.amount, e.all_in)).collect(),
            (lg.kinds, lg.call_amount, lg.min_to, lg.max_to, lg.max_discards),
        )
    }

    /// The current cards of `seat` (card ints, as `cards`).
    fn seat_cards(&self, seat: usize) -> PyResult<Vec<u16>> {
        if seat >= self.h.n {
            return Err(PyValueError::new_err(format!("seat must be 0..{}, got {seat}", self.h.n - 1)));
        }
        Ok(ints(&self.h.cards[seat]))
    }

    /// `(kinds, call_amount, min_to, max_to, max_discards)`, kinds in `Legal.actions`' order.
    fn legal(&self) -> (Vec<&'static str>, i64, i64, i64, u8) {
        let lg = self.h.legal();
        let kinds = (0..6u8).filter(|&k| lg.has(k)).map(|k| KIND_NAMES[k as usize]).collect();
        (kinds, lg.call_amount, lg.min_to, lg.max_to, lg.max_discards)
    }

    /// Apply one action of the seat to act; a refused one raises and changes nothing.
    ///
    /// Raises:
    ///     InvalidActionError, IllegalActionError: as `HandState.apply` (same rule ids and words).
    #[pyo3(signature = (kind, amount=0, discards=Vec::new()))]
    fn apply(&mut self, kind: &str, amount: i64, discards: Vec<i64>) -> PyResult<()> {
        let code = kind_code(kind)?;
        self.h.apply(code, amount, &discards).map_err(refused)
    }

    /// `HandState.capped` (R3.10, E15): the nearest bet or raise the player may make, as `(kind, amount)`.
    fn capped(&self, kind: &str, amount: i64) -> PyResult<(&'static str, i64)> {
        let (k, a) = self.h.capped(kind_code(kind)?, amount);
        Ok((KIND_NAMES[k as usize], a))
    }

    /// `HandState.default_action`'s kind: "check", "fold" or "draw" (stand pat).
    fn default_action(&self) -> PyResult<&'static str> {
        self.h.default_action().map(|k| KIND_NAMES[k as usize]).map_err(refused)
    }

    /// The public events so far: `(seat, action, amount, all_in)`, `amount` a draw's count.
    fn events(&self) -> Vec<(u8, &'static str, i64, bool)> {
        self.h.events.iter().map(|e| (e.seat, KIND_NAMES[e.what as usize], e.amount, e.all_in)).collect()
    }

    /// `HandState.action_log()`: every decision so far, betting ones `(seat, kind, amount, owed, added,
    /// to, all_in)`, draws `(seat, "draw", discards, received, reshuffled)` (card ints in tuples).
    fn action_log<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyTuple>>> {
        self.h
            .log
            .iter()
            .map(|e| match *e {
                LogEntry::Betting { seat, kind, amount, owed, added, to, all_in } => {
                    (seat, KIND_NAMES[kind as usize], amount, owed, added, to, all_in).into_pyobject(py)
                }
                LogEntry::Draw { seat, count, discards, received, reshuffled } => {
                    let k = count as usize;
                    let thrown = PyTuple::new(py, ints(&discards[..k]))?;
                    let got = PyTuple::new(py, ints(&received[..k]))?;
                    (seat, "draw", thrown, got, reshuffled).into_pyobject(py)
                }
            })
            .collect()
    }

    /// `(net, pots, shown, uncalled, final_stacks)` with pots `(amount, eligible, winners, shares)`
    /// and shown `(seat, value, five)` in showing order (R5.7).
    ///
    /// Raises:
    ///     RuntimeError: the hand is not complete.
    #[allow(clippy::type_complexity)]
    fn result(
        &self,
    ) -> PyResult<(Vec<i64>, Vec<(i64, Vec<u16>, Vec<u16>, Vec<i64>)>, Vec<(u8, u32, Vec<u16>)>, Vec<(u8, i64)>, Vec<i64>)> {
        let r = self.h.result().ok_or_else(|| PyRuntimeError::new_err("the hand is not complete"))?;
        Ok((
            r.net.clone(),
            r.pots.iter().map(|p| (p.amount, ints(&p.eligible), ints(&p.winners), p.shares.clone())).collect(),
            r.shown.iter().map(|&(s, v, f)| (s, v, ints(&f))).collect(),
            r.uncalled.clone(),
            r.final_stacks.clone(),
        ))
    }
}

/// Cards or seats as Python ints (PyO3 would make a `Vec<u8>` into `bytes`).
fn ints(values: &[u8]) -> Vec<u16> {
    values.iter().map(|&v| v as u16).collect()
}

fn checked_cards(cards: &[i64]) -> PyResult<Vec<u8>> {
    eval::check(cards).map_err(|()| {
        PyValueError::new_err(format!("R5.1: cannot evaluate {cards:?}: need 5 to 7 distinct cards, ints 0..51"))
    })?;
    Ok(cards.iter().map(|&c| c as u8).collect())
}

/// The value of the best five of 5..7 distinct cards, as `harness.engine.evaluator.evaluate`.
#[pyfunction]
fn evaluate(cards: Vec<i64>) -> PyResult<u32> {
    Ok(eval::evaluate(&checked_cards(&cards)?))
}

/// `(value, five)` of 5..7 distinct cards, as `harness.engine.evaluator.best_hand`.
#[pyfunction]
fn best_hand(cards: Vec<i64>) -> PyResult<(u32, Vec<u16>)> {
    let (v, f) = eval::best_hand(&checked_cards(&cards)?);
    Ok((v, ints(&f)))
}

/// The first `count` numbers of `random.Random(seed).getrandbits(32)` (a check of the generator).
#[pyfunction]
fn random_words(seed: &Bound<'_, PyAny>, count: usize) -> PyResult<Vec<u32>> {
    let mut mt = Mt::from_key(&seed_key(seed)?);
    Ok((0..count).map(|_| mt.next_u32()).collect())
}

/// Play `hands` random legal hands in Rust alone (the chooser of `harness.bench.engine`); returns
/// the number of actions. Seeds `seed * 1_000_003 + h`, button `h % players`, 1000 chips each.
#[pyfunction]
#[pyo3(signature = (players, hands, seed=1, *, structure="no-limit", small_blind=5, big_blind=10, ante=0,
                    blinds=true, min_bet=None, cap=4, replacements="stock"))]
#[allow(clippy::too_many_arguments)]
fn play_random_hands(
    py: Python<'_>,
    players: usize,
    hands: u64,
    seed: u64,
    structure: &str,
    small_blind: i64,
    big_blind: i64,
    ante: i64,
    blinds: bool,
    min_bet: Option<i64>,
    cap: u32,
    replacements: &str,
) -> PyResult<u64> {
    let config = make_config(structure, small_blind, big_blind, ante, blinds, min_bet, cap, replacements)?;
    py.detach(|| bench::play_random_hands(config, players, hands, seed)).map_err(PyValueError::new_err)
}

/// Seven-card `best_hand` calls in Rust alone over `count` random hands; returns a checksum.
#[pyfunction]
fn evaluate_random(py: Python<'_>, count: u64, seed: u64) -> u64 {
    py.detach(|| bench::evaluate_random(count, seed))
}


/// A contiguous, writable view of an output array with `len` elements, or a ValueError naming it.
fn rows_of<'a, T>(name: &str, view: Option<&'a mut [T]>, shape: &[usize], want: &[usize]) -> PyResult<&'a mut [T]> {
    if shape != want {
        return Err(PyValueError::new_err(format!("{name}: expected shape {want:?}, got {shape:?}")));
    }
    view.ok_or_else(|| PyValueError::new_err(format!("{name}: expected a C-contiguous array")))
}

/// N self-play tables of Seven Card Draw stepped in one call (`harness.rl.native_vector`'s core).
///
/// `NativeTables(match_seeds, players, starting_stack, *, <GameConfig's fields>, chooser_seed=1)`:
/// table i deals hand h from `harness.deals.hand_seed(match_seeds[i], h)` (each seed given as its
/// 32 bytes, big-endian), the button at seat `h % players`, every stack at `starting_stack` chips.
/// The step writes into caller-provided arrays (float32 observations, int8 masks, ...): the
/// layouts of `harness.rl.encoding`.
#[pyclass(module = "harness_core")]
struct NativeTables {
    t: tables::Tables,
}

#[pymethods]
impl NativeTables {
    #[new]
    #[pyo3(signature = (match_seeds, players, starting_stack, *, structure="no-limit", small_blind=5, big_blind=10,
                        ante=0, blinds=true, min_bet=None, cap=4, replacements="stock", chooser_seed=1))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        match_seeds: Vec<Vec<u8>>,
        players: usize,
        starting_stack: i64,
        structure: &str,
        small_blind: i64,
        big_blind: i64,
        ante: i64,
        blinds: bool,
        min_bet: Option<i64>,
        cap: u32,
        replacements: &str,
        chooser_seed: u64,
    ) -> PyResult<Self> {
        let config = make_config(structure, small_blind, big_blind, ante, blinds, min_bet, cap, replacements)?;
        if !(2..=hand::MAX_SEATS).contains(&players) {
            return Err(PyValueError::new_err(format!("R1.2: a table seats 2 to 6 players, got {players}")));
        }
        if !(1..=MAX_STACK).contains(&starting_stack) {
            return Err(PyValueError::new_err(format!("starting_stack must be 1..{MAX_STACK} chips, got {starting_stack}")));
        }
        if match_seeds.is_empty() {
            return Err(PyValueError::new_err("match_seeds: at least one table"));
        }
        let mut keys = Vec::with_capacity(match_seeds.len());
        for (i, m) in match_seeds.iter().enumerate() {
            let key: [u8; 32] = m.as_slice().try_into().map_err(|_| {
                PyValueError::new_err(format!("match_seeds[{i}]: expected the seed's 32 bytes, got {}", m.len()))
            })?;
            keys.push(key);
        }
        let set = tables::Settings { config, n: players, stack: starting_stack };
        let t = tables::Tables::new(set, &keys, chooser_seed).map_err(PyValueError::new_err)?;
        Ok(NativeTables { t })
    }

    /// The number of tables.
    fn __len__(&self) -> usize {
        self.t.len()
    }

    /// Floats per observation row (`harness.rl.encoding.obs_size(players)`).
    #[getter]
    fn obs_size(&self) -> usize {
        self.t.obs_size()
    }

    /// Table i's hand number (its hand seed's deal number).
    fn hand_number(&self, i: usize) -> PyResult<u64> {
        if i >= self.t.len() {
            return Err(PyValueError::new_err(format!("table {i}: there are {} tables", self.t.len())));
        }
        Ok(self.t.hand_number(i))
    }

    /// Table i's hand as a `NativeHand` copy (for tests and debugging).
    fn hand(&self, i: usize) -> PyResult<NativeHand> {
        if i >= self.t.len() {
            return Err(PyValueError::new_err(format!("table {i}: there are {} tables", self.t.len())));
        }
        Ok(NativeHand { h: self.t.hand(i).clone() })
    }

    /// Write the decisions now: `obs` (N, obs_size) float32, `masks` (N, 106) int8, `seats` (N,) int64.
    ///
    /// Raises:
    ///     ValueError: an array of the wrong shape, or not C-contiguous.
    fn rows(&self, mut obs: PyReadwriteArray2<'_, f32>, mut masks: PyReadwriteArray2<'_, i8>,
            mut seats: PyReadwriteArray1<'_, i64>) -> PyResult<()> {
        let (n, size) = (self.t.len(), self.t.obs_size());
        let (so, sm, ss) = (obs.shape().to_vec(), masks.shape().to_vec(), seats.shape().to_vec());
        let obs = rows_of("obs", obs.as_slice_mut().ok(), &so, &[n, size])?;
        let masks = rows_of("masks", masks.as_slice_mut().ok(), &sm, &[n, tables::N_ACTIONS])?;
        let seats = rows_of("seats", seats.as_slice_mut().ok(), &ss, &[n])?;
        self.t.rows(obs, masks, seats);
        Ok(())
    }

    /// Apply `actions[i]` (an action index of `harness.rl.encoding`) at table i, every one checked
    /// before any table moves; deal the next hand where one ended; write every element of the
    /// outputs: the new decisions (`obs`, `masks`, `seats`), `rewards` (N,) float32 the acting
    /// seat's net big blinds where its hand ended, `terminated` (N,) bool, `every` (N, players)
    /// float32 every seat's, `views` (N, players, obs_size) float32 every seat's last view of
    /// the finished hand, `acted` (N,) int64 the seat that acted (0 in rows that did not end).
    /// Returns the number of hands that ended.
    ///
    /// Raises:
    ///     ValueError: "table i: action a is not legal now (phase p) (no table moved)"; a wrong shape.
    #[allow(clippy::too_many_arguments)]
    fn step(&mut self, actions: PyReadonlyArray1<'_, i64>, mut obs: PyReadwriteArray2<'_, f32>,
            mut masks: PyReadwriteArray2<'_, i8>, mut seats: PyReadwriteArray1<'_, i64>,
            mut rewards: PyReadwriteArray1<'_, f32>, mut terminated: PyReadwriteArray1<'_, bool>,
            mut every: PyReadwriteArray2<'_, f32>, mut views: PyReadwriteArray3<'_, f32>,
            mut acted: PyReadwriteArray1<'_, i64>) -> PyResult<usize> {
        let (n, size, players) = (self.t.len(), self.t.obs_size(), self.t.players());
        let actions = actions.as_slice().map_err(|_| PyValueError::new_err("actions: expected a C-contiguous array"))?;
        if actions.len() != n {
            return Err(PyValueError::new_err(format!("actions: expected one per table, {n}, got {}", actions.len())));
        }
        let shapes = [obs.shape().to_vec(), masks.shape().to_vec(), seats.shape().to_vec(), rewards.shape().to_vec(),
                      terminated.shape().to_vec(), every.shape().to_vec(), views.shape().to_vec(), acted.shape().to_vec()];
        let out = tables::Outputs {
            obs: rows_of("obs", obs.as_slice_mut().ok(), &shapes[0], &[n, size])?,
            masks: rows_of("masks", masks.as_slice_mut().ok(), &shapes[1], &[n, tables::N_ACTIONS])?,
            seats: rows_of("seats", seats.as_slice_mut().ok(), &shapes[2], &[n])?,
            rewards: rows_of("rewards", rewards.as_slice_mut().ok(), &shapes[3], &[n])?,
            terminated: rows_of("terminated", terminated.as_slice_mut().ok(), &shapes[4], &[n])?,
            every: rows_of("every", every.as_slice_mut().ok(), &shapes[5], &[n, players])?,
            views: rows_of("views", views.as_slice_mut().ok(), &shapes[6], &[n, players, size])?,
            acted: rows_of("acted", acted.as_slice_mut().ok(), &shapes[7], &[n])?,
        };
        self.t.step(actions, out).map_err(|(i, m)| PyValueError::new_err(format!("table {i}: {m} (no table moved)")))
    }

    /// A uniformly random legal action index per table into `out` (N,) int64 (the chooser's own
    /// numbers, from `chooser_seed`; never the deal's).
    fn sample(&mut self, mut out: PyReadwriteArray1<'_, i64>) -> PyResult<()> {
        let n = self.t.len();
        let shape = out.shape().to_vec();
        let out = rows_of("out", out.as_slice_mut().ok(), &shape, &[n])?;
        self.t.sample(out);
        Ok(())
    }
}

#[pymodule]
fn harness_core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<NativeHand>()?;
    m.add_class::<NativeTables>()?;
    m.add_class::<aec::NativeAec>()?;
    m.add_class::<zmtp::ZmtpParser>()?;
    m.add_class::<reply::ReplyDecoder>()?;
    m.add_function(wrap_pyfunction!(evaluate, m)?)?;
    m.add_function(wrap_pyfunction!(best_hand, m)?)?;
    m.add_function(wrap_pyfunction!(random_words, m)?)?;
    m.add_function(wrap_pyfunction!(play_random_hands, m)?)?;
    m.add_function(wrap_pyfunction!(evaluate_random, m)?)?;
    m.add("InvalidActionError", m.py().get_type::<InvalidActionError>())?;
    m.add("IllegalActionError", m.py().get_type::<IllegalActionError>())?;
    Ok(())
}
