//! The workspace's one stable hasher: FNV-1a, 64 bits. Its values depend only on the bytes
//! fed to it, never on the process, the build or the platform (integers go in
//! little-endian), so they can name things across runs: loop fingerprints in reports and
//! logs, the macro state of a preprocessed file, the text of a cached document. Maps keyed
//! by ids use `rustc_hash` instead, which is faster and needs no stability.

use std::hash::Hasher;

#[derive(Clone, Copy, Debug)]
pub struct StableHasher(u64);

impl Default for StableHasher {
    fn default() -> Self {
        StableHasher(0xcbf2_9ce4_8422_2325)
    }
}

impl StableHasher {
    pub fn new() -> Self {
        Self::default()
    }

    /// A hasher whose first byte is `tag` (hashes of different kinds of things differ).
    pub fn tagged(tag: u8) -> Self {
        let mut h = Self::default();
        h.byte(tag);
        h
    }

    pub fn byte(&mut self, b: u8) {
        self.0 ^= b as u64;
        self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
    }

    /// A length-prefixed byte string (so that `("ab", "c")` and `("a", "bc")` differ).
    pub fn bytes(&mut self, b: &[u8]) {
        self.u64(b.len() as u64);
        for &x in b {
            self.byte(x);
        }
    }

    pub fn u64(&mut self, v: u64) {
        for x in v.to_le_bytes() {
            self.byte(x);
        }
    }

    pub fn str(&mut self, s: &str) {
        self.bytes(s.as_bytes())
    }
}

impl Hasher for StableHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.byte(b);
        }
    }

    fn write_u16(&mut self, v: u16) {
        self.write(&v.to_le_bytes())
    }

    fn write_u32(&mut self, v: u32) {
        self.write(&v.to_le_bytes())
    }

    fn write_u64(&mut self, v: u64) {
        self.u64(v)
    }

    fn write_usize(&mut self, v: usize) {
        self.u64(v as u64)
    }
}

/// The stable hash of a text.
pub fn hash_str(s: &str) -> u64 {
    let mut h = StableHasher::new();
    h.str(s);
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_fixed() {
        // FNV-1a's published test vector: the empty input and "a".
        assert_eq!(StableHasher::new().finish(), 0xcbf2_9ce4_8422_2325);
        let mut h = StableHasher::new();
        h.write(b"a");
        assert_eq!(h.finish(), 0xaf63_dc4c_8601_ec8c);
        assert_ne!(hash_str("ab"), hash_str("ba"));
    }
}
