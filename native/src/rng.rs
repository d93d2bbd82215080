//! The random-action chooser's numbers (never the deal's, which are `mt`'s): xorshift64*, one home
//! for `bench` (random legal hands) and `tables` (a random legal index per table).
//! Source: Vigna, "An experimental exploration of Marsaglia's xorshift generators, scrambled" (2016).

/// xorshift64*: fast, seedable, good enough to pick among a few legal actions.
#[derive(Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator from any seed (0 included: the state is made odd, never all zero).
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }

    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number in `0..n` (n >= 1; the modulo's bias is negligible for the small n used here).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}
