//! What a generator needs to know of a layout, decided once for every
//! language: each field's value type and encoding, the prefix and the
//! salt. A layout with something a generator does not write yet is refused
//! here, naming the field.

use rowkey_core::layout::{Encoding, Format, SaltHashKind};
use rowkey_core::Layout;
pub use rowkey_core::TimeUnit;

use crate::error::CodegenError;
use crate::names;

/// A layout as the generators read it.
#[derive(Clone, Debug)]
pub struct KeyPlan {
    /// The layout's one-line text, which the generated code carries.
    pub layout_text: String,
    /// The layout's fingerprint.
    pub layout_id: u64,
    /// The bytes every key starts with (in a text key, the separator after
    /// the family prefix included).
    pub prefix: Vec<u8>,
    /// A text key's separator, between every two fields and after the
    /// salt's digits; empty in a binary key.
    pub sep: Vec<u8>,
    /// The salt byte after the prefix.
    pub salt: Option<SaltPlan>,
    /// The fields, in key order.
    pub fields: Vec<FieldPlan>,
    /// Bigtable's `OrderedCodeBytes` struct (`ordered_code`): each field
    /// escaped and terminated (`Encoding::OrderedCode`), the salt a
    /// one-byte `Int64` field, trailing empty ascending strings not
    /// written (FORMAT.md, "Bigtable OrderedCodeBytes").
    pub ordered_code: bool,
}

impl KeyPlan {
    /// A `mod` salt over a 128-bit integer: its value's remainder needs
    /// the language's big integers.
    pub fn mod_over_128(&self) -> bool {
        self.salt.as_ref().is_some_and(|s| {
            s.hash == SaltHashKind::Mod
                && matches!(self.fields[s.by[0]].scalar, Scalar::Int { bits: 128, .. })
        })
    }

    /// In an ordered-code key: whether field `i` may be the last one a key
    /// writes, and is ascending, so that the key's end can end it (the
    /// fields from the last one every key writes on).
    pub fn oc_reads_to_end(&self, i: usize) -> bool {
        let tail = self.fields.len()
            - self
                .fields
                .iter()
                .rev()
                .take_while(|f| f.oc_droppable())
                .count();
        let f = &self.fields[i];
        i + 1 >= tail && !f.desc()
    }
}

/// A key family (a layout of several members, each a key with a prefix of
/// its own): what its own file needs besides its members' keys.
#[derive(Clone, Debug)]
pub struct FamilyPlan {
    /// The family's one-line text.
    pub layout_text: String,
    /// The family's fingerprint.
    pub layout_id: u64,
    /// Each member's name and prefix, in the layout's order.
    pub members: Vec<(String, Vec<u8>)>,
    /// Where to pre-split a table of the family (each member's prefix and
    /// buckets).
    pub split_points: Vec<Vec<u8>>,
}

impl FamilyPlan {
    /// The family plan of `layout`, a layout of several members.
    pub fn of(layout: &Layout) -> FamilyPlan {
        FamilyPlan {
            layout_text: layout.to_string(),
            layout_id: layout.id(),
            members: layout
                .members()
                .iter()
                .map(|m| (m.name().to_owned(), m.prefix().to_vec()))
                .collect(),
            split_points: layout.split_points(),
        }
    }
}

/// A salt byte: its bucket count, hash and the fields it hashes.
#[derive(Clone, Debug)]
pub struct SaltPlan {
    /// The number of buckets.
    pub buckets: u16,
    /// How the bucket is computed.
    pub hash: SaltHashKind,
    /// The hashed fields' positions, in key order.
    pub by: Vec<usize>,
    /// A text key's bucket digits (those of `buckets - 1`); 0 in a binary
    /// key, whose bucket is a byte.
    pub digits: usize,
}

