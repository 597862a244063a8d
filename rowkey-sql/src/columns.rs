//! A table's columns: one per key field, typed as Arrow types its values,
//! and the value columns a user names; each with the builder that turns
//! decoded rows into Arrow arrays.

use std::sync::Arc;

use datafusion::arrow::array::{
    ArrayRef, BinaryBuilder, BooleanBuilder, Float32Builder, Float64Builder, Int16Builder,
    Int32Builder, Int64Builder, Int8Builder, StringBuilder, TimestampMicrosecondBuilder,
    TimestampMillisecondBuilder, TimestampNanosecondBuilder, TimestampSecondBuilder, UInt16Builder,
    UInt32Builder, UInt64Builder, UInt8Builder,
};
use datafusion::arrow::datatypes::{DataType, Field, TimeUnit as ArrowUnit};
use rowkey_core::layout::FieldLayout;
use rowkey_core::{DynLayout, KeyFieldInfo, TimeUnit, Value};

use datafusion::common::ScalarValue;

use crate::error::Error;

/// How a value column's bytes are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ValueType {
    /// The bytes as they are (`Binary`).
    Binary,
    /// UTF-8 text (`Utf8`); bytes that are not UTF-8 fail the query,
    /// naming the column and the row.
    Utf8,
    /// An 8-byte big-endian `i64`, as HBase's `Bytes.toBytes(long)`
    /// writes it (`Int64`).
    Int64,
    /// An 8-byte big-endian IEEE 754 `f64`, as HBase's
    /// `Bytes.toBytes(double)` writes it (`Float64`).
    Float64,
    /// JSON text, read as `Utf8` (DataFusion's string functions apply;
    /// it must be UTF-8, and is not parsed).
    Json,
}

impl ValueType {
    /// The Arrow type of the column.
    pub fn data_type(self) -> DataType {
        match self {
            ValueType::Binary => DataType::Binary,
            ValueType::Utf8 | ValueType::Json => DataType::Utf8,
            ValueType::Int64 => DataType::Int64,
            ValueType::Float64 => DataType::Float64,
        }
    }
}

/// Where a value column's bytes are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum ValueSource {
    /// The row's whole value (redb, fjall).
    Whole,
    /// One cell of the row (HBase, Bigtable).
    Cell { family: Vec<u8>, qualifier: Vec<u8> },
}

/// A column read from a row's value rather than its key: the whole value
/// on redb and fjall, one cell on HBase and Bigtable. Always nullable (a
/// row may lack the cell).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValueColumn {
    pub(crate) name: String,
    pub(crate) source: ValueSource,
    pub(crate) ty: ValueType,
}

impl ValueColumn {
    /// The row's whole value, read as `ty` (redb and fjall tables).
    pub fn whole(name: impl Into<String>, ty: ValueType) -> ValueColumn {
        ValueColumn {
            name: name.into(),
            source: ValueSource::Whole,
            ty,
        }
    }

    /// The cell `family:qualifier` of the row, read as `ty` (HBase and
    /// Bigtable tables).
    pub fn cell(
        name: impl Into<String>,
        family: impl Into<Vec<u8>>,
        qualifier: impl Into<Vec<u8>>,
        ty: ValueType,
    ) -> ValueColumn {
        ValueColumn {
            name: name.into(),
            source: ValueSource::Cell {
                family: family.into(),
                qualifier: qualifier.into(),
            },
            ty,
        }
    }

    /// The column's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    pub(crate) fn field(&self) -> Field {
        Field::new(&self.name, self.ty.data_type(), true)
    }
}

/// What a key field's column holds, decided once from its layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum KeyKind {
    Bool,
    U8,
    U16,
    U32,
    U64,
    I8,
    I16,
    I32,
    I64,
    /// `u128`/`i128`: their decimal digits (no Arrow integer holds them).
    Wide,
    F32,
    F64,
    /// A `char`, as a one-character string.
    Char,
    Str,
    Bytes,
    /// A timestamp of this unit (the value an `i64` of it), in UTC.
    Time(TimeUnit),
    /// A `KeyField` enum: its variant's name.
    Enum,
}

