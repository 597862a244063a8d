//! Reading a layout's one-line summary back: `[salt(user_id)/16 1][user_id
//! u64 8][ts_millis desc_ts i64 8][kind fixed(8) String 8] = 25 bytes`,
//! the widths and the `= N bytes` tail optional.

use alloc::borrow::ToOwned;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;

use crate::format::binary::from_string_binary;
use crate::format::time::TimeUnit;
use crate::layout::SaltHashKind;

/// A layout text that does not parse, or a layout the runtime cannot
/// build: where in the text, and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayoutError {
    at: Option<usize>,
    part: String,
    message: String,
}

impl LayoutError {
    pub(crate) fn new(at: usize, part: impl Into<String>, message: impl Into<String>) -> Self {
        LayoutError {
            at: Some(at),
            part: part.into(),
            message: message.into(),
        }
    }

    /// An error about a field or value of a parsed layout, not about its
    /// text.
    /// The same error at an offset `by` bytes later (a family member's
    /// error, in the whole text).
    pub(crate) fn shifted(mut self, by: usize) -> Self {
        self.at = self.at.map(|at| at + by);
        self
    }

    /// The same error without its offset (a JSON layout's parts have none
    /// in the text).
    #[cfg(feature = "json")]
    pub(crate) fn without_offset(mut self) -> Self {
        self.at = None;
        self
    }

    pub(crate) fn field(part: impl Into<String>, message: impl Into<String>) -> Self {
        LayoutError {
            at: None,
            part: part.into(),
            message: message.into(),
        }
    }

    /// The byte offset in the layout text where the part that is wrong
    /// starts; `None` for an error about a value or a field name.
    pub fn at(&self) -> Option<usize> {
        self.at
    }

    /// The part that is wrong: `field \`ts\``, `salt`, `prefix`, `tail`...
    pub fn part(&self) -> &str {
        &self.part
    }

    /// What is wrong with it.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for LayoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.at {
            Some(at) => write!(f, "{} (at byte {at}): {}", self.part, self.message),
            None => write!(f, "{}: {}", self.part, self.message),
        }
    }
}

impl core::error::Error for LayoutError {}

/// The salt part, as written.
pub(crate) struct SaltSpec {
    pub at: usize,
    pub buckets: u16,
    pub hash: SaltHashKind,
    pub by: Vec<(usize, String)>,
    pub width: Option<usize>,
}

/// One field part, as written.
pub(crate) struct FieldSpec {
    pub at: usize,
    pub name: String,
    pub ty: String,
    pub added: bool,
    pub unit: Option<TimeUnit>,
    pub desc: bool,
    pub desc_ts: bool,
    pub fixed: Option<(usize, u8)>,
    /// A text key's `digits(N)`.
    pub digits: Option<usize>,
    /// A text key's `desc_ts(max = N)`.
    pub desc_ts_max: Option<u64>,
    pub reverse: bool,
    pub reverse_domain: bool,
    pub width: Option<Width>,
    /// A `KeyField` enum: its repr and variants (`Kind(u8: Click = 1)`).
    pub key_field: Option<EnumSpec>,
}

/// A `KeyField` enum's repr and variants, as a summary writes them after
/// the type.
#[derive(Clone, Debug)]
pub(crate) struct EnumSpec {
    pub repr: String,
    pub variants: Vec<(String, i128)>,
}

/// A width as written: `8` or `>=2`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Width {
    Fixed(usize),
    AtLeast(usize),
}

/// The whole text.
pub(crate) struct Spec {
    pub name: Option<String>,
    pub text_sep: Option<(usize, String)>,
    /// `ordered_code [...]`: where the word is.
    pub ordered_code: Option<usize>,
    pub prefix: Option<(usize, Vec<u8>, Option<usize>)>,
    pub salt: Option<SaltSpec>,
    pub fields: Vec<FieldSpec>,
    pub tail: Option<(usize, Width)>,
}

