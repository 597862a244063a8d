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
//! bytes, [`MAX_FIELDS`] fields, [`MAX_MEMBERS`] members and a separator of
//! at most [`MAX_SEPARATOR`] bytes.
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
//! bytes of one descriptor. Parse a layout once and keep it. A text that
//! is refused leaves nothing behind: every check runs before anything is
//! leaked (but for a JSON whose `layout_id` alone is wrong, which is found
//! once its layout is built).

mod build;
#[cfg(feature = "json")]
mod json;
mod model;
mod oc_keys;
mod ops;
mod ordered_code;
mod parse;
mod scalar;
mod value;

use alloc::boxed::Box;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::ops::{Bound, RangeBounds};

pub use model::DynLayout;
pub use parse::{
    LayoutError, MAX_FIELDS, MAX_LAYOUT_TEXT, MAX_MEMBERS, MAX_PART_WIDTH, MAX_SEPARATOR,
};
use scalar::Scalar;
use value::Quoted;
pub use value::Value;

use self::build::{build, family};
use self::ops::Pred;
use crate::format::error::{DecodeError, EncodeError};
use crate::format::salt::{JavaHash, SaltHash, Xxh3};
use crate::layout::explain::{ExplainInput, Explanation};
use crate::layout::{FieldLayout, Layout, SaltHashKind, SaltLayout};
use crate::scan::{FilterParts, KeyFilter, Scan};

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
        parse::check_member_count(parts.len())?;
        // Every member read and checked, and the family's rules, before any
        // is built: a refused family leaves nothing behind.
        let mut specs = Vec::with_capacity(parts.len());
        for (at, part) in parts {
            let spec = parse::parse(part).map_err(|e| e.shifted(at))?;
            build::check(&spec).map_err(|e| e.shifted(at))?;
            specs.push(spec);
        }
        build::check_family(&specs.iter().collect::<Vec<_>>())?;
        let members = specs.iter().map(build::keep).collect::<Result<_, _>>()?;
        Ok(family(members))
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

    /// What field `i`'s values are, named as [`Value::kind`] names them
    /// (`"u64"`, `"str"`, `"bytes"`, `"f64"`...): the variant
    /// [`decode`](Self::decode) gives for it (inside `Some` for an
    /// `Option` field). An IP address, a UUID, a ULID and a type the
    /// runtime does not know are `"bytes"`: their key bytes. `None` past
    /// the last field.
    ///
    /// ```
    /// use rowkey_core::DynLayout;
    ///
    /// let layout = DynLayout::parse("[user_id u64][tag Option<String>][raw fixed(4) Vec<u8>]")?;
    /// assert_eq!((0..4).map(|i| layout.value_kind(i)).collect::<Vec<_>>(), [Some("u64"), Some("str"), Some("bytes"), None]);
    /// # Ok::<(), rowkey_core::LayoutError>(())
    /// ```
    pub fn value_kind(&self, i: usize) -> Option<&'static str> {
        Some(match self.scalars.get(i)? {
            Scalar::Bool => "bool",
            Scalar::U8 => "u8",
            Scalar::U16 => "u16",
            Scalar::U32 => "u32",
            Scalar::U64 => "u64",
            Scalar::U128 => "u128",
            Scalar::I8 => "i8",
            Scalar::I16 => "i16",
            Scalar::I32 => "i32",
            Scalar::I64 => "i64",
            Scalar::I128 => "i128",
            Scalar::F32 => "f32",
            Scalar::F64 => "f64",
            Scalar::Char => "char",
            Scalar::Str => "str",
            _ => "bytes",
        })
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
        // One allocation for a fixed-width key (the derive's
        // `encode_to_vec` makes one too), a first guess for the others.
        let mut out = Vec::with_capacity(self.capacity);
        out.extend_from_slice(self.layout.prefix());
        let head_at = out.len();
        if let Some(s) = self.layout.salt() {
            out.resize(head_at + s.len(), 0);
        }
        // Trailing added fields that are `None` are not written (keys
        // written before they were added end there).
        let written = if self.has_added {
            fields.len()
                - fields
                    .iter()
                    .zip(values)
                    .rev()
                    .take_while(|(f, v)| f.is_added() && matches!(v, Value::Option(None)))
                    .count()
        } else {
            fields.len()
        };
        let (fields, ops, values) = (&fields[..written], &self.ops[..written], &values[..written]);
        let Some(s) = self.layout.salt() else {
            for ((f, ops), v) in fields.iter().zip(ops).zip(values) {
                (ops.encode)(v, &mut out, f)?;
            }
            return Ok(out);
        };
        // Each field's place in the key, for the salt's `by` fields: on
        // the stack for up to 16 fields.
        let mut stack = [(0usize, 0usize); 16];
        let mut heap = Vec::new();
        let spans: &mut [(usize, usize)] = if written <= stack.len() {
            &mut stack[..written]
        } else {
            heap.resize(written, (0, 0));
            &mut heap
        };
        for (((f, ops), v), span) in fields.iter().zip(ops).zip(values).zip(spans.iter_mut()) {
            let start = out.len();
            (ops.encode)(v, &mut out, f)?;
            *span = (start, out.len());
        }
        let bucket = self.bucket_of(s, |i| &out[spans[i].0..spans[i].1], values)?;
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
        let mut values = Vec::with_capacity(self.ops.len());
        self.read_into(key, &mut values)?;
        Ok(values)
    }

    /// [`decode`](Self::decode) into `values` (cleared first), reusing its
    /// allocation: for a tool that reads many keys, one `Vec` for all of
    /// them (as `BufRead::read_line` reuses its `String`). On an error,
    /// `values` holds the fields read before it.
    ///
    /// ```
    /// use rowkey_core::{DynLayout, Value};
    ///
    /// let layout = DynLayout::parse("[user u64][kind String]")?;
    /// let mut values = Vec::new();
    /// for user in 0..3u64 {
    ///     let key = layout.encode(&[user.into(), "click".into()])?;
    ///     layout.decode_into(&key, &mut values)?;
    ///     assert_eq!(values, [Value::U64(user), Value::from("click")]);
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn decode_into(&self, key: &[u8], values: &mut Vec<Value>) -> Result<(), DecodeError> {
        values.clear();
        self.read_into(key, values)
    }

    /// [`decode_into`](Self::decode_into) into an empty `values`.
    #[inline(always)]
    fn read_into(&self, key: &[u8], values: &mut Vec<Value>) -> Result<(), DecodeError> {
        if !self.members.is_empty() {
            let member = self.member_of(key).ok_or(DecodeError::UnknownFamily {
                families: self.layout.name(),
            })?;
            return member.decode_into(key, values);
        }
        let prefix = self.layout.prefix();
        // Not `starts_with` for an empty prefix: on this project's
        // machines glibc's `memcmp` of no bytes took most of a decode's
        // time (BENCHMARKS.md, "Run-time layouts").
        if !prefix.is_empty() && !key.starts_with(prefix) {
            return Err(DecodeError::WrongPrefix { expected: prefix });
        }
        let mut pos = prefix.len();
        if let Some(s) = self.layout.salt() {
            s.head().read(&key[pos..], s.buckets())?;
            pos += s.len();
        }
        values.reserve(self.ops.len());
        for (f, ops) in self.layout.fields().iter().zip(&self.ops) {
            pos = (ops.decode)(key, pos, f, values)?;
        }
        if pos != key.len() {
            return Err(DecodeError::TrailingBytes {
                count: key.len() - pos,
            });
        }
        if self.oc.is_some() {
            return self.oc_canonical(key, values);
        }
        Ok(())
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

    /// What `text` asks of `field`: a value ([`value`](Self::value)'s
    /// text), or a range `LO..HI`, `LO..=HI`, `LO..` or `..HI` of values
    /// (a `..` inside quotes is part of a value): what `rowkey scan`'s
    /// `field=...` and the lab's `--query` read.
    ///
    /// ```
    /// use std::ops::Bound;
    /// use rowkey_core::dynamic::Condition;
    /// use rowkey_core::{DynLayout, Value};
    ///
    /// let layout = DynLayout::parse("[user_id u64][tag String]")?;
    /// assert_eq!(layout.condition("user_id", "7")?, Condition::Eq(Value::U64(7)));
    /// assert_eq!(
    ///     layout.condition("user_id", "7..=9")?,
    ///     Condition::Range(Bound::Included(Value::U64(7)), Bound::Included(Value::U64(9)))
    /// );
    /// assert_eq!(layout.condition("tag", "\"a..b\"")?, Condition::Eq(Value::Str("a..b".into())));
    /// assert!(layout.condition("user_id", "7..=").is_err());
    /// # Ok::<(), rowkey_core::LayoutError>(())
    /// ```
    pub fn condition(&self, field: &str, text: &str) -> Result<Condition, LayoutError> {
        let Some((lo, hi)) = split_range(text) else {
            return self.value(field, text).map(Condition::Eq);
        };
        let (hi, inclusive) = match hi.strip_prefix('=') {
            Some(h) => (h, true),
            None => (hi, false),
        };
        let lo = if lo.is_empty() {
            Bound::Unbounded
        } else {
            Bound::Included(self.value(field, lo)?)
        };
        let hi = match (hi.is_empty(), inclusive) {
            (true, false) => Bound::Unbounded,
            (true, true) => {
                return Err(LayoutError::field(
                    format!("field `{field}`"),
                    "`..=` needs an end",
                ))
            }
            (false, true) => Bound::Included(self.value(field, hi)?),
            (false, false) => Bound::Excluded(self.value(field, hi)?),
        };
        Ok(Condition::Range(lo, hi))
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
        // A KeyField enum's variant by name: its discriminant; else an
        // integer (encoding refuses one of no variant, listing them).
        let discriminant = f.key_field().and_then(|k| k.discriminant(text));
        if let (Some(k), None) = (f.key_field(), discriminant) {
            if text.parse::<i128>().is_err() {
                let listed: Vec<String> = k
                    .variants()
                    .iter()
                    .map(|(n, d)| alloc::format!("{n} ({d})"))
                    .collect();
                return Err(err(alloc::format!(
                    "`{text}` is not a variant of `{}`: one of {} (a name or its discriminant)",
                    k.name(),
                    listed.join(", ")
                )));
            }
        }
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

/// What a condition on one field asks ([`DynLayout::condition`]).
#[derive(Clone, Debug, PartialEq)]
pub enum Condition {
    /// The field is this value.
    Eq(Value),
    /// The field is in this range, in value order.
    Range(Bound<Value>, Bound<Value>),
}

/// `LO..HI` split at the first `..` outside quotes: `..` inside a quoted
/// string (`"a..b"`, `b"..."`, `'.'`) is part of the value.
fn split_range(text: &str) -> Option<(&str, &str)> {
    let bytes = text.as_bytes();
    let mut quote = None;
    let mut i = 0;
    while i < bytes.len() {
        match (quote, bytes[i]) {
            (Some(_), b'\\') => i += 1,
            (Some(q), b) if b == q => quote = None,
            (None, q @ (b'"' | b'\'')) => quote = Some(q),
            (None, b'.') if bytes.get(i + 1) == Some(&b'.') => {
                return Some((&text[..i], &text[i + 2..]));
            }
            _ => {}
        }
        i += 1;
    }
    None
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

    /// The field `name` meets `condition` ([`DynLayout::condition`]).
    pub fn condition(self, name: &str, condition: Condition) -> Result<Self, LayoutError> {
        match condition {
            Condition::Eq(v) => self.eq(name, v),
            Condition::Range(lo, hi) => self.range(name, (lo, hi)),
        }
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
