//! Layouts for other tools: `to_json()` and Bigtable's row-key schema,
//! through serde. The JSON's shape is the private `Json*` types below,
//! which `DynLayout::from_json` reads back: one description of the format,
//! written and read by serde_json, so the two cannot drift apart.

use alloc::borrow::Cow;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use super::{Encoding, FieldWidth, Format, Layout, SaltHashKind};

/// A layout as JSON: a struct's, or a key family's members.
#[derive(Serialize, Deserialize)]
#[serde(untagged)]
pub(crate) enum JsonLayout<'a> {
    /// A key-family enum.
    Family {
        #[serde(borrow)]
        name: Cow<'a, str>,
        layout_id: Cow<'a, str>,
        members: Vec<JsonLayout<'a>>,
    },
    /// A struct.
    Struct(#[serde(borrow)] JsonStruct<'a>),
}

#[derive(Serialize, Deserialize)]
pub(crate) struct JsonStruct<'a> {
    #[serde(borrow)]
    pub name: Cow<'a, str>,
    /// The fingerprint, `0x` and 16 hex digits.
    pub layout_id: Cow<'a, str>,
    /// `binary`, `text` or `ordered_code`.
    pub format: Cow<'a, str>,
    pub separator: Option<Cow<'a, str>>,
    pub prefix_hex: Cow<'a, str>,
    pub salt: Option<JsonSalt<'a>>,
    pub fixed_len: Option<usize>,
    pub min_len: usize,
    pub summary: Cow<'a, str>,
    pub fields: Vec<JsonField<'a>>,
}

#[derive(Serialize, Deserialize)]
pub(crate) struct JsonSalt<'a> {
    pub buckets: u16,
    /// `xxh3`, `java` or `mod`.
    pub hash: Cow<'a, str>,
    pub width: usize,
    #[serde(borrow)]
    pub by: Vec<Cow<'a, str>>,
}

#[derive(Serialize, Deserialize)]
pub(crate) struct JsonField<'a> {
    #[serde(borrow)]
    pub name: Cow<'a, str>,
    #[serde(rename = "type")]
    pub ty: Cow<'a, str>,
    pub kind: Cow<'a, str>,
    /// `big_endian`, `desc_ts`, `padded`, `escaped`, `raw`, `digits`,
    /// `desc_ts_digits`, `delimited`, `text_form`, `ordered_code`.
    pub encoding: Cow<'a, str>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub padded_len: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pad: Option<u8>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digits: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signed: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit: Option<Cow<'a, str>>,
    /// A `#[derive(KeyField)]` enum: its repr and variants.
    #[serde(default, rename = "enum", skip_serializing_if = "Option::is_none")]
    pub key_field: Option<JsonEnum<'a>>,
    /// The width, or the least width of a variable one.
    pub width: usize,
    pub variable: bool,
    pub desc: bool,
    pub option: bool,
    pub added: bool,
    pub reverse: bool,
    pub reverse_domain: bool,
    pub separator_len: usize,
}

/// A `#[derive(KeyField)]` enum field's repr and variants.
#[derive(Serialize, Deserialize)]
pub(crate) struct JsonEnum<'a> {
    #[serde(borrow)]
    pub repr: Cow<'a, str>,
    pub variants: Vec<JsonVariant<'a>>,
}

#[derive(Serialize, Deserialize)]
pub(crate) struct JsonVariant<'a> {
    #[serde(borrow)]
    pub name: Cow<'a, str>,
    pub value: JsonInt<'a>,
}

/// A discriminant: a JSON number where a 64-bit integer holds it, else its
/// decimal digits as a string (JSON readers differ above 64 bits, and
/// serde reads no 128-bit number inside an untagged enum).
#[derive(Serialize, Deserialize)]
#[serde(untagged)]
pub(crate) enum JsonInt<'a> {
    Signed(i64),
    Unsigned(u64),
    Digits(#[serde(borrow)] Cow<'a, str>),
}

impl JsonInt<'_> {
    pub(crate) fn new(v: i128) -> JsonInt<'static> {
        if let Ok(v) = i64::try_from(v) {
            JsonInt::Signed(v)
        } else if let Ok(v) = u64::try_from(v) {
            JsonInt::Unsigned(v)
        } else {
            JsonInt::Digits(Cow::Owned(v.to_string()))
        }
    }

    /// The value, `None` for digits that are no `i128`.
    #[cfg_attr(not(feature = "dynamic"), allow(dead_code))]
    pub(crate) fn get(&self) -> Option<i128> {
        match self {
            JsonInt::Signed(v) => Some((*v).into()),
            JsonInt::Unsigned(v) => Some((*v).into()),
            JsonInt::Digits(d) => d.parse().ok(),
        }
    }
}