/// One field.
#[derive(Clone, Debug)]
pub struct FieldPlan {
    /// The field's name in the layout (snake_case).
    pub name: String,
    /// The field's identifier in the language's code: a Java record
    /// component (lowerCamelCase), a Python attribute, a Go struct field
    /// (UpperCamelCase); with a trailing `_` where the name is a keyword
    /// there or one the generated code takes (`crate` docs, "Names").
    pub ident: String,
    /// The value's type.
    pub scalar: Scalar,
    /// An `Option`: a tag byte before the value.
    pub option: bool,
    /// How the value becomes bytes (FORMAT.md): in a binary key
    /// `BigEndian`, `DescTs`, `Padded`, `Escaped` or `Raw`; in a text key
    /// `Digits`, `DescTsDigits`, `Delimited`, `Padded` or `Raw`.
    pub encoding: Encoding,
    /// A text key's separator follows the field (every field but the
    /// last).
    pub sep_after: bool,
    /// A `#[derive(KeyField)]` enum: stored as its repr integer
    /// (`scalar`), one of its variants.
    pub key_enum: Option<EnumPlan>,
    /// A timestamp (`ts(unit)`): stored as the `i64` (`scalar`) of whole
    /// units since the Unix epoch; the language's time type in the
    /// generated code.
    pub time: Option<TimeUnit>,
    /// `#[reverse]`: the value's natural bytes (a text key's digits, a
    /// UUID's characters) in reverse order, before padding, escaping and
    /// `#[desc]`. No range order.
    pub reverse: bool,
    /// `#[reverse_domain]`: a string's labels (split at `.`) in reverse
    /// order, before it is stored as any string. No range order.
    pub reverse_domain: bool,
    /// `#[rowkey(added)]`: an `Option` at the end of the key, stored as no
    /// bytes when it and every added field after it are `None`; a key
    /// ending before it decodes it as `None` (FORMAT.md, "Added fields").
    pub added: bool,
}

/// A field enum: its name and its variants' names and discriminants.
#[derive(Clone, Debug)]
pub struct EnumPlan {
    /// The enum's name (`Kind`), as the language's code spells it.
    pub name: String,
    /// `(variant, discriminant)`, in declaration order; each variant as
    /// the language's code spells it.
    pub variants: Vec<(String, i128)>,
}

/// How a reversed field's bytes are turned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reversal {
    /// `#[reverse]`: the bytes in reverse order.
    Bytes,
    /// `#[reverse_domain]`: the labels (split at `.`) in reverse order.
    Labels,
}

/// A field value's type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scalar {
    /// `bool`.
    Bool,
    /// An integer of `bits` bits.
    Int {
        /// 8, 16, 32 or 64.
        bits: u32,
        /// Signed.
        signed: bool,
    },
    /// A UTF-8 string.
    Str,
    /// A byte string.
    Bytes,
    /// A `char`: its scalar value, a `u32`.
    Char,
    /// An IEEE float of `bits` bits (32 or 64).
    Float {
        /// 32 or 64.
        bits: u32,
    },
    /// A UUID: its 16 bytes in a binary key, its lowercase hyphenated
    /// text (36 characters) in a text key.
    Uuid,
    /// An IPv4 address (`Ipv4Addr`): 4 octets, or in a text key 4 octets
    /// of 3 digits joined by `.` (15 characters).
    Ipv4,
    /// An IPv6 address (`Ipv6Addr`): 16 octets, or in a text key 8 groups
    /// of 4 lowercase hex digits joined by `:` (39 characters).
    Ipv6,
    /// A ULID: its 128-bit value big-endian (16 bytes), or in a text key
    /// 26 uppercase Crockford base32 characters; its 16 bytes in the
    /// generated code.
    Ulid,
    /// A type the runtime does not know, given its width in the layout (a
    /// user's `FixedField`, `[id Sku 8]`): its `len` bytes as they are.
    Opaque {
        /// The width.
        len: usize,
    },
    /// Either (`IpAddr`): `04`, 4 octets and 12 zero bytes, or `06` and 16
    /// octets; in a text key `4` or `6` and the IPv6 text (an IPv4
    /// address as its IPv4-mapped IPv6 address).
    Ip,
}