pub(crate) fn parse(text: &str) -> Result<Spec, LayoutError> {
    let mut spec = Spec {
        name: None,
        text_sep: None,
        ordered_code: None,
        prefix: None,
        salt: None,
        fields: Vec::new(),
        tail: None,
    };
    let mut pos = skip_ws(text, 0);
    // `Name: [...]`, as a key family prints its members.
    if let Some((name, _)) = text[pos..]
        .split_once(':')
        .filter(|(n, _)| is_ident(n.trim()))
    {
        spec.name = Some(name.trim().to_owned());
        pos = skip_ws(text, pos + name.len() + 1);
    }
    if text[pos..].starts_with("text(") {
        let open = pos + "text(".len();
        let close = find_close(text, open, '(', ')')
            .ok_or_else(|| LayoutError::new(pos, "format", "`text(` has no closing `)`"))?;
        let sep = parse_rust_string(&text[open..close]).ok_or_else(|| {
            LayoutError::new(
                open,
                "format",
                "the separator is not a quoted string, as in text(\"_\")",
            )
        })?;
        spec.text_sep = Some((pos, sep));
        pos = skip_ws(text, close + 1);
    }
    if let Some(rest) = text[pos..].strip_prefix("ordered_code") {
        if rest.is_empty() || rest.starts_with(|c: char| c.is_whitespace() || c == '[') {
            spec.ordered_code = Some(pos);
            pos = skip_ws(text, pos + "ordered_code".len());
        }
    }
    while text[pos..].starts_with('[') {
        let end = find_close(text, pos + 1, '[', ']')
            .ok_or_else(|| LayoutError::new(pos, "layout", "a `[` part has no closing `]`"))?;
        part(&mut spec, text, pos, &text[pos + 1..end])?;
        pos = skip_ws(text, end + 1);
    }
    let rest = text[pos..].trim_end();
    if !rest.is_empty() {
        spec.tail = Some((pos, tail(rest, pos)?));
    }
    if spec.fields.is_empty() {
        return Err(LayoutError::new(
            0,
            "layout",
            "no fields: a layout is `[name type]` parts, as in [user_id u64][ts_millis desc_ts i64]",
        ));
    }
    Ok(spec)
}

fn tail(rest: &str, at: usize) -> Result<Width, LayoutError> {
    let err = || {
        LayoutError::new(
            at,
            "tail",
            format!("expected `= N bytes` or `>= N bytes` after the parts, found `{rest}`"),
        )
    };
    let (at_least, n) = if let Some(r) = rest.strip_prefix(">=") {
        (true, r)
    } else if let Some(r) = rest.strip_prefix('=') {
        (false, r)
    } else {
        return Err(err());
    };
    let n = n.trim().strip_suffix("bytes").ok_or_else(err)?.trim();
    let n: usize = n.parse().map_err(|_| err())?;
    Ok(if at_least {
        Width::AtLeast(n)
    } else {
        Width::Fixed(n)
    })
}

fn skip_ws(text: &str, pos: usize) -> usize {
    pos + (text[pos..].len() - text[pos..].trim_start().len())
}

/// The position of the `close` that balances an `open` before `from`,
/// skipping double-quoted strings (with `\` escapes) and `'c'` chars.
fn find_close(text: &str, from: usize, open: char, close: char) -> Option<usize> {
    let b = text.as_bytes();
    let mut depth = 1usize;
    let mut i = from;
    while i < b.len() {
        let c = b[i];
        if c == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
        } else if c == b'\'' && b.get(i + 2) == Some(&b'\'') {
            i += 2;
        } else if c == open as u8 {
            depth += 1;
        } else if c == close as u8 {
            depth -= 1;
            if depth == 0 {
                return Some(i);
            }
        }
        i += 1;
    }
    None
}

/// `"..."` with Rust's escapes (the ones a value's text takes).
fn parse_rust_string(s: &str) -> Option<String> {
    super::value::rust_escapes(s.trim().strip_prefix('"')?.strip_suffix('"')?)
}

