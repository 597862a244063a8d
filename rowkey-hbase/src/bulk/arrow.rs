//! Arrow record batches into a bulk load (feature `arrow`): a
//! [`ColumnMap`] says which columns make a row's key (one per field of a
//! run-time layout, by name) and which become its cells, and
//! [`BulkLoad::put_batch`] puts every row of a batch.
//!
//! # Key fields
//! A key field is read from the column of its name (or the one
//! [`ColumnMap::key_column`] gives):
//!
//! | Arrow type | the field |
//! |---|---|
//! | `Int8`..`Int64`, `UInt8`..`UInt64` | any integer field the value fits |
//! | `Utf8`, `LargeUtf8`, `Utf8View` | a string field as it is; any other field in the text `rowkey encode` takes (a UUID's or IP address's text, an enum's variant name, a number) |
//! | `Binary`, `LargeBinary`, `BinaryView`, `FixedSizeBinary` | a byte-string field; a UUID field from its 16 bytes |
//! | `Boolean`, `Float32`, `Float64` | `bool`, `f32`, `f64` |
//! | `Timestamp(unit, _)` | an integer field, converted to the field's `ts(unit)`, or for a field without one (a plain `i64`, a `desc_ts` one) to [`ColumnMap::timestamps`]' unit, milliseconds by default; a value that is not a whole number of it is a bad row (a truncation could make two rows one key) |
//! | `Dictionary(_, any of these)` | as its values |
//!
//! A null is `None` in an `Option` field and a bad row in any other. A
//! column of a type that cannot fill its field (a boolean for a `u64`, a
//! timestamp for a string) is refused for the whole batch, naming both.
//!
//! # Cells
//! Every value column that is not null in a row is a cell (family and
//! qualifier from the map; without any, every column that is not a key
//! field, in the map's family, named as the column). Its bytes are, in
//! [`CellEncoding::Binary`] (the default), those of HBase's
//! `Bytes.toBytes` for the Java type of the column (big-endian integers
//! of the column's width, IEEE floats, `-1`/`0` for a boolean, a
//! timestamp's `long` in its unit), a string's UTF-8 and binary as it is;
//! in [`CellEncoding::Text`], the value's text. A row whose value columns
//! are all null gets one empty cell (the family's empty qualifier), as
//! HBase keeps no row without a cell.

use std::fmt;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Int16Type, Int32Type, Int64Type, Int8Type, UInt16Type, UInt32Type, UInt64Type, UInt8Type,
};
use arrow_array::{Array, RecordBatch};
use arrow_schema::{DataType, Schema, TimeUnit as ArrowUnit};
use rowkey_core::{DynLayout, TimeUnit, Value};

use super::{BulkError, BulkLoad};
use crate::types::Cell;

/// How a value column's values become cell bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CellEncoding {
    /// HBase's `Bytes.toBytes` of the column's Java type (see the
    /// [module docs](self)): what a Java service reads with
    /// `Bytes.toLong`, `Bytes.toDouble`, `Bytes.toString`.
    #[default]
    Binary,
    /// The value's text (`42`, `1.5`, `true`, a timestamp's integer in
    /// its unit), as a CSV load writes it.
    Text,
}

/// Which columns of a record batch make a row's key and its cells (see
/// the [module docs](self)).
#[derive(Clone)]
pub struct ColumnMap {
    layout: DynLayout,
    family: String,
    /// Per key field, its column's name.
    key: Vec<String>,
    /// Value columns: column, family, qualifier. Empty: every column that
    /// is not a key field.
    values: Vec<(String, String, Vec<u8>)>,
    encoding: CellEncoding,
    /// The unit of an integer field with none of its own that a timestamp
    /// column fills.
    timestamps: TimeUnit,
    /// Whether the layout's last field is the data row's key (an index's
    /// map), read from no column.
    data_key_last: bool,
    /// The maps of the indexes whose entries each row gets.
    indexes: Vec<ColumnMap>,
}

impl fmt::Debug for ColumnMap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ColumnMap")
            .field("layout", &self.layout.layout().to_string())
            .field("family", &self.family)
            .field("key", &self.key)
            .field("values", &self.values)
            .field("encoding", &self.encoding)
            .field("timestamps", &self.timestamps)
            .field("indexes", &self.indexes)
            .finish()
    }
}

