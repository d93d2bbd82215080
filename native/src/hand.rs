//! The hand state machine of Seven Card Draw (RULES.md R2-R5), a port of `harness.engine.state`
//! (with its `legality` and `rounds` parts): the same fields, the same order of every step, so
//! that the same settings, seed and actions give the same hand, message for message.
//! Chip amounts are i64 (every chip of a table fits 2**40, R1.4); seats are 0..n-1.

use crate::eval;
use crate::mt::Mt;

pub const MAX_SEATS: usize = 6;
pub const HOLE: usize = 7; // R2.7
pub const MAX_DISCARDS: usize = 4; // R4.1
pub const DECK: usize = 52;
/// Largest stack the native core takes: every chip of a table stays far below i64's range.
pub const MAX_STACK: i64 = 1 << 50;

pub const FOLD: u8 = 0;
pub const CHECK: u8 = 1;
pub const CALL: u8 = 2;
pub const BET: u8 = 3;
pub const RAISE: u8 = 4;
pub const DRAW: u8 = 5;
pub const ANTE: u8 = 6;
pub const SMALL_BLIND: u8 = 7;
pub const BIG_BLIND: u8 = 8;
/// `ActionKind` values by kind code, then the forced bets' names (R2.2, R2.4).
pub const KIND_NAMES: [&str; 9] = ["fold", "check", "call", "bet", "raise", "draw", "ante", "small_blind", "big_blind"];

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Phase {
    Bet1,
    Draw,
    Bet2,
    Complete,
}

impl Phase {
    pub fn name(self) -> &'static str {
        match self {
            Phase::Bet1 => "bet1",
            Phase::Draw => "draw",
            Phase::Bet2 => "bet2",
            Phase::Complete => "complete",
        }
    }
}

/// Game settings (`harness.engine.config.GameConfig`), checked by the caller.
#[derive(Clone, Copy, Debug)]
pub struct Config {
    pub fixed_limit: bool,
    pub small_blind: i64,
    pub big_blind: i64,
    pub ante: i64,
    pub blinds: bool,
    /// The unit of an ante-only game (R2.5); unused with blinds.
    pub min_bet: i64,
    pub cap: u32,
    pub per_seat: bool,
}

impl Config {
    /// The big blind, or `min_bet` in an ante-only game (R2.5).
    pub fn unit(&self) -> i64 {
        if self.blinds {
            self.big_blind
        } else {
            self.min_bet
        }
    }
}

/// What the seat to act may do: kinds as a bit set (bit = kind code, so ascending bits give
/// `Legal.actions`' order), and the amounts of `harness.engine.actions.Legal`.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct Legal {
    pub kinds: u8,
    pub call_amount: i64,
    pub min_to: i64,
    pub max_to: i64,
    pub max_discards: u8,
}

impl Legal {
    pub fn has(&self, kind: u8) -> bool {
        self.kinds >> kind & 1 == 1
    }
}

const fn bits(kinds: &[u8]) -> u8 {
    let mut b = 0;
    let mut i = 0;
    while i < kinds.len() {
        b |= 1 << kinds[i];
        i += 1;
    }
    b
}

const K_FOLD_CALL: u8 = bits(&[FOLD, CALL]);
const K_FOLD_CALL_RAISE: u8 = bits(&[FOLD, CALL, RAISE]);
const K_FOLD_CHECK: u8 = bits(&[FOLD, CHECK]);
const K_FOLD_CHECK_BET: u8 = bits(&[FOLD, CHECK, BET]);
const K_FOLD_CHECK_RAISE: u8 = bits(&[FOLD, CHECK, RAISE]);

/// One public event of the hand's history: a post, a betting action or a draw (`amount` is the
/// draw's count).
#[derive(Clone, Copy, Debug)]
pub struct Event {
    pub seat: u8,
    pub what: u8,
    pub amount: i64,
    pub all_in: bool,
}

/// One decision of `HandState.action_log()`: a betting one `(seat, kind, amount, owed, added, to,
/// all_in)`, or a draw `(seat, discards, received, reshuffled)` (`count` cards each).
#[derive(Clone, Copy, Debug)]
pub enum LogEntry {
    Betting { seat: u8, kind: u8, amount: i64, owed: i64, added: i64, to: i64, all_in: bool },
    Draw { seat: u8, count: u8, discards: [u8; MAX_DISCARDS], received: [u8; MAX_DISCARDS], reshuffled: u8 },
}

/// One pot (R5.5): amount, eligible seats ascending, winners in odd-chip order and their shares.
#[derive(Clone, Debug)]
pub struct Pot {
    pub amount: i64,
    pub eligible: Vec<u8>,
    pub winners: Vec<u8>,
    pub shares: Vec<i64>,
}

/// How a complete hand ended (`harness.engine.pots.HandResult`); `shown` in showing order (R5.7).
#[derive(Clone, Debug)]
pub struct HandResult {
    pub net: Vec<i64>,
    pub pots: Vec<Pot>,
    pub shown: Vec<(u8, u32, [u8; 5])>,
    pub uncalled: Vec<(u8, i64)>,
    pub final_stacks: Vec<i64>,
}

