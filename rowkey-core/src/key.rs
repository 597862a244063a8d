//! The traits that `#[derive(RowKey)]` implements.

#[cfg(feature = "alloc")]
use alloc::vec::Vec;

use crate::format::error::{DecodeError, EncodeError};
#[cfg(feature = "alloc")]
use crate::layout::explain::{ExplainInput, Explanation};
use crate::layout::{Layout, RustStr};

/// A struct that encodes to a row key. Implemented by `#[derive(RowKey)]`.
///
/// Fixed-width layouts also get inherent `LEN`, `try_encode()` and, when no
/// field can fail, `encode()`, which return `[u8; LEN]` on the stack.
///
#[cfg_attr(all(feature = "derive", feature = "alloc"), doc = "```")]
#[cfg_attr(not(all(feature = "derive", feature = "alloc")), doc = "```ignore")]
/// use rowkey_core::prelude::*;
///
/// #[derive(RowKey, Debug, PartialEq)]
/// struct Event<'a> {
///     user_id: u64,
///     #[desc_ts]
///     ts_millis: i64,
///     kind: &'a str,
/// }
///
/// let event = Event { user_id: 42, ts_millis: 1_700_000_000_000, kind: "click" };
/// let mut buf = [0u8; 64];
/// let n = event.encode_into(&mut buf).unwrap();
/// assert_eq!(n, event.encoded_len());
/// assert_eq!(n, 8 + 8 + 5);
/// assert_eq!(Event::decode(&buf[..n]).unwrap(), event);
/// assert_eq!(event.encode_to_vec().unwrap(), &buf[..n]);
/// ```
pub trait RowKey {
    /// `Some(len)` when every key of this type is `len` bytes long.
    const FIXED_LEN: Option<usize>;
    /// The fewest bytes a key of this type can have.
    const MIN_LEN: usize;
    /// The number of salt buckets, `None` for an unsalted key.
    const SALT_BUCKETS: Option<u16>;
    /// The bytes in front of the fields of every key of this type: the
    /// family prefix, then the salt (1 byte in a binary key, the bucket
    /// digits and the separator in a text key). The same number as
    /// [`Layout::head_len`] and [`Scan::head_len`](crate::Scan::head_len);
    /// merges of a salted scan skip it.
    const HEAD_LEN: usize = Self::LAYOUT.head_len();
    /// [`HEAD_LEN`](Self::HEAD_LEN) for a salted key, 0 for an unsalted one.
    #[deprecated(
        since = "0.1.0",
        note = "use `HEAD_LEN` (which also counts an unsalted key's family prefix)"
    )]
    const SALT_LEN: usize = match Self::SALT_BUCKETS {
        Some(_) => Self::HEAD_LEN,
        None => 0,
    };
    /// The bytes every key of this type starts with: its key family's
    /// `#[rowkey(prefix = "...")]` (followed by the separator in a text
    /// key), empty without one.
    const PREFIX: &'static [u8] = &[];
    /// The key's layout: its format, prefix, salt and fields. Its
    /// `Display` is a one-line summary (`{:#}`: a table). See
    /// [`layout`](crate::layout).
    const LAYOUT: &'static Layout;
    /// The layout's fingerprint, [`Layout::id`]: freeze it in a test with
    /// [`assert_layout`](crate::assert_layout).
    const LAYOUT_ID: u64 = Self::LAYOUT.id();

    /// The number of bytes [`encode_into`](Self::encode_into) writes.
    fn encoded_len(&self) -> usize;

    /// Writes the key at the start of `out` and returns its length.
    ///
    /// A buffer shorter than [`encoded_len`](Self::encoded_len) is an
    /// [`EncodeError::BufferTooSmall`], not a panic.
    fn encode_into(&self, out: &mut [u8]) -> Result<usize, EncodeError>;

    /// Explains a key of this type part by part: each part's offsets, raw
    /// bytes and value, and for a key that does not decode, where and why
    /// it stops. `key` is bytes, or text pasted from the HBase shell. See
    /// [`explain`](crate::layout::explain).
    #[cfg(feature = "alloc")]
    fn explain<I: ExplainInput + ?Sized>(key: &I) -> Explanation
    where
        Self: Sized,
    {
        crate::layout::explain::explain(Self::LAYOUT, key)
    }

    /// The key in a new vector of exactly its length.
    #[cfg(feature = "alloc")]
    fn encode_to_vec(&self) -> Result<Vec<u8>, EncodeError> {
        let mut out = alloc::vec![0; self.encoded_len()];
        let n = self.encode_into(&mut out)?;
        out.truncate(n);
        Ok(out)
    }
}

