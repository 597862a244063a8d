//! Layouts as data: a key layout read from its one-line text at run time
//! ([`DynLayout`]), keys encoded from and decoded to [`Value`]s.
//!
//! Every key type's layout prints as one line (`T::LAYOUT.to_string()`).
//! [`DynLayout::parse`] reads that line back, so that a program without
//! the Rust type (a command line, an operator's script, the hot-spot lab)
//! encodes, decodes, explains and scans the same keys. It writes the bytes
//! the derive writes by running the derive's own codecs: each field's
//! operations are the codec types `#[derive(RowKey)]` would pick,
//! monomorphized for every built-in field type and chosen when the text is
//! parsed, not a second implementation of the format.
//!
//! ```
//! use rowkey_core::{DynLayout, Value};
//!
//! let layout = DynLayout::parse(
//!     "[salt(user_id)/16][user_id u64][ts_millis desc_ts i64][kind fixed(8) String]",
//! )?;
//! let key = layout.encode(&[42u64.into(), 1_700_000_000_000i64.into(), "click".into()])?;
//! assert_eq!(key.len(), 25);
//! assert_eq!(&key[1..9], &42u64.to_be_bytes());
//! assert_eq!(layout.decode(&key)?[2], Value::from("click"));
//! // The summary it prints is the one it was read from, widths filled in.
//! assert_eq!(
//!     layout.layout().to_string(),
//!     "[salt(user_id)/16 1][user_id u64 8][ts_millis desc_ts i64 8][kind fixed(8) String 8] = 25 bytes"
//! );
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # What it reads
//! Binary keys (format v1): a `[prefix "..."]`, a `[salt(...)/N]` with its
//! hash, and fields of the built-in types (integers, `bool`, `char`,
//! floats, strings, byte strings, `Option`s of them) with `desc`,
//! `desc_ts`, `fixed(N, pad)`, `reverse`, `reverse_domain`, `added` and
//! `ts(unit)` (a timestamp: its value is the `i64` of its unit; chrono's,
//! time's and jiff's types, with their features, are decoded and explained
//! through the type, as the derive does), and IP addresses, UUIDs and ULIDs
//! (the `uuid` and `ulid` features) by their own codecs.
//! Any other type is read as opaque bytes of the width the text gives (a
//! user's `FixedField`, a `KeyField` enum, a nested key).
//!
//! Text keys (`text("_") ...`): integers as `digits(N)` (`desc` on
//! unsigned ones), `desc_ts` and `desc_ts(max = N)`, strings (up to the
//! separator, `fixed(N, pad)`, the last one raw), `reverse`,
//! `reverse_domain`, `ts(unit)`, the text forms of IP addresses, UUIDs and
//! ULIDs, `KeyField` enums (their discriminant's digits), a prefix and a
//! salt's bucket digits. In both formats an `Option` of a `fixed(N)`
//! string or byte string, and `added` fields.
//!
//! # Input a person or a program wrote
//! A layout's text or JSON is checked before anything is built, the same
//! rules for both: names, 1 to 256 salt buckets, the salt's fields, widths
//! up to [`MAX_PART_WIDTH`] and their sum, enum discriminants that fit
//! their repr, `added` fields last; a text of at most [`MAX_LAYOUT_TEXT`]
//! bytes, [`MAX_FIELDS`] fields and [`MAX_MEMBERS`] members.
//!
//! A key family's summary (`A: [prefix "a"]... | B: [prefix "b"]...`) reads
//! as a family: its members are layouts, and a key decodes and explains with
//! the member its prefix names ([`DynLayout::member_of`]).
//!
//! A field whose parameters are only known at run time (a `#[fixed(N)]`
//! width, a text key's digits and separator) runs the same function the
//! const codec runs, given the values the text holds.
//!
//! # Memory
//! A parsed layout's descriptor is a [`Layout`], which borrows its names
//! for `'static` so that [`explain`](crate::explain) and [`KeyFilter`]
//! take it as they take a derived type's: `parse` leaks the few hundred
//! bytes of one descriptor. Parse a layout once and keep it.

#[cfg(feature = "json")]
mod json;
mod ops;
mod ordered_code;
mod parse;
mod value;

use alloc::borrow::ToOwned;
use alloc::boxed::Box;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::ops::{Bound, RangeBounds};

pub use parse::{LayoutError, MAX_FIELDS, MAX_LAYOUT_TEXT, MAX_MEMBERS, MAX_PART_WIDTH};
use value::Quoted;
pub use value::Value;

use self::ops::{Dir, Ops, Pred};
use self::parse::{normalize_type, EnumSpec, FieldSpec, Spec, Width};
use crate::format::error::{DecodeError, EncodeError};
use crate::format::salt::{Head, JavaHash, SaltHash, Xxh3};
use crate::layout::explain::{ExplainInput, Explanation};
use crate::layout::{Encoding, FieldLayout, FieldWidth, Format, Layout, SaltHashKind, SaltLayout};
use crate::scan::{FilterParts, KeyFilter, Scan};

/// A key layout known at run time: see the [module documentation](self).
#[derive(Clone)]
pub struct DynLayout {
    layout: &'static Layout,
    ops: Vec<Ops>,
    scalars: Vec<Scalar>,
    /// A key family's members (`A: [...] | B: [...]`); empty for a struct.
    members: Vec<DynLayout>,
    /// The salt's `by` fields, by index in key order.
    by: Vec<usize>,
    /// An ordered-code layout's field codecs and rules.
    oc: Option<ordered_code::OcRt>,
}

impl core::fmt::Debug for DynLayout {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "DynLayout({})", self.layout)
    }
}

/// What a field's values are, for [`DynLayout::value`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scalar {
    Bool,
    U8,
    U16,
    U32,
    U64,
    U128,
    I8,
    I16,
    I32,
    I64,
    I128,
    F32,
    F64,
    Char,
    Str,
    Bytes,
    /// Key bytes of this width.
    Opaque(usize),
    /// A type the runtime knows by name, with its own codec.
    Ipv4,
    Ipv6,
    Ip,
    #[cfg(feature = "uuid")]
    Uuid,
    #[cfg(feature = "ulid")]
    Ulid,
}

impl Scalar {
    fn of(ty: &str) -> Option<Scalar> {
        Some(match ty {
            "bool" => Scalar::Bool,
            "u8" => Scalar::U8,
            "u16" => Scalar::U16,
            "u32" => Scalar::U32,
            "u64" => Scalar::U64,
            "u128" => Scalar::U128,
            "i8" => Scalar::I8,
            "i16" => Scalar::I16,
            "i32" => Scalar::I32,
            "i64" => Scalar::I64,
            "i128" => Scalar::I128,
            "f32" => Scalar::F32,
            "f64" => Scalar::F64,
            "char" => Scalar::Char,
            _ => {
                let last = ty.rsplit("::").next().unwrap_or(ty);
                match last {
                    "String" | "&str" | "str" | "Cow<str>" | "Box<str>" => Scalar::Str,
                    "Vec<u8>" | "&[u8]" | "[u8]" | "Cow<[u8]>" | "Box<[u8]>" | "bytes" => {
                        Scalar::Bytes
                    }
                    "Ipv4Addr" => Scalar::Ipv4,
                    "Ipv6Addr" => Scalar::Ipv6,
                    "IpAddr" => Scalar::Ip,
                    #[cfg(feature = "uuid")]
                    "Uuid" => Scalar::Uuid,
                    #[cfg(feature = "ulid")]
                    "Ulid" => Scalar::Ulid,
                    // Without their features: their binary widths
                    // (FORMAT.md), as opaque bytes.
                    #[cfg(not(feature = "uuid"))]
                    "Uuid" => Scalar::Opaque(16),
                    #[cfg(not(feature = "ulid"))]
                    "Ulid" => Scalar::Opaque(16),
                    _ => return None,
                }
            }
        })
    }

