//! Bigtable's row-key regular expression for a filter's parts: each part's
//! bytes as a small regular language ([`Lang`]), and the RE2 text of the
//! completions between two bounds, written by a loop down each bound.

use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use super::width::Width;
use crate::format::escape;

/// The bytes a part may hold, as a regular language with a few states.
#[derive(Clone, Copy)]
pub(super) enum Lang {
    /// Exactly this many bytes.
    Fixed(usize),
    /// Escaped (`00` → `00 FF`, `desc`: inverted) and terminated.
    Escaped { desc: bool },
    /// Any bytes to the end of the key.
    Raw,
    /// Bytes other than the separator byte, then the separator.
    Delimited { sep: u8 },
}

/// Where a part's bytes are, read so far.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum State {
    /// A fixed-width part with this many bytes to go.
    Left(usize),
    /// Inside an escaped, raw or delimited part.
    Normal,
    /// Just after an escaped part's escape byte.
    AfterEscape,
    /// The part is whole.
    Done,
}

/// A part's bytes as a [`Lang`], when they are one (a tagged `Option`,
/// a multi-byte separator or an `OrderedCodeBytes` field is not).
pub(super) fn lang_of(width: Width<'_>) -> Option<Lang> {
    match width {
        Width::Fixed(n) => Some(Lang::Fixed(n)),
        Width::Escaped { desc } => Some(Lang::Escaped { desc }),
        Width::Raw => Some(Lang::Raw),
        Width::Delimited(&[sep]) => Some(Lang::Delimited { sep }),
        _ => None,
    }
}

/// An escaped field's escape byte, escaped zero and terminator as stored
/// (inverted when `desc`).
pub(super) fn escape_bytes(desc: bool) -> (u8, u8, u8) {
    let flip = if desc { 0xFF } else { 0x00 };
    (
        escape::ESCAPE ^ flip,
        escape::ESCAPED_ZERO ^ flip,
        escape::TERMINATOR ^ flip,
    )
}

/// `\xNN`: every byte escaped, so the pattern is ASCII.
pub(super) fn byte(b: u8) -> String {
    alloc::format!("\\x{b:02x}")
}

/// The bytes `lo..=hi`.
pub(super) fn class(lo: u8, hi: u8) -> String {
    match (lo, hi) {
        (0, 0xFF) => String::from("\\C"),
        _ if lo == hi => byte(lo),
        _ => alloc::format!("[{}-{}]", byte(lo), byte(hi)),
    }
}

/// `a|b|c` as one group; `None` when there is no alternative.
pub(super) fn alternation(mut alts: Vec<String>) -> Option<String> {
    match alts.len() {
        0 => None,
        1 => alts.pop(),
        _ => Some(alloc::format!("(?:{})", alts.join("|"))),
    }
}

impl Lang {
    pub(super) fn start(self) -> State {
        match self {
            Lang::Fixed(n) => State::Left(n),
            _ => State::Normal,
        }
    }

    pub(super) fn accepting(self, s: State) -> bool {
        match s {
            State::Left(n) => n == 0,
            State::Done => true,
            State::Normal => matches!(self, Lang::Raw),
            State::AfterEscape => false,
        }
    }

    /// The byte ranges valid in state `s`, each with the state it leads
    /// to, in byte order.
    pub(super) fn moves(self, s: State) -> Vec<(u8, u8, State)> {
        let around = |marker: u8, other: State, to: State| {
            let mut v = Vec::new();
            if marker > 0 {
                v.push((0, marker - 1, other));
            }
            v.push((marker, marker, to));
            if marker < 0xFF {
                v.push((marker + 1, 0xFF, other));
            }
            v
        };
        match (self, s) {
            (_, State::Left(0)) | (_, State::Done) => Vec::new(),
            (_, State::Left(n)) => vec![(0, 0xFF, State::Left(n - 1))],
            (Lang::Raw, _) => vec![(0, 0xFF, State::Normal)],
            (Lang::Delimited { sep }, _) => around(sep, State::Normal, State::Done),
            (Lang::Escaped { desc }, State::Normal) => {
                around(escape_bytes(desc).0, State::Normal, State::AfterEscape)
            }
            (Lang::Escaped { desc }, _) => {
                // After the escape byte: the escaped zero or the terminator.
                let (_, zero, end) = escape_bytes(desc);
                let mut v = vec![(zero, zero, State::Normal), (end, end, State::Done)];
                v.sort_by_key(|m| m.0);
                v
            }
            (Lang::Fixed(_), _) => Vec::new(),
        }
    }