/// One key field as a column.
#[derive(Clone, Debug)]
pub(crate) struct KeyColumn {
    /// The field's index in the layout.
    pub(crate) index: usize,
    pub(crate) kind: KeyKind,
    pub(crate) layout: &'static FieldLayout,
}

impl KeyColumn {
    /// The columns of `layout`'s fields, in key order.
    pub(crate) fn of(layout: &DynLayout) -> Vec<KeyColumn> {
        let fields = layout.layout().fields();
        fields
            .iter()
            .enumerate()
            .map(|(index, f)| {
                let kind = match (f.unit(), f.key_field(), layout.value_kind(index)) {
                    (Some(unit), _, _) => KeyKind::Time(unit),
                    (_, Some(_), _) => KeyKind::Enum,
                    (_, _, Some(kind)) => match kind {
                        "bool" => KeyKind::Bool,
                        "u8" => KeyKind::U8,
                        "u16" => KeyKind::U16,
                        "u32" => KeyKind::U32,
                        "u64" => KeyKind::U64,
                        "i8" => KeyKind::I8,
                        "i16" => KeyKind::I16,
                        "i32" => KeyKind::I32,
                        "i64" => KeyKind::I64,
                        "u128" | "i128" => KeyKind::Wide,
                        "f32" => KeyKind::F32,
                        "f64" => KeyKind::F64,
                        "char" => KeyKind::Char,
                        "str" => KeyKind::Str,
                        _ => KeyKind::Bytes,
                    },
                    (None, None, None) => KeyKind::Bytes,
                };
                KeyColumn {
                    index,
                    kind,
                    layout: &fields[index],
                }
            })
            .collect()
    }

    pub(crate) fn name(&self) -> &'static str {
        self.layout.name()
    }

    pub(crate) fn nullable(&self) -> bool {
        self.layout.is_option()
    }

    pub(crate) fn data_type(&self) -> DataType {
        match self.kind {
            KeyKind::Bool => DataType::Boolean,
            KeyKind::U8 => DataType::UInt8,
            KeyKind::U16 => DataType::UInt16,
            KeyKind::U32 => DataType::UInt32,
            KeyKind::U64 => DataType::UInt64,
            KeyKind::I8 => DataType::Int8,
            KeyKind::I16 => DataType::Int16,
            KeyKind::I32 => DataType::Int32,
            KeyKind::I64 => DataType::Int64,
            KeyKind::F32 => DataType::Float32,
            KeyKind::F64 => DataType::Float64,
            KeyKind::Wide | KeyKind::Char | KeyKind::Str | KeyKind::Enum => DataType::Utf8,
            KeyKind::Bytes => DataType::Binary,
            KeyKind::Time(unit) => DataType::Timestamp(arrow_unit(unit), Some("UTC".into())),
        }
    }

    pub(crate) fn field(&self) -> Field {
        Field::new(self.name(), self.data_type(), self.nullable())
    }

    fn enum_info(&self) -> Option<&'static KeyFieldInfo> {
        self.layout.key_field()
    }

    /// A `KeyField` enum's variant named `name`, as the value its field
    /// takes.
    pub(crate) fn variant(&self, name: &str) -> Option<Value> {
        self.enum_info()?.discriminant(name).map(Value::I128)
    }
}

/// Arrow's unit of a timestamp.
pub(crate) fn arrow_unit(unit: TimeUnit) -> ArrowUnit {
    match unit {
        TimeUnit::Secs => ArrowUnit::Second,
        TimeUnit::Millis => ArrowUnit::Millisecond,
        TimeUnit::Micros => ArrowUnit::Microsecond,
        // The nanosecond is the finest unit there is.
        _ => ArrowUnit::Nanosecond,
    }
}