/// A row key that can be decoded from bytes. Implemented by
/// `#[derive(RowKey)]`.
///
/// `'de` is the lifetime of the input: borrowed fields (`&'de str`,
/// `&'de [u8]`) point into it.
pub trait DecodeRowKey<'de>: Sized {
    /// Decodes a whole key: every byte of `bytes` must belong to it.
    fn decode(bytes: &'de [u8]) -> Result<Self, DecodeError>;
}

/// Freezes a key's layout in a test: panics, showing the frozen and the
/// current layout, when `T`'s [`LAYOUT_ID`](crate::RowKey::LAYOUT_ID) is
/// not `id`.
///
/// Put one line per key type in your test suite. Start with `0` and an
/// empty summary: the failure prints the line to paste.
///
#[cfg_attr(feature = "derive", doc = "```")]
#[cfg_attr(not(feature = "derive"), doc = "```ignore")]
/// use rowkey_core::prelude::*;
///
/// #[derive(RowKey)]
/// struct Reading {
///     sensor: u32,
///     #[desc_ts]
///     ts: i64,
/// }
///
/// // In a #[test]:
/// rowkey_core::assert_layout::<Reading>(
///     0x4968_84dc_6f74_e3b3,
///     "[sensor u32 4][ts desc_ts i64 8] = 12 bytes",
/// );
/// ```
///
/// The summary is only shown: the fingerprint decides. It covers field
/// names, order, encoded types, widths and attributes, the salt, the prefix
/// and the format, so changing any of them fails the test, while renaming
/// the struct or switching `String` to `&str` (same bytes) does not.
#[track_caller]
pub fn assert_layout<T: RowKey>(id: u64, summary: &str) {
    let layout = T::LAYOUT;
    if id == 0 && summary.is_empty() {
        panic!(
            "no layout is frozen for `{name}` yet; freeze this one:\n\
             \x20   rowkey_core::assert_layout::<{name}>({now:#018x}, \"{quoted}\");",
            name = layout.name(),
            now = layout.id(),
            quoted = RustStr(layout),
        );
    }
    if layout.id() != id {
        #[cfg(feature = "alloc")]
        if let Some(gained) = gained_members(layout, summary) {
            panic!(
                "the key family `{name}` gained {gained}; every member frozen before is unchanged, so keys already written decode and sort as before\n\
                 frozen: {id:#018x} {summary}\n\
                 now:    {now:#018x} {layout}\n\
                 pre-split the new members' rows in tables that exist (their prefix and split points: \
                 `rowkey splits --member NAME --hbase-split TABLE`), then freeze the new layout:\n\
                 \x20   rowkey_core::assert_layout::<{name}>({now:#018x}, \"{quoted}\");",
                name = layout.name(),
                now = layout.id(),
                quoted = RustStr(layout),
            );
        }
        panic!(
            "the row key layout of `{name}` changed: keys already written may not decode or sort as before\n\
             frozen: {id:#018x} {summary}\n\
             now:    {now:#018x} {layout}\n\
             if no table holds keys of the frozen layout (or the change is one rowkey keeps compatible, \
             such as a `#[rowkey(added)]` field), freeze the new one:\n\
             \x20   rowkey_core::assert_layout::<{name}>({now:#018x}, \"{quoted}\");",
            name = layout.name(),
            now = layout.id(),
            quoted = RustStr(layout),
        );
    }
}

/// Freezes several key types' layouts at once: like [`assert_layout`] for
/// each, and on any difference it panics naming every changed or new type
/// and printing the whole block to paste, so a crate with eight key types
/// needs one run, not eight. Start with the types alone.
///
#[cfg_attr(all(feature = "derive", feature = "alloc"), doc = "```")]
#[cfg_attr(not(all(feature = "derive", feature = "alloc")), doc = "```ignore")]
/// use rowkey_core::prelude::*;
///
/// #[derive(RowKey)]
/// struct Reading {
///     sensor: u32,
///     #[desc_ts]
///     ts: i64,
/// }
///
/// #[derive(RowKey)]
/// #[salt(buckets = 4)]
/// struct Alert {
///     sensor: u32,
/// }
///
/// // In a #[test]. The first run, with `rowkey_core::assert_layouts!(Reading, Alert)`,
/// // panics and prints this block.
/// rowkey_core::assert_layouts! {
///     Reading => (0x496884dc6f74e3b3, "[sensor u32 4][ts desc_ts i64 8] = 12 bytes"),
///     Alert => (0x2072ffc729644e6a, "[salt(sensor)/4 1][sensor u32 4] = 5 bytes"),
/// }
/// let unfrozen = std::panic::catch_unwind(|| rowkey_core::assert_layouts!(Reading, Alert));
/// assert!(unfrozen.is_err());
/// ```
#[macro_export]
macro_rules! assert_layouts {
    ($($ty:ty $(=> ($id:expr, $summary:expr $(,)?))?),* $(,)?) => {
        $crate::__private::assert_layouts(&[$((
            ::core::stringify!($ty),
            <$ty as $crate::RowKey>::LAYOUT,
            $crate::__private::frozen!($(($id, $summary))?),
        )),*])
    };
}