    /// Every completion from state `s`.
    pub(super) fn rest(self, s: State) -> String {
        let body = |esc: u8, zero: u8, end: u8| {
            alloc::format!(
                "(?:[^{e}]|{e}{z})*{e}{t}",
                e = byte(esc),
                z = byte(zero),
                t = byte(end)
            )
        };
        match (self, s) {
            (_, State::Left(0)) | (_, State::Done) => String::new(),
            (_, State::Left(n)) => alloc::format!("\\C{{{n}}}"),
            (Lang::Raw, _) => String::from("\\C*"),
            (Lang::Delimited { sep }, _) => alloc::format!("[^{s}]*{s}", s = byte(sep)),
            (Lang::Escaped { desc }, State::Normal) => {
                let (esc, zero, end) = escape_bytes(desc);
                body(esc, zero, end)
            }
            (Lang::Escaped { desc }, _) => {
                let (_, zero, end) = escape_bytes(desc);
                alloc::format!(
                    "(?:{}{}|{})",
                    byte(zero),
                    self.rest(State::Normal),
                    byte(end)
                )
            }
            (Lang::Fixed(_), _) => String::new(),
        }
    }

    /// Completions `w` from `s` with `lo <= w` (`lo` `None`: any) and
    /// `w < hi` (`hi` `None`: any); `None` when there is none.
    ///
    /// Each byte of a bound gives a few alternatives of its own and at
    /// most one that goes on with the bound's next byte (two, once, where
    /// `lo` and `hi` first differ: each then follows one bound). The walk
    /// down a bound is a loop, not a recursion per byte, and the pattern
    /// is written once, front to back, with the groups closed at the end.
    pub(super) fn between(self, s: State, lo: Option<&[u8]>, hi: Option<&[u8]>) -> Option<String> {
        let (steps, end) = self.walk(s, lo, hi);
        // Whether step `k`'s group has any alternative (its own, or its
        // continuation's), from the last step back.
        let mut live = vec![false; steps.len() + 1];
        live[steps.len()] = end.is_some();
        for (k, step) in steps.iter().enumerate().rev() {
            live[k] = !step.before.is_empty() || !step.after.is_empty() || live[k + 1];
        }
        if !live[0] {
            return None;
        }
        let mut out = String::new();
        let mut closers: Vec<String> = Vec::new();
        for (k, step) in steps.iter().enumerate() {
            let go_on = live[k + 1];
            let count = step.before.len() + step.after.len() + usize::from(go_on);
            let open = count > 1;
            if open {
                out.push_str("(?:");
            }
            out.push_str(&step.before.join("|"));
            if !go_on {
                if !step.before.is_empty() && !step.after.is_empty() {
                    out.push('|');
                }
                out.push_str(&step.after.join("|"));
                if open {
                    out.push(')');
                }
                // Nothing goes on: close what is open and stop.
                closers.reverse();
                return Some(out + &closers.concat());
            }
            if !step.before.is_empty() {
                out.push('|');
            }
            out.push_str(&byte(step.byte));
            let mut close = String::new();
            if !step.after.is_empty() {
                close.push('|');
                close.push_str(&step.after.join("|"));
            }
            if open {
                close.push(')');
            }
            closers.push(close);
        }
        out.push_str(&end.unwrap_or_default());
        closers.reverse();
        Some(out + &closers.concat())
    }