impl Scalar {
    /// An integer's smallest and largest value (up to 64 bits).
    pub fn int_range(self) -> Option<(i128, i128)> {
        match self {
            Scalar::Int { bits, signed: true } if bits < 128 => {
                Some((-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1))
            }
            Scalar::Int {
                bits,
                signed: false,
            } if bits < 128 => Some((0, (1i128 << bits) - 1)),
            _ => None,
        }
    }
}

impl FieldPlan {
    /// The width of the value (without an `Option`'s tag) when it is
    /// fixed.
    pub fn value_width(&self) -> Option<usize> {
        match (self.encoding, self.scalar) {
            (Encoding::Padded { len, .. }, _) => Some(len),
            (Encoding::Digits { digits, signed, .. }, _) => Some(digits + usize::from(signed)),
            (Encoding::DescTsDigits { digits, .. }, _) => Some(digits),
            (Encoding::Delimited | Encoding::OrderedCode { .. }, _) => None,
            (Encoding::TextForm, Scalar::Ipv4) => Some(15),
            (Encoding::TextForm, Scalar::Ipv6) => Some(39),
            (Encoding::TextForm, Scalar::Ip) => Some(40),
            (Encoding::TextForm, Scalar::Ulid) => Some(26),
            (Encoding::TextForm, _) => Some(36),
            (_, Scalar::Uuid | Scalar::Ipv6 | Scalar::Ulid) => Some(16),
            (_, Scalar::Ipv4) => Some(4),
            (_, Scalar::Opaque { len }) => Some(len),
            (_, Scalar::Ip) => Some(17),
            (Encoding::Escaped { .. } | Encoding::Raw, _) => None,
            (_, Scalar::Bool) => Some(1),
            (_, Scalar::Char) => Some(4),
            (_, Scalar::Float { bits }) => Some(bits as usize / 8),
            (_, Scalar::Int { bits, .. }) => Some(bits as usize / 8),
            (_, Scalar::Str | Scalar::Bytes) => None,
        }
    }

    /// `#[reverse]` or `#[reverse_domain]`'s turn of the value's bytes
    /// (each its own inverse).
    pub fn reversal(&self) -> Option<Reversal> {
        match (self.reverse, self.reverse_domain) {
            (true, _) => Some(Reversal::Bytes),
            (_, true) => Some(Reversal::Labels),
            _ => None,
        }
    }

    /// Stored as a string's bytes (padded, escaped, delimited or raw),
    /// which a reversal turns before they are stored; any other value's
    /// natural bytes are turned as they are.
    pub fn stored_as_string(&self) -> bool {
        matches!(
            self.encoding,
            Encoding::Delimited
                | Encoding::Padded { .. }
                | Encoding::Escaped { .. }
                | Encoding::Raw
        )
    }

    /// `#[desc]` (not `#[desc_ts]`): every byte of the field inverted.
    pub fn desc(&self) -> bool {
        matches!(
            self.encoding,
            Encoding::BigEndian { desc: true }
                | Encoding::Padded { desc: true, .. }
                | Encoding::Escaped { desc: true }
                | Encoding::OrderedCode { desc: true }
        )
    }

    /// An ordered-code field a key leaves out when it is empty and every
    /// field after it is too: an ascending string.
    pub fn oc_droppable(&self) -> bool {
        matches!(self.scalar, Scalar::Str | Scalar::Bytes) && !self.desc()
    }
}

/// One scan the generated code offers, as the derive generates them:
/// `scan_all`, `scan_by_*` (the first `lead` fields equal to values) and
/// `range_by_*` (those, and a range on the next field).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScanPlan {
    /// The leading fields given as values.
    pub lead: usize,
    /// A range on field `lead` after them (`range_by_*`).
    pub range: bool,
    /// The salt's fields are all among the leading ones: the scan reads
    /// one bucket (every bucket otherwise).
    pub one_bucket: bool,
    /// An equality scan on every field of a key whose last field is raw:
    /// the one key, exactly (no longer key starts with it).
    pub exact: bool,
    /// The range's field sorts against its values (`desc`, `desc_ts`):
    /// its ends are swapped.
    pub desc: bool,
    /// The range's field is raw to the end of the key.
    pub raw: bool,
}