/// Why an action is refused: malformed (`Invalid`) or against the rules now (`Illegal`); the
/// message names the rule id, worded as the Python engine's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    Invalid(String),
    Illegal(String),
}

/// Why a hand cannot start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StartError(pub String);

/// The seeded deck, fixed lazily position by position (`harness.engine.cards.Deck`).
#[derive(Clone)]
struct Deck {
    order: [u8; DECK],
    fixed: usize,
}

impl Deck {
    fn upto(&mut self, rng: &mut Mt, end: usize) {
        for p in self.fixed..end {
            let j = p + rng.randbelow((DECK - p) as u32) as usize;
            self.order.swap(p, j);
        }
        if end > self.fixed {
            self.fixed = end;
        }
    }
}

/// One hand, from the posts to the pots.
#[derive(Clone)]
pub struct Hand {
    pub config: Config,
    pub n: usize,
    pub button: usize,
    pub phase: Phase,
    pub to_act: Option<usize>,
    pub starting_stacks: [i64; MAX_SEATS],
    pub stacks: [i64; MAX_SEATS],
    pub bets: [i64; MAX_SEATS],
    pub contrib: [i64; MAX_SEATS],
    pub folded: [bool; MAX_SEATS],
    pub all_in: [bool; MAX_SEATS],
    pub cards: [[u8; HOLE]; MAX_SEATS],
    pub hole_cards: [[u8; HOLE]; MAX_SEATS],
    pub draws: [Option<u8>; MAX_SEATS],
    pub events: Vec<Event>,
    pub log: Vec<LogEntry>,
    rng: Mt,
    deck: Deck,
    pos: usize,
    stock: Vec<u8>,
    muck: Vec<u8>,
    unit: i64,
    high: i64,
    inc: i64,
    nbets: u32,
    acted: [bool; MAX_SEATS],
    acted_high: [i64; MAX_SEATS],
    n_live: usize,
    n_able: usize,
    r1_high: i64,
    aggressor: Option<usize>,
    draw_order: [u8; MAX_SEATS],
    draw_len: usize,
    draw_index: usize,
    uncalled: Vec<(u8, i64)>,
    result: Option<HandResult>,
    bb_seat: usize,
    raise_cap: bool,
}

impl Hand {
    /// Shuffle, post antes and blinds, deal seven cards each (R2); `HandState.start`.
    ///
    /// `rng` is the hand's `random.Random(seed)`; `deck` a stacked order (a permutation of 0..51)
    /// used instead of the shuffle, the generator then serving only an R4.4 reshuffle.
    pub fn start(
        config: Config,
        stacks: &[i64],
        button: usize,
        rng: Mt,
        deck: Option<[u8; DECK]>,
        raise_cap: bool,
    ) -> Result<Hand, StartError> {
        let n = stacks.len();
        if !(2..=MAX_SEATS).contains(&n) {
            return Err(StartError(format!("R1.2: a table seats 2 to 6 players, got {n}")));
        }
        for (s, &chips) in stacks.iter().enumerate() {
            if !(1..=MAX_STACK).contains(&chips) {
                return Err(StartError(format!(
                    "R1.4: stack of seat {s} must be a whole number of chips from 1 to {MAX_STACK}, got {chips}"
                )));
            }
        }
        if button >= n {
            return Err(StartError(format!("R2.1: button must be a seat index 0..{}, got {button}", n - 1)));
        }
        if config.per_seat && n > 4 {
            return Err(StartError(format!(
                "R4.4: replacements = 'per-seat' needs at most 4 players (7n + 4n cards), got {n}; use 'stock'"
            )));
        }
        let mut st = [0i64; MAX_SEATS];
        st[..n].copy_from_slice(stacks);
        let stacked = deck.is_some();
        let mut h = Hand {
            config,
            n,
            button,
            phase: Phase::Bet1,
            to_act: None,
            starting_stacks: st,
            stacks: st,
            bets: [0; MAX_SEATS],
            contrib: [0; MAX_SEATS],
            folded: [false; MAX_SEATS],
            all_in: [false; MAX_SEATS],
            cards: [[0; HOLE]; MAX_SEATS],
            hole_cards: [[0; HOLE]; MAX_SEATS],
            draws: [None; MAX_SEATS],
            events: Vec::with_capacity(24),
            log: Vec::with_capacity(16),
            rng,
            deck: Deck { order: deck.unwrap_or(FULL_DECK), fixed: if stacked { DECK } else { 0 } },
            pos: HOLE * n,
            stock: Vec::new(),
            muck: Vec::new(),
            unit: config.unit(),
            high: 0,
            inc: config.unit(),
            nbets: 0,
            acted: [false; MAX_SEATS],
            acted_high: [0; MAX_SEATS],
            n_live: n,
            n_able: n,
            r1_high: 0,
            aggressor: None,
            draw_order: [0; MAX_SEATS],
            draw_len: 0,
            draw_index: 0,
            uncalled: Vec::new(),
            result: None,
            bb_seat: button,
            raise_cap,
        };
        h.deal_and_post();
        Ok(h)
    }