    fn is_var(self) -> bool {
        matches!(self, Scalar::Str | Scalar::Bytes)
    }

    /// A type the runtime knows by name (its own codec, its text form).
    fn is_known(self) -> bool {
        match self {
            Scalar::Ipv4 | Scalar::Ipv6 | Scalar::Ip => true,
            #[cfg(feature = "uuid")]
            Scalar::Uuid => true,
            #[cfg(feature = "ulid")]
            Scalar::Ulid => true,
            _ => false,
        }
    }
}

/// Leaks a string for a descriptor's `'static` names.
fn leak(s: &str) -> &'static str {
    Box::leak(s.to_owned().into_boxed_str())
}

impl DynLayout {
    /// Reads a layout's one-line summary, as `T::LAYOUT` prints it
    /// (`[salt(user_id)/16 1][user_id u64 8][ts_millis desc_ts i64 8] = 17
    /// bytes`), optionally after its name (`UserEvent: [...]`, which
    /// [`Layout::name`] and `explain` then show; `DynLayout` without one).
    /// Widths and the `= N bytes` tail may be left out where the
    /// types give them; where they are given they must agree. A type the
    /// runtime does not know needs its width: it is read as opaque bytes.
    ///
    /// The error names the part and its byte offset in `text`.
    ///
    /// ```
    /// use rowkey_core::DynLayout;
    ///
    /// let err = DynLayout::parse("[user_id u64 4]").unwrap_err();
    /// assert_eq!(err.to_string(), "field `user_id` (at byte 1): the text gives width 4, but u64 is 8 bytes");
    /// ```
    pub fn parse(text: &str) -> Result<DynLayout, LayoutError> {
        parse::check_text_len(text)?;
        let parts = parse::members(text);
        if parts.len() == 1 {
            return build(parse::parse(text)?);
        }
        if parts.len() > MAX_MEMBERS {
            return Err(LayoutError::new(
                0,
                "layout",
                format!(
                    "{} members, more than the {MAX_MEMBERS} a key family may have",
                    parts.len()
                ),
            ));
        }
        // Every member read and checked before any is built.
        let mut specs = Vec::with_capacity(parts.len());
        for (at, part) in parts {
            let spec = parse::parse(part).map_err(|e| e.shifted(at))?;
            parse::check_spec(&spec).map_err(|e| e.shifted(at))?;
            specs.push((at, spec));
        }
        let mut members = Vec::with_capacity(specs.len());
        for (at, spec) in specs {
            members.push(build(spec).map_err(|e| e.shifted(at))?);
        }
        family(members)
    }

    /// Reads a layout's JSON, as [`Layout::to_json`] writes it (the `json`
    /// feature): the fields' types, encodings and attributes give the
    /// layout, and its fingerprint must be the JSON's `layout_id` (so a
    /// JSON edited by hand into another layout is an error, not other
    /// bytes).
    ///
    /// ```
    /// use rowkey_core::DynLayout;
    ///
    /// let text = DynLayout::parse("Reading: [sensor u32][ts desc_ts i64]")?;
    /// let json = text.layout().to_json();
    /// let back = DynLayout::from_json(&json)?;
    /// assert_eq!(back.layout().id(), text.layout().id());
    /// assert_eq!(back.layout().to_string(), "[sensor u32 4][ts desc_ts i64 8] = 12 bytes");
    ///
    /// let edited = json.replace(r#""desc_ts""#, r#""big_endian""#);
    /// assert!(DynLayout::from_json(&edited).unwrap_err().to_string().contains("layout_id"));
    /// # Ok::<(), rowkey_core::LayoutError>(())
    /// ```
    #[cfg(feature = "json")]
    pub fn from_json(text: &str) -> Result<DynLayout, LayoutError> {
        json::from_json(text)
    }

