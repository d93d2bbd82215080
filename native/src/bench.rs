//! Random legal hands and evaluations in Rust alone: the native figures of `harness bench engine`.

use crate::eval;
use crate::hand::{Config, Hand, BET, DRAW, HOLE, RAISE};
use crate::mt::Mt;
use crate::rng::Rng;

/// Play `hands` hands of uniformly random legal actions (kinds uniform, amounts uniform in
/// min..max, draws of 0..4 consecutive cards); returns the number of actions.
pub fn play_random_hands(config: Config, players: usize, hands: u64, seed: u64) -> Result<u64, String> {
    let mut rng = Rng::new(seed);
    let stacks = vec![1000i64; players];
    let mut actions = 0u64;
    let mut discards: Vec<i64> = Vec::with_capacity(4);
    for h in 0..hands {
        let deal = Mt::from_seed(seed as i128 * 1_000_003 + h as i128);
        let mut hand = Hand::start(config, &stacks, (h % players as u64) as usize, deal, None, true).map_err(|e| e.0)?;
        while let Some(s) = hand.to_act {
            let lg = hand.legal();
            let kinds: Vec<u8> = (0..6u8).filter(|&k| lg.has(k)).collect();
            let kind = kinds[rng.below(kinds.len() as u64) as usize];
            let mut to = 0;
            discards.clear();
            if kind == DRAW {
                let first = rng.below(4) as usize;
                let count = rng.below(5) as usize;
                let end = (first + count).min(HOLE);
                discards.extend(hand.cards[s][first..end].iter().map(|&c| c as i64));
            } else if kind == BET || kind == RAISE {
                to = lg.min_to + rng.below((lg.max_to - lg.min_to + 1) as u64) as i64;
            }
            hand.apply(kind, to, &discards).map_err(|e| format!("{e:?}"))?;
            actions += 1;
        }
        if hand.result().is_none() {
            return Err("a hand ended without a result".into());
        }
    }
    Ok(actions)
}

/// `count` seven-card evaluations of random hands; returns the sum of the values (kept live).
pub fn evaluate_random(count: u64, seed: u64) -> u64 {
    let mut rng = Rng::new(seed);
    let mut sum = 0u64;
    let mut cards = [0u8; 7];
    for _ in 0..count {
        let mut used = 0u64;
        for c in cards.iter_mut() {
            loop {
                let x = rng.below(52) as u8;
                if used >> x & 1 == 0 {
                    used |= 1 << x;
                    *c = x;
                    break;
                }
            }
        }
        let (v, five) = eval::best_hand(&cards);
        sum = sum.wrapping_add(v as u64 + five[0] as u64);
    }
    sum
}