/// One row a batch could not put: where it is and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadRow {
    /// Its index in the batch.
    pub row: usize,
    /// The column whose value is wrong (empty when it is the key as a
    /// whole: too long, say).
    pub column: String,
    /// What is wrong with it.
    pub reason: String,
}

impl fmt::Display for BadRow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.column.is_empty() {
            write!(f, "row {}: {}", self.row, self.reason)
        } else {
            write!(
                f,
                "row {}, column `{}`: {}",
                self.row, self.column, self.reason
            )
        }
    }
}

impl BadRow {
    fn into_error(self) -> BulkError {
        BulkError::BadInput {
            row: self.row,
            column: self.column,
            reason: self.reason,
        }
    }
}

impl ColumnMap {
    /// A map for keys of `layout` (one key's layout, not a family): each
    /// field read from the column of its name, every other column a cell
    /// of `family`.
    pub fn new(layout: &DynLayout, family: &str) -> Result<ColumnMap, BulkError> {
        if !layout.members().is_empty() {
            return Err(BulkError::Columns(
                "a key family's layout: give one member's (DynLayout::member)".into(),
            ));
        }
        Ok(ColumnMap {
            layout: layout.clone(),
            family: family.to_string(),
            key: layout.field_names().map(str::to_string).collect(),
            values: Vec::new(),
            encoding: CellEncoding::Binary,
            timestamps: TimeUnit::Millis,
            data_key_last: false,
            indexes: Vec::new(),
        })
    }

    /// Gives each row its entry in `index` too (its fields but the last
    /// read from the columns of their names, as key fields are), put
    /// beside the row in the load's index family
    /// ([`BulkLoad::put_raw_indexed`]): a row whose entry's field is bad
    /// is a bad row, written neither.
    #[cfg(feature = "index")]
    pub fn index(mut self, index: &super::ColumnIndex) -> ColumnMap {
        let layout = index.layout().clone();
        let key = index.columns().map(str::to_string).collect();
        self.indexes.push(ColumnMap {
            layout,
            family: self.family.clone(),
            key,
            values: Vec::new(),
            encoding: self.encoding,
            timestamps: self.timestamps,
            data_key_last: true,
            indexes: Vec::new(),
        });
        self
    }

    /// Reads the key field `field` from the column `column`.
    pub fn key_column(mut self, field: &str, column: &str) -> Result<ColumnMap, BulkError> {
        let i = self
            .layout
            .field_index(field)
            .map_err(|e| BulkError::Columns(e.to_string()))?;
        self.key[i] = column.to_string();
        Ok(self)
    }

    /// Makes `column` a cell of `family:qualifier` (repeat it); once one
    /// is given, only the columns given are cells.
    pub fn value(mut self, column: &str, family: &str, qualifier: &[u8]) -> ColumnMap {
        self.values
            .push((column.to_string(), family.to_string(), qualifier.to_vec()));
        self
    }

    /// How values become cell bytes ([`CellEncoding::Binary`] by default).
    pub fn encoding(mut self, encoding: CellEncoding) -> ColumnMap {
        self.encoding = encoding;
        self
    }

    /// The unit a timestamp column is read in for an integer key field
    /// with no unit of its own (a plain `i64`, a `desc_ts` one);
    /// milliseconds by default, as HBase's timestamps. A field with
    /// `ts(unit)` always takes its own.
    pub fn timestamps(mut self, unit: TimeUnit) -> ColumnMap {
        self.timestamps = unit;
        for ix in &mut self.indexes {
            ix.timestamps = unit;
        }
        self
    }

    /// The family of the cells when no value column is named (every
    /// column that is not a key field), and of a row's empty cell.
    pub fn family(&self) -> &str {
        &self.family
    }

    /// Every column's place and reading for `schema` (and each index's),
    /// or the first column that is missing or of a type it cannot read.
    fn plan(&self, schema: &Schema) -> Result<Plan, BulkError> {
        let mut plan = self.plan_own(schema)?;
        for ix in &self.indexes {
            plan.indexes.push(ix.plan_own(schema)?);
        }
        Ok(plan)
    }