    /// The generator the next `restart` deals from (reseed it first: `Mt::reseed_u64`, `Lanes::write`).
    pub fn rng_mut(&mut self) -> &mut Mt {
        &mut self.rng
    }

    /// `start` again on this hand's memory, with the same settings and its generator as reseeded by
    /// the caller (`rng_mut`): the next hand of a table without moving or allocating its state
    /// (the vectors keep their capacity). Stacks must be `start`'s checked ones for the same seats.
    pub fn restart(&mut self, stacks: &[i64], button: usize) -> Result<(), StartError> {
        let n = self.n;
        if stacks.len() != n || button >= n || stacks.iter().any(|c| !(1..=MAX_STACK).contains(c)) {
            return Err(StartError(format!("restart: {} stacks (each 1..{MAX_STACK}) and a button below {n}", n)));
        }
        let mut st = [0i64; MAX_SEATS];
        st[..n].copy_from_slice(stacks);
        let unit = self.config.unit();
        self.button = button;
        self.phase = Phase::Bet1;
        self.to_act = None;
        self.starting_stacks = st;
        self.stacks = st;
        self.bets = [0; MAX_SEATS];
        self.contrib = [0; MAX_SEATS];
        self.folded = [false; MAX_SEATS];
        self.all_in = [false; MAX_SEATS];
        self.cards = [[0; HOLE]; MAX_SEATS];
        self.hole_cards = [[0; HOLE]; MAX_SEATS];
        self.draws = [None; MAX_SEATS];
        self.events.clear();
        self.log.clear();
        self.deck = Deck { order: FULL_DECK, fixed: 0 };
        self.pos = HOLE * n;
        self.stock.clear();
        self.muck.clear();
        self.unit = unit;
        self.high = 0;
        self.inc = unit;
        self.nbets = 0;
        self.acted = [false; MAX_SEATS];
        self.acted_high = [0; MAX_SEATS];
        self.n_live = n;
        self.n_able = n;
        self.r1_high = 0;
        self.aggressor = None;
        self.draw_order = [0; MAX_SEATS];
        self.draw_len = 0;
        self.draw_index = 0;
        self.uncalled.clear();
        self.result = None;
        self.bb_seat = button;
        self.deal_and_post();
        Ok(())
    }

    /// R2: deal seven cards each, post, and open the first round (the end of `start`).
    fn deal_and_post(&mut self) {
        let (n, button) = (self.n, self.button);
        // R2.7: one card at a time clockwise from left of the button, so the k-th seat after the
        // button holds positions k, k+n, k+2n, ...
        self.deck.upto(&mut self.rng, HOLE * n);
        for s in 0..n {
            let k = (s + n - button - 1) % n;
            for i in 0..HOLE {
                self.cards[s][i] = self.deck.order[k + i * n];
            }
        }
        self.hole_cards = self.cards;
        let first_after = self.post_forced();
        self.inc = self.unit; // R3.6: a raise is at least the big blind (or min_bet)
        self.r1_high = 0;
        self.begin_round(first_after);
    }

    fn post_forced(&mut self) -> usize {
        let (n, button, cfg) = (self.n, self.button, self.config);
        if cfg.ante > 0 {
            for k in 0..n {
                self.post((button + 1 + k) % n, cfg.ante, ANTE, false);
            }
        }
        if cfg.blinds {
            let (sb, bb) = if n == 2 { (button, 1 - button) } else { ((button + 1) % n, (button + 2) % n) };
            self.post(sb, cfg.small_blind, SMALL_BLIND, true);
            self.post(bb, cfg.big_blind, BIG_BLIND, true);
            self.bb_seat = bb;
            // R3.2/R2.6: the amount to call is the full big blind even if posted short; the big
            // blind is the first bet for the cap.
            self.high = cfg.big_blind;
            self.nbets = 1;
            bb
        } else {
            self.bb_seat = button;
            self.high = 0;
            self.nbets = 0;
            button
        }
    }

    fn post(&mut self, s: usize, amount: i64, what: u8, live: bool) {
        let stack = self.stacks[s];
        if stack <= 0 {
            return;
        }
        let mut amount = amount;
        let all_in = amount >= stack;
        if all_in {
            amount = stack;
            self.all_in[s] = true;
            self.n_able -= 1;
        }
        self.events.push(Event { seat: s as u8, what, amount, all_in });
        self.stacks[s] = stack - amount;
        self.contrib[s] += amount;
        if live {
            self.bets[s] += amount;
        }
    }

    // --- reading ---------------------------------------------------------------

    pub fn is_complete(&self) -> bool {
        self.phase == Phase::Complete
    }

    /// All chips committed this hand, after R3.9 returns.
    pub fn pot(&self) -> i64 {
        self.contrib[..self.n].iter().sum()
    }

    pub fn result(&self) -> Option<&HandResult> {
        self.result.as_ref()
    }

    /// What the seat to act may do now (empty when the hand is complete).
    pub fn legal(&self) -> Legal {
        match self.phase {
            Phase::Draw => Legal { kinds: 1 << DRAW, max_discards: MAX_DISCARDS as u8, ..Legal::default() },
            Phase::Complete => Legal::default(),
            _ => self.betting_legal(self.to_act.unwrap_or(0)),
        }
    }