fn part(spec: &mut Spec, text: &str, at: usize, body: &str) -> Result<(), LayoutError> {
    let body_at = at + 1;
    let trimmed = body.trim();
    // The prefix part is `prefix` and a quoted string; a field may be
    // named `prefix` (or `salt`) like any other.
    if let Some(rest) = trimmed
        .strip_prefix("prefix ")
        .filter(|r| r.trim_start().starts_with('"'))
    {
        if spec.prefix.is_some() || spec.salt.is_some() || !spec.fields.is_empty() {
            return Err(LayoutError::new(
                at,
                "prefix",
                "the prefix comes first, once",
            ));
        }
        let rest = rest.trim();
        let (quoted, width) = match rest.rfind('"') {
            Some(i) => (&rest[..=i], rest[i + 1..].trim()),
            None => (rest, ""),
        };
        let inner = quoted
            .strip_prefix('"')
            .and_then(|q| q.strip_suffix('"'))
            .filter(|_| quoted.len() >= 2)
            .ok_or_else(|| {
                LayoutError::new(
                    body_at,
                    "prefix",
                    "the prefix is a quoted string, as in [prefix \"u#\"]",
                )
            })?;
        let bytes = from_string_binary(inner)
            .map_err(|e| LayoutError::new(body_at, "prefix", format!("{e}")))?;
        let width = match width {
            "" => None,
            w => Some(w.parse::<usize>().map_err(|_| {
                LayoutError::new(
                    body_at,
                    "prefix",
                    format!("`{w}` is not the prefix's width in bytes"),
                )
            })?),
        };
        spec.prefix = Some((at, bytes, width));
        return Ok(());
    }
    if trimmed.starts_with("salt(") || trimmed.starts_with("salt/") {
        if spec.salt.is_some() || !spec.fields.is_empty() {
            return Err(LayoutError::new(
                at,
                "salt",
                "the salt comes before the fields, once",
            ));
        }
        spec.salt = Some(salt(body_at, trimmed)?);
        return Ok(());
    }
    let f = field(text, body_at, body)?;
    if spec.fields.iter().any(|g| g.name == f.name) {
        return Err(LayoutError::new(
            f.at,
            format!("field `{}`", f.name),
            "a second field of this name",
        ));
    }
    spec.fields.push(f);
    Ok(())
}

fn salt(at: usize, s: &str) -> Result<SaltSpec, LayoutError> {
    let err = |m: String| LayoutError::new(at, "salt", m);
    let rest = &s["salt".len()..];
    let (by, rest) = if let Some(r) = rest.strip_prefix('(') {
        let close = r
            .find(')')
            .ok_or_else(|| err("`salt(` has no closing `)`".into()))?;
        let mut by = Vec::new();
        let mut off = at + "salt(".len();
        for name in r[..close].split(',') {
            let n = name.trim();
            if !is_ident(n) {
                return Err(err(format!("`{n}` is not a field name")));
            }
            by.push((off + (name.len() - name.trim_start().len()), n.to_owned()));
            off += name.len() + 1;
        }
        (by, &r[close + 1..])
    } else {
        (Vec::new(), rest)
    };
    let rest = rest.strip_prefix('/').ok_or_else(|| {
        err("expected `/` and the number of buckets, as in salt(user_id)/16".into())
    })?;
    let mut words = rest.split_whitespace();
    let buckets = words.next().unwrap_or("");
    let buckets: u16 = buckets
        .parse()
        .ok()
        .filter(|b| (1..=256).contains(b))
        .ok_or_else(|| {
            err(format!(
                "`{buckets}` buckets: the number of buckets is 1 to 256"
            ))
        })?;
    let mut hash = SaltHashKind::Xxh3;
    let mut width = None;
    for w in words {
        match w {
            "xxh3" => hash = SaltHashKind::Xxh3,
            "java" => hash = SaltHashKind::Java,
            "mod" => hash = SaltHashKind::Mod,
            w => match w.parse::<usize>() {
                Ok(n) if width.is_none() => width = Some(n),
                _ => {
                    return Err(err(format!(
                        "unknown salt option `{w}` (expected java, mod or the width)"
                    )))
                }
            },
        }
    }
    Ok(SaltSpec {
        at,
        buckets,
        hash,
        by,
        width,
    })
}

fn is_ident(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_')
}