    /// [`plan`](Self::plan) of this map's own columns.
    fn plan_own(&self, schema: &Schema) -> Result<Plan, BulkError> {
        let column = |name: &str, what: &str| {
            schema.index_of(name).map_err(|_| {
                let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
                BulkError::Columns(format!(
                    "no column `{name}` for {what} (the batch has {})",
                    names.join(", ")
                ))
            })
        };
        let fields = self.layout.layout().fields();
        let mut key = Vec::with_capacity(fields.len());
        for (f, name) in fields.iter().zip(&self.key) {
            let at = column(name, &format!("the key field `{}`", f.name()))?;
            let ty = schema.field(at).data_type();
            if !cell_type(ty) {
                return Err(BulkError::Columns(format!(
                    "column `{name}` is {ty}: a key field reads integers, strings, binary, booleans, floats and timestamps"
                )));
            }
            if !fits(f.kind(), ty) {
                return Err(BulkError::Columns(format!(
                    "column `{name}` is {ty}, and the key field `{}` is {}",
                    f.name(),
                    f.kind()
                )));
            }
            key.push(at);
        }
        let values: Vec<(usize, String, Vec<u8>)> = if self.data_key_last {
            Vec::new()
        } else if self.values.is_empty() {
            (0..schema.fields().len())
                .filter(|i| !key.contains(i))
                .map(|i| {
                    let name = schema.field(i).name();
                    (i, self.family.clone(), name.as_bytes().to_vec())
                })
                .collect()
        } else {
            self.values
                .iter()
                .map(|(c, f, q)| Ok((column(c, "a value")?, f.clone(), q.clone())))
                .collect::<Result<_, BulkError>>()?
        };
        for (at, _, _) in &values {
            let ty = schema.field(*at).data_type();
            if !cell_type(ty) {
                return Err(BulkError::Columns(format!(
                    "column `{}` is {ty}: a cell is an integer, a float, a boolean, a string, binary or a timestamp",
                    schema.field(*at).name()
                )));
            }
        }
        Ok(Plan {
            key,
            values,
            indexes: Vec::new(),
        })
    }
}

/// A map checked against one batch's schema: column indices.
struct Plan {
    key: Vec<usize>,
    values: Vec<(usize, String, Vec<u8>)>,
    /// Each index's (its values empty).
    indexes: Vec<Plan>,
}

/// Whether a column of `ty` can fill a field of `kind` (the field's
/// `FieldLayout::kind`): text fills any field (read as `rowkey encode`
/// reads it), and each other type the fields of its kind.
fn fits(kind: &str, ty: &DataType) -> bool {
    use DataType::*;
    let kind = kind
        .strip_prefix("Option<")
        .and_then(|k| k.strip_suffix('>'))
        .unwrap_or(kind);
    let int = matches!(
        kind,
        "u8" | "u16" | "u32" | "u64" | "u128" | "i8" | "i16" | "i32" | "i64" | "i128"
    );
    match ty {
        Dictionary(_, v) => fits(kind, v),
        Utf8 | LargeUtf8 | Utf8View => true,
        Int8 | Int16 | Int32 | Int64 | UInt8 | UInt16 | UInt32 | UInt64 => {
            int || !matches!(kind, "str" | "bytes" | "bool" | "f32" | "f64" | "char")
        }
        Timestamp(..) => int,
        Boolean => kind == "bool",
        Float32 | Float64 => matches!(kind, "f32" | "f64"),
        Binary | LargeBinary | BinaryView | FixedSizeBinary(_) => {
            !int && !matches!(kind, "str" | "bool" | "f32" | "f64" | "char")
        }
        _ => false,
    }
}

/// Whether a column of `ty` can be read at all (a key field's or a cell's).
fn cell_type(ty: &DataType) -> bool {
    use DataType::*;
    match ty {
        Dictionary(_, v) => cell_type(v),
        Int8 | Int16 | Int32 | Int64 | UInt8 | UInt16 | UInt32 | UInt64 | Float32 | Float64
        | Boolean | Utf8 | LargeUtf8 | Utf8View | Binary | LargeBinary | BinaryView
        | FixedSizeBinary(_) | Timestamp(..) => true,
        _ => false,
    }
}