    /// The layout's descriptor: its summary (`Display`), table (`{:#}`),
    /// fingerprint ([`Layout::id`], the derived type's `LAYOUT_ID`) and
    /// fields.
    pub fn layout(&self) -> &'static Layout {
        self.layout
    }

    /// A key family's members (`A: [...] | B: [...]`), in the text's
    /// order; empty for a struct. A family has no fields of its own: a key
    /// is one member's, encoded, filtered and scanned through it.
    ///
    /// ```
    /// use rowkey_core::{DynLayout, Value};
    ///
    /// let rows = DynLayout::parse(r#"User: [prefix "u" 1][id u32 4] = 5 bytes | Event: [prefix "e" 1][id u32 4][ts i64 8] = 13 bytes"#)?;
    /// let key = rows.member("Event").unwrap().encode(&[7u32.into(), 9i64.into()])?;
    /// assert_eq!(rows.member_of(&key).unwrap().layout().name(), "Event");
    /// assert_eq!(rows.decode(&key)?, [Value::U32(7), Value::I64(9)]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn members(&self) -> &[DynLayout] {
        &self.members
    }

    /// A key family's member named `name`.
    pub fn member(&self, name: &str) -> Option<&DynLayout> {
        self.members.iter().find(|m| m.layout.name() == name)
    }

    /// The member of a key family whose prefix `key` starts with (as
    /// `explain` picks it); `None` for a struct or no member's key.
    pub fn member_of(&self, key: &[u8]) -> Option<&DynLayout> {
        self.members
            .iter()
            .find(|m| key.starts_with(m.layout.prefix()))
    }

    /// A family cannot encode, filter or scan by itself.
    fn not_family(&self) -> Result<(), EncodeError> {
        if self.members.is_empty() {
            Ok(())
        } else {
            Err(EncodeError::FamilyMember {
                family: self.layout.name(),
            })
        }
    }

    /// The fields' names, in key order.
    pub fn field_names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.layout.fields().iter().map(FieldLayout::name)
    }

    /// The index of the field `name`, or an error naming the fields there
    /// are.
    pub fn field_index(&self, name: &str) -> Result<usize, LayoutError> {
        self.layout
            .fields()
            .iter()
            .position(|f| f.name() == name)
            .ok_or_else(|| {
                let names: Vec<&str> = self.field_names().collect();
                LayoutError::field(
                    format!("field `{name}`"),
                    format!(
                        "no such field; the layout's fields are {}",
                        names.join(", ")
                    ),
                )
            })
    }

    /// The key of `values`, one per field in key order.
    ///
    /// A value of another type than its field's (or an integer that does
    /// not fit it) is an [`EncodeError::WrongValue`] naming the field; the
    /// field's own checks give the derive's errors.
    pub fn encode(&self, values: &[Value]) -> Result<Vec<u8>, EncodeError> {
        self.not_family()?;
        let fields = self.layout.fields();
        if values.len() != fields.len() {
            return Err(EncodeError::ValueCount {
                expected: fields.len(),
                got: values.len(),
            });
        }
        if self.oc.is_some() {
            return self.oc_encode(values);
        }
        let mut out = self.layout.prefix().to_vec();
        let head_at = out.len();
        if let Some(s) = self.layout.salt() {
            out.resize(head_at + s.len(), 0);
        }
        // Trailing added fields that are `None` are not written (keys
        // written before they were added end there).
        let written = fields.len()
            - fields
                .iter()
                .zip(values)
                .rev()
                .take_while(|(f, v)| f.is_added() && matches!(v, Value::Option(None)))
                .count();
        let Some(s) = self.layout.salt() else {
            for ((f, ops), v) in fields.iter().zip(&self.ops).zip(values).take(written) {
                (ops.encode)(v, &mut out, f)?;
            }
            return Ok(out);
        };
        // Each field's place in the key, for the salt's `by` fields.
        let mut spans = Vec::with_capacity(fields.len());
        for ((f, ops), v) in fields.iter().zip(&self.ops).zip(values).take(written) {
            let start = out.len();
            (ops.encode)(v, &mut out, f)?;
            spans.push(start..out.len());
        }
        let bucket = self.bucket_of(s, |i| &out[spans[i].clone()], values)?;
        s.head().write(bucket, &mut out[head_at..], true);
        Ok(out)
    }

    /// The salt bucket of a key of `values` (`None` unsalted): the bucket
    /// the derived type's `bucket()` gives.
    pub fn bucket(&self, values: &[Value]) -> Result<Option<u8>, EncodeError> {
        self.not_family()?;
        let Some(s) = self.layout.salt() else {
            return Ok(None);
        };
        let key = self.encode(values)?;
        let head = &key[self.layout.prefix().len()..];
        Ok(s.head().read(head, s.buckets()).ok())
    }

    /// The bucket from the `by` fields' encodings (`encoded(i)` is field
    /// `i`'s), as the derive's `__rk_bucket` computes it.
    fn bucket_of<'a>(
        &self,
        s: &SaltLayout,
        encoded: impl Fn(usize) -> &'a [u8],
        values: &[Value],
    ) -> Result<u8, EncodeError> {
        let (fields, by) = (self.layout.fields(), &self.by);
        if s.hash() == SaltHashKind::Mod {
            let i = by[0];
            let modulo = self.ops[i].modulo.expect("checked when parsed");
            return modulo(&values[i], s.buckets(), &fields[i]);
        }
        // The separator that ends the last `by` field is not hashed.
        let last_sep = by.last().map_or(0, |&i| fields[i].sep_len());
        let hash = |bytes: &[u8]| match s.hash() {
            SaltHashKind::Java => JavaHash::bucket(&[bytes], s.buckets()),
            _ => Xxh3::bucket(&[bytes], s.buckets()),
        };
        if let [i] = by[..] {
            // One field (the usual salt): its bytes where they are.
            let e = encoded(i);
            return Ok(hash(&e[..e.len().saturating_sub(last_sep)]));
        }
        let mut bytes = Vec::new();
        for &i in by {
            bytes.extend_from_slice(encoded(i));
        }
        bytes.truncate(bytes.len().saturating_sub(last_sep));
        Ok(hash(&bytes))
    }

    /// The values of `key`, one per field in key order. Every byte must
    /// belong to the key, as the derived type's `decode` requires. A key
    /// family decodes the key with the member whose prefix it has
    /// ([`member_of`](Self::member_of) says which).
    pub fn decode(&self, key: &[u8]) -> Result<Vec<Value>, DecodeError> {
        if !self.members.is_empty() {
            let member = self.member_of(key).ok_or(DecodeError::UnknownFamily {
                families: self.layout.name(),
            })?;
            return member.decode(key);
        }
        let prefix = self.layout.prefix();
        if !key.starts_with(prefix) {
            return Err(DecodeError::WrongPrefix { expected: prefix });
        }
        let mut pos = prefix.len();
        if let Some(s) = self.layout.salt() {
            s.head().read(&key[pos..], s.buckets())?;
            pos += s.len();
        }
        let mut values = Vec::with_capacity(self.ops.len());
        for (f, ops) in self.layout.fields().iter().zip(&self.ops) {
            let (v, end) = (ops.decode)(key, pos, f)?;
            values.push(v);
            pos = end;
        }
        if pos != key.len() {
            return Err(DecodeError::TrailingBytes {
                count: key.len() - pos,
            });
        }
        if self.oc.is_some() {
            return self.oc_canonical(key, values);
        }
        Ok(values)
    }

    /// Explains a key part by part, as the derived type's `explain` does:
    /// bytes, or text pasted from the HBase shell.
    pub fn explain<I: ExplainInput + ?Sized>(&self, key: &I) -> Explanation {
        crate::layout::explain::explain(self.layout, key)
    }

    /// Where a table of these keys should start split: one region per
    /// salt bucket (the derived type's `split_points()`).
    pub fn split_points(&self) -> Vec<Vec<u8>> {
        self.layout.split_points()
    }

    /// A field's value from its text: a number, `true`/`false`, a string
    /// as it is, bytes in HBase's `toStringBinary` form (`\x00` escapes), a
    /// char, an IP address, UUID or ULID in its usual text; `None` for an
    /// `Option` field's `None`.
    ///
    /// It also reads what [`Value`]'s `Display` writes, so a value printed
    /// reads back as itself: a string in double quotes with Rust's escapes
    /// (`"None"` is a string, `None` is not), bytes as `b"..."`, a char in
    /// single quotes, an `Option`'s value as `Some(...)` or alone.
    ///
    /// ```
    /// use rowkey_core::{DynLayout, Value};
    ///
    /// let layout = DynLayout::parse("[user_id u64][tag Option<String>]")?;
    /// assert_eq!(layout.value("user_id", "42")?, Value::U64(42));
    /// assert_eq!(layout.value("tag", "None")?, Value::Option(None));
    /// let some = |s: &str| Value::Option(Some(Box::new(Value::Str(s.into()))));
    /// assert_eq!(layout.value("tag", "\"None\"")?, some("None"));
    /// assert_eq!(layout.value("tag", "Some(\"a..b\")")?, some("a..b"));
    /// assert!(layout.value("user_id", "-1").is_err());
    /// # Ok::<(), rowkey_core::LayoutError>(())
    /// ```
    pub fn value(&self, field: &str, text: &str) -> Result<Value, LayoutError> {
        let i = self.field_index(field)?;
        let f = &self.layout.fields()[i];
        let err = |m: String| LayoutError::field(format!("field `{field}`"), m);
        if f.is_option() && text == "None" {
            return Ok(Value::Option(None));
        }
        let text = match text.strip_prefix("Some(").and_then(|t| t.strip_suffix(')')) {
            Some(inner) if f.is_option() => inner,
            _ => text,
        };
        // The quoted forms Display writes.
        let unquoted;
        let text = match (self.scalars[i], value::unquote(text)) {
            (Scalar::Str, Some(Quoted::Str(s))) | (Scalar::Char, Some(Quoted::Char(s))) => {
                unquoted = s;
                unquoted.as_str()
            }
            (Scalar::Bytes | Scalar::Opaque(_), Some(Quoted::Bytes(b))) => b,
            (_, Some(Quoted::Bad(why))) => return Err(err(why)),
            _ => text,
        };
        fn num<T: core::str::FromStr>(t: &str, ty: &str) -> Result<T, String> {
            t.parse().map_err(|_| format!("`{t}` is not {ty}"))
        }
        // A KeyField enum's variant by name: its discriminant.
        let discriminant = f.key_field().and_then(|k| k.discriminant(text));
        let owned;
        let text = match discriminant {
            Some(d) => {
                owned = format!("{d}");
                owned.as_str()
            }
            None => text,
        };
        let ty = self.scalars[i];
        let v = match ty {
            Scalar::Bool => Value::Bool(num(text, "a bool").map_err(err)?),
            Scalar::U8 => Value::U8(num(text, "a u8").map_err(err)?),
            Scalar::U16 => Value::U16(num(text, "a u16").map_err(err)?),
            Scalar::U32 => Value::U32(num(text, "a u32").map_err(err)?),
            Scalar::U64 => Value::U64(num(text, "a u64").map_err(err)?),
            Scalar::U128 => Value::U128(num(text, "a u128").map_err(err)?),
            Scalar::I8 => Value::I8(num(text, "an i8").map_err(err)?),
            Scalar::I16 => Value::I16(num(text, "an i16").map_err(err)?),
            Scalar::I32 => Value::I32(num(text, "an i32").map_err(err)?),
            Scalar::I64 => Value::I64(num(text, "an i64").map_err(err)?),
            Scalar::I128 => Value::I128(num(text, "an i128").map_err(err)?),
            Scalar::F32 => Value::F32(num(text, "a f32").map_err(err)?),
            Scalar::F64 => Value::F64(num(text, "a f64").map_err(err)?),
            Scalar::Char => Value::Char(num(text, "a char").map_err(err)?),
            Scalar::Str => Value::Str(text.into()),
            Scalar::Bytes | Scalar::Opaque(_) => Value::Bytes(
                crate::format::binary::from_string_binary(text).map_err(|e| err(format!("{e}")))?,
            ),
            Scalar::Ipv4 => {
                Value::from(num::<core::net::Ipv4Addr>(text, "an IPv4 address").map_err(err)?)
            }
            Scalar::Ipv6 => {
                Value::from(num::<core::net::Ipv6Addr>(text, "an IPv6 address").map_err(err)?)
            }
            Scalar::Ip => {
                Value::from(num::<core::net::IpAddr>(text, "an IP address").map_err(err)?)
            }
            #[cfg(feature = "uuid")]
            Scalar::Uuid => Value::from(num::<uuid::Uuid>(text, "a UUID").map_err(err)?),
            #[cfg(feature = "ulid")]
            Scalar::Ulid => Value::from(num::<ulid::Ulid>(text, "a ULID").map_err(err)?),
        };
        Ok(if f.is_option() {
            Value::Option(Some(Box::new(v)))
        } else {
            v
        })
    }

    /// A skip-scan filter (see [`KeyFilter`]) from one predicate per named
    /// field: the filter the derived type's `filter()` builds from the
    /// same predicates.
    pub fn filter(&self) -> DynFilter<'_> {
        DynFilter {
            layout: self,
            preds: Vec::new(),
        }
    }

    /// The scan of every key whose leading fields are `leading` and, when
    /// `next` is given, whose next field is in that range (in value order,
    /// as `range_by_*` takes it): one range per salt bucket, or one when
    /// the salt's `by` fields are among the leading ones. The same rows as
    /// the derived type's `range_by_*` / `scan_by_*`.
    ///
    /// # Panics
    /// When there are more leading values than fields, or a range after a
    /// value for every field.
    pub fn scan(
        &self,
        leading: &[Value],
        next: Option<(Bound<Value>, Bound<Value>)>,
    ) -> Result<Scan, EncodeError> {
        let n = self.ops.len();
        assert!(
            leading.len() + usize::from(next.is_some()) <= n,
            "DynLayout::scan: {} leading values and a range for {n} fields",
            leading.len()
        );
        if self.oc.is_some() {
            self.not_family()?;
            return self.oc_scan(leading, next);
        }
        let mut f = self.filter();
        for (i, v) in leading.iter().enumerate() {
            f.preds.push((i, Pred::Values(alloc::vec![v.clone()])));
        }
        if let Some((lo, hi)) = next {
            f.preds.push((leading.len(), Pred::Range(lo, hi)));
        }
        Ok(f.build_parts(Some(leading))?.scan())
    }
}

