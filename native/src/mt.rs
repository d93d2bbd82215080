//! CPython's `random.Random` as far as the deal needs it: MT19937 seeded from an int
//! (`init_by_array` over the int's 32-bit words, least significant first), `getrandbits(k)` for
//! k <= 32, `_randbelow` (rejection sampling on getrandbits) and `shuffle`. The same seed gives the
//! same numbers as Python's generator, so a hand deals the same cards in both engines (R2.7, R4.4).
//! Source: Matsumoto and Nishimura (1998); CPython Modules/_randommodule.c and Lib/random.py (3.11).

const N: usize = 624;
const M: usize = 397;
const MATRIX_A: u32 = 0x9908_b0df;
const UPPER: u32 = 0x8000_0000;
const LOWER: u32 = 0x7fff_ffff;

/// Words the state is twisted by at a time: a hand uses a few dozen numbers of the 624 of a generation.
const TWIST_CHUNK: usize = 32;

/// Most generators seeded side by side (`Lanes`; fewer when fewer are needed).
pub const LANES: usize = 8;

/// The Mersenne Twister state, as CPython keeps it; the twist of each generation is done lazily, in
/// order, `TWIST_CHUNK` words at a time (the same words as twisting all 624 at once).
#[derive(Clone)]
pub struct Mt {
    state: [u32; N],
    index: usize,
    twisted: usize,
}

/// `init_genrand(19650218)`, where every int seed starts: computed once, at compile time.
static INIT_19650218: [u32; N] = init_genrand(19_650_218);

const fn init_genrand(s: u32) -> [u32; N] {
    let mut state = [0u32; N];
    state[0] = s;
    let mut i = 1;
    while i < N {
        let prev = state[i - 1];
        state[i] = 1_812_433_253u32.wrapping_mul(prev ^ (prev >> 30)).wrapping_add(i as u32);
        i += 1;
    }
    state
}

impl Mt {

    /// `random.Random(seed)` for an int seed given as the 32-bit words of `abs(seed)`, least
    /// significant first (`[0]` for 0).
    pub fn from_key(key: &[u32]) -> Mt {
        let mut mt = Mt { state: INIT_19650218, index: N, twisted: N };
        mt.reseed_key(key);
        mt
    }

    /// `from_key` in place (no 2.5 KB state moved).
    pub fn reseed_key(&mut self, key: &[u32]) {
        let zero = [0u32];
        let key = if key.is_empty() { &zero[..] } else { key };
        self.state = INIT_19650218;
        self.index = N;
        self.twisted = N;
        let st = &mut self.state;
        // `prev` is st[i - 1], kept in a register: each step depends on the one before.
        let (mut i, mut j) = (1usize, 0usize);
        let mut prev = st[0];
        for _ in 0..N.max(key.len()) {
            let v = (st[i] ^ (prev ^ (prev >> 30)).wrapping_mul(1_664_525))
                .wrapping_add(key[j])
                .wrapping_add(j as u32);
            st[i] = v;
            prev = v;
            i += 1;
            j += 1;
            if i >= N {
                st[0] = v; // st[N - 1]
                i = 1;
            }
            if j >= key.len() {
                j = 0;
            }
        }
        for _ in 0..N - 1 {
            let v = (st[i] ^ (prev ^ (prev >> 30)).wrapping_mul(1_566_083_941)).wrapping_sub(i as u32);
            st[i] = v;
            prev = v;
            i += 1;
            if i >= N {
                st[0] = v;
                i = 1;
            }
        }
        st[0] = 0x8000_0000;
    }

    /// `random.Random(seed)` for a seed that fits 64 bits (its absolute value's words).
    pub fn from_seed(seed: i128) -> Mt {
        let mut a = seed.unsigned_abs();
        let mut key = Vec::with_capacity(4);
        while a > 0 {
            key.push(a as u32);
            a >>= 32;
        }
        Mt::from_key(&key)
    }

    /// `random.Random(seed)` for a seed of 64 bits (a hand seed), without allocating.
    pub fn from_u64(seed: u64) -> Mt {
        let mut mt = Mt { state: INIT_19650218, index: N, twisted: N };
        mt.reseed_u64(seed);
        mt
    }

    /// `from_u64` in place.
    pub fn reseed_u64(&mut self, seed: u64) {
        let (lo, hi) = (seed as u32, (seed >> 32) as u32);
        if hi != 0 {
            self.reseed_key(&[lo, hi])
        } else {
            self.reseed_key(&[lo])
        }
    }