    fn may_raise(&self, s: usize) -> bool {
        if self.n_able < 2 {
            return false;
        }
        if self.config.fixed_limit && self.config.cap > 0 && self.nbets >= self.config.cap {
            return false;
        }
        if self.acted[s] {
            // only a full raise in total since it acted reopens (R3.8)
            let need = if self.config.fixed_limit { self.unit } else { self.inc };
            return self.high - self.acted_high[s] >= need;
        }
        true
    }

    fn to_call(&self, s: usize) -> i64 {
        let mut high = self.high;
        if self.n_able < 2 {
            let mut matched = 0;
            for o in 0..self.n {
                if o != s && !self.folded[o] && self.bets[o] > matched {
                    matched = self.bets[o];
                }
            }
            if matched < high {
                high = matched;
            }
        }
        high - self.bets[s]
    }

    fn reach(&self, s: usize) -> i64 {
        let mut reach = 0;
        for o in 0..self.n {
            if o != s && !self.folded[o] {
                reach = reach.max(self.bets[o] + self.stacks[o]);
            }
        }
        reach
    }

    fn betting_legal(&self, s: usize) -> Legal {
        let stack = self.stacks[s];
        let high = self.high;
        let bet = self.bets[s];
        let to_call = if self.n_able >= 2 { high - bet } else { self.to_call(s) };
        if stack > to_call && self.may_raise(s) {
            let mut top = bet + stack;
            if self.raise_cap {
                top = top.min(self.reach(s)); // R3.4, E14
            }
            if top > high {
                let fl = self.config.fixed_limit;
                let mut lo = high + if fl { self.unit } else { self.inc };
                let hi;
                if fl {
                    hi = lo.min(top);
                    lo = hi;
                } else {
                    hi = top;
                    lo = lo.min(hi); // R3.6: all-in for less, or up to the deepest reach (R3.4)
                }
                let kinds = if to_call > 0 {
                    K_FOLD_CALL_RAISE
                } else if high == 0 {
                    K_FOLD_CHECK_BET
                } else {
                    K_FOLD_CHECK_RAISE
                };
                let call_amount = if to_call > 0 { to_call } else { 0 };
                return Legal { kinds, call_amount, min_to: lo, max_to: hi, max_discards: 0 };
            }
        }
        if to_call > 0 {
            return Legal { kinds: K_FOLD_CALL, call_amount: to_call.min(stack), ..Legal::default() };
        }
        Legal { kinds: K_FOLD_CHECK, ..Legal::default() }
    }

    /// The referee's action for a faulting bot: check if free, else fold; stand pat in the draw.
    pub fn default_action(&self) -> Result<u8, Refusal> {
        match self.phase {
            Phase::Draw => Ok(DRAW),
            Phase::Complete => Err(Refusal::Illegal("R1.3: the hand is complete; nobody is to act".into())),
            _ => Ok(if self.to_call(self.to_act.unwrap_or(0)) <= 0 { CHECK } else { FOLD }),
        }
    }

    /// The bet or raise nearest to `(kind, to)` that the player may make (R3.10, E15):
    /// `HandState.capped`, as `(kind, amount)`.
    pub fn capped(&self, kind: u8, to: i64) -> (u8, i64) {
        if (kind != BET && kind != RAISE) || self.phase == Phase::Draw || self.phase == Phase::Complete {
            return (kind, to);
        }
        let lg = self.legal();
        if lg.has(kind) {
            return if to > lg.max_to { (kind, lg.max_to) } else { (kind, to) };
        }
        let s = self.to_act.unwrap_or(0);
        let high = self.high;
        if (kind == BET) != (high == 0) || lg.has(BET) || lg.has(RAISE) {
            return (kind, to);
        }
        let to_call = self.to_call(s);
        let bet = self.bets[s];
        if to < bet + self.stacks[s] && to <= bet + to_call.max(0) {
            return (kind, to);
        }
        let short = self.stacks[s] <= to_call;
        if !short && self.n_able >= 2 && (!self.may_raise(s) || self.reach(s) > high) {
            return (kind, to);
        }
        (if lg.has(CHECK) { CHECK } else { CALL }, 0)
    }

    // --- validation ----------------------------------------------------------------

    /// Validate an action of the seat to act; on success the amount (bet/raise) or 0.
    pub fn check(&self, kind: u8, to: i64, discards: &[i64]) -> Result<i64, Refusal> {
        let kname = KIND_NAMES[kind as usize];
        let s = match (self.phase, self.to_act) {
            (Phase::Complete, _) | (_, None) => {
                return Err(Refusal::Illegal(format!("R1.3: the hand is complete; no {kname} is possible")))
            }
            (_, Some(s)) => s,
        };
        if self.phase == Phase::Draw {
            if kind != DRAW {
                return Err(Refusal::Illegal(format!(
                    "R4.1: seat {s} must draw now (discard 0 to 4 cards), not {kname}"
                )));
            }
            return self.check_discards(s, discards).map(|()| 0);
        }
        let lg = self.legal();
        if lg.has(kind) {
            if kind == BET || kind == RAISE {
                if to < lg.min_to || to > lg.max_to {
                    return Err(Refusal::Illegal(self.why_amount(s, kind, to, &lg)));
                }
                return Ok(to);
            }
            return Ok(0);
        }
        Err(Refusal::Illegal(self.why_not(s, kind)))
    }