/// A [`KeyFilter`] under construction on a [`DynLayout`]: one predicate
/// per call, on a field by name, which must all hold.
///
/// ```
/// use rowkey_core::{DynLayout, Value};
///
/// let layout = DynLayout::parse("[user_id u64][ts i64]")?;
/// let filter = layout.filter().range("ts", Value::I64(10)..Value::I64(20))?.build()?;
/// let key = layout.encode(&[7u64.into(), 15i64.into()])?;
/// assert!(filter.matches(&key));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct DynFilter<'a> {
    layout: &'a DynLayout,
    preds: Vec<(usize, Pred)>,
}

impl DynFilter<'_> {
    /// The field `name` is `value`.
    pub fn eq(self, name: &str, value: impl Into<Value>) -> Result<Self, LayoutError> {
        self.any_of(name, [value.into()])
    }

    /// The field `name` is any of `values` (none: no key matches).
    pub fn any_of(
        mut self,
        name: &str,
        values: impl IntoIterator<Item = Value>,
    ) -> Result<Self, LayoutError> {
        let i = self.layout.field_index(name)?;
        self.preds
            .push((i, Pred::Values(values.into_iter().collect())));
        Ok(self)
    }

    /// The field `name` is in `range`, in value order (a `#[desc]`
    /// field's ends swap inside, as in `range_by_*`).
    pub fn range(
        mut self,
        name: &str,
        range: impl RangeBounds<Value>,
    ) -> Result<Self, LayoutError> {
        let i = self.layout.field_index(name)?;
        let lo = range.start_bound().cloned();
        let hi = range.end_bound().cloned();
        self.preds.push((i, Pred::Range(lo, hi)));
        Ok(self)
    }

    /// The filter, or the first value that cannot be encoded.
    pub fn build(self) -> Result<KeyFilter, EncodeError> {
        self.build_parts(None)
    }

    /// The filter; with `leading` values, the salt bucket they fix.
    fn build_parts(self, leading: Option<&[Value]>) -> Result<KeyFilter, EncodeError> {
        let l = self.layout;
        l.not_family()?;
        if l.oc.is_some() {
            return Err(EncodeError::NoFilter {
                layout: l.layout.name(),
            });
        }
        let mut parts = FilterParts::new(l.layout);
        for (i, pred) in &self.preds {
            parts = (l.ops[*i].constrain)(parts, *i, pred.clone(), &l.layout.fields()[*i]);
        }
        // The salt's `by` fields each fixed to one value: every match is in
        // their bucket.
        if let Some(s) = l.layout.salt() {
            let fields = l.layout.fields();
            let single = |i: usize| {
                let from_leading = leading.and_then(|v| v.get(i));
                from_leading.or_else(|| {
                    self.preds.iter().find_map(|(j, p)| match p {
                        Pred::Values(vs) if *j == i && vs.len() == 1 => Some(&vs[0]),
                        _ => None,
                    })
                })
            };
            let fixed: Option<Vec<(usize, &Value)>> =
                l.by.iter().map(|&i| single(i).map(|v| (i, v))).collect();
            if let Some(fixed) = fixed.filter(|f| !f.is_empty()) {
                let mut values: Vec<Value> = alloc::vec![Value::Bool(false); fields.len()];
                let mut encoded: Vec<Vec<u8>> = alloc::vec![Vec::new(); fields.len()];
                for (i, v) in fixed {
                    (l.ops[i].encode)(v, &mut encoded[i], &fields[i])?;
                    values[i] = v.clone();
                }
                let bucket = l.bucket_of(s, |i| &encoded[i], &values)?;
                parts.in_bucket(bucket);
            }
        }
        parts.build()
    }
}

