//! The layout fingerprint (`T::LAYOUT_ID`): FNV-1a over a canonical
//! encoding of everything that decides the bytes (FORMAT.md, "Layout
//! fingerprint").

use super::{Encoding, FieldWidth, Format, Layout};

impl Layout {
    /// The layout's fingerprint (`T::LAYOUT_ID`): a stable 64-bit hash of
    /// everything that decides the key's bytes. See the [module
    /// documentation](crate::layout) for what it covers.
    pub const fn id(&self) -> u64 {
        let mut h = Fnv::new().str("rowkey layout 1");
        if !self.members.is_empty() {
            h = h.byte(2).usize(self.members.len());
            let mut i = 0;
            while i < self.members.len() {
                h = h.u64(self.members[i].id());
                i += 1;
            }
            return h.0;
        }
        h = match self.format {
            Format::Binary => h.byte(0),
            Format::Text { sep } => h.byte(1).str(sep),
            // Not 2: a family's fingerprint starts with 2 and its member
            // count, and the canonical encoding stays unambiguous.
            Format::OrderedCode => h.byte(3),
        };
        h = h.bytes(self.prefix);
        h = match &self.salt {
            None => h.byte(0),
            Some(s) => {
                let mut h = h.byte(1).u64(s.buckets as u64).byte(s.hash as u8);
                h = h.usize(s.by.len());
                let mut i = 0;
                while i < s.by.len() {
                    h = h.str(s.by[i]);
                    i += 1;
                }
                h
            }
        };
        h = h.usize(self.fields.len());
        let mut i = 0;
        while i < self.fields.len() {
            let f = &self.fields[i];
            h = h.str(f.name).str(f.kind);
            h = match f.width {
                FieldWidth::Fixed(w) => h.byte(0).usize(w),
                FieldWidth::Variable { min } => h.byte(1).usize(min),
            };
            h = match f.encoding {
                Encoding::BigEndian { desc } => h.byte(0).flag(desc),
                Encoding::DescTs => h.byte(1),
                Encoding::Padded { len, pad, desc } => h.byte(2).usize(len).byte(pad).flag(desc),
                Encoding::Escaped { desc } => h.byte(3).flag(desc),
                Encoding::Raw => h.byte(4),
                // `#[desc]` adds a byte only where it is set: the
                // fingerprints of other layouts did not change when it
                // joined the descriptor.
                Encoding::Digits {
                    digits,
                    signed,
                    desc,
                } => {
                    let h = h.byte(5).usize(digits).flag(signed);
                    if desc {
                        h.byte(0xDE)
                    } else {
                        h
                    }
                }
                Encoding::DescTsDigits { digits, max } => h.byte(6).usize(digits).u64(max),
                Encoding::Delimited => h.byte(7),
                Encoding::TextForm => h.byte(8),
                Encoding::OrderedCode { desc } => h.byte(9).flag(desc),
            };
            h = h
                .flag(f.option)
                .flag(f.added)
                .flag(f.reverse)
                .flag(f.reverse_domain);
            // Only timestamps add bytes: older layouts keep their ids.
            if let Some(unit) = f.unit {
                h = h.byte(0xD7).byte(unit as u8);
            }
            i += 1;
        }
        h.0
    }
}

/// FNV-1a, 64-bit, as a const builder.
struct Fnv(u64);

impl Fnv {
    const fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    const fn byte(self, b: u8) -> Fnv {
        Fnv((self.0 ^ b as u64).wrapping_mul(0x0100_0000_01b3))
    }

    const fn flag(self, b: bool) -> Fnv {
        self.byte(b as u8)
    }

    const fn u64(self, v: u64) -> Fnv {
        let b = v.to_be_bytes();
        let mut h = self;
        let mut i = 0;
        while i < 8 {
            h = h.byte(b[i]);
            i += 1;
        }
        h
    }

    const fn usize(self, v: usize) -> Fnv {
        self.u64(v as u64)
    }

    const fn bytes(self, b: &[u8]) -> Fnv {
        let mut h = self.usize(b.len());
        let mut i = 0;
        while i < b.len() {
            h = h.byte(b[i]);
            i += 1;
        }
        h
    }

    const fn str(self, s: &str) -> Fnv {
        self.bytes(s.as_bytes())
    }
}
