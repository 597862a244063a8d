//! Layouts for other tools: `to_json()` and Bigtable's row-key schema.

use alloc::format;
use alloc::string::{String, ToString};
use core::fmt::Write as _;

use super::{Encoding, FieldWidth, Format, Layout, SaltHashKind};

impl Layout {
    /// The layout as JSON, for tools in other languages: the name,
    /// fingerprint (`"layout_id"`, hex), format, separator, prefix (hex),
    /// salt, lengths, the summary, and per field its name, type, kind,
    /// encoding, width and attributes; a key-family enum lists its
    /// `"members"`.
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
        let mut out = String::new();
        self.write_json(&mut out);
        out
    }

    fn write_json(&self, out: &mut String) {
        out.push_str("{\"name\":");
        json_str(out, self.name);
        let _ = write!(out, ",\"layout_id\":\"{:#018x}\"", self.id());
        if !self.members.is_empty() {
            out.push_str(",\"members\":[");
            for (i, m) in self.members.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                m.write_json(out);
            }
            out.push_str("]}");
            return;
        }
        match self.format {
            Format::Binary => out.push_str(",\"format\":\"binary\",\"separator\":null"),
            Format::Text { sep } => {
                out.push_str(",\"format\":\"text\",\"separator\":");
                json_str(out, sep);
            }
        }
        out.push_str(",\"prefix_hex\":\"");
        for b in self.prefix {
            let _ = write!(out, "{b:02x}");
        }
        out.push_str("\",\"salt\":");
        match &self.salt {
            None => out.push_str("null"),
            Some(s) => {
                let hash = match s.hash {
                    SaltHashKind::Xxh3 => "xxh3",
                    SaltHashKind::Java => "java",
                    SaltHashKind::Mod => "mod",
                };
                let _ = write!(
                    out,
                    "{{\"buckets\":{},\"hash\":\"{hash}\",\"width\":{},\"by\":[",
                    s.buckets,
                    s.len()
                );
                for (i, by) in s.by.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    json_str(out, by);
                }
                out.push_str("]}");
            }
        }
        match self.fixed_len() {
            Some(n) => {
                let _ = write!(out, ",\"fixed_len\":{n}");
            }
            None => out.push_str(",\"fixed_len\":null"),
        }
        let _ = write!(out, ",\"min_len\":{},\"summary\":", self.min_len());
        json_str(out, &self.to_string());
        out.push_str(",\"fields\":[");
        for (i, f) in self.fields.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str("{\"name\":");
            json_str(out, f.name);
            out.push_str(",\"type\":");
            json_str(out, f.ty);
            out.push_str(",\"kind\":");
            json_str(out, f.kind);
            let (encoding, params) = match f.encoding {
                Encoding::BigEndian { .. } => ("big_endian", String::new()),
                Encoding::DescTs => ("desc_ts", String::new()),
                Encoding::Padded { len, pad, .. } => {
                    ("padded", format!(",\"padded_len\":{len},\"pad\":{pad}"))
                }
                Encoding::Escaped { .. } => ("escaped", String::new()),
                Encoding::Raw => ("raw", String::new()),
                Encoding::Digits { digits, signed } => (
                    "digits",
                    format!(",\"digits\":{digits},\"signed\":{signed}"),
                ),
                Encoding::DescTsDigits { digits, max } => (
                    "desc_ts_digits",
                    format!(",\"digits\":{digits},\"max\":{max}"),
                ),
                Encoding::Delimited => ("delimited", String::new()),
                Encoding::TextForm => ("text_form", String::new()),
            };
            let _ = write!(out, ",\"encoding\":\"{encoding}\"{params}");
            if let Some(unit) = f.unit {
                let _ = write!(out, ",\"unit\":\"{unit}\"");
            }
            match f.width {
                FieldWidth::Fixed(w) => {
                    let _ = write!(out, ",\"width\":{w},\"variable\":false");
                }
                FieldWidth::Variable { min } => {
                    let _ = write!(out, ",\"width\":{min},\"variable\":true");
                }
            }
            let _ = write!(
                out,
                ",\"desc\":{},\"option\":{},\"added\":{},\"reverse\":{},\"reverse_domain\":{},\"separator_len\":{}}}",
                f.is_desc(),
                f.option,
                f.added,
                f.reverse,
                f.reverse_domain,
                f.sep_len
            );
        }
        out.push_str("]}");
    }

    /// A text key's row-key schema for Cloud Bigtable (the table's
    /// `row_key_schema`, a `Type.Struct` in the JSON form of the admin
    /// API and of `gcloud bigtable tables create
    /// --row-key-schema-definition-file`): every part a UTF-8 string
    /// field (the prefix as `"prefix"` and the salt as `"salt"`), joined
    /// by the separator as `DelimitedBytes`. `None` for a binary key,
    /// whose parts are not delimited, and for a key-family enum.
    ///
    /// Bigtable splits a key at every separator byte, so a string field
    /// whose value contains the separator reads back wrong in Bigtable's
    /// SQL; rowkey's own decoding is not affected.
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
    /// ```
    pub fn bigtable_row_key_schema(&self) -> Option<String> {
        let Format::Text { sep } = self.format else {
            return None;
        };
        if !self.members.is_empty() {
            return None;
        }
        let mut names: alloc::vec::Vec<&str> = alloc::vec::Vec::new();
        if !self.prefix.is_empty() {
            names.push("prefix");
        }
        if self.salt.is_some() {
            names.push("salt");
        }
        names.extend(self.fields.iter().map(|f| f.name));
        let mut out = String::from("{\"fields\":[");
        for (i, name) in names.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str("{\"fieldName\":");
            json_str(&mut out, name);
            out.push_str(",\"type\":{\"stringType\":{\"encoding\":{\"utf8Bytes\":{}}}}}");
        }
        out.push_str("],\"encoding\":{\"delimitedBytes\":{\"delimiter\":\"");
        base64(&mut out, sep.as_bytes());
        out.push_str("\"}}}");
        Some(out)
    }
}

fn json_str(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Standard base64 with padding (protobuf JSON's `bytes`).
fn base64(out: &mut String, bytes: &[u8]) {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ABC[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn base64() {
        let enc = |b: &[u8]| {
            let mut s = alloc::string::String::new();
            super::base64(&mut s, b);
            s
        };
        assert_eq!(enc(b"_"), "Xw==");
        assert_eq!(enc(b"#"), "Iw==");
        assert_eq!(enc(b"ab"), "YWI=");
        assert_eq!(enc(b"abc"), "YWJj");
        assert_eq!(enc(b"::|"), "Ojp8");
    }
}