pub(crate) fn build(spec: Spec) -> Result<DynLayout, LayoutError> {
    parse::check_spec(&spec)?;
    let sep: Option<&'static str> = match &spec.text_sep {
        None => None,
        Some((at, sep)) => {
            if sep.is_empty() || !sep.bytes().all(|b| b.is_ascii_graphic() || b == b' ') {
                return Err(LayoutError::new(
                    *at,
                    "format",
                    format!("the separator {sep:?} is not one or more printable ASCII characters"),
                ));
            }
            Some(leak(sep))
        }
    };
    if let (Some(at), Some(_)) = (spec.ordered_code, &spec.text_sep) {
        return Err(LayoutError::new(
            at,
            "format",
            "`ordered_code` and `text(...)` are two key formats: keep one",
        ));
    }
    let n = spec.fields.len();
    let mut fields = Vec::with_capacity(n);
    let mut ops = Vec::with_capacity(n);
    let mut scalars = Vec::with_capacity(n);
    let mut oc = None;
    if spec.ordered_code.is_some() {
        let built = ordered_code::fields(&spec)?;
        ordered_code::check_head(&spec, &built.rt)?;
        (fields, ops, scalars, oc) = (built.layouts, built.ops, built.scalars, Some(built.rt));
    }
    for (i, f) in spec.fields.iter().enumerate().filter(|_| oc.is_none()) {
        let last = i + 1 == n;
        let (layout, o, s) = match sep {
            Some(sep) => text_field(f, last, sep.as_bytes())?,
            None => field(f, last)?,
        };
        fields.push(layout);
        ops.push(o);
        scalars.push(s);
    }
    // An added field is followed only by added fields.
    if let Some(i) = spec.fields.iter().position(|f| f.added) {
        if let Some(f) = spec.fields[i..].iter().find(|f| !f.added) {
            return Err(LayoutError::new(
                f.at,
                format!("field `{}`", f.name),
                "a field after an `added` one must be `added` too (older keys end before them)",
            ));
        }
    }
    let prefix: &'static [u8] = match &spec.prefix {
        Some((at, bytes, width)) => {
            if let Some(w) = width.filter(|w| *w != bytes.len()) {
                return Err(LayoutError::new(
                    *at,
                    "prefix",
                    format!(
                        "the text gives width {w}, but the prefix is {} bytes",
                        bytes.len()
                    ),
                ));
            }
            Box::leak(bytes.clone().into_boxed_slice())
        }
        None => &[],
    };
    let salt = match &spec.salt {
        None => None,
        Some(s) => {
            let mut by: Vec<&'static str> = Vec::new();
            for (at, name) in &s.by {
                let Some(i) = spec.fields.iter().position(|f| &f.name == name) else {
                    return Err(LayoutError::new(
                        *at,
                        "salt",
                        format!("no field `{name}` to hash"),
                    ));
                };
                if spec.fields[i].added {
                    return Err(LayoutError::new(
                        *at,
                        "salt",
                        format!("`{name}` is added: older keys lack it"),
                    ));
                }
                by.push(fields[i].name());
            }
            if by.is_empty() {
                by = fields
                    .iter()
                    .filter(|f| !f.is_added())
                    .map(|f| f.name())
                    .collect();
            }
            // Key order, as the derive lists them.
            by.sort_by_key(|b| fields.iter().position(|f| f.name() == *b));
            by.dedup();
            if s.hash == SaltHashKind::Mod {
                let i = fields.iter().position(|f| f.name() == by[0]).unwrap_or(0);
                if by.len() != 1 || ops[i].modulo.is_none() {
                    return Err(LayoutError::new(
                        s.at,
                        "salt",
                        "a `mod` salt takes one unsigned integer field",
                    ));
                }
            }
            // A text key's bucket is the digits of buckets - 1, then the
            // separator.
            let head = match sep {
                None if oc.is_some() => Head::OrderedCode,
                None => Head::Byte,
                Some(sep) => Head::Text {
                    digits: decimal_digits(u64::from(s.buckets.max(1) - 1)) as u8,
                    sep: sep.as_bytes(),
                },
            };
            if let Some(w) = s.width.filter(|&w| w != head.len()) {
                return Err(LayoutError::new(
                    s.at,
                    "salt",
                    format!(
                        "the text gives width {w}, but the salt is {} bytes",
                        head.len()
                    ),
                ));
            }
            let by: &'static [&'static str] = Box::leak(by.into_boxed_slice());
            Some(SaltLayout::from_parts(s.buckets, s.hash, by, head))
        }
    };
    let fields: &'static [FieldLayout] = Box::leak(fields.into_boxed_slice());
    let name = spec.name.as_deref().map_or("DynLayout", leak);
    let format = match sep {
        None if oc.is_some() => Format::OrderedCode,
        None => Format::Binary,
        Some(sep) => Format::Text { sep },
    };
    let layout: &'static Layout =
        Box::leak(Box::new(Layout::__new(name, format, prefix, salt, fields)));
    if let Some((at, tail)) = spec.tail {
        let actual = match layout.fixed_len() {
            Some(n) => Width::Fixed(n),
            None => Width::AtLeast(layout.min_len()),
        };
        if tail != actual {
            return Err(LayoutError::new(
                at,
                "tail",
                format!(
                    "the text says {} bytes, but the parts make {} bytes",
                    show_tail(tail),
                    show_tail(actual)
                ),
            ));
        }
    }
    let by = layout.salt().map_or_else(Vec::new, |s| {
        s.by()
            .iter()
            .filter_map(|name| layout.fields().iter().position(|f| f.name() == *name))
            .collect()
    });
    Ok(DynLayout {
        layout,
        ops,
        scalars,
        members: Vec::new(),
        by,
        oc,
    })
}

fn show_tail(w: Width) -> String {
    match w {
        Width::Fixed(n) => format!("= {n}"),
        Width::AtLeast(n) => format!(">= {n}"),
    }
}

