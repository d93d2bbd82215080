//! Hand evaluation: the best five of 5..7 cards (RULES.md R5.1-R5.4), with the values and the five
//! of `harness.engine.evaluator`:
//! `value = category << 20 | r1 << 16 | r2 << 12 | r3 << 8 | r4 << 4 | r5`, r1..r5 the ranks (0..12
//! for 2..A) of the five that play, most significant first; the wheel lists its ace last (R5.4).
//! Cards are `rank * 4 + suit`.

pub const HIGH_CARD: u32 = 0;
pub const ONE_PAIR: u32 = 1;
pub const TWO_PAIR: u32 = 2;
pub const THREE_OF_A_KIND: u32 = 3;
pub const STRAIGHT: u32 = 4;
pub const FLUSH: u32 = 5;
pub const FULL_HOUSE: u32 = 6;
pub const FOUR_OF_A_KIND: u32 = 7;
pub const STRAIGHT_FLUSH: u32 = 8;

const WHEEL: u16 = 0b1_0000_0000_1111; // A 5 4 3 2

/// Top rank of the best straight in a 13-bit rank mask (3 for the wheel), if any (R5.4).
fn straight_top(mask: u16) -> Option<u8> {
    for top in (4..=12u8).rev() {
        let run = 0b11111u16 << (top - 4);
        if mask & run == run {
            return Some(top);
        }
    }
    if mask & WHEEL == WHEEL {
        Some(3)
    } else {
        None
    }
}

fn straight_ranks(top: u8) -> [u8; 5] {
    if top == 3 {
        [3, 2, 1, 0, 12]
    } else {
        [top, top - 1, top - 2, top - 3, top - 4]
    }
}

fn pack(category: u32, r: [u8; 5]) -> u32 {
    category << 20
        | (r[0] as u32) << 16
        | (r[1] as u32) << 12
        | (r[2] as u32) << 8
        | (r[3] as u32) << 4
        | r[4] as u32
}

/// Why cards cannot be evaluated: fewer than 5 or more than 7, a duplicate, or not a card.
pub fn check(cards: &[i64]) -> Result<(), ()> {
    if !(5..=7).contains(&cards.len()) {
        return Err(());
    }
    let mut seen = 0u64;
    for &c in cards {
        if !(0..52).contains(&c) || seen >> c & 1 == 1 {
            return Err(());
        }
        seen |= 1 << c;
    }
    Ok(())
}

/// The value and the five ranks that play, of 5..7 distinct cards (checked by the caller).
fn rank_five(cards: &[u8]) -> (u32, [u8; 5], Option<u8>) {
    let mut counts = [0u8; 13];
    let mut suit_count = [0u8; 4];
    let mut suit_mask = [0u16; 4];
    for &c in cards {
        counts[(c >> 2) as usize] += 1;
        suit_count[(c & 3) as usize] += 1;
        suit_mask[(c & 3) as usize] |= 1 << (c >> 2);
    }
    // At most one suit holds five of seven cards, and then no full house or quads is possible.
    for suit in 0..4u8 {
        if suit_count[suit as usize] >= 5 {
            let mask = suit_mask[suit as usize];
            if let Some(top) = straight_top(mask) {
                let five = straight_ranks(top);
                return (pack(STRAIGHT_FLUSH, five), five, Some(suit));
            }
            let mut five = [0u8; 5];
            let mut k = 0;
            for r in (0..13u8).rev() {
                if mask >> r & 1 == 1 && k < 5 {
                    five[k] = r;
                    k += 1;
                }
            }
            return (pack(FLUSH, five), five, Some(suit));
        }
    }
    // Groups by (count, rank), highest first: quads, trips or pairs before kickers (R5.3).
    let mut groups: [(u8, u8); 7] = [(0, 0); 7];
    let mut g = 0;
    for c in (1..=4u8).rev() {
        for r in (0..13u8).rev() {
            if counts[r as usize] == c {
                groups[g] = (c, r);
                g += 1;
            }
        }
    }
    let groups = &groups[..g];
    let (c1, r1) = groups[0];
    let (c2, r2) = groups[1];
    let rest_max = |from: usize, min_count: u8| {
        groups[from..].iter().filter(|&&(c, _)| c >= min_count).map(|&(_, r)| r).max().unwrap_or(0)
    };
    let (category, five) = if c1 == 4 {
        (FOUR_OF_A_KIND, [r1, r1, r1, r1, rest_max(1, 1)])
    } else if c1 == 3 && c2 >= 2 {
        // the best pair may come from a second three of a kind
        let p = rest_max(1, 2);
        (FULL_HOUSE, [r1, r1, r1, p, p])
    } else {
        let mut mask = 0u16;
        for &(_, r) in groups {
            mask |= 1 << r;
        }
        if let Some(top) = straight_top(mask) {
            (STRAIGHT, straight_ranks(top))
        } else if c1 == 3 {
            (THREE_OF_A_KIND, [r1, r1, r1, groups[1].1, groups[2].1])
        } else if c2 == 2 {
            // two pair: the best kicker of all the rest, a third pair's included
            (TWO_PAIR, [r1, r1, r2, r2, rest_max(2, 1)])
        } else if c1 == 2 {
            (ONE_PAIR, [r1, r1, groups[1].1, groups[2].1, groups[3].1])
        } else {
            (HIGH_CARD, [groups[0].1, groups[1].1, groups[2].1, groups[3].1, groups[4].1])
        }
    };
    (pack(category, five), five, None)
}

/// The strength of the best five of 5..7 distinct cards (checked by the caller); higher is better.
pub fn evaluate(cards: &[u8]) -> u32 {
    rank_five(cards).0
}

/// The value and the five cards that play, most significant first (for equal ranks the higher suit
/// first), as `harness.engine.evaluator.best_hand`.
pub fn best_hand(cards: &[u8]) -> (u32, [u8; 5]) {
    let (value, ranks, suit) = rank_five(cards);
    let mut sorted: Vec<u8> = match suit {
        Some(s) => cards.iter().copied().filter(|c| c & 3 == s).collect(),
        None => cards.to_vec(),
    };
    sorted.sort_unstable_by(|a, b| b.cmp(a));
    let mut used = [false; 7];
    let mut five = [0u8; 5];
    for (i, &r) in ranks.iter().enumerate() {
        // the next unused card of this rank, highest suit first
        for (k, &c) in sorted.iter().enumerate() {
            if !used[k] && c >> 2 == r {
                used[k] = true;
                five[i] = c;
                break;
            }
        }
    }
    (value, five)
}