impl ScanPlan {
    /// The fields the scan's arguments name: the leading ones, and the
    /// range's field.
    pub fn fields<'p>(&self, plan: &'p KeyPlan) -> &'p [FieldPlan] {
        &plan.fields[..self.lead + usize::from(self.range)]
    }
}

impl KeyPlan {
    /// The scans the generated code offers, in the order it writes them:
    /// for every number of leading fields the key always has (not its
    /// added fields, as the derive), the equality scan and then the
    /// range on the next field, where one can be taken (not on a `bool`,
    /// an `Option`, a reversed field or a delimited string, whose bytes do
    /// not sort like its values: FORMAT.md, "Text keys").
    pub fn scans(&self) -> Vec<ScanPlan> {
        // The fields every key has: not the added ones.
        let n = self.fields.iter().take_while(|f| !f.added).count();
        let mut out = Vec::new();
        for lead in 0..=n {
            let one_bucket = self
                .salt
                .as_ref()
                .is_some_and(|s| s.by.iter().all(|&i| i < lead));
            let eq = ScanPlan {
                lead,
                range: false,
                one_bucket,
                exact: lead == n && n > 0 && self.fields[n - 1].encoding == Encoding::Raw,
                desc: false,
                raw: false,
            };
            out.push(eq);
            let Some(next) = self.fields[..n].get(lead) else {
                continue;
            };
            if next.option
                || next.scalar == Scalar::Bool
                || next.encoding == Encoding::Delimited
                || next.reverse
                || next.reverse_domain
            {
                continue;
            }
            out.push(ScanPlan {
                range: true,
                exact: false,
                desc: next.desc()
                    || next.encoding == Encoding::DescTs
                    || matches!(
                        next.encoding,
                        Encoding::Digits { desc: true, .. } | Encoding::DescTsDigits { .. }
                    ),
                raw: next.encoding == Encoding::Raw,
                ..eq
            });
        }
        out
    }
}