    fn check_discards(&self, s: usize, discards: &[i64]) -> Result<(), Refusal> {
        if discards.len() > MAX_DISCARDS {
            return Err(Refusal::Illegal(format!(
                "R4.1: seat {s} may discard at most {MAX_DISCARDS} cards, got {}",
                discards.len()
            )));
        }
        let hand = &self.cards[s];
        for &c in discards {
            if !(0..DECK as i64).contains(&c) || !hand.contains(&(c as u8)) {
                let shown = if (0..DECK as i64).contains(&c) { card_str(c as u8) } else { c.to_string() };
                return Err(Refusal::Invalid(format!("R4.1: seat {s} cannot discard {shown}: not in its hand")));
            }
        }
        for (i, c) in discards.iter().enumerate() {
            if discards[..i].contains(c) {
                let listed: Vec<String> = discards.iter().map(|d| d.to_string()).collect();
                let tuple = if listed.len() == 1 { format!("({},)", listed[0]) } else { format!("({})", listed.join(", ")) };
                return Err(Refusal::Invalid(format!("R4.1: seat {s} lists a discard twice: {tuple}")));
            }
        }
        Ok(())
    }

    fn why_amount(&self, s: usize, kind: u8, to: i64, lg: &Legal) -> String {
        let kname = KIND_NAMES[kind as usize];
        if self.config.fixed_limit {
            return format!("R3.7: in fixed-limit seat {s} may {kname} only to exactly {}, not {to}", lg.min_to);
        }
        if to > lg.max_to {
            if lg.max_to < self.bets[s] + self.stacks[s] {
                return format!(
                    "R3.4: seat {s} cannot {kname} to {to}: no opponent still in the hand can match more than {}",
                    lg.max_to
                );
            }
            return format!("R3.6: seat {s} cannot {kname} to {to}: its all-in total is {}", lg.max_to);
        }
        let rule = if self.phase == Phase::Bet1 || self.high != 0 { "R3.6" } else { "R3.6 (OPR-313 first bet after the draw)" };
        format!(
            "{rule}: {kname} to {to} is below the minimum {} (all-in for less is {})",
            lg.min_to,
            self.bets[s] + self.stacks[s]
        )
    }

    fn why_not(&self, s: usize, kind: u8) -> String {
        let kname = KIND_NAMES[kind as usize];
        let to_call = self.to_call(s);
        if kind == DRAW {
            return format!("R4.1: seat {s} cannot draw during the betting round {}", self.phase.name());
        }
        if kind == CHECK {
            return format!("R3.5: seat {s} cannot check: {to_call} to call");
        }
        if kind == CALL {
            return format!("R3.5: seat {s} cannot call: nothing to call (check instead)");
        }
        if kind == BET && self.high != 0 {
            return format!("R3.5: seat {s} cannot bet: a bet is pending, raise instead");
        }
        if kind == RAISE && self.high == 0 {
            return format!("R3.5: seat {s} cannot raise: no bet is pending, bet instead");
        }
        if self.stacks[s] <= to_call {
            return format!("R3.5: seat {s} cannot {kname}: its {} chips do not exceed the call", self.stacks[s]);
        }
        if self.n_able < 2 {
            return format!("R3.4: seat {s} cannot {kname}: no other player can still act");
        }
        let cap = self.config.cap;
        if self.config.fixed_limit && cap > 0 && self.nbets >= cap {
            return format!("R3.7: seat {s} cannot {kname}: the cap of {cap} bets is reached");
        }
        if self.may_raise(s) {
            return format!(
                "R3.4: seat {s} cannot {kname}: no opponent still in the hand can put in more than the {} to call (most is {})",
                self.high,
                self.reach(s)
            );
        }
        format!(
            "R3.8: seat {s} cannot {kname}: the betting was not reopened (only an incomplete all-in raise since it acted); call or fold"
        )
    }

    // --- acting ------------------------------------------------------------------------

    /// Apply one action of the seat to act, fully validated first (a refused action changes
    /// nothing). `to` is the bet/raise "to" total, `discards` the draw's cards.
    pub fn apply(&mut self, kind: u8, to: i64, discards: &[i64]) -> Result<(), Refusal> {
        if kind > DRAW {
            return Err(Refusal::Invalid(format!("unknown action kind code {kind}")));
        }
        let to = self.check(kind, to, discards)?;
        let s = self.to_act.unwrap_or(0);
        match kind {
            DRAW => self.do_draw(s, discards),
            CALL => self.do_call(s),
            CHECK => {
                self.acted[s] = true;
                self.acted_high[s] = self.high;
                self.events.push(Event { seat: s as u8, what: CHECK, amount: 0, all_in: false });
                let to = self.bets[s];
                self.log.push(LogEntry::Betting { seat: s as u8, kind: CHECK, amount: 0, owed: 0, added: 0, to, all_in: false });
                self.next(s);
            }
            FOLD => self.do_fold(s),
            _ => self.do_raise(s, kind, to),
        }
        Ok(())
    }

