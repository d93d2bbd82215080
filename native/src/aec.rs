//! One table of the PettingZoo AEC environment (`harness.rl.aec`) in the native core: the hand, the
//! decision of its seat to act (`encoding.decision`) and the observation and mask of any seat
//! (`encoding.observe_into`, `encoding.MASKS`) written straight into new NumPy arrays, so a step of
//! the environment costs Python one call to `act` and one to `observe`. The same rules, deals and
//! encodings as `tables` (the many-tables step); the AEC's bookkeeping stays in Python.

use numpy::PyArray1;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::hand::{Hand, MAX_SEATS, MAX_STACK};
use crate::mt::Mt;
use crate::tables::{action_of, decide, observe, refusal, write_mask, Decision, Layout, N_ACTIONS};
use crate::{make_config, refused, NativeHand};

/// One AEC table: its settings and the hand being played (`deal` starts each hand).
///
/// `NativeAec(players, starting_stack, *, <GameConfig's fields>)`; `deal(seed, button)` deals the hand
/// `HandState.start(config, [starting_stack] * players, button, seed)` deals (the seed a hand seed of
/// `harness.deals`, 0..2**64-1); `act(index)` applies an action index of `harness.rl.encoding`;
/// `observe(seat)` gives that seat's `(observation, action_mask)` arrays.
#[pyclass(module = "harness_core")]
#[derive(Clone)]
pub struct NativeAec {
    hand: Option<Hand>,
    config: crate::hand::Config,
    stacks: [i64; MAX_SEATS],
    n: usize,
    lay: Layout,
    unit: f64,
    decision: Decision,
    actions: Vec<u8>,
}

impl NativeAec {
    fn playing(&self) -> PyResult<&Hand> {
        self.hand.as_ref().ok_or_else(|| pyo3::exceptions::PyRuntimeError::new_err("no hand yet: call deal() first"))
    }

    /// The seat to act, or -1 once the hand is complete.
    fn next(&self, h: &Hand) -> i64 {
        match h.to_act {
            Some(s) if !h.is_complete() => s as i64,
            _ => -1,
        }
    }
}

#[pymethods]
impl NativeAec {
    #[new]
    #[pyo3(signature = (players, starting_stack, *, structure="no-limit", small_blind=5, big_blind=10, ante=0,
                        blinds=true, min_bet=None, cap=4, replacements="stock"))]
    #[allow(clippy::too_many_arguments)]
    fn new(
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
    ) -> PyResult<Self> {
        let config = make_config(structure, small_blind, big_blind, ante, blinds, min_bet, cap, replacements)?;
        if !(2..=MAX_SEATS).contains(&players) {
            return Err(PyValueError::new_err(format!("R1.2: a table seats 2 to 6 players, got {players}")));
        }
        if !(1..=MAX_STACK).contains(&starting_stack) {
            return Err(PyValueError::new_err(format!("starting_stack must be 1..{MAX_STACK} chips, got {starting_stack}")));
        }
        Ok(NativeAec {
            hand: None,
            config,
            stacks: [starting_stack; MAX_SEATS],
            n: players,
            lay: Layout::new(players),
            unit: config.unit() as f64,
            decision: Decision::default(),
            actions: Vec::with_capacity(32),
        })
    }

    /// Deal a new hand from `seed` with the button at `button`; returns the seat to act, or -1 when
    /// the hand is over before anyone acts (every stack all-in on its forced bets).
    ///
    /// Raises:
    ///     ValueError: a button that is not a seat.
    fn deal(&mut self, seed: u64, button: usize) -> PyResult<i64> {
        let stacks = &self.stacks[..self.n];
        match self.hand.as_mut() {
            Some(h) => {
                // the same memory for the next hand (`Hand::restart`), as the many-tables step does
                h.rng_mut().reseed_u64(seed);
                h.restart(stacks, button).map_err(|e| PyValueError::new_err(e.0))?;
            }
            None => {
                let h = Hand::start(self.config, stacks, button, Mt::from_u64(seed), None, true)
                    .map_err(|e| PyValueError::new_err(e.0))?;
                self.hand = Some(h);
            }
        }
        self.actions.clear();
        let h = self.hand.as_ref().expect("dealt above");
        self.decision = decide(h);
        Ok(self.next(h))
    }

    /// Apply action `index` (`harness.rl.encoding`) for the seat to act; returns the next seat to act,
    /// or -1 once the hand is complete. A refused index changes nothing.
    ///
    /// Raises:
    ///     ValueError: "action i is not legal now (phase p)" or "... the hand is complete", as
    ///         `encoding.action_of` words it. RuntimeError: before the first `deal`.
    fn act(&mut self, index: i64) -> PyResult<i64> {
        let h = self.playing()?;
        let c = action_of(h, &self.decision, index).ok_or_else(|| PyValueError::new_err(refusal(index, h)))?;
        let h = self.hand.as_mut().expect("checked by playing()");
        h.apply(c.kind, c.to, &c.discards[..c.count]).map_err(refused)?;
        self.actions.push(index as u8); // an index below N_ACTIONS (action_of checked it)
        self.decision = decide(h);
        let h = self.hand.as_ref().expect("checked by playing()");
        Ok(self.next(h))
    }

    /// `(observation, action_mask)` of `seat`: new float32 (obs_size,) and int8 (106,) arrays, the mask
    /// all 0 unless `seat` is to act.
    ///
    /// Raises:
    ///     ValueError: not a seat. RuntimeError: before the first `deal`.
    #[allow(clippy::type_complexity)]
    fn observe<'py>(&self, py: Python<'py>, seat: usize) -> PyResult<(Bound<'py, PyArray1<f32>>, Bound<'py, PyArray1<i8>>)> {
        let h = self.playing()?;
        if seat >= self.n {
            return Err(PyValueError::new_err(format!("seat must be 0..{}, got {seat}", self.n - 1)));
        }
        let mut v = vec![0f32; self.lay.size];
        observe(&mut v, &self.lay, self.unit, h, seat);
        let mut m = vec![0i8; N_ACTIONS];
        if h.to_act == Some(seat) && !h.is_complete() {
            write_mask(&mut m, self.decision.key);
        }
        Ok((PyArray1::from_vec(py, v), PyArray1::from_vec(py, m)))
    }

    /// Every seat's net result in big blinds (the game's unit) once the hand is complete, else None.
    fn rewards(&self) -> PyResult<Option<Vec<f64>>> {
        let h = self.playing()?;
        Ok(h.result().map(|r| r.net.iter().map(|&x| x as f64 / self.unit).collect()))
    }

    /// The action indices applied in this hand, in order (to replay it on another engine).
    fn actions(&self) -> Vec<u16> {
        self.actions.iter().map(|&a| a as u16).collect()
    }

    /// "bet1", "draw", "bet2" or "complete".
    #[getter]
    fn phase(&self) -> PyResult<&'static str> {
        Ok(self.playing()?.phase.name())
    }

    /// A copy of the hand as a `NativeHand` (for tests and debugging).
    fn hand(&self) -> PyResult<NativeHand> {
        Ok(NativeHand { h: self.playing()?.clone() })
    }

    /// An independent copy (the environment's `clone()`).
    fn copy(&self) -> NativeAec {
        self.clone()
    }
}