/// The plan of `layout`, or why `language`'s generator cannot write it.
pub fn plan(layout: &Layout, language: &'static str) -> Result<KeyPlan, CodegenError> {
    let refuse = |field: Option<&str>, what: String| CodegenError::Unsupported {
        language,
        field: field.map(str::to_owned),
        what,
    };
    if !layout.members().is_empty() {
        return Err(refuse(
            None,
            "a key family as one key (generate its members: `generate`)".into(),
        ));
    }
    let ordered_code = layout.format() == Format::OrderedCode;
    let sep = match layout.format() {
        Format::Binary => Vec::new(),
        Format::Text { sep } => sep.as_bytes().to_vec(),
        Format::OrderedCode => Vec::new(),
        _ => return Err(refuse(None, "this key format".into())),
    };
    let mut fields = Vec::with_capacity(layout.fields().len());
    for f in layout.fields() {
        let name = f.name();
        let kind = f.kind();
        let inner = kind
            .strip_prefix("Option<")
            .and_then(|k| k.strip_suffix('>'))
            .unwrap_or(kind);
        let inner = f.key_field().map_or(inner, |k| k.repr());
        // A timestamp's type (`DateTime<Utc>`, `jiff::Timestamp`, a user's
        // `TimeField`) is stored as the `i64` of its unit.
        let time = f.unit();
        let inner = if time.is_some() { "i64" } else { inner };
        let scalar = match inner.rsplit("::").next().unwrap_or(inner) {
            "Uuid" => Scalar::Uuid,
            "Ulid" => Scalar::Ulid,
            "Ipv4Addr" => Scalar::Ipv4,
            "Ipv6Addr" => Scalar::Ipv6,
            "IpAddr" => Scalar::Ip,
            "bool" => Scalar::Bool,
            "char" => Scalar::Char,
            "f32" => Scalar::Float { bits: 32 },
            "f64" => Scalar::Float { bits: 64 },
            "u8" | "u16" | "u32" | "u64" | "u128" | "i8" | "i16" | "i32" | "i64" | "i128" => {
                Scalar::Int {
                    bits: inner[1..].parse().expect("a width"),
                    signed: inner.starts_with('i'),
                }
            }
            "str" => Scalar::Str,
            "bytes" => Scalar::Bytes,
            // A type the runtime does not know, given its width (a user's
            // `FixedField`): its bytes.
            _ if sep.is_empty() && !ordered_code => match f.width() {
                rowkey_core::layout::FieldWidth::Fixed(len) if f.unit().is_none() => {
                    Scalar::Opaque { len }
                }
                _ => return Err(refuse(Some(name), format!("fields of type `{inner}`"))),
            },
            other => return Err(refuse(Some(name), format!("fields of type `{other}`"))),
        };
        if f.key_field().is_some() && matches!(scalar, Scalar::Int { bits: 128, .. }) {
            return Err(refuse(Some(name), "field enums of a 128-bit repr".into()));
        }
        // A Go variant stands inside its constant's name, never alone.
        let variant = |n: &str| match language {
            "go" => n.to_owned(),
            _ => names::spell(language, n.to_owned()),
        };
        let key_enum = f.key_field().map(|k| EnumPlan {
            name: names::spell(language, k.name().to_owned()),
            variants: k.variants().iter().map(|(n, v)| (variant(n), *v)).collect(),
        });
        let encoding = match f.encoding() {
            e @ (Encoding::BigEndian { .. }
            | Encoding::DescTs
            | Encoding::Padded { .. }
            | Encoding::Escaped { .. }
            | Encoding::Raw
            | Encoding::Digits { .. }
            | Encoding::DescTsDigits { .. }
            | Encoding::Delimited
            | Encoding::OrderedCode { .. }) => e,
            e @ Encoding::TextForm
                if matches!(
                    scalar,
                    Scalar::Uuid | Scalar::Ulid | Scalar::Ipv4 | Scalar::Ipv6 | Scalar::Ip
                ) =>
            {
                e
            }
            other => return Err(refuse(Some(name), format!("the encoding {other:?}"))),
        };
        // A field enum's digits in a text key: the descriptor leaves the
        // sign to the repr (as it describes a user `Decimal`).
        let encoding = match (encoding, scalar, &key_enum) {
            (Encoding::Digits { digits, desc, .. }, Scalar::Int { signed, .. }, Some(_)) => {
                Encoding::Digits {
                    digits,
                    signed,
                    desc,
                }
            }
            (e, _, _) => e,
        };
        let ident = names::field(language, name);
        if let Some(other) = fields.iter().find(|f: &&FieldPlan| f.ident == ident) {
            return Err(CodegenError::Collision {
                language,
                first: other.name.clone(),
                second: name.to_owned(),
                ident,
            });
        }
        fields.push(FieldPlan {
            name: name.to_owned(),
            ident,
            scalar,
            option: f.is_option(),
            encoding,
            sep_after: f.sep_len() > 0,
            key_enum,
            time,
            reverse: f.is_reverse(),
            reverse_domain: f.is_reverse_domain(),
            added: f.is_added(),
        });
    }
    let salt = match layout.salt() {
        None => None,
        Some(s) => {
            let by: Vec<usize> = s
                .by()
                .iter()
                .map(|b| {
                    fields
                        .iter()
                        .position(|f| f.name == *b)
                        .expect("a salt's by field is a field")
                })
                .collect();
            match s.hash() {
                SaltHashKind::Xxh3 | SaltHashKind::Java | SaltHashKind::Mod => {}
                other => return Err(refuse(None, format!("the salt hash {other:?}"))),
            }
            let digits = if sep.is_empty() {
                0
            } else {
                (s.buckets() - 1).to_string().len()
            };
            Some(SaltPlan {
                buckets: s.buckets(),
                hash: s.hash(),
                by,
                digits,
            })
        }
    };
    Ok(KeyPlan {
        ordered_code,
        layout_text: layout.to_string(),
        layout_id: layout.id(),
        prefix: layout.prefix().to_vec(),
        sep,
        salt,
        fields,
    })
}