/// A field's descriptor and operations, as the derive would make them.
fn field(f: &FieldSpec, last: bool) -> Result<(FieldLayout, Ops, Scalar), LayoutError> {
    let part = format!("field `{}`", f.name);
    let err = |m: String| LayoutError::new(f.at, part.clone(), m);
    if f.digits.is_some() || f.desc_ts_max.is_some() {
        return Err(err(
            "`digits(N)` and `desc_ts(max = N)` are a text key's attributes (text(\"_\") [...])"
                .into(),
        ));
    }
    let norm = normalize_type(&f.ty);
    let (option, inner) = match norm
        .strip_prefix("Option<")
        .and_then(|r| r.strip_suffix('>'))
    {
        Some(inner) => (true, inner.to_owned()),
        None => (false, norm.clone()),
    };
    if f.added && !option {
        return Err(err(
            "an `added` field is an Option (older keys decode it as None)".into(),
        ));
    }
    if f.reverse && f.reverse_domain {
        return Err(err("`reverse` and `reverse_domain` together".into()));
    }
    let dir = if f.reverse {
        Dir::Rev
    } else if f.reverse_domain {
        Dir::Dom
    } else {
        Dir::Fwd
    };
    if let Some(e) = &f.key_field {
        return enum_field(f, e, (option, &inner), dir);
    }
    // A timestamp is stored as the i64 of its unit.
    let scalar = if f.unit.is_some() {
        Scalar::I64
    } else {
        match Scalar::of(&inner) {
            Some(s) => s,
            None => match f.width {
                Some(Width::Fixed(w)) if !option => Scalar::Opaque(w),
                _ => {
                    return Err(err(format!(
                        "`{}` is not a type the runtime knows: give its width (as in [{} {} 16]) to read it as opaque bytes{}",
                        f.ty,
                        f.name,
                        f.ty,
                        if option { ", outside an Option" } else { "" }
                    )))
                }
            },
        }
    };
    if f.reverse_domain && !scalar.is_var() {
        return Err(err("`reverse_domain` is for strings".into()));
    }
    if f.fixed.is_some() && !scalar.is_var() {
        return Err(err("`fixed(N)` is for strings and byte strings".into()));
    }
    if f.desc_ts && f.desc {
        return Err(err("`desc` and `desc_ts` together".into()));
    }
    let (encoding, ops) = match (scalar, f.fixed) {
        (s, Some((len, pad))) => {
            let ops = match (s, option) {
                (Scalar::Str, false) => ops::padded::<String>(len, dir),
                (_, false) => ops::padded::<Vec<u8>>(len, dir),
                (Scalar::Str, true) => ops::padded_option::<String>(len, dir),
                (_, true) => ops::padded_option::<Vec<u8>>(len, dir),
            };
            (
                Encoding::Padded {
                    len,
                    pad,
                    desc: f.desc,
                },
                ops,
            )
        }
        (Scalar::Str | Scalar::Bytes, None) => {
            if f.desc_ts {
                return Err(err("`desc_ts` is for integers and timestamps".into()));
            }
            let raw = last && !f.desc && !f.added;
            let ops = match scalar {
                Scalar::Str => ops::var::<String>(raw, f.desc, dir, option, f.added),
                _ => ops::var::<Vec<u8>>(raw, f.desc, dir, option, f.added),
            };
            let enc = if raw {
                Encoding::Raw
            } else {
                Encoding::Escaped { desc: f.desc }
            };
            (enc, ops)
        }
        (s, None) if f.desc_ts => {
            let ops = match s {
                Scalar::I64 => ops::desc_ts::<i64>(option, f.added),
                Scalar::U64 => ops::desc_ts::<u64>(option, f.added),
                Scalar::I32 => ops::desc_ts::<i32>(option, f.added),
                Scalar::U32 => ops::desc_ts::<u32>(option, f.added),
                _ => {
                    return Err(err(format!(
                        "`desc_ts` takes i64, u64, i32, u32 or a timestamp, not `{}`",
                        f.ty
                    )))
                }
            };
            if f.reverse {
                return Err(err("`reverse` with `desc_ts`".into()));
            }
            (Encoding::DescTs, ops)
        }
        (s, None) => {
            let (d, o, a) = (f.desc, option, f.added);
            let ops = match s {
                Scalar::Bool => ops::fixed::<bool>(d, dir, o, a),
                Scalar::U8 => ops::unsigned::<u8>(d, dir, o, a),
                Scalar::U16 => ops::unsigned::<u16>(d, dir, o, a),
                Scalar::U32 => ops::unsigned::<u32>(d, dir, o, a),
                Scalar::U64 => ops::unsigned::<u64>(d, dir, o, a),
                Scalar::U128 => ops::unsigned::<u128>(d, dir, o, a),
                Scalar::I8 => ops::fixed::<i8>(d, dir, o, a),
                Scalar::I16 => ops::fixed::<i16>(d, dir, o, a),
                Scalar::I32 => ops::fixed::<i32>(d, dir, o, a),
                Scalar::I64 => ops::fixed::<i64>(d, dir, o, a),
                Scalar::I128 => ops::fixed::<i128>(d, dir, o, a),
                Scalar::F32 => ops::fixed::<f32>(d, dir, o, a),
                Scalar::F64 => ops::fixed::<f64>(d, dir, o, a),
                Scalar::Char => ops::fixed::<char>(d, dir, o, a),
                Scalar::Opaque(w) => {
                    if option {
                        return Err(err(
                            "a run-time layout reads no opaque type inside an Option".into(),
                        ));
                    }
                    ops::opaque(w)
                }
                Scalar::Str | Scalar::Bytes => unreachable!("matched above"),
                s => match s {
                    Scalar::Ipv4 => ops::known::<core::net::Ipv4Addr>(d, dir, o, a),
                    Scalar::Ipv6 => ops::known::<core::net::Ipv6Addr>(d, dir, o, a),
                    #[cfg(feature = "uuid")]
                    Scalar::Uuid => ops::known::<uuid::Uuid>(d, dir, o, a),
                    #[cfg(feature = "ulid")]
                    Scalar::Ulid => ops::known::<ulid::Ulid>(d, dir, o, a),
                    _ => ops::known::<core::net::IpAddr>(d, dir, o, a),
                },
            };
            (Encoding::BigEndian { desc: f.desc }, ops)
        }
    };
    // A time type the runtime knows: decoded and explained through it.
    let ops = match f.unit {
        Some(unit) => {
            let inner = if option {
                inner.as_str()
            } else {
                norm.as_str()
            };
            let how = TimeHow {
                desc_ts: f.desc_ts,
                desc: f.desc,
                dir,
                option,
                added: f.added,
                text: false,
            };
            known_time(inner, ops, unit, how)
        }
        None => ops,
    };
    check_width(f, ops.width)?;
    // The type as far as the bytes go, as the derive names it.
    let kind = match scalar {
        Scalar::Str if option => "Option<str>".to_owned(),
        Scalar::Str => "str".to_owned(),
        Scalar::Bytes if option => "Option<bytes>".to_owned(),
        Scalar::Bytes => "bytes".to_owned(),
        _ => f.ty.clone(),
    };
    let mut layout = FieldLayout::__new(
        leak(&f.name),
        leak(&f.ty),
        leak(&kind),
        encoding,
        ops.width,
        [option, f.added, f.reverse, f.reverse_domain],
        0,
        Some(ops.read),
    );
    if let Some(unit) = f.unit {
        layout = layout.__unit(unit);
    }
    Ok((layout, ops, scalar))
}

/// A `#[derive(KeyField)]` enum field of a binary key: its repr integer
/// as the derive stores it (`Fixed`, under `desc`/`reverse`, in an
/// `Option` or added), only its variants' discriminants being values.
/// `field` checked what every field's text must be (`option`, `inner`).
fn enum_field(
    f: &FieldSpec,
    e: &EnumSpec,
    (option, inner): (bool, &str),
    dir: Dir,
) -> Result<(FieldLayout, Ops, Scalar), LayoutError> {
    if f.fixed.is_some() || f.desc_ts || f.reverse_domain || f.unit.is_some() {
        return Err(LayoutError::new(
            f.at,
            format!("field `{}`", f.name),
            "a KeyField enum takes `desc`, `reverse` and `added` (fixed, desc_ts, reverse_domain and ts are for strings and timestamps)",
        ));
    }
    let (d, o, a) = (f.desc, option, f.added);
    let (ops, scalar) = match e.repr.as_str() {
        "u8" => (ops::key_field::<u8>(d, dir, o, a), Scalar::U8),
        "u16" => (ops::key_field::<u16>(d, dir, o, a), Scalar::U16),
        "u32" => (ops::key_field::<u32>(d, dir, o, a), Scalar::U32),
        "u64" => (ops::key_field::<u64>(d, dir, o, a), Scalar::U64),
        "u128" => (ops::key_field::<u128>(d, dir, o, a), Scalar::U128),
        "i8" => (ops::key_field::<i8>(d, dir, o, a), Scalar::I8),
        "i16" => (ops::key_field::<i16>(d, dir, o, a), Scalar::I16),
        "i32" => (ops::key_field::<i32>(d, dir, o, a), Scalar::I32),
        "i64" => (ops::key_field::<i64>(d, dir, o, a), Scalar::I64),
        _ => (ops::key_field::<i128>(d, dir, o, a), Scalar::I128),
    };
    check_width(f, ops.width)?;
    let info = key_field_info(inner, e);
    let layout = FieldLayout::__new(
        leak(&f.name),
        leak(&f.ty),
        leak(&f.ty),
        Encoding::BigEndian { desc: f.desc },
        ops.width,
        [option, f.added, f.reverse, false],
        0,
        Some(ops.read),
    )
    .__key_field(Some(info));
    Ok((layout, ops, scalar))
}