/// A column under construction, one row at a time.
pub(crate) enum Builder {
    Bool(BooleanBuilder),
    U8(UInt8Builder),
    U16(UInt16Builder),
    U32(UInt32Builder),
    U64(UInt64Builder),
    I8(Int8Builder),
    I16(Int16Builder),
    I32(Int32Builder),
    I64(Int64Builder),
    F32(Float32Builder),
    F64(Float64Builder),
    Str(StringBuilder),
    Bytes(BinaryBuilder),
    Secs(TimestampSecondBuilder),
    Millis(TimestampMillisecondBuilder),
    Micros(TimestampMicrosecondBuilder),
    Nanos(TimestampNanosecondBuilder),
}

impl Builder {
    /// An empty builder of `ty`'s Arrow arrays.
    pub(crate) fn new(ty: &DataType, capacity: usize) -> Builder {
        match ty {
            DataType::Boolean => Builder::Bool(BooleanBuilder::with_capacity(capacity)),
            DataType::UInt8 => Builder::U8(UInt8Builder::with_capacity(capacity)),
            DataType::UInt16 => Builder::U16(UInt16Builder::with_capacity(capacity)),
            DataType::UInt32 => Builder::U32(UInt32Builder::with_capacity(capacity)),
            DataType::UInt64 => Builder::U64(UInt64Builder::with_capacity(capacity)),
            DataType::Int8 => Builder::I8(Int8Builder::with_capacity(capacity)),
            DataType::Int16 => Builder::I16(Int16Builder::with_capacity(capacity)),
            DataType::Int32 => Builder::I32(Int32Builder::with_capacity(capacity)),
            DataType::Int64 => Builder::I64(Int64Builder::with_capacity(capacity)),
            DataType::Float32 => Builder::F32(Float32Builder::with_capacity(capacity)),
            DataType::Float64 => Builder::F64(Float64Builder::with_capacity(capacity)),
            DataType::Utf8 => Builder::Str(StringBuilder::with_capacity(capacity, capacity * 8)),
            DataType::Timestamp(ArrowUnit::Second, _) => {
                Builder::Secs(TimestampSecondBuilder::with_capacity(capacity))
            }
            DataType::Timestamp(ArrowUnit::Millisecond, _) => {
                Builder::Millis(TimestampMillisecondBuilder::with_capacity(capacity))
            }
            DataType::Timestamp(ArrowUnit::Microsecond, _) => {
                Builder::Micros(TimestampMicrosecondBuilder::with_capacity(capacity))
            }
            DataType::Timestamp(ArrowUnit::Nanosecond, _) => {
                Builder::Nanos(TimestampNanosecondBuilder::with_capacity(capacity))
            }
            _ => Builder::Bytes(BinaryBuilder::with_capacity(capacity, capacity * 8)),
        }
    }

    /// Appends a key field's decoded value (`Value::Option(None)`: null).
    pub(crate) fn push_key(&mut self, column: &KeyColumn, value: &Value) -> Result<(), Error> {
        let value = match value {
            Value::Option(None) => {
                self.push_null();
                return Ok(());
            }
            Value::Option(Some(v)) => v,
            v => v,
        };
        let wrong = || Error::Decoded {
            column: column.name(),
            got: value.kind(),
        };
        match (&mut *self, value) {
            (Builder::Bool(b), Value::Bool(v)) => b.append_value(*v),
            (Builder::U8(b), Value::U8(v)) => b.append_value(*v),
            (Builder::U16(b), Value::U16(v)) => b.append_value(*v),
            (Builder::U32(b), Value::U32(v)) => b.append_value(*v),
            (Builder::U64(b), Value::U64(v)) => b.append_value(*v),
            (Builder::I8(b), Value::I8(v)) => b.append_value(*v),
            (Builder::I16(b), Value::I16(v)) => b.append_value(*v),
            (Builder::I32(b), Value::I32(v)) => b.append_value(*v),
            (Builder::I64(b), Value::I64(v)) => b.append_value(*v),
            (Builder::F32(b), Value::F32(v)) => b.append_value(*v),
            (Builder::F64(b), Value::F64(v)) => b.append_value(*v),
            (Builder::Secs(b), Value::I64(v)) => b.append_value(*v),
            (Builder::Millis(b), Value::I64(v)) => b.append_value(*v),
            (Builder::Micros(b), Value::I64(v)) => b.append_value(*v),
            (Builder::Nanos(b), Value::I64(v)) => b.append_value(*v),
            (Builder::Str(b), Value::Str(v)) => b.append_value(v),
            (Builder::Str(b), Value::Char(c)) => b.append_value(c.encode_utf8(&mut [0; 4])),
            (Builder::Str(b), Value::U128(v)) => b.append_value(v.to_string()),
            (Builder::Str(b), Value::I128(v)) => b.append_value(v.to_string()),
            (Builder::Bytes(b), Value::Bytes(v)) => b.append_value(v),
            (Builder::Bytes(b), Value::Str(v)) => b.append_value(v),
            // A KeyField enum: its variant's name.
            (Builder::Str(b), v) if column.kind == KeyKind::Enum => {
                let info = column.enum_info().ok_or_else(wrong)?;
                let d = v.as_i128().ok_or_else(wrong)?;
                let name = info
                    .variants()
                    .iter()
                    .find(|(_, x)| *x == d)
                    .map(|(n, _)| *n)
                    .ok_or_else(wrong)?;
                b.append_value(name)
            }
            _ => return Err(wrong()),
        }
        Ok(())
    }