    /// The steps of [`between`](Self::between) down its bounds, and the
    /// alternatives where the walk ends (`None`: none).
    pub(super) fn walk(
        self,
        mut s: State,
        lo: Option<&[u8]>,
        hi: Option<&[u8]>,
    ) -> (Vec<Step>, Option<String>) {
        let (mut lo, mut hi) = (lo, hi);
        let mut steps = Vec::new();
        loop {
            lo = lo.filter(|l| !l.is_empty());
            let mut step = Step::default();
            let mut next_state = None;
            match (lo, hi) {
                (_, Some([])) => return (steps, None),
                (None, None) => return (steps, Some(self.rest(s))),
                (None, Some(h)) => {
                    // w < hi: the empty completion, if whole; a smaller
                    // first byte; or hi's first byte and a smaller rest.
                    if self.accepting(s) {
                        step.before.push(String::new());
                    }
                    let b = h[0];
                    for (from, to, next) in self.moves(s) {
                        let alts = if next_state.is_some() {
                            &mut step.after
                        } else {
                            &mut step.before
                        };
                        if b > from {
                            alts.push(alloc::format!(
                                "{}{}",
                                class(from, to.min(b - 1)),
                                self.rest(next)
                            ));
                        }
                        if (from..=to).contains(&b) {
                            next_state = Some(next);
                        }
                    }
                    step.byte = b;
                    hi = Some(&h[1..]);
                }
                (Some(l), None) => {
                    // w >= lo: lo's first byte and a rest at least lo's;
                    // or a larger first byte.
                    let a = l[0];
                    for (from, to, next) in self.moves(s) {
                        if (from..=to).contains(&a) {
                            next_state = Some(next);
                        }
                        let alts = if next_state.is_some() {
                            &mut step.after
                        } else {
                            &mut step.before
                        };
                        if a < to {
                            alts.push(alloc::format!(
                                "{}{}",
                                class(from.max(a + 1), to),
                                self.rest(next)
                            ));
                        }
                    }
                    step.byte = a;
                    lo = Some(&l[1..]);
                }
                (Some(l), Some(h)) if l[0] == h[0] => {
                    let a = l[0];
                    next_state = self
                        .moves(s)
                        .into_iter()
                        .find(|m| (m.0..=m.1).contains(&a))
                        .map(|m| m.2);
                    step.byte = a;
                    lo = Some(&l[1..]);
                    hi = Some(&h[1..]);
                }
                (Some(l), Some(h)) => {
                    // a < b (the interval is not empty). First byte a: a
                    // rest at least lo's; first byte b: a rest below hi's;
                    // in between: anything. Each of the two walks follows
                    // one bound, so this splits once.
                    let (a, b) = (l[0], h[0]);
                    let mut alts = Vec::new();
                    for (from, to, next) in self.moves(s) {
                        if (from..=to).contains(&a) {
                            if let Some(r) = self.between(next, Some(&l[1..]), None) {
                                alts.push(alloc::format!("{}{r}", byte(a)));
                            }
                        }
                        let (m0, m1) = (from.max(a.saturating_add(1)), to.min(b.saturating_sub(1)));
                        if b > 0 && m0 <= m1 {
                            alts.push(alloc::format!("{}{}", class(m0, m1), self.rest(next)));
                        }
                        if (from..=to).contains(&b) {
                            if let Some(r) = self.between(next, None, Some(&h[1..])) {
                                alts.push(alloc::format!("{}{r}", byte(b)));
                            }
                        }
                    }
                    return (steps, alternation(alts));
                }
            }
            match next_state {
                Some(next) => {
                    steps.push(step);
                    s = next;
                }
                // The bound's byte is no move from here: only the step's
                // own alternatives.
                None => {
                    let mut alts = step.before;
                    alts.append(&mut step.after);
                    return (steps, alternation(alts));
                }
            }
        }
    }
}

/// One byte of [`Lang::between`]'s walk down a bound: the alternatives
/// before and after the one that goes on with `byte`.
#[derive(Default)]
pub(super) struct Step {
    before: Vec<String>,
    byte: u8,
    after: Vec<String>,
}