/// The descriptor's [`KeyFieldInfo`](crate::KeyFieldInfo) of an enum
/// `ty` (its name is the last segment of its path), with the derive's
/// error for a discriminant of no variant.
fn key_field_info(ty: &str, e: &EnumSpec) -> crate::KeyFieldInfo {
    let name = ty.rsplit("::").next().unwrap_or(ty).to_owned();
    let variants: Vec<(&'static str, i128)> =
        e.variants.iter().map(|(n, d)| (leak(n), *d)).collect();
    crate::KeyFieldInfo::__new(
        leak(&name),
        leak(&e.repr),
        Box::leak(variants.into_boxed_slice()),
        leak(&format!("not the discriminant of a variant of `{name}`")),
    )
}

/// A `#[derive(KeyField)]` enum field of a text key: its discriminant's
/// digits, as the derive writes a user `Decimal` (`digits(N)` or the
/// repr's width, a sign character for a signed repr; no `desc` or
/// `reverse`, which the derive refuses on it too).
fn text_enum_field(
    f: &FieldSpec,
    e: &EnumSpec,
    last: bool,
    sep: &'static [u8],
) -> Result<(FieldLayout, Ops, Scalar), LayoutError> {
    let err = |m: &str| LayoutError::new(f.at, format!("field `{}`", f.name), m);
    if normalize_type(&f.ty).starts_with("Option<") || f.added {
        return Err(err(
            "Option fields are not supported in text keys: None has no text that sorts and parses back",
        ));
    }
    if f.desc || f.reverse {
        return Err(err(
            "`desc` and `reverse` on a KeyField enum in a text key: only the built-in unsigned integers sort descending or reverse their digits there",
        ));
    }
    if f.fixed.is_some() || f.desc_ts || f.reverse_domain || f.unit.is_some() {
        return Err(err(
            "a KeyField enum in a text key takes `digits(N)` only (its discriminant's digits)",
        ));
    }
    let sep_len = if last { 0 } else { sep.len() };
    macro_rules! digits {
        ($t:ty, $scalar:ident) => {{
            let digits = f.digits.unwrap_or(<$t as crate::text::Decimal>::DIGITS);
            let width = digits + usize::from(<$t as crate::text::Decimal>::SIGNED) + sep_len;
            (
                digits,
                ops::key_field_digits::<$t>(width, Dir::Fwd),
                Scalar::$scalar,
            )
        }};
    }
    let (digits, ops, scalar) = match e.repr.as_str() {
        "u8" => digits!(u8, U8),
        "u16" => digits!(u16, U16),
        "u32" => digits!(u32, U32),
        "u64" => digits!(u64, U64),
        "u128" => digits!(u128, U128),
        "i8" => digits!(i8, I8),
        "i16" => digits!(i16, I16),
        "i32" => digits!(i32, I32),
        "i64" => digits!(i64, I64),
        _ => digits!(i128, I128),
    };
    check_width(f, ops.width)?;
    // As the derive describes a user `Decimal`: no sign flag (the width
    // says it).
    let encoding = Encoding::Digits {
        digits,
        signed: false,
        desc: false,
    };
    let layout = FieldLayout::__new(
        leak(&f.name),
        leak(&f.ty),
        leak(&f.ty),
        encoding,
        ops.width,
        [false; 4],
        sep_len,
        Some(ops.read),
    )
    .with_sep(sep)
    .__key_field(Some(key_field_info(&normalize_type(&f.ty), e)));
    Ok((layout, ops, scalar))
}

/// The number of decimal digits of `n` (at least 1).
fn decimal_digits(mut n: u64) -> usize {
    let mut d = 1;
    while n >= 10 {
        n /= 10;
        d += 1;
    }
    d
}

/// A text key's field (`text("_") ...`): decimal digits, `max - ts`
/// digits, strings up to the separator or padded, the last raw.
fn text_field(
    f: &FieldSpec,
    last: bool,
    sep: &'static [u8],
) -> Result<(FieldLayout, Ops, Scalar), LayoutError> {
    let part = format!("field `{}`", f.name);
    let err = |m: &str| LayoutError::new(f.at, part.clone(), m);
    if let Some(e) = &f.key_field {
        return text_enum_field(f, e, last, sep);
    }
    let norm = normalize_type(&f.ty);
    if norm.starts_with("Option<") || f.added {
        return Err(err("a text key has no Option fields"));
    }
    if f.reverse && f.reverse_domain {
        return Err(err("`reverse` and `reverse_domain` together"));
    }
    let dir = if f.reverse {
        Dir::Rev
    } else if f.reverse_domain {
        Dir::Dom
    } else {
        Dir::Fwd
    };
    let sep_len = if last { 0 } else { sep.len() };
    let scalar = if f.unit.is_some() {
        Scalar::I64
    } else {
        Scalar::of(&norm).ok_or_else(|| {
            err(&format!(
                "`{}` is not a type a run-time text layout knows (integers, timestamps with ts(unit), strings)",
                f.ty
            ))
        })?
    };
    if f.digits.is_some()
        && !matches!(
            scalar,
            Scalar::U8
                | Scalar::U16
                | Scalar::U32
                | Scalar::U64
                | Scalar::U128
                | Scalar::I8
                | Scalar::I16
                | Scalar::I32
                | Scalar::I64
                | Scalar::I128
        )
    {
        return Err(err("`digits(N)` is for integers"));
    }
    let (encoding, ops) = match scalar {
        Scalar::Str => {
            if f.desc || f.desc_ts || f.digits.is_some() {
                return Err(err(
                    "a text key's string takes `fixed(N)`, `reverse` or `reverse_domain` only",
                ));
            }
            match (f.fixed, last) {
                (Some((_, pad)), _) if !(0x20..0x7F).contains(&pad) => {
                    return Err(err(
                        "a text key's `fixed(N)` pads with a printable character, never NUL bytes: name it, as in fixed(8, pad = ' ')",
                    ));
                }
                (Some((len, pad)), _) => (
                    Encoding::Padded {
                        len,
                        pad,
                        desc: false,
                    },
                    ops::padded::<String>(len + sep_len, dir),
                ),
                (None, true) => (
                    Encoding::Raw,
                    ops::var::<String>(true, false, dir, false, false),
                ),
                (None, false) => {
                    if f.reverse {
                        return Err(err("`reverse` on a string between separators"));
                    }
                    let mut o = ops::delimited::<String>(dir);
                    o.width = FieldWidth::Variable { min: sep.len() };
                    (Encoding::Delimited, o)
                }
            }
        }
        _ if f.fixed.is_some() => return Err(err("`fixed(N)` is for strings")),
        s if s.is_known() => {
            if f.desc || f.desc_ts || f.digits.is_some() {
                return Err(err(&format!(
                    "`{}` takes `reverse` only in a text key",
                    f.ty
                )));
            }
            let o = match s {
                Scalar::Ipv4 => ops::known_text::<core::net::Ipv4Addr>(15 + sep_len, dir),
                Scalar::Ipv6 => ops::known_text::<core::net::Ipv6Addr>(39 + sep_len, dir),
                #[cfg(feature = "uuid")]
                Scalar::Uuid => ops::known_text::<uuid::Uuid>(36 + sep_len, dir),
                #[cfg(feature = "ulid")]
                Scalar::Ulid => ops::known_text::<ulid::Ulid>(26 + sep_len, dir),
                _ => ops::known_text::<core::net::IpAddr>(40 + sep_len, dir),
            };
            (Encoding::TextForm, o)
        }
        _ if f.desc_ts => {
            // MAX - ts in the digits of MAX (i32::MAX for 32-bit types).
            let (o, default_max): (fn(usize) -> Ops, u64) = match scalar {
                Scalar::I64 => (ops::text_desc_ts::<i64>, i64::MAX as u64),
                Scalar::U64 => (ops::text_desc_ts::<u64>, i64::MAX as u64),
                Scalar::I32 => (ops::text_desc_ts::<i32>, i32::MAX as u64),
                Scalar::U32 => (ops::text_desc_ts::<u32>, i32::MAX as u64),
                _ => return Err(err("`desc_ts` takes i64, u64, i32, u32 or a timestamp")),
            };
            let max = f.desc_ts_max.unwrap_or(default_max);
            let digits = f.digits.unwrap_or_else(|| decimal_digits(max));
            if digits < decimal_digits(max) {
                return Err(err(
                    "`digits(N)` is too small for desc_ts: MAX - ts can be as large as MAX",
                ));
            }
            (Encoding::DescTsDigits { digits, max }, o(digits + sep_len))
        }
        _ => {
            macro_rules! int {
                ($t:ty, $make:path) => {{
                    let digits = f.digits.unwrap_or(<$t as crate::text::Decimal>::DIGITS);
                    let signed = <$t as crate::text::Decimal>::SIGNED;
                    if f.desc && signed {
                        return Err(err("`desc` on a signed integer in a text key: only unsigned integers sort descending there"));
                    }
                    if f.reverse && signed {
                        return Err(err("`reverse` on a signed integer in a text key: only the digits of unsigned integers are reversed there"));
                    }
                    let width = digits + usize::from(signed) + sep_len;
                    (Encoding::Digits { digits, signed, desc: f.desc }, $make(width, dir))
                }};
            }
            match scalar {
                Scalar::U8 => int!(u8, ops::unsigned_digits::<u8>),
                Scalar::U16 => int!(u16, ops::unsigned_digits::<u16>),
                Scalar::U32 => int!(u32, ops::unsigned_digits::<u32>),
                Scalar::U64 => int!(u64, ops::unsigned_digits::<u64>),
                Scalar::U128 => int!(u128, ops::unsigned_digits::<u128>),
                Scalar::I8 => int!(i8, ops::digits::<i8>),
                Scalar::I16 => int!(i16, ops::digits::<i16>),
                Scalar::I32 => int!(i32, ops::digits::<i32>),
                Scalar::I64 => int!(i64, ops::digits::<i64>),
                Scalar::I128 => int!(i128, ops::digits::<i128>),
                _ => {
                    return Err(err(&format!(
                        "`{}` has no text form a run-time layout reads (integers, timestamps with ts(unit), strings)",
                        f.ty
                    )))
                }
            }
        }
    };
    if f.reverse_domain && scalar != Scalar::Str {
        return Err(err("`reverse_domain` is for strings"));
    }
    // A time type the runtime knows: decoded and explained through it.
    let ops = match f.unit {
        Some(unit) => {
            let how = TimeHow {
                desc_ts: f.desc_ts,
                desc: f.desc,
                dir,
                option: false,
                added: false,
                text: true,
            };
            known_time(&norm, ops, unit, how)
        }
        None => ops,
    };
    check_width(f, ops.width)?;
    let kind = if scalar == Scalar::Str {
        "str".to_owned()
    } else {
        f.ty.clone()
    };
    let mut layout = FieldLayout::__new(
        leak(&f.name),
        leak(&f.ty),
        leak(&kind),
        encoding,
        ops.width,
        [false, false, f.reverse, f.reverse_domain],
        sep_len,
        Some(ops.read),
    )
    .with_sep(sep);
    if let Some(unit) = f.unit {
        layout = layout.__unit(unit);
    }
    Ok((layout, ops, scalar))
}

/// How a timestamp field is stored, for [`known_time`] (unread without
/// a time crate's feature).
#[derive(Clone, Copy)]
#[cfg_attr(
    not(any(feature = "chrono", feature = "time", feature = "jiff")),
    allow(dead_code)
)]
struct TimeHow {
    desc_ts: bool,
    desc: bool,
    dir: Dir,
    option: bool,
    added: bool,
    text: bool,
}