fn field(_text: &str, at: usize, body: &str) -> Result<FieldSpec, LayoutError> {
    let lead = body.len() - body.trim_start().len();
    let body = body.trim();
    let at = at + lead;
    let name_end = body.find(char::is_whitespace).unwrap_or(body.len());
    let name = &body[..name_end];
    if !is_ident(name) {
        return Err(LayoutError::new(
            at,
            "layout",
            format!(
                "`{name}` is not a part: a part is [name type], [salt(...)/N] or [prefix \"...\"]"
            ),
        ));
    }
    let part = format!("field `{name}`");
    let err = |off: usize, m: String| LayoutError::new(at + off, part.clone(), m);
    let mut f = FieldSpec {
        at,
        name: name.to_owned(),
        ty: String::new(),
        added: false,
        unit: None,
        desc: false,
        desc_ts: false,
        fixed: None,
        digits: None,
        desc_ts_max: None,
        reverse: false,
        reverse_domain: false,
        width: None,
        key_field: None,
    };
    let mut pos = name_end;
    // Attributes, each a word with its parentheses.
    loop {
        pos += body[pos..].len() - body[pos..].trim_start().len();
        let rest = &body[pos..];
        let word_end = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        let word = &rest[..word_end];
        let args = if rest[word_end..].starts_with('(') {
            let close = find_close(rest, word_end + 1, '(', ')')
                .ok_or_else(|| err(pos, format!("`{word}(` has no closing `)`")))?;
            Some((&rest[word_end + 1..close], close + 1))
        } else {
            None
        };
        let seen = |flag: bool| -> Result<(), LayoutError> {
            if flag {
                Err(err(pos, format!("`{word}` given twice")))
            } else {
                Ok(())
            }
        };
        let next_is_type = rest[word_end..].trim_start().is_empty();
        let taken = match (word, args) {
            _ if next_is_type => 0,
            ("added", None) => {
                seen(f.added)?;
                f.added = true;
                word_end
            }
            ("desc", None) => {
                seen(f.desc)?;
                f.desc = true;
                word_end
            }
            ("desc_ts", None) => {
                seen(f.desc_ts)?;
                f.desc_ts = true;
                word_end
            }
            ("reverse", None) => {
                seen(f.reverse)?;
                f.reverse = true;
                word_end
            }
            ("reverse_domain", None) => {
                seen(f.reverse_domain)?;
                f.reverse_domain = true;
                word_end
            }
            ("ts", Some((unit, len))) => {
                seen(f.unit.is_some())?;
                f.unit = Some(match unit.trim() {
                    "secs" => TimeUnit::Secs,
                    "millis" => TimeUnit::Millis,
                    "micros" => TimeUnit::Micros,
                    "nanos" => TimeUnit::Nanos,
                    u => {
                        return Err(err(
                            pos,
                            format!("unknown unit `{u}` (secs, millis, micros, nanos)"),
                        ))
                    }
                });
                len
            }
            ("fixed", Some((args, len))) => {
                seen(f.fixed.is_some())?;
                f.fixed = Some(fixed_args(args).map_err(|m| err(pos, m))?);
                len
            }
            ("digits", Some((n, len))) => {
                seen(f.digits.is_some())?;
                let d = n
                    .trim()
                    .parse::<usize>()
                    .ok()
                    .filter(|d| (1..=39).contains(d))
                    .ok_or_else(|| {
                        err(pos, format!("`digits({n})`: the width is 1 to 39 digits"))
                    })?;
                f.digits = Some(d);
                len
            }
            ("desc_ts", Some((args, len))) => {
                seen(f.desc_ts)?;
                let max = args
                    .split_once('=')
                    .filter(|(k, _)| k.trim() == "max")
                    .and_then(|(_, v)| v.trim().replace('_', "").parse::<u64>().ok())
                    .ok_or_else(|| {
                        err(
                            pos,
                            format!("`desc_ts({args})`: expected `desc_ts(max = N)`"),
                        )
                    })?;
                f.desc_ts = true;
                f.desc_ts_max = Some(max);
                len
            }
            _ => 0,
        };
        if taken == 0 {
            break;
        }
        pos += taken;
    }
    let rest = body[pos..].trim();
    if rest.is_empty() {
        return Err(err(
            pos,
            "no type: a field is [name attributes type width], as in [user_id u64 8]".into(),
        ));
    }
    // The width, if the last word is one.
    let (ty, width) = match rest.rsplit_once(char::is_whitespace) {
        Some((ty, w)) if parse_width(w).is_some() => (ty.trim(), parse_width(w)),
        _ => (rest, None),
    };
    if ty.is_empty() || parse_width(ty).is_some() {
        return Err(err(pos, format!("`{rest}` has no type")));
    }
    let (ty, key_field) = split_enum(ty).map_err(|m| err(pos, m))?;
    f.ty = ty.to_owned();
    f.key_field = key_field;
    f.width = width;
    Ok(f)
}