    fn do_call(&mut self, s: usize) {
        let owed = if self.n_able >= 2 { self.high - self.bets[s] } else { self.to_call(s) };
        let mut add = owed;
        let stack = self.stacks[s];
        let all_in = add >= stack;
        if all_in {
            add = stack;
            self.all_in[s] = true;
            self.n_able -= 1;
        }
        self.events.push(Event { seat: s as u8, what: CALL, amount: add, all_in });
        self.stacks[s] = stack - add;
        self.bets[s] += add;
        self.contrib[s] += add;
        self.acted[s] = true;
        self.acted_high[s] = self.high;
        let to = self.bets[s];
        self.log.push(LogEntry::Betting { seat: s as u8, kind: CALL, amount: add, owed, added: add, to, all_in });
        self.next(s);
    }

    fn do_raise(&mut self, s: usize, kind: u8, to: i64) {
        let owed = (self.high - self.bets[s]).max(0); // a raise is never asked of the only player able to act
        let add = to - self.bets[s];
        let stack = self.stacks[s] - add;
        self.stacks[s] = stack;
        self.bets[s] = to;
        self.contrib[s] += add;
        let size = to - self.high;
        let full = if self.config.fixed_limit {
            // R3.8: in fixed-limit an all-in of at least half a bet is a full raise
            let full = size >= self.unit || (stack == 0 && 2 * size >= self.unit);
            if full {
                self.nbets += 1;
            }
            full
        } else {
            let full = size >= self.inc;
            if full {
                self.inc = size;
            }
            full
        };
        if full {
            self.acted = [false; MAX_SEATS]; // a full bet/raise reopens the betting (R3.4)
        }
        self.high = to;
        self.acted[s] = true;
        self.acted_high[s] = to;
        if stack == 0 {
            self.all_in[s] = true;
            self.n_able -= 1;
        }
        self.events.push(Event { seat: s as u8, what: kind, amount: to, all_in: stack == 0 });
        if self.phase == Phase::Bet2 {
            self.aggressor = Some(s);
        }
        self.log.push(LogEntry::Betting { seat: s as u8, kind, amount: to, owed, added: add, to, all_in: stack == 0 });
        self.next(s);
    }

    fn do_fold(&mut self, s: usize) {
        let (owed, to) = (self.to_call(s).max(0), self.bets[s]);
        self.log.push(LogEntry::Betting { seat: s as u8, kind: FOLD, amount: 0, owed, added: 0, to, all_in: false });
        self.folded[s] = true;
        self.n_live -= 1;
        self.n_able -= 1;
        let cards = self.cards[s];
        self.muck.extend_from_slice(&cards); // R4.4: folded hands join the muck
        self.events.push(Event { seat: s as u8, what: FOLD, amount: 0, all_in: false });
        if self.n_live == 1 {
            self.end_round();
            self.finish_uncontested();
        } else {
            self.next(s);
        }
    }

    // --- betting flow ----------------------------------------------------------------

    fn next(&mut self, s: usize) {
        let n = self.n;
        let mut s = s;
        for _ in 0..n - 1 {
            s = (s + 1) % n;
            if self.folded[s] || self.all_in[s] {
                continue;
            }
            if !self.acted[s] || self.bets[s] < self.high {
                // R3.4: the only player able to act, with nothing it could be matched on, has no decision.
                if self.n_able >= 2 || self.to_call(s) > 0 {
                    self.to_act = Some(s);
                    return;
                }
                break;
            }
        }
        self.close_round();
    }

    fn close_round(&mut self) {
        self.end_round();
        if self.phase == Phase::Bet1 {
            self.begin_draw();
        } else {
            self.showdown();
        }
    }

    fn begin_round(&mut self, after: usize) {
        let n = self.n;
        let mut first = None;
        let mut s = after;
        for _ in 0..n {
            s = (s + 1) % n;
            if !(self.folded[s] || self.all_in[s]) {
                first = Some(s);
                break;
            }
        }
        match first {
            // R3.4: with at most one player able to act and nothing to call, no betting this round.
            Some(f) if !(self.n_able < 2 && self.to_call(f) <= 0) => self.to_act = Some(f),
            _ => self.close_round(),
        }
    }

    fn end_round(&mut self) {
        let n = self.n;
        let bets = &self.bets[..n];
        let top = *bets.iter().max().unwrap_or(&0);
        if top > 0 {
            let mut sorted = [0i64; MAX_SEATS];
            sorted[..n].copy_from_slice(bets);
            sorted[..n].sort_unstable();
            let second = sorted[n - 2];
            if top > second {
                let owner = bets.iter().position(|&b| b == top).unwrap_or(0);
                let back = top - second;
                self.stacks[owner] += back;
                self.contrib[owner] -= back;
                self.uncalled.push((owner as u8, back));
                if self.all_in[owner] {
                    self.all_in[owner] = false;
                    if !self.folded[owner] {
                        self.n_able += 1;
                    }
                }
            }
        }
        if self.phase == Phase::Bet1 {
            // R3.6: round 2's first bet is at least twice round 1's final bet
            self.r1_high = self.high.max(top).max(self.unit);
        }
        self.bets = [0; MAX_SEATS];
    }