/// The frozen `(id, summary)` of an [`assert_layouts!`] entry, if any.
#[doc(hidden)]
#[macro_export]
macro_rules! __rowkey_frozen {
    () => {
        ::core::option::Option::None
    };
    (($id:expr, $summary:expr)) => {
        ::core::option::Option::Some(($id, $summary))
    };
}

/// One [`assert_layouts!`] entry: the type as written, its layout and the
/// frozen `(id, summary)`, if any.
#[doc(hidden)]
#[cfg(feature = "alloc")]
pub type FrozenEntry<'a> = (&'a str, &'a Layout, Option<(u64, &'a str)>);

/// What [`assert_layouts!`] checks: each type as written, its layout and
/// the frozen `(id, summary)`.
#[cfg(feature = "alloc")]
#[doc(hidden)]
#[track_caller]
pub fn assert_layouts(keys: &[FrozenEntry<'_>]) {
    use alloc::format;
    use alloc::string::String;
    use core::fmt::Write as _;
    let (mut changed, mut block) = (
        String::new(),
        String::from("rowkey_core::assert_layouts! {\n"),
    );
    for (path, layout, frozen) in keys {
        let now = layout.id();
        // Writing to a String cannot fail.
        let _ = writeln!(
            block,
            "    {path} => ({now:#018x}, \"{}\"),",
            RustStr(layout)
        );
        let _ = match frozen {
            None => writeln!(changed, "- `{path}`: no layout is frozen yet"),
            Some((id, summary)) if *id != now => {
                let how = match gained_members(layout, summary) {
                    Some(gained) => format!(
                        "gained {gained}; every member frozen before is unchanged, so keys already written decode and sort as before (pre-split the new members' rows: `rowkey splits --member NAME --hbase-split TABLE`)"
                    ),
                    None => "changed: keys already written may not decode or sort as before".into(),
                };
                writeln!(
                    changed,
                    "- `{path}` {how}\n  frozen: {id:#018x} {summary}\n  now:    {now:#018x} {layout}"
                )
            }
            Some(_) => Ok(()),
        };
    }
    block.push('}');
    if !changed.is_empty() {
        panic!(
            "row key layouts not frozen as they are:\n{changed}\
             if no table holds keys of the frozen layouts (or the changes are ones rowkey keeps \
             compatible, such as `#[rowkey(added)]` fields), freeze them all:\n{block}"
        );
    }
}

/// When `layout` is a key family and `frozen` (a frozen summary) lists
/// members that are all among its members, each with the same summary:
/// the members it gained (`member `C``, `members `C`, `D``). The frozen
/// summary is the text [`assert_layout`] shows; the fingerprint still
/// decides that the layout changed, this only says how.
#[cfg(feature = "alloc")]
fn gained_members(layout: &Layout, frozen: &str) -> Option<alloc::string::String> {
    use alloc::format;
    use alloc::vec::Vec;
    if layout.members().is_empty() {
        return None;
    }
    let now: Vec<(&str, alloc::string::String)> = layout
        .members()
        .iter()
        .map(|m| (m.name(), format!("{}: {}", m.name(), m)))
        .collect();
    let old: Vec<&str> = frozen.split(" | ").map(str::trim).collect();
    let all_kept = !old.is_empty() && old.iter().all(|o| now.iter().any(|(_, n)| n == o));
    let new: Vec<alloc::string::String> = now
        .iter()
        .filter(|(_, n)| !old.contains(&n.as_str()))
        .map(|(name, _)| format!("`{name}`"))
        .collect();
    (all_kept && !new.is_empty()).then(|| {
        let word = if new.len() == 1 { "member" } else { "members" };
        format!("{word} {}", new.join(", "))
    })
}