/// A `ts(unit)` field of a time type the runtime knows by name (with its
/// feature): `base` (the `i64` ops) decoded and explained through the type;
/// another type keeps `base`, its value the `i64` of its unit.
fn known_time(ty: &str, base: Ops, unit: crate::TimeUnit, how: TimeHow) -> Ops {
    let _ = (unit, how);
    // The field's ops through the time type `T`.
    #[allow(unused_macros)]
    macro_rules! through {
        ($t:ty) => {
            if how.text {
                ops::text_time::<$t>(base, unit, how.desc_ts, how.dir)
            } else {
                ops::time::<$t>(
                    base,
                    unit,
                    how.desc_ts,
                    how.desc,
                    how.dir,
                    how.option,
                    how.added,
                )
            }
        };
    }
    match crate::layout::explain::strip_paths(ty).as_str() {
        #[cfg(feature = "chrono")]
        "DateTime<Utc>" => through!(chrono::DateTime<chrono::Utc>),
        #[cfg(feature = "time")]
        "OffsetDateTime" => through!(time::OffsetDateTime),
        #[cfg(feature = "time")]
        "PrimitiveDateTime" => through!(time::PrimitiveDateTime),
        // Only jiff's by its path, as the derive reads it.
        #[cfg(feature = "jiff")]
        "Timestamp" if ty == "jiff::Timestamp" => through!(jiff::Timestamp),
        _ => base,
    }
}

/// A key family of `members`, as `#[derive(RowKey)]` on an enum makes one:
/// every member prefixed, no prefix equal to or the start of another (so
/// that a key's prefix names its member), the names distinct.
pub(crate) fn family(members: Vec<DynLayout>) -> Result<DynLayout, LayoutError> {
    for (i, a) in members.iter().enumerate() {
        let (pa, na) = (a.layout.prefix(), a.layout.name());
        if pa.is_empty() {
            return Err(LayoutError::field(
                format!("member `{na}`"),
                "a key family's member has a prefix, which names it in a key",
            ));
        }
        for b in &members[i + 1..] {
            let (pb, nb) = (b.layout.prefix(), b.layout.name());
            if na == nb {
                return Err(LayoutError::field(
                    format!("member `{na}`"),
                    "two members of this name",
                ));
            }
            if pa.starts_with(pb) || pb.starts_with(pa) {
                return Err(LayoutError::field(
                    format!("members `{na}` and `{nb}`"),
                    "one's prefix starts the other's: a key could not say which it is",
                ));
            }
        }
    }
    let layouts: Vec<&'static Layout> = members.iter().map(|m| m.layout).collect();
    let layouts: &'static [&'static Layout] = Box::leak(layouts.into_boxed_slice());
    let layout: &'static Layout = Box::leak(Box::new(Layout::__family("DynLayout", layouts)));
    Ok(DynLayout {
        layout,
        ops: Vec::new(),
        scalars: Vec::new(),
        members,
        by: Vec::new(),
        oc: None,
    })
}

/// A width the text gives must be the field's.
fn check_width(f: &FieldSpec, width: FieldWidth) -> Result<(), LayoutError> {
    let actual = match width {
        FieldWidth::Fixed(n) => Width::Fixed(n),
        FieldWidth::Variable { min } => Width::AtLeast(min),
    };
    match f.width {
        Some(w) if w != actual => Err(LayoutError::new(
            f.at,
            format!("field `{}`", f.name),
            format!(
                "the text gives width {w}, but {} is {}",
                f.ty,
                match actual {
                    Width::Fixed(n) => format!("{n} bytes"),
                    Width::AtLeast(n) => format!("at least {n} bytes"),
                }
            ),
        )),
        _ => Ok(()),
    }
}
