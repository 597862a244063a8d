//! [`DynLayout::from_json`](super::DynLayout::from_json): the JSON that
//! `Layout::to_json` writes, read through the same serde types.

use alloc::borrow::ToOwned;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::build::{build, check, check_family, family, keep};
use super::model::DynLayout;
use super::parse::LayoutError;
use super::parse::{EnumSpec, FieldSpec, SaltSpec, Spec, Width};
use crate::format::time::TimeUnit;
use crate::layout::json::{JsonLayout, JsonStruct};
use crate::layout::SaltHashKind;

pub(crate) fn from_json(text: &str) -> Result<DynLayout, LayoutError> {
    super::parse::check_text_len(text)?;
    let json: JsonLayout<'_> =
        serde_json::from_str(text).map_err(|e| LayoutError::field("JSON", format!("{e}")))?;
    let (id, layout) = layout_of(json)?;
    let actual = format!("{:#018x}", layout.layout().id());
    if actual != id {
        return Err(LayoutError::field(
            "layout_id",
            format!(
                "the JSON's layout_id is {id}, but its fields describe the layout {actual} ({}): the JSON was changed, or written by another version",
                layout.layout()
            ),
        ));
    }
    Ok(layout)
}

/// A layout's JSON (a struct's, or a family's with its members) and the
/// `layout_id` it claims.
fn layout_of(json: JsonLayout<'_>) -> Result<(String, DynLayout), LayoutError> {
    match json {
        JsonLayout::Struct(j) => {
            let id = j.layout_id.clone().into_owned();
            let layout = build(spec(j)?).map_err(LayoutError::without_offset)?;
            Ok((id, layout))
        }
        JsonLayout::Family {
            layout_id, members, ..
        } => {
            super::parse::check_member_count(members.len())?;
            // Every member read and checked, and the family's rules, before
            // any is built.
            let mut specs = Vec::with_capacity(members.len());
            for m in members {
                let JsonLayout::Struct(j) = m else {
                    return Err(LayoutError::field(
                        "members",
                        "a key family's member is a struct's layout, not another family",
                    ));
                };
                let spec = spec(j)?;
                check(&spec).map_err(LayoutError::without_offset)?;
                specs.push(spec);
            }
            check_family(&specs.iter().collect::<Vec<_>>())?;
            let members = specs.iter().map(keep).collect::<Result<_, _>>()?;
            Ok((layout_id.into_owned(), family(members)))
        }
    }
}

fn spec(j: JsonStruct<'_>) -> Result<Spec, LayoutError> {
    let (text_sep, ordered_code) = match &*j.format {
        "binary" => (None, None),
        "text" => (
            Some((0, j.separator.as_deref().unwrap_or("").to_owned())),
            None,
        ),
        "ordered_code" => (None, Some(0)),
        f => {
            return Err(LayoutError::field(
                "format",
                format!("`{f}` is no format (binary, text, ordered_code)"),
            ))
        }
    };
    let prefix = hex(&j.prefix_hex).ok_or_else(|| {
        LayoutError::field("prefix_hex", format!("`{}` is not hex", j.prefix_hex))
    })?;
    let prefix = (!prefix.is_empty()).then_some((0, prefix, None));
    let salt = match j.salt {
        None => None,
        Some(s) => Some(SaltSpec {
            at: 0,
            buckets: s.buckets,
            hash: match &*s.hash {
                "xxh3" => SaltHashKind::Xxh3,
                "java" => SaltHashKind::Java,
                "mod" => SaltHashKind::Mod,
                h => {
                    return Err(LayoutError::field(
                        "salt",
                        format!("`{h}` is no salt hash (xxh3, java, mod)"),
                    ))
                }
            },
            by: s.by.iter().map(|b| (0, b.clone().into_owned())).collect(),
            width: Some(s.width),
        }),
    };
    let mut fields = Vec::with_capacity(j.fields.len());
    for f in j.fields {
        let part = format!("field `{}`", f.name);
        let err = |m: String| LayoutError::field(part.clone(), m);
        let unit = match f.unit.as_deref() {
            None => None,
            Some("secs") => Some(TimeUnit::Secs),
            Some("millis") => Some(TimeUnit::Millis),
            Some("micros") => Some(TimeUnit::Micros),
            Some("nanos") => Some(TimeUnit::Nanos),
            Some(u) => {
                return Err(err(format!(
                    "`{u}` is no unit (secs, millis, micros, nanos)"
                )))
            }
        };
        let mut spec = FieldSpec {
            at: 0,
            name: f.name.clone().into_owned(),
            ty: f.ty.clone().into_owned(),
            added: f.added,
            unit,
            desc: false,
            desc_ts: false,
            fixed: None,
            digits: None,
            desc_ts_max: None,
            reverse: f.reverse,
            reverse_domain: f.reverse_domain,
            key_field: match &f.key_field {
                None => None,
                Some(e) => Some(EnumSpec {
                    repr: e.repr.clone().into_owned(),
                    variants: e
                        .variants
                        .iter()
                        .map(|v| {
                            let d = v.value.get().ok_or_else(|| {
                                err(format!("the discriminant of `{}` is no integer", v.name))
                            })?;
                            Ok((v.name.clone().into_owned(), d))
                        })
                        .collect::<Result<_, LayoutError>>()?,
                }),
            },
            width: Some(if f.variable {
                Width::AtLeast(f.width)
            } else {
                Width::Fixed(f.width)
            }),
        };
        match &*f.encoding {
            "big_endian" | "escaped" | "ordered_code" => spec.desc = f.desc,
            "raw" => {}
            "desc_ts" => spec.desc_ts = true,
            "padded" => {
                spec.desc = f.desc;
                let len = f
                    .padded_len
                    .ok_or_else(|| err("a padded field has a `padded_len`".into()))?;
                spec.fixed = Some((len, f.pad.unwrap_or(0)));
            }
            "digits" => {
                spec.desc = f.desc;
                spec.digits = f.digits;
            }
            "desc_ts_digits" => {
                spec.desc_ts = true;
                spec.digits = f.digits;
                spec.desc_ts_max = f.max;
            }
            "delimited" | "text_form" => {}
            e => return Err(err(format!("`{e}` is no encoding"))),
        }
        fields.push(spec);
    }
    let tail = Some((
        0,
        match j.fixed_len {
            Some(n) => Width::Fixed(n),
            None => Width::AtLeast(j.min_len),
        },
    ));
    Ok(Spec {
        name: Some(j.name.into_owned()),
        text_sep,
        ordered_code,
        prefix,
        salt,
        fields,
        tail,
    })
}

fn hex(s: &str) -> Option<Vec<u8>> {
    if s.len() % 2 != 0 {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}