impl Layout {
    /// The layout as JSON, for tools in other languages: the name,
    /// fingerprint (`"layout_id"`, hex), format, separator, prefix (hex),
    /// salt, lengths, the summary, and per field its name, type, kind,
    /// encoding, width and attributes; a key-family enum lists its
    /// `"members"`. [`DynLayout::from_json`](crate::DynLayout::from_json)
    /// reads it back (the `json` feature).
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
    /// let json = Reading::LAYOUT.to_json();
    /// assert!(json.starts_with(r#"{"name":"Reading","layout_id":"0x"#));
    /// assert!(json.contains(r#"{"name":"ts","type":"i64","kind":"i64","encoding":"desc_ts","#));
    /// ```
    pub fn to_json(&self) -> String {
        // Serializing these types to a string cannot fail (no maps with
        // non-string keys, no I/O).
        serde_json::to_string(&self.json()).unwrap_or_default()
    }

    fn json(&self) -> JsonLayout<'static> {
        let id = format!("{:#018x}", self.id());
        if !self.members.is_empty() {
            return JsonLayout::Family {
                name: self.name.into(),
                layout_id: id.into(),
                members: self.members.iter().map(|m| m.json()).collect(),
            };
        }
        let (format, separator) = match self.format {
            Format::Binary => ("binary", None),
            Format::Text { sep } => ("text", Some(sep.into())),
            Format::OrderedCode => ("ordered_code", None),
        };
        let salt = self.salt.as_ref().map(|s| JsonSalt {
            buckets: s.buckets,
            hash: match s.hash {
                SaltHashKind::Xxh3 => "xxh3",
                SaltHashKind::Java => "java",
                SaltHashKind::Mod => "mod",
            }
            .into(),
            width: s.len(),
            by: s.by.iter().map(|b| Cow::Borrowed(*b)).collect(),
        });
        let fields = self
            .fields
            .iter()
            .map(|f| {
                let mut j = JsonField {
                    name: f.name.into(),
                    ty: f.ty.into(),
                    kind: f.kind.into(),
                    encoding: "".into(),
                    padded_len: None,
                    pad: None,
                    digits: None,
                    signed: None,
                    max: None,
                    unit: f.unit.map(|u| Cow::Owned(u.to_string())),
                    key_field: f.key_field.map(|k| JsonEnum {
                        repr: k.repr().into(),
                        variants: k
                            .variants()
                            .iter()
                            .map(|(name, value)| JsonVariant {
                                name: Cow::Borrowed(*name),
                                value: JsonInt::new(*value),
                            })
                            .collect(),
                    }),
                    width: 0,
                    variable: false,
                    desc: f.is_desc(),
                    option: f.option,
                    added: f.added,
                    reverse: f.reverse,
                    reverse_domain: f.reverse_domain,
                    separator_len: f.sep_len,
                };
                j.encoding = match f.encoding {
                    Encoding::BigEndian { .. } => "big_endian",
                    Encoding::DescTs => "desc_ts",
                    Encoding::Padded { len, pad, .. } => {
                        (j.padded_len, j.pad) = (Some(len), Some(pad));
                        "padded"
                    }
                    Encoding::Escaped { .. } => "escaped",
                    Encoding::Raw => "raw",
                    Encoding::Digits { digits, signed, .. } => {
                        (j.digits, j.signed) = (Some(digits), Some(signed));
                        "digits"
                    }
                    Encoding::DescTsDigits { digits, max } => {
                        (j.digits, j.max) = (Some(digits), Some(max));
                        "desc_ts_digits"
                    }
                    Encoding::Delimited => "delimited",
                    Encoding::TextForm => "text_form",
                    Encoding::OrderedCode { .. } => "ordered_code",
                }
                .into();
                (j.width, j.variable) = match f.width {
                    FieldWidth::Fixed(w) => (w, false),
                    FieldWidth::Variable { min } => (min, true),
                };
                j
            })
            .collect();
        JsonLayout::Struct(JsonStruct {
            name: self.name.into(),
            layout_id: id.into(),
            format: format.into(),
            separator,
            prefix_hex: self.prefix.iter().map(|b| format!("{b:02x}")).collect(),
            salt,
            fixed_len: self.fixed_len(),
            min_len: self.min_len(),
            summary: self.to_string().into(),
            fields,
        })
    }

    /// The key's row-key schema for Cloud Bigtable (the table's
    /// `row_key_schema`, a `Type.Struct` in the JSON form of the admin
    /// API and of `gcloud bigtable tables create
    /// --row-key-schema-definition-file`), so that Bigtable's SQL reads the
    /// key's parts as columns:
    ///
    /// - a text key: every part (the prefix as `"prefix"`, the salt as
    ///   `"salt"`, the fields) a UTF-8 string field, joined by the separator
    ///   as `DelimitedBytes`. Bigtable splits a key at every separator byte,
    ///   so a string field whose value contains the separator reads back
    ///   wrong in Bigtable's SQL; rowkey's own decoding is not affected.
    /// - an ordered-code key (`#[rowkey(ordered_code)]`): integers as
    ///   `Int64` (`orderedCodeBytes`), strings as `String` (`utf8Bytes`),
    ///   byte strings as `Bytes` (`raw`), the prefix a `Bytes` field
    ///   `"prefix"` and the salt an `Int64` field `"salt"`, with
    ///   `OrderedCodeBytes` struct encoding. `None` when a field is
    ///   `#[desc]`: `Type.Struct` has no descending fields, and Bigtable
    ///   would read the inverted bytes.
    ///
    /// `None` for a binary key, whose parts are not delimited, and for a
    /// key-family enum.
    ///
    #[cfg_attr(feature = "derive", doc = "```")]
    #[cfg_attr(not(feature = "derive"), doc = "```ignore")]
    /// use rowkey_core::prelude::*;
    ///
    /// #[derive(RowKey)]
    /// #[rowkey(text, sep = "_")]
    /// struct Call {
    ///     #[digits(11)]
    ///     phone: u64,
    ///     #[desc_ts]
    ///     ts: i64,
    /// }
    ///
    /// assert_eq!(
    ///     Call::LAYOUT.bigtable_row_key_schema().unwrap(),
    ///     r#"{"fields":[{"fieldName":"phone","type":{"stringType":{"encoding":{"utf8Bytes":{}}}}},{"fieldName":"ts","type":{"stringType":{"encoding":{"utf8Bytes":{}}}}}],"encoding":{"delimitedBytes":{"delimiter":"Xw=="}}}"#
    /// );
    ///
    /// #[derive(RowKey)]
    /// #[rowkey(ordered_code)]
    /// struct Visit {
    ///     site: i64,
    ///     page: String,
    /// }
    ///
    /// assert_eq!(
    ///     Visit::LAYOUT.bigtable_row_key_schema().unwrap(),
    ///     r#"{"fields":[{"fieldName":"site","type":{"int64Type":{"encoding":{"orderedCodeBytes":{}}}}},{"fieldName":"page","type":{"stringType":{"encoding":{"utf8Bytes":{}}}}}],"encoding":{"orderedCodeBytes":{}}}"#
    /// );
    /// ```
    pub fn bigtable_row_key_schema(&self) -> Option<String> {
        use base64::Engine as _;
        if !self.members.is_empty() {
            return None;
        }
        let mut fields: Vec<SchemaField<'_>> = Vec::new();
        let encoding = match self.format {
            Format::Binary => return None,
            Format::Text { sep } => {
                // Every part a string: the prefix, the salt, the fields.
                let prefix = (!self.prefix.is_empty()).then_some("prefix");
                let salt = self.salt.is_some().then_some("salt");
                let names = prefix.into_iter().chain(salt);
                let names = names.chain(self.fields.iter().map(|f| f.name));
                fields.extend(names.map(|field_name| SchemaField {
                    field_name,
                    ty: FieldType::String {
                        encoding: Enc::Utf8Bytes {},
                    },
                }));
                StructEncoding::DelimitedBytes {
                    // Protobuf JSON's `bytes`: standard base64, padded.
                    delimiter: base64::engine::general_purpose::STANDARD.encode(sep.as_bytes()),
                }
            }
            Format::OrderedCode => {
                if self.fields.iter().any(|f| f.is_desc()) {
                    return None;
                }
                if !self.prefix.is_empty() {
                    fields.push(SchemaField {
                        field_name: "prefix",
                        ty: FieldType::Bytes {
                            encoding: Enc::Raw {},
                        },
                    });
                }
                if self.salt.is_some() {
                    fields.push(SchemaField {
                        field_name: "salt",
                        ty: FieldType::Int64 {
                            encoding: Enc::OrderedCodeBytes {},
                        },
                    });
                }
                fields.extend(self.fields.iter().map(|f| SchemaField {
                    field_name: f.name,
                    ty: match f.kind {
                        "str" => FieldType::String {
                            encoding: Enc::Utf8Bytes {},
                        },
                        "bytes" => FieldType::Bytes {
                            encoding: Enc::Raw {},
                        },
                        _ => FieldType::Int64 {
                            encoding: Enc::OrderedCodeBytes {},
                        },
                    },
                }));
                StructEncoding::OrderedCodeBytes {}
            }
        };
        let schema = Schema { fields, encoding };
        Some(serde_json::to_string(&schema).unwrap_or_default())
    }
}

/// Bigtable's `Type.Struct`, in protobuf's JSON (field order as the admin
/// API writes it).
#[derive(Serialize)]
struct Schema<'a> {
    fields: Vec<SchemaField<'a>>,
    encoding: StructEncoding,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SchemaField<'a> {
    field_name: &'a str,
    #[serde(rename = "type")]
    ty: FieldType,
}

/// A field's `Type`: its kind, with the kind's encoding.
#[derive(Serialize)]
enum FieldType {
    #[serde(rename = "stringType")]
    String { encoding: Enc },
    #[serde(rename = "int64Type")]
    Int64 { encoding: Enc },
    #[serde(rename = "bytesType")]
    Bytes { encoding: Enc },
}

/// A field type's encoding (each an empty message).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
enum Enc {
    Utf8Bytes {},
    OrderedCodeBytes {},
    Raw {},
}

/// `Type.Struct.Encoding`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
enum StructEncoding {
    DelimitedBytes { delimiter: String },
    OrderedCodeBytes {},
}