    /// Twist words `twisted..end` of the next generation (CPython's `genrand_uint32` refill, in order).
    fn twist(&mut self, end: usize) {
        let st = &mut self.state;
        let mag = |y: u32| if y & 1 == 1 { MATRIX_A } else { 0 };
        for kk in self.twisted..end {
            let next = if kk + 1 < N { st[kk + 1] } else { st[0] };
            let y = (st[kk] & UPPER) | (next & LOWER);
            let far = if kk < N - M { st[kk + M] } else { st[kk + M - N] };
            st[kk] = far ^ (y >> 1) ^ mag(y);
        }
        self.twisted = end;
    }

    /// The next 32 random bits (`genrand_uint32`).
    pub fn next_u32(&mut self) -> u32 {
        if self.index >= self.twisted {
            if self.index >= N {
                self.index = 0;
                self.twisted = 0;
            }
            self.twist((self.twisted + TWIST_CHUNK).min(N));
        }
        let mut y = self.state[self.index];
        self.index += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^ (y >> 18)
    }

    /// `getrandbits(k)` for 1 <= k <= 32.
    pub fn getrandbits(&mut self, k: u32) -> u32 {
        self.next_u32() >> (32 - k)
    }

    /// `_randbelow(n)` for 1 <= n < 2**32: `getrandbits(n.bit_length())` until below n.
    pub fn randbelow(&mut self, n: u32) -> u32 {
        let k = 32 - n.leading_zeros();
        loop {
            let r = self.getrandbits(k);
            if r < n {
                return r;
            }
        }
    }

    /// `random.shuffle(x)`: Fisher-Yates from the end.
    pub fn shuffle(&mut self, x: &mut [u8]) {
        for i in (1..x.len()).rev() {
            let j = self.randbelow(i as u32 + 1) as usize;
            x.swap(i, j);
        }
    }
}

/// `LANES` generators seeded side by side, their states word-interleaved. Seeding is a chain of
/// 1,247 dependent steps (most of a hand's cost); the lanes' chains are independent, so stepping
/// them together lets the CPU overlap them (and the compiler use vector instructions). Each lane
/// gives the generator `Mt::from_u64` gives.
pub struct Lanes<const LANES: usize> {
    st: [[u32; LANES]; N],
}

impl<const LANES: usize> Lanes<LANES> {
    /// Seed the lanes (`Mt::from_u64` of each seed).
    pub fn seed(seeds: &[u64; LANES]) -> Self {
        let mut st = [[0u32; LANES]; N];
        for (row, &init) in st.iter_mut().zip(INIT_19650218.iter()) {
            *row = [init; LANES];
        }
        // init_by_array's key[j] + j: j alternates 0, 1 for a two-word key, stays 0 for a one-word key
        let mut even = [0u32; LANES];
        let mut odd = [0u32; LANES];
        for l in 0..LANES {
            let (lo, hi) = (seeds[l] as u32, (seeds[l] >> 32) as u32);
            even[l] = lo;
            odd[l] = if hi != 0 { hi.wrapping_add(1) } else { lo };
        }
        let mut i = 1usize;
        let mut prev = st[0];
        for t in 0..N {
            let add = if t & 1 == 0 { &even } else { &odd };
            let cur = &mut st[i];
            for l in 0..LANES {
                let p = prev[l];
                let v = (cur[l] ^ (p ^ (p >> 30)).wrapping_mul(1_664_525)).wrapping_add(add[l]);
                cur[l] = v;
                prev[l] = v;
            }
            i += 1;
            if i >= N {
                st[0] = prev;
                i = 1;
            }
        }
        for _ in 0..N - 1 {
            let cur = &mut st[i];
            let sub = i as u32;
            for l in 0..LANES {
                let p = prev[l];
                let v = (cur[l] ^ (p ^ (p >> 30)).wrapping_mul(1_566_083_941)).wrapping_sub(sub);
                cur[l] = v;
                prev[l] = v;
            }
            i += 1;
            if i >= N {
                st[0] = prev;
                i = 1;
            }
        }
        st[0] = [0x8000_0000; LANES];
        Lanes { st }
    }

    /// Lane `l`'s generator, written over `mt`.
    pub fn write(&self, l: usize, mt: &mut Mt) {
        for (w, row) in mt.state.iter_mut().zip(self.st.iter()) {
            *w = row[l];
        }
        mt.index = N;
        mt.twisted = N;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lanes_seed_as_one_at_a_time() {
        let seeds = [0, 1, 7, u32::MAX as u64, 1 << 32, u64::MAX, 0x1234_5678_9abc_def0, 42 << 40];
        let lanes = Lanes::seed(&seeds);
        for (l, &seed) in seeds.iter().enumerate() {
            let mut one = Mt::from_u64(seed);
            let mut lane = Mt::from_u64(12345);
            lanes.write(l, &mut lane);
            for _ in 0..1000 {
                assert_eq!(one.next_u32(), lane.next_u32(), "seed {seed}");
            }
        }
    }
}
