//! An ordered-code key's field functions in Go (Bigtable's
//! `OrderedCodeBytes` struct; the rules in `rowkey_ordered_code.go`).

use std::fmt::Write as _;

use super::names::value_type;
use crate::plan::{FieldPlan, Scalar};

/// Whether an ordered-code key leaves out the field (of value `v`) when it
/// is the last: an empty ascending string.
pub(super) fn oc_drop(f: &FieldPlan, v: &str) -> String {
    if f.oc_droppable() {
        format!("len({v}) == 0")
    } else {
        "false".to_owned()
    }
}

/// An ordered-code field's `{lower}Part{i}` (its own bytes: what a salt
/// hashes), `{lower}Enc{i}` (its bytes as a key stores them when more
/// fields follow) and `{lower}Dec{i}`; `to_end`: the key's end may end it.
pub(super) fn oc_field_functions(
    go: &mut String,
    name: &str,
    lower: &str,
    i: usize,
    f: &FieldPlan,
    to_end: bool,
) {
    let label = format!("{name}.{}", f.name);
    let ty = value_type(f);
    let (part, value) = match f.scalar {
        Scalar::Int { .. } => {
            let (lo, hi) = f
                .scalar
                .int_range()
                .expect("ordered-code integers are up to 64 bits");
            (
                "rkOcInt64(int64(v))".to_owned(),
                format!(
                    "n, err := rkOcUnint64(content, {lo}, {hi}, \"{label}\")\n\tif err != nil {{\n\t\treturn zero, 0, err\n\t}}\n\tv := {ty}(n)"
                ),
            )
        }
        Scalar::Str => (
            "[]byte(v)".to_owned(),
            format!("v, err := rkText(content, \"{label}\")\n\tif err != nil {{\n\t\treturn zero, 0, err\n\t}}"),
        ),
        _ => ("append([]byte{}, v...)".to_owned(), "v := content".to_owned()),
    };
    let _ = write!(
        go,
        "\nfunc {lower}Part{i}(v {ty}) []byte {{\n\treturn {part}\n}}\n\nfunc {lower}Enc{i}(v {ty}) ([]byte, error) {{\n\treturn rkOcField({lower}Part{i}(v), {desc}), nil\n}}\n\nfunc {lower}Dec{i}(key []byte, pos int) ({ty}, int, error) {{\n\tvar zero {ty}\n\tcontent, next, err := rkOcRead(key, pos, {int}, {to_end}, {desc}, \"{label}\")\n\tif err != nil {{\n\t\treturn zero, 0, err\n\t}}\n\t{value}\n\treturn v, next, nil\n}}\n",
        desc = f.desc(),
        int = matches!(f.scalar, Scalar::Int { .. }),
    );
}