    // --- the draw ----------------------------------------------------------------------

    fn begin_draw(&mut self) {
        let n = self.n;
        let start = self.bb_seat; // the button in an ante-only game (R2.5)
        self.draw_len = 0;
        for k in 0..n {
            let s = (start + 1 + k) % n;
            if !self.folded[s] {
                self.draw_order[self.draw_len] = s as u8;
                self.draw_len += 1;
            }
        }
        self.draw_index = 0;
        self.phase = Phase::Draw;
        self.to_act = Some(self.draw_order[0] as usize);
    }

    fn do_draw(&mut self, s: usize, discards: &[i64]) {
        let k = discards.len();
        let mut new = [0u8; MAX_DISCARDS];
        let mut reshuffled = 0;
        if k > 0 {
            if self.config.per_seat {
                let start = HOLE * self.n + MAX_DISCARDS * ((s + self.n - self.button - 1) % self.n);
                self.deck.upto(&mut self.rng, start + k);
                new[..k].copy_from_slice(&self.deck.order[start..start + k]);
            } else {
                // R4.4: what the first stock could not give came from a reshuffled muck (the last cards)
                reshuffled = k.saturating_sub(DECK - self.pos) as u8;
                self.take_stock(&mut new[..k]);
            }
            let mut hand = [0u8; HOLE];
            let mut i = 0;
            for &c in &self.cards[s] {
                if !discards.contains(&(c as i64)) {
                    hand[i] = c;
                    i += 1;
                }
            }
            hand[i..].copy_from_slice(&new[..k]);
            self.cards[s] = hand;
            // after serving: never the player's own (R4.4)
            self.muck.extend(discards.iter().map(|&c| c as u8));
        }
        self.draws[s] = Some(k as u8);
        self.events.push(Event { seat: s as u8, what: DRAW, amount: k as i64, all_in: false });
        let mut thrown = [0u8; MAX_DISCARDS];
        for (t, &c) in thrown.iter_mut().zip(discards) {
            *t = c as u8;
        }
        self.log.push(LogEntry::Draw { seat: s as u8, count: k as u8, discards: thrown, received: new, reshuffled });
        self.draw_index += 1;
        if self.draw_index < self.draw_len {
            self.to_act = Some(self.draw_order[self.draw_index] as usize);
        } else {
            self.begin_bet2();
        }
    }

    /// The next cards of the stock, reshuffling the muck when it runs out (R4.4, E9).
    fn take_stock(&mut self, out: &mut [u8]) {
        let k = out.len();
        let left = DECK - self.pos;
        if k <= left {
            self.deck.upto(&mut self.rng, self.pos + k);
            out.copy_from_slice(&self.deck.order[self.pos..self.pos + k]);
            self.pos += k;
            return;
        }
        let mut got = 0;
        if left > 0 {
            self.deck.upto(&mut self.rng, DECK);
            out[..left].copy_from_slice(&self.deck.order[self.pos..]);
            got = left;
        }
        self.pos = DECK;
        while got < k {
            if self.stock.is_empty() {
                // never empty with at most 6 players (R1.2): the muck holds the folded hands and discards
                self.stock = std::mem::take(&mut self.muck);
                self.rng.shuffle(&mut self.stock);
            }
            let take = (k - got).min(self.stock.len());
            if take == 0 {
                break;
            }
            out[got..got + take].copy_from_slice(&self.stock[..take]);
            self.stock.drain(..take);
            got += take;
        }
    }

    fn begin_bet2(&mut self) {
        self.phase = Phase::Bet2;
        self.high = 0;
        if self.config.fixed_limit {
            self.unit *= 2; // R3.7: the big bet
            self.inc = self.unit;
        } else {
            self.inc = 2 * self.r1_high; // R3.6, E1
        }
        self.nbets = 0;
        self.acted = [false; MAX_SEATS];
        self.acted_high = [0; MAX_SEATS];
        self.begin_round(self.button); // R3.3: first player left of the button
    }

    // --- the end -------------------------------------------------------------------------

    /// Give back a forced bet nobody could match (R3.9, E13) before pots are formed.
    fn return_unmatched(&mut self) {
        let n = self.n;
        let contrib = &self.contrib[..n];
        let top = *contrib.iter().max().unwrap_or(&0);
        let owner = contrib.iter().position(|&c| c == top).unwrap_or(0);
        let second = (0..n).filter(|&o| o != owner).map(|o| contrib[o]).max().unwrap_or(0).max(0);
        if top > second {
            let back = top - second;
            self.contrib[owner] = second;
            self.stacks[owner] += back;
            self.uncalled.push((owner as u8, back));
        }
    }