    /// Appends a value column's bytes, read as `ty` (`None`: null).
    pub(crate) fn push_value(
        &mut self,
        column: &ValueColumn,
        bytes: Option<&[u8]>,
    ) -> Result<(), String> {
        let Some(bytes) = bytes else {
            self.push_null();
            return Ok(());
        };
        let eight = || -> Result<[u8; 8], String> {
            bytes.try_into().map_err(|_| {
                format!(
                    "{} bytes, but {:?} is 8 big-endian bytes",
                    bytes.len(),
                    column.ty
                )
            })
        };
        match (&mut *self, column.ty) {
            (Builder::Bytes(b), ValueType::Binary) => b.append_value(bytes),
            (Builder::Str(b), ValueType::Utf8 | ValueType::Json) => {
                let text =
                    std::str::from_utf8(bytes).map_err(|e| format!("not UTF-8 text ({e})"))?;
                b.append_value(text)
            }
            (Builder::I64(b), ValueType::Int64) => b.append_value(i64::from_be_bytes(eight()?)),
            (Builder::F64(b), ValueType::Float64) => b.append_value(f64::from_be_bytes(eight()?)),
            _ => return Err(format!("no {:?} column", column.ty)),
        }
        Ok(())
    }

    fn push_null(&mut self) {
        match self {
            Builder::Bool(b) => b.append_null(),
            Builder::U8(b) => b.append_null(),
            Builder::U16(b) => b.append_null(),
            Builder::U32(b) => b.append_null(),
            Builder::U64(b) => b.append_null(),
            Builder::I8(b) => b.append_null(),
            Builder::I16(b) => b.append_null(),
            Builder::I32(b) => b.append_null(),
            Builder::I64(b) => b.append_null(),
            Builder::F32(b) => b.append_null(),
            Builder::F64(b) => b.append_null(),
            Builder::Str(b) => b.append_null(),
            Builder::Bytes(b) => b.append_null(),
            Builder::Secs(b) => b.append_null(),
            Builder::Millis(b) => b.append_null(),
            Builder::Micros(b) => b.append_null(),
            Builder::Nanos(b) => b.append_null(),
        }
    }

