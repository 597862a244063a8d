//! Ordered-code run-time layouts in use: encoding, the decode's last
//! checks and scans, over the field codecs `ordered_code.rs` built.

use alloc::string::String;
use alloc::vec::Vec;
use core::ops::Bound;

use super::model::DynLayout;
use super::ordered_code::OcRt;
use super::value::Value;
use crate::format::error::{DecodeError, EncodeError};
use crate::format::ordered_code::{oc_canonical, stored_content};
use crate::format::salt::Head;
use crate::layout::SaltLayout;
use crate::scan::leading::Leading;
use crate::scan::Scan;

impl DynLayout {
    fn oc(&self) -> &OcRt {
        self.oc.as_ref().expect("an ordered-code layout")
    }

    /// [`DynLayout::encode`] of an ordered-code layout (`values` checked to
    /// be one per field).
    pub(super) fn oc_encode(&self, values: &[Value]) -> Result<Vec<u8>, EncodeError> {
        let rt = self.oc();
        let fields = self.layout.fields();
        let mut out = self.layout.prefix().to_vec();
        let head_at = out.len();
        if let Some(s) = self.layout.salt() {
            out.resize(head_at + s.len(), 0);
        }
        let kept = rt.kept(values);
        if kept == 0 {
            out.extend_from_slice(&[0x00, 0x00]);
        }
        for (i, ((f, o), v)) in fields
            .iter()
            .zip(&rt.fields)
            .zip(values)
            .take(kept)
            .enumerate()
        {
            let ops = if i + 1 == kept { &o.last } else { &o.term };
            (ops.encode)(v, &mut out, f)?;
        }
        // The fields the key leaves out are empty strings: still the
        // field's type (an empty `Value::Bytes` is no `String`).
        let mut scratch = Vec::new();
        for ((f, o), v) in fields.iter().zip(&rt.fields).zip(values).skip(kept) {
            (o.term.encode)(v, &mut scratch, f)?;
        }
        if let Some(s) = self.layout.salt() {
            let bucket = self.oc_bucket(s, values)?;
            s.head().write(bucket, &mut out[head_at..], true);
        }
        Ok(out)
    }

    /// The bucket of `values`: the `by` fields' values hashed (an
    /// `Int64`'s encoding, a string's bytes), as the derive's `bucket()`.
    pub(super) fn oc_bucket(&self, s: &SaltLayout, values: &[Value]) -> Result<u8, EncodeError> {
        let fields = self.layout.fields();
        let mut hashed: Vec<Vec<u8>> = alloc::vec![Vec::new(); fields.len()];
        for &i in &self.by {
            let mut stored = Vec::new();
            (self.oc().fields[i].term.encode)(&values[i], &mut stored, &fields[i])?;
            hashed[i] = stored_content(&stored, fields[i].is_desc());
        }
        self.bucket_of(s, |i| &hashed[i], values)
    }

    /// [`DynLayout::decode`]'s last step in an ordered-code layout: the
    /// key must be its values' key, as the derive's `oc_canonical` checks.
    pub(super) fn oc_canonical(&self, key: &[u8], values: &[Value]) -> Result<(), DecodeError> {
        let fields = self.layout.fields();
        let last = fields[fields.len() - 1].name();
        // As long as its values' key (the salt bucket is checked to be
        // below the buckets only, as in every format); values that do not
        // encode have no key, so no length matches.
        let values_len = self.oc_encode(values).map_or(usize::MAX, |k| k.len());
        oc_canonical(key, values_len, last)
    }

    /// [`DynLayout::scan`] of an ordered-code layout: the derive's scans,
    /// field by field through the fields' codecs.
    pub(super) fn oc_scan(
        &self,
        leading: &[Value],
        next: Option<(Bound<Value>, Bound<Value>)>,
    ) -> Result<Scan, EncodeError> {
        let rt = self.oc();
        let fields = self.layout.fields();
        let mut l = match self.layout.salt() {
            None => Leading::unsalted(),
            // The leading values fix the salt: one bucket.
            Some(s) if self.by.iter().all(|&i| i < leading.len()) => {
                let mut values: Vec<Value> = leading.to_vec();
                values.resize(fields.len(), Value::Str(String::new()));
                Leading::one(self.oc_bucket(s, &values)?).head(Head::OrderedCode)
            }
            Some(s) => Leading::all(s.buckets()).head(Head::OrderedCode),
        }
        .family(self.layout.prefix());
        for (i, v) in leading.iter().enumerate() {
            l = (rt.fields[i].push)(l, v, &fields[i])?;
        }
        match next {
            None => Ok(l.scan_eq()),
            Some((lo, hi)) => {
                let i = leading.len();
                (rt.fields[i].range)(l, lo, hi, &fields[i])
            }
        }
    }
}