/// A type and, for a `KeyField` enum, the repr and variants after it:
/// `Kind(u8: Click = 1, View = 2)`, `Option<Kind>(u8: Click = 1)`.
fn split_enum(ty: &str) -> Result<(&str, Option<EnumSpec>), String> {
    // A type is one word (`Kind`, `Option<Kind>`): a `(` after a space
    // belongs to no enum, and the type is reported as it is.
    let Some(open) = ty
        .find('(')
        .filter(|&i| !ty[..i].contains(char::is_whitespace))
    else {
        return Ok((ty, None));
    };
    let (name, list) = (&ty[..open], &ty[open + 1..]);
    let inner = list
        .strip_suffix(')')
        .ok_or_else(|| format!("`{ty}`: an enum's variants end with `)`"))?;
    let (repr, variants) = inner.split_once(':').ok_or_else(|| {
        format!("`{ty}`: an enum's variants follow its repr, as in Kind(u8: Click = 1, View = 2)")
    })?;
    let repr = repr.trim();
    if ![
        "u8", "u16", "u32", "u64", "u128", "i8", "i16", "i32", "i64", "i128",
    ]
    .contains(&repr)
    {
        return Err(format!(
            "`{repr}` is not an enum's integer repr (u8 to u128, i8 to i128)"
        ));
    }
    let mut out = Vec::new();
    for v in variants.split(',') {
        let (n, d) = v
            .split_once('=')
            .ok_or_else(|| format!("`{}`: a variant is `Name = discriminant`", v.trim()))?;
        let (n, d) = (n.trim(), d.trim());
        let d: i128 = d
            .parse()
            .map_err(|_| format!("`{d}` is not the discriminant of `{n}`"))?;
        // Names and discriminants are checked with the JSON's, in
        // check_spec.
        out.push((n.to_owned(), d));
    }
    Ok((
        name.trim(),
        Some(EnumSpec {
            repr: repr.to_owned(),
            variants: out,
        }),
    ))
}

fn parse_width(w: &str) -> Option<Width> {
    match w.strip_prefix(">=") {
        Some(n) => n.parse().ok().map(Width::AtLeast),
        None => w.parse().ok().map(Width::Fixed),
    }
}

/// `8`, `8, pad = ' '`, `8, pad = 0x20`, `8, pad = 32`.
fn fixed_args(args: &str) -> Result<(usize, u8), String> {
    let (len, pad) = match args.split_once(',') {
        Some((l, p)) => (l.trim(), Some(p.trim())),
        None => (args.trim(), None),
    };
    let len: usize = len
        .parse()
        .ok()
        .filter(|&n| n > 0)
        .ok_or_else(|| format!("`fixed({args})`: the width is a number above 0"))?;
    let pad = match pad {
        None => 0,
        Some(p) => {
            let v = p
                .strip_prefix("pad")
                .map(str::trim_start)
                .and_then(|p| p.strip_prefix('='))
                .map(str::trim)
                .ok_or_else(|| format!("`fixed({args})`: expected `pad = ...` after the width"))?;
            if let Some(c) = v.strip_prefix('\'').and_then(|c| c.strip_suffix('\'')) {
                match c.as_bytes() {
                    [b] => *b,
                    _ => return Err(format!("`pad = {v}`: the pad is one ASCII byte")),
                }
            } else if let Some(h) = v.strip_prefix("0x").or_else(|| v.strip_prefix("0X")) {
                u8::from_str_radix(h, 16).map_err(|_| format!("`pad = {v}` is not a byte"))?
            } else {
                v.parse()
                    .map_err(|_| format!("`pad = {v}` is not a byte"))?
            }
        }
    };
    Ok((len, pad))
}

impl fmt::Display for Width {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Width::Fixed(n) => write!(f, "{n}"),
            Width::AtLeast(n) => write!(f, ">={n}"),
        }
    }
}

/// The type text without lifetimes and spaces: `&'a str` → `&str`,
/// `Cow<'a, [u8]>` → `Cow<[u8]>`.
pub(crate) fn normalize_type(ty: &str) -> String {
    let mut out = String::with_capacity(ty.len());
    let mut chars = ty.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\'' {
            // A lifetime: skip it and a `,` right after it.
            while chars
                .peek()
                .is_some_and(|c| c.is_alphanumeric() || *c == '_')
            {
                chars.next();
            }
            while chars.peek().is_some_and(|c| c.is_whitespace()) {
                chars.next();
            }
            if chars.peek() == Some(&',') {
                chars.next();
            }
            continue;
        }
        if !c.is_whitespace() {
            out.push(c);
        }
    }
    out.to_string()
}