/// One value of a column, borrowed from its array.
enum Scalar<'a> {
    Null,
    Int(i128),
    F32(f32),
    F64(f64),
    Bool(bool),
    Str(&'a str),
    Bytes(&'a [u8]),
    /// A timestamp: its value and unit.
    Ts(i64, ArrowUnit),
}

/// The value at `row`, or why the column cannot give one.
fn scalar(array: &dyn Array, row: usize) -> Result<Scalar<'_>, String> {
    if array.is_null(row) {
        return Ok(Scalar::Null);
    }
    macro_rules! int {
        ($t:ty) => {
            Scalar::Int(i128::from(array.as_primitive::<$t>().value(row)))
        };
    }
    Ok(match array.data_type() {
        DataType::Int8 => int!(Int8Type),
        DataType::Int16 => int!(Int16Type),
        DataType::Int32 => int!(Int32Type),
        DataType::Int64 => int!(Int64Type),
        DataType::UInt8 => int!(UInt8Type),
        DataType::UInt16 => int!(UInt16Type),
        DataType::UInt32 => int!(UInt32Type),
        DataType::UInt64 => int!(UInt64Type),
        DataType::Float32 => Scalar::F32(
            array
                .as_primitive::<arrow_array::types::Float32Type>()
                .value(row),
        ),
        DataType::Float64 => Scalar::F64(
            array
                .as_primitive::<arrow_array::types::Float64Type>()
                .value(row),
        ),
        DataType::Boolean => Scalar::Bool(array.as_boolean().value(row)),
        DataType::Utf8 => Scalar::Str(array.as_string::<i32>().value(row)),
        DataType::LargeUtf8 => Scalar::Str(array.as_string::<i64>().value(row)),
        DataType::Utf8View => Scalar::Str(array.as_string_view().value(row)),
        DataType::Binary => Scalar::Bytes(array.as_binary::<i32>().value(row)),
        DataType::LargeBinary => Scalar::Bytes(array.as_binary::<i64>().value(row)),
        DataType::BinaryView => Scalar::Bytes(array.as_binary_view().value(row)),
        DataType::FixedSizeBinary(_) => Scalar::Bytes(array.as_fixed_size_binary().value(row)),
        DataType::Timestamp(unit, _) => {
            use arrow_array::types::*;
            let v = match unit {
                ArrowUnit::Second => array.as_primitive::<TimestampSecondType>().value(row),
                ArrowUnit::Millisecond => {
                    array.as_primitive::<TimestampMillisecondType>().value(row)
                }
                ArrowUnit::Microsecond => {
                    array.as_primitive::<TimestampMicrosecondType>().value(row)
                }
                ArrowUnit::Nanosecond => array.as_primitive::<TimestampNanosecondType>().value(row),
            };
            Scalar::Ts(v, *unit)
        }
        DataType::Dictionary(..) => {
            let dict = array
                .as_any_dictionary_opt()
                .ok_or_else(|| format!("a {} the reader does not take", array.data_type()))?;
            // This row's key alone (the array is not null here, so its
            // key is not).
            let key = match scalar(dict.keys(), row)? {
                Scalar::Int(k) => k,
                _ => return Err("a dictionary whose keys are not integers".into()),
            };
            let values = dict.values();
            let at = usize::try_from(key)
                .ok()
                .filter(|&at| at < values.len())
                .ok_or_else(|| format!("dictionary key {key} past its {} values", values.len()))?;
            return scalar(values.as_ref(), at);
        }
        other => return Err(format!("a {other} column")),
    })
}

fn nanos(unit: ArrowUnit) -> i128 {
    match unit {
        ArrowUnit::Second => 1_000_000_000,
        ArrowUnit::Millisecond => 1_000_000,
        ArrowUnit::Microsecond => 1_000,
        ArrowUnit::Nanosecond => 1,
    }
}

impl ColumnMap {
    /// A key field's value from a column's value.
    fn key_value(&self, field: usize, v: Scalar<'_>) -> Result<Value, String> {
        let f = &self.layout.layout().fields()[field];
        let name = f.name();
        let inner = match v {
            Scalar::Null if f.is_option() => return Ok(Value::Option(None)),
            Scalar::Null => return Err("null, and the field is not an Option".into()),
            Scalar::Int(i) => {
                if i >= 0 {
                    Value::U128(i as u128)
                } else {
                    Value::I128(i)
                }
            }
            Scalar::F32(x) => Value::F32(x),
            Scalar::F64(x) => Value::F64(x),
            Scalar::Bool(b) => Value::Bool(b),
            Scalar::Str(s) if matches!(f.kind(), "str" | "Option<str>") => {
                Value::Str(s.to_string())
            }
            Scalar::Str(s) if matches!(f.kind(), "bytes" | "Option<bytes>") => {
                Value::Bytes(s.as_bytes().to_vec())
            }
            // Any other field from its text, as `rowkey encode` reads it
            // (the text of an Option's value is the value's).
            Scalar::Str(s) => {
                return self.layout.value(name, s).map_err(|e| e.to_string());
            }
            Scalar::Bytes(b) => Value::Bytes(b.to_vec()),
            Scalar::Ts(v, unit) => {
                Value::I64(convert_ts(v, unit, f.unit().unwrap_or(self.timestamps))?)
            }
        };
        Ok(if f.is_option() {
            Value::Option(Some(Box::new(inner)))
        } else {
            inner
        })
    }

