//! An ordered-code key's field methods in Java (Bigtable's
//! `OrderedCodeBytes` struct; the rules in `RowkeyOrderedCode.java`).

use std::fmt::Write as _;

use super::types::plain_type;
use crate::plan::{FieldPlan, Scalar};

/// Whether an ordered-code key leaves out the field (of value `v`) when it
/// is the last: an empty ascending string.
pub(super) fn oc_drop(f: &FieldPlan, v: &str) -> String {
    match f.scalar {
        _ if !f.oc_droppable() => "false".to_owned(),
        Scalar::Str => format!("{v}.isEmpty()"),
        _ => format!("{v}.length == 0"),
    }
}

/// An ordered-code field's `part{i}` (its own bytes: what a salt hashes),
/// `enc{i}` (its bytes as a key stores them when more fields follow) and
/// `dec{i}`; `to_end`: the key's end may end it.
pub(super) fn oc_field_methods(j: &mut String, name: &str, i: usize, f: &FieldPlan, to_end: bool) {
    let label = format!("{name}.{}", f.name);
    let ty = plain_type(f);
    let (part, value) = match f.scalar {
        Scalar::Int { bits, signed } => {
            let (lo, hi) = f
                .scalar
                .int_range()
                .expect("ordered-code integers are up to 64 bits");
            let cast = if ty == "long" {
                String::new()
            } else {
                format!("({ty}) ")
            };
            // `u8`/`u16` are `int`s and `u32` a `long`: checked to be in range.
            let check = match (bits, signed) {
                (_, true) | (64, _) => "v".to_owned(),
                _ => format!("checkRange(v, {hi}L, \"{label}\", \"u{bits}\")"),
            };
            (
                format!("ocInt64({check})"),
                format!("{cast}ocUnint64(r.content(), {lo}L, {hi}L, \"{label}\")"),
            )
        }
        Scalar::Str => (
            "utf8(v)".to_owned(),
            format!("text(r.content(), \"{label}\")"),
        ),
        _ => ("v.clone()".to_owned(), "r.content()".to_owned()),
    };
    let _ = write!(
        j,
        "\n    private static byte[] part{i}({ty} v) {{\n        return {part};\n    }}\n\n    private static byte[] enc{i}({ty} v) {{\n        return ocField(part{i}(v), {desc});\n    }}\n\n    private static {ty} dec{i}(byte[] key, int[] pos) {{\n        OcRead r = ocRead(key, pos[0], {int}, {to_end}, {desc}, \"{label}\");\n        pos[0] = r.next();\n        return {value};\n    }}\n",
        desc = f.desc(),
        int = matches!(f.scalar, Scalar::Int { .. }),
    );
}