/// A family's summary split into its members' texts, each with its offset
/// (`A: [...] | B: [...]`); one part for a struct. A `|` inside brackets
/// or quotes (a prefix, a separator) does not split.
pub(crate) fn members(text: &str) -> Vec<(usize, &str)> {
    let b = text.as_bytes();
    let (mut depth, mut i, mut start) = (0usize, 0usize, 0usize);
    let mut parts = Vec::new();
    while i < b.len() {
        match b[i] {
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'\'' if b.get(i + 2) == Some(&b'\'') => i += 2,
            b'[' | b'(' => depth += 1,
            b']' | b')' => depth = depth.saturating_sub(1),
            b'|' if depth == 0 => {
                parts.push((start, &text[start..i]));
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    parts.push((start, &text[start.min(text.len())..]));
    parts
}

/// The longest layout text (or JSON) [`DynLayout::parse`] and
/// [`DynLayout::from_json`] read: 64 KiB, far above any real layout's.
///
/// [`DynLayout::parse`]: super::DynLayout::parse
/// [`DynLayout::from_json`]: super::DynLayout::from_json
pub const MAX_LAYOUT_TEXT: usize = 64 * 1024;

/// The most fields a run-time layout (each member of a family) has.
pub const MAX_FIELDS: usize = 256;

/// The most members a run-time key family has.
pub const MAX_MEMBERS: usize = 256;

/// The widest part a run-time layout states, in bytes (a `fixed(N)`, a
/// width, `digits(N)`, a prefix), and the most its fixed parts add up to:
/// HBase's longest row key (`Short.MAX_VALUE`), which Bigtable's 4 KiB and
/// the stores' limits are below.
pub const MAX_PART_WIDTH: usize = i16::MAX as usize;

/// The longest separator a text key's layout may have, in bytes.
pub const MAX_SEPARATOR: usize = 16;

/// Refuses a text longer than [`MAX_LAYOUT_TEXT`].
pub(crate) fn check_text_len(text: &str) -> Result<(), LayoutError> {
    if text.len() > MAX_LAYOUT_TEXT {
        return Err(LayoutError::new(
            0,
            "layout",
            format!(
                "the text is {} bytes, more than the {MAX_LAYOUT_TEXT} a layout may be",
                text.len()
            ),
        ));
    }
    Ok(())
}

/// Refuses a key family of more than [`MAX_MEMBERS`] members.
pub(crate) fn check_member_count(n: usize) -> Result<(), LayoutError> {
    if n > MAX_MEMBERS {
        return Err(LayoutError::new(
            0,
            "layout",
            format!("{n} members, more than the {MAX_MEMBERS} a key family may have"),
        ));
    }
    Ok(())
}

/// The rules a layout's parts must keep whether they came from text or
/// JSON, checked before anything is built (so a layout refused here
/// leaves nothing behind): names, bucket counts, widths and their sum,
/// enum discriminants that fit their repr, `added` fields last, the salt's
/// fields.
pub(crate) fn check_spec(spec: &Spec) -> Result<(), LayoutError> {
    if spec.fields.len() > MAX_FIELDS {
        return Err(LayoutError::new(
            0,
            "layout",
            format!(
                "{} fields, more than the {MAX_FIELDS} a layout may have",
                spec.fields.len()
            ),
        ));
    }
    if let Some((at, sep)) = spec
        .text_sep
        .as_ref()
        .filter(|(_, s)| s.len() > MAX_SEPARATOR)
    {
        return Err(LayoutError::new(
            *at,
            "format",
            format!(
                "the separator is {} bytes, more than the {MAX_SEPARATOR} a text key's may be",
                sep.len()
            ),
        ));
    }
    if let Some(name) = spec.name.as_deref().filter(|n| !is_ident(n)) {
        return Err(LayoutError::new(
            0,
            "name",
            format!("`{name}` is not a name"),
        ));
    }
    let width_err = |at: usize, part: String, what: &str, n: usize| {
        LayoutError::new(
            at,
            part,
            format!("{what} {n} is wider than the {MAX_PART_WIDTH} bytes of a row key"),
        )
    };
    let mut total: usize = 0;
    if let Some((at, bytes, width)) = &spec.prefix {
        let n = width.unwrap_or(bytes.len()).max(bytes.len());
        if n > MAX_PART_WIDTH {
            return Err(width_err(*at, "prefix".into(), "the prefix's width", n));
        }
        total = n;
    }
    for (i, f) in spec.fields.iter().enumerate() {
        let part = || format!("field `{}`", f.name);
        let err = |m: String| LayoutError::new(f.at, part(), m);
        if !is_ident(&f.name) {
            return Err(err(format!("`{}` is not a field name", f.name)));
        }
        if spec.fields[..i].iter().any(|g| g.name == f.name) {
            return Err(err("a second field of this name".into()));
        }
        for n in [
            f.fixed.map(|(n, _)| n),
            f.digits,
            f.width.map(|w| match w {
                Width::Fixed(n) | Width::AtLeast(n) => n,
            }),
        ]
        .into_iter()
        .flatten()
        {
            if n > MAX_PART_WIDTH {
                return Err(width_err(f.at, part(), "a width of", n));
            }
        }
        // What the field adds at least: its stated width, else its
        // fixed(N) or digits(N).
        let least = match f.width {
            Some(Width::Fixed(n) | Width::AtLeast(n)) => Some(n),
            None => f.fixed.map(|(n, _)| n).or(f.digits),
        };
        if let Some(n) = least {
            total = total
                .checked_add(n)
                .filter(|&t| t <= MAX_PART_WIDTH)
                .ok_or_else(|| {
                    width_err(
                        f.at,
                        part(),
                        "the key's width up to it, at least",
                        total.saturating_add(n),
                    )
                })?;
        }
        if let Some(e) = &f.key_field {
            check_enum(e).map_err(err)?;
        }
        if f.added {
            continue;
        }
        if spec.fields[..i].iter().any(|g| g.added) {
            return Err(err(
                "a field after an `added` one must be `added` too (older keys end before them)"
                    .into(),
            ));
        }
    }
    if let Some(s) = &spec.salt {
        if !(1..=256).contains(&s.buckets) {
            return Err(LayoutError::new(
                s.at,
                "salt",
                format!("`{}` buckets: the number of buckets is 1 to 256", s.buckets),
            ));
        }
        for (at, name) in &s.by {
            match spec.fields.iter().find(|f| &f.name == name) {
                None => {
                    return Err(LayoutError::new(
                        *at,
                        "salt",
                        format!("no field `{name}` to hash"),
                    ))
                }
                Some(f) if f.added => {
                    return Err(LayoutError::new(
                        *at,
                        "salt",
                        format!("`{name}` is added: older keys lack it"),
                    ))
                }
                Some(_) => {}
            }
        }
    }
    Ok(())
}

/// A `KeyField` enum's variants: names, distinct names and discriminants,
/// each discriminant within its repr (as the derive requires).
fn check_enum(e: &EnumSpec) -> Result<(), String> {
    let (lo, hi): (i128, i128) = match e.repr.as_str() {
        "u8" => (0, u8::MAX.into()),
        "u16" => (0, u16::MAX.into()),
        "u32" => (0, u32::MAX.into()),
        "u64" => (0, u64::MAX.into()),
        "u128" => (0, i128::MAX),
        "i8" => (i8::MIN.into(), i8::MAX.into()),
        "i16" => (i16::MIN.into(), i16::MAX.into()),
        "i32" => (i32::MIN.into(), i32::MAX.into()),
        "i64" => (i64::MIN.into(), i64::MAX.into()),
        "i128" => (i128::MIN, i128::MAX),
        r => {
            return Err(format!(
                "`{r}` is not an enum's integer repr (u8 to u128, i8 to i128)"
            ))
        }
    };
    for (i, (n, d)) in e.variants.iter().enumerate() {
        if !is_ident(n) || e.variants[..i].iter().any(|(m, c)| m == n || c == d) {
            return Err(format!(
                "`{n} = {d}`: variants have distinct names and discriminants"
            ));
        }
        if !(lo..=hi).contains(d) {
            return Err(format!(
                "`{n} = {d}`: the discriminant does not fit the enum's repr `{}`",
                e.repr
            ));
        }
    }
    Ok(())
}

/// A width the text gives must be the field's.
pub(crate) fn check_width(
    f: &FieldSpec,
    width: crate::layout::FieldWidth,
) -> Result<(), LayoutError> {
    let actual = match width {
        crate::layout::FieldWidth::Fixed(n) => Width::Fixed(n),
        crate::layout::FieldWidth::Variable { min } => Width::AtLeast(min),
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