    /// A value column's cell bytes (`None` for a null).
    fn cell_bytes(&self, v: Scalar<'_>, array: &dyn Array) -> Option<Vec<u8>> {
        let text = self.encoding == CellEncoding::Text;
        Some(match v {
            Scalar::Null => return None,
            Scalar::Int(i) if text => i.to_string().into_bytes(),
            // Bytes.toBytes of the column's Java type: its width.
            Scalar::Int(i) => {
                let width = int_width(array.data_type());
                i.to_be_bytes()[16 - width..].to_vec()
            }
            Scalar::F32(x) if text => x.to_string().into_bytes(),
            Scalar::F32(x) => x.to_bits().to_be_bytes().to_vec(),
            Scalar::F64(x) if text => x.to_string().into_bytes(),
            Scalar::F64(x) => x.to_bits().to_be_bytes().to_vec(),
            Scalar::Bool(b) if text => b.to_string().into_bytes(),
            Scalar::Bool(b) => vec![if b { 0xff } else { 0 }],
            Scalar::Str(s) => s.as_bytes().to_vec(),
            Scalar::Bytes(b) => b.to_vec(),
            Scalar::Ts(v, _) if text => v.to_string().into_bytes(),
            Scalar::Ts(v, _) => v.to_be_bytes().to_vec(),
        })
    }
}

/// The width of an integer column's type (a dictionary's values').
fn int_width(ty: &DataType) -> usize {
    match ty {
        DataType::Dictionary(_, v) => int_width(v),
        DataType::Int8 | DataType::UInt8 => 1,
        DataType::Int16 | DataType::UInt16 => 2,
        DataType::Int32 | DataType::UInt32 => 4,
        _ => 8,
    }
}

/// A timestamp of `unit` in the field's unit, refused when it is not a
/// whole number of it or does not fit an `i64`.
fn convert_ts(v: i64, unit: ArrowUnit, to: TimeUnit) -> Result<i64, String> {
    let from = nanos(unit);
    let to_nanos = to.nanos();
    let total = i128::from(v) * from;
    if total % to_nanos != 0 {
        return Err(format!(
            "timestamp {v} ({unit:?}) is not a whole number of the field's {to:?}: truncating it could make two rows one key"
        ));
    }
    i64::try_from(total / to_nanos)
        .map_err(|_| format!("timestamp {v} ({unit:?}) does not fit an i64 of {to:?}"))
}

impl BulkLoad {
    /// Puts every row of `batch`, keys and cells as `map` reads them (see
    /// the [`arrow`](self) module): all of them, or none when one row is
    /// bad ([`BulkError::BadInput`] names the first, its row and
    /// column). Returns the rows put.
    pub fn put_batch(&mut self, batch: &RecordBatch, map: &ColumnMap) -> Result<usize, BulkError> {
        let plan = map.plan(&batch.schema())?;
        // Every key first: a bad row puts nothing.
        let mut keys = Vec::with_capacity(batch.num_rows());
        let mut values = Vec::with_capacity(plan.key.len());
        for row in 0..batch.num_rows() {
            let key = key_of(map, &plan, batch, row, &mut values, None);
            let entries = key.and_then(|key| {
                let entries = entries_of(map, &plan, batch, row, &mut values, &key)?;
                Ok((key, entries))
            });
            keys.push(entries.map_err(BadRow::into_error)?);
        }
        let mut cells = Vec::with_capacity(plan.values.len());
        for (row, (key, entries)) in keys.iter().enumerate() {
            cells_of(map, &plan, batch, row, &mut cells).map_err(BadRow::into_error)?;
            self.put_row_of(key, &cells, entries)?;
        }
        Ok(keys.len())
    }