    /// The array built so far; the builder starts again empty.
    pub(crate) fn finish(&mut self, ty: &DataType) -> ArrayRef {
        match self {
            Builder::Bool(b) => Arc::new(b.finish()),
            Builder::U8(b) => Arc::new(b.finish()),
            Builder::U16(b) => Arc::new(b.finish()),
            Builder::U32(b) => Arc::new(b.finish()),
            Builder::U64(b) => Arc::new(b.finish()),
            Builder::I8(b) => Arc::new(b.finish()),
            Builder::I16(b) => Arc::new(b.finish()),
            Builder::I32(b) => Arc::new(b.finish()),
            Builder::I64(b) => Arc::new(b.finish()),
            Builder::F32(b) => Arc::new(b.finish()),
            Builder::F64(b) => Arc::new(b.finish()),
            Builder::Str(b) => Arc::new(b.finish()),
            Builder::Bytes(b) => Arc::new(b.finish()),
            Builder::Secs(b) => Arc::new(b.finish().with_timezone_opt(tz(ty))),
            Builder::Millis(b) => Arc::new(b.finish().with_timezone_opt(tz(ty))),
            Builder::Micros(b) => Arc::new(b.finish().with_timezone_opt(tz(ty))),
            Builder::Nanos(b) => Arc::new(b.finish().with_timezone_opt(tz(ty))),
        }
    }
}

/// A timestamp type's time zone.
fn tz(ty: &DataType) -> Option<Arc<str>> {
    match ty {
        DataType::Timestamp(_, tz) => tz.clone(),
        _ => None,
    }
}

impl KeyColumn {
    /// A SQL value as the value the field takes, or `None` if it is not of
    /// the field's kind (or a `u128`/`i128`'s digits: text, not a number).
    pub(crate) fn value_of(&self, literal: ScalarValue) -> Option<Value> {
        let column = self;
        use ScalarValue as S;
        let text = |s: S| match s {
            S::Utf8(Some(t)) | S::LargeUtf8(Some(t)) | S::Utf8View(Some(t)) => Some(t),
            _ => None,
        };
        Some(match column.kind {
            KeyKind::Bool => match literal {
                S::Boolean(Some(b)) => Value::Bool(b),
                _ => return None,
            },
            KeyKind::U8
            | KeyKind::U16
            | KeyKind::U32
            | KeyKind::U64
            | KeyKind::I8
            | KeyKind::I16
            | KeyKind::I32
            | KeyKind::I64 => Value::I128(integer(&literal)?),
            KeyKind::F32 => match literal {
                S::Float32(Some(f)) => Value::F32(f),
                _ => return None,
            },
            KeyKind::F64 => match literal {
                S::Float64(Some(f)) => Value::F64(f),
                _ => return None,
            },
            KeyKind::Str => Value::Str(text(literal)?),
            KeyKind::Char => {
                let t = text(literal)?;
                let mut chars = t.chars();
                match (chars.next(), chars.next()) {
                    (Some(c), None) => Value::Char(c),
                    _ => return None,
                }
            }
            KeyKind::Enum => column.variant(&text(literal)?)?,
            KeyKind::Bytes => match literal {
                S::Binary(Some(b)) | S::LargeBinary(Some(b)) | S::BinaryView(Some(b)) => {
                    Value::Bytes(b)
                }
                _ => return None,
            },
            KeyKind::Time(unit) => {
                let (v, lit_unit) = match literal {
                    S::TimestampSecond(Some(v), _) => (v, ArrowUnit::Second),
                    S::TimestampMillisecond(Some(v), _) => (v, ArrowUnit::Millisecond),
                    S::TimestampMicrosecond(Some(v), _) => (v, ArrowUnit::Microsecond),
                    S::TimestampNanosecond(Some(v), _) => (v, ArrowUnit::Nanosecond),
                    _ => return None,
                };
                if lit_unit != arrow_unit(unit) {
                    return None;
                }
                Value::I64(v)
            }
            KeyKind::Wide => return None,
        })
    }
}

/// An integer literal.
fn integer(literal: &ScalarValue) -> Option<i128> {
    use ScalarValue as S;
    let v = match *literal {
        S::Int8(Some(v)) => Value::I8(v),
        S::Int16(Some(v)) => Value::I16(v),
        S::Int32(Some(v)) => Value::I32(v),
        S::Int64(Some(v)) => Value::I64(v),
        S::UInt8(Some(v)) => Value::U8(v),
        S::UInt16(Some(v)) => Value::U16(v),
        S::UInt32(Some(v)) => Value::U32(v),
        S::UInt64(Some(v)) => Value::U64(v),
        _ => return None,
    };
    v.as_i128()
}
