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

/// The Mersenne Twister state, as CPython keeps it.
#[derive(Clone)]
pub struct Mt {
    state: [u32; N],
    index: usize,
}

impl Mt {
    fn init_genrand(s: u32) -> Mt {
        let mut state = [0u32; N];
        state[0] = s;
        for i in 1..N {
            let prev = state[i - 1];
            state[i] = 1_812_433_253u32.wrapping_mul(prev ^ (prev >> 30)).wrapping_add(i as u32);
        }
        Mt { state, index: N }
    }

    /// `random.Random(seed)` for an int seed given as the 32-bit words of `abs(seed)`, least
    /// significant first (`[0]` for 0).
    pub fn from_key(key: &[u32]) -> Mt {
        let zero = [0u32];
        let key = if key.is_empty() { &zero[..] } else { key };
        let mut mt = Mt::init_genrand(19_650_218);
        let st = &mut mt.state;
        let (mut i, mut j) = (1usize, 0usize);
        let mut k = N.max(key.len());
        while k > 0 {
            let prev = st[i - 1];
            st[i] = (st[i] ^ (prev ^ (prev >> 30)).wrapping_mul(1_664_525))
                .wrapping_add(key[j])
                .wrapping_add(j as u32);
            i += 1;
            j += 1;
            if i >= N {
                st[0] = st[N - 1];
                i = 1;
            }
            if j >= key.len() {
                j = 0;
            }
            k -= 1;
        }
        k = N - 1;
        while k > 0 {
            let prev = st[i - 1];
            st[i] = (st[i] ^ (prev ^ (prev >> 30)).wrapping_mul(1_566_083_941)).wrapping_sub(i as u32);
            i += 1;
            if i >= N {
                st[0] = st[N - 1];
                i = 1;
            }
            k -= 1;
        }
        st[0] = 0x8000_0000;
        mt
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

    fn generate(&mut self) {
        let st = &mut self.state;
        let mag = |y: u32| if y & 1 == 1 { MATRIX_A } else { 0 };
        for kk in 0..N - M {
            let y = (st[kk] & UPPER) | (st[kk + 1] & LOWER);
            st[kk] = st[kk + M] ^ (y >> 1) ^ mag(y);
        }
        for kk in N - M..N - 1 {
            let y = (st[kk] & UPPER) | (st[kk + 1] & LOWER);
            st[kk] = st[kk + M - N] ^ (y >> 1) ^ mag(y);
        }
        let y = (st[N - 1] & UPPER) | (st[0] & LOWER);
        st[N - 1] = st[M - 1] ^ (y >> 1) ^ mag(y);
        self.index = 0;
    }

    /// The next 32 random bits (`genrand_uint32`).
    pub fn next_u32(&mut self) -> u32 {
        if self.index >= N {
            self.generate();
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