    /// Puts the good rows of `batch` and appends each bad one to `bad`
    /// (at most one per row): a load that skips bad input, or one that
    /// lists all of it before it stops. Returns the rows put. A column
    /// that is missing or of a type the map cannot read is an error for
    /// the whole batch.
    pub fn put_batch_skipping(
        &mut self,
        batch: &RecordBatch,
        map: &ColumnMap,
        bad: &mut Vec<BadRow>,
    ) -> Result<usize, BulkError> {
        let plan = map.plan(&batch.schema())?;
        let mut values = Vec::with_capacity(plan.key.len());
        let mut cells = Vec::with_capacity(plan.values.len());
        let mut put = 0;
        for row in 0..batch.num_rows() {
            let read = key_of(map, &plan, batch, row, &mut values, None).and_then(|key| {
                let entries = entries_of(map, &plan, batch, row, &mut values, &key)?;
                cells_of(map, &plan, batch, row, &mut cells)?;
                Ok((key, entries))
            });
            let (key, entries) = match read {
                Ok(read) => read,
                Err(b) => {
                    bad.push(b);
                    continue;
                }
            };
            match self.put_row_of(&key, &cells, &entries) {
                Ok(()) => put += 1,
                // The row's own fault; anything else ends the load.
                Err(e) if e.is_row_fault() => bad.push(BadRow {
                    row,
                    column: String::new(),
                    reason: e.to_string(),
                }),
                Err(e) => return Err(e),
            }
        }
        Ok(put)
    }
}

impl BulkLoad {
    /// A row of a batch with its entries (none without indexes).
    fn put_row_of(
        &mut self,
        key: &[u8],
        cells: &[Cell],
        entries: &[Vec<u8>],
    ) -> Result<(), BulkError> {
        #[cfg(feature = "index")]
        if !entries.is_empty() {
            return self.put_raw_indexed(key, cells, entries);
        }
        debug_assert!(entries.is_empty());
        self.put_raw_row(key, cells)
    }
}

/// A row's entries in each index of `map`, or why it has none.
fn entries_of(
    map: &ColumnMap,
    plan: &Plan,
    batch: &RecordBatch,
    row: usize,
    values: &mut Vec<Value>,
    data_key: &[u8],
) -> Result<Vec<Vec<u8>>, BadRow> {
    map.indexes
        .iter()
        .zip(&plan.indexes)
        .map(|(ix, p)| key_of(ix, p, batch, row, values, Some(data_key)))
        .collect()
}

/// The key of one row (an index's entry, with `data_key` its last field),
/// or why it has none.
fn key_of(
    map: &ColumnMap,
    plan: &Plan,
    batch: &RecordBatch,
    row: usize,
    values: &mut Vec<Value>,
    data_key: Option<&[u8]>,
) -> Result<Vec<u8>, BadRow> {
    values.clear();
    for (field, &at) in plan.key.iter().enumerate() {
        let bad = |reason: String| BadRow {
            row,
            column: map.key[field].clone(),
            reason,
        };
        let array = batch.column(at).as_ref();
        let v = scalar(array, row)
            .and_then(|s| map.key_value(field, s))
            .map_err(bad)?;
        values.push(v);
    }
    if let Some(data_key) = data_key {
        values.push(Value::Bytes(data_key.to_vec()));
    }
    map.layout.encode(values).map_err(|e| {
        // The column of the field the codec refused, when it names one.
        let column = e
            .field()
            .and_then(|f| map.layout.field_index(f).ok())
            .and_then(|i| map.key.get(i).cloned())
            .unwrap_or_default();
        BadRow {
            row,
            column,
            reason: e.to_string(),
        }
    })
}

/// The cells of one row: its value columns that are not null, or the
/// family's empty cell.
fn cells_of(
    map: &ColumnMap,
    plan: &Plan,
    batch: &RecordBatch,
    row: usize,
    cells: &mut Vec<Cell>,
) -> Result<(), BadRow> {
    cells.clear();
    for (at, family, qualifier) in &plan.values {
        let array = batch.column(*at).as_ref();
        let value = scalar(array, row).map_err(|reason| BadRow {
            row,
            column: batch.schema_ref().field(*at).name().clone(),
            reason,
        })?;
        if let Some(bytes) = map.cell_bytes(value, array) {
            cells.push((family.clone(), qualifier.clone(), bytes));
        }
    }
    if cells.is_empty() {
        cells.push((map.family.clone(), Vec::new(), Vec::new()));
    }
    Ok(())
}