    fn finish_uncontested(&mut self) {
        let winner = (0..self.n).find(|&s| !self.folded[s]).unwrap_or(0);
        self.return_unmatched();
        let amount = self.pot();
        self.stacks[winner] += amount;
        let w = winner as u8;
        let pot = Pot { amount, eligible: vec![w], winners: vec![w], shares: vec![amount] };
        self.complete(vec![pot], Vec::new());
    }

    fn showdown(&mut self) {
        let n = self.n;
        let mut values = [0u32; MAX_SEATS];
        let mut fives = [[0u8; 5]; MAX_SEATS];
        for s in 0..n {
            if !self.folded[s] {
                let (v, f) = eval::best_hand(&self.cards[s]);
                values[s] = v;
                fives[s] = f;
            }
        }
        self.return_unmatched();
        let contrib = self.contrib;
        let live: Vec<bool> = (0..n).map(|s| !self.folded[s]).collect();
        let live_seats: Vec<u8> = (0..n).filter(|&s| live[s]).map(|s| s as u8).collect();
        let top = *contrib[..n].iter().max().unwrap_or(&0);
        let one_level = live_seats.iter().all(|&s| contrib[s as usize] == top);
        let layers = if one_level {
            vec![(self.pot(), live_seats.clone())] // the common case: one pot, every live player eligible (R5.5)
        } else {
            build_pots(&contrib[..n], &live)
        };
        let mut pots = Vec::with_capacity(layers.len());
        for (amount, eligible) in layers {
            let best = eligible.iter().map(|&s| values[s as usize]).max().unwrap_or(0);
            let tied: Vec<u8> = eligible.iter().copied().filter(|&s| values[s as usize] == best).collect();
            let (winners, shares) = if tied.len() == 1 {
                (tied, vec![amount])
            } else {
                split_pot(amount, &tied, self.button, n)
            };
            for (&w, &chips) in winners.iter().zip(&shares) {
                self.stacks[w as usize] += chips;
            }
            pots.push(Pot { amount, eligible, winners, shares });
        }
        // R5.7: the last bettor/raiser of round 2 shows first, else the first player left of the
        // button; then clockwise.
        let first = self.aggressor.unwrap_or_else(|| {
            (0..n).map(|k| (self.button + 1 + k) % n).find(|&s| live[s]).unwrap_or(0)
        });
        let shown = (0..n)
            .map(|k| (first + k) % n)
            .filter(|&s| live[s])
            .map(|s| (s as u8, values[s], fives[s]))
            .collect();
        self.complete(pots, shown);
    }

    fn complete(&mut self, pots: Vec<Pot>, shown: Vec<(u8, u32, [u8; 5])>) {
        self.phase = Phase::Complete;
        self.to_act = None;
        let n = self.n;
        self.result = Some(HandResult {
            net: (0..n).map(|s| self.stacks[s] - self.starting_stacks[s]).collect(),
            pots,
            shown,
            uncalled: std::mem::take(&mut self.uncalled),
            final_stacks: self.stacks[..n].to_vec(),
        });
    }
}

const FULL_DECK: [u8; DECK] = {
    let mut d = [0u8; DECK];
    let mut i = 0;
    while i < DECK {
        d[i] = i as u8;
        i += 1;
    }
    d
};

/// The card's two-character text (R1.1), e.g. "As" for 51.
pub fn card_str(c: u8) -> String {
    let ranks = b"23456789TJQKA";
    let suits = b"cdhs";
    format!("{}{}", ranks[(c >> 2) as usize] as char, suits[(c & 3) as usize] as char)
}

/// A main pot and side pots from the chips put in (R5.5): `harness.engine.pots.build_pots`.
pub fn build_pots(contrib: &[i64], live: &[bool]) -> Vec<(i64, Vec<u8>)> {
    let mut levels: Vec<i64> = contrib.iter().zip(live).filter(|(_, &ok)| ok).map(|(&c, _)| c).collect();
    levels.sort_unstable();
    levels.dedup();
    let max = *contrib.iter().max().unwrap_or(&0);
    let mut pots = Vec::new();
    let mut prev = 0;
    for (i, &level) in levels.iter().enumerate() {
        let top = if i + 1 < levels.len() { level } else { max };
        let amount: i64 = contrib.iter().map(|&c| c.min(top) - c.min(prev)).sum();
        let eligible: Vec<u8> =
            (0..contrib.len()).filter(|&s| live[s] && contrib[s] >= level).map(|s| s as u8).collect();
        if amount != 0 {
            pots.push((amount, eligible));
        }
        prev = top;
    }
    pots
}

/// A pot divided among tied winners, odd chips from the first seat left of the button (R5.6).
pub fn split_pot(amount: i64, winners: &[u8], button: usize, n: usize) -> (Vec<u8>, Vec<i64>) {
    let mut order = winners.to_vec();
    order.sort_by_key(|&s| (s as usize + n - button - 1) % n);
    let k = order.len() as i64;
    let (share, odd) = (amount / k, amount % k);
    let shares = (0..k).map(|i| share + if i < odd { 1 } else { 0 }).collect();
    (order, shares)
}
