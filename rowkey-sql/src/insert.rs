//! `INSERT INTO`: each row's key encoded from its key columns, its value
//! columns written as the store keeps them.

use std::fmt;
use std::sync::Arc;

use async_trait::async_trait;
use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::common::{DataFusionError, Result, ScalarValue};
use datafusion::datasource::sink::DataSink;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_plan::{DisplayAs, DisplayFormatType};
use futures::StreamExt;
use rowkey_core::{DynLayout, Value};

use crate::columns::{KeyColumn, KeyKind, ValueColumn, ValueSource, ValueType};
use crate::source::{Source, Written};

/// Rows written to HBase or Bigtable per call (redb and fjall take the
/// statement's rows in one transaction).
const WRITE_CHUNK: usize = 1_000;

/// Where an `INSERT` goes.
#[derive(Debug)]
pub(crate) struct KeySink {
    pub(crate) source: Arc<dyn Source>,
    pub(crate) layout: Arc<DynLayout>,
    pub(crate) keys: Vec<KeyColumn>,
    pub(crate) values: Vec<ValueColumn>,
    pub(crate) schema: SchemaRef,
}

impl DisplayAs for KeySink {
    fn fmt_as(&self, _: DisplayFormatType, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "KeySink: {} `{}`",
            self.source.name(),
            self.layout.layout().name()
        )
    }
}

#[async_trait]
impl DataSink for KeySink {
    fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    async fn write_all(
        &self,
        mut data: SendableRecordBatchStream,
        _context: &Arc<TaskContext>,
    ) -> Result<u64> {
        // redb and fjall: every row encoded before any is written, then one
        // transaction; HBase and Bigtable: written as they come.
        let atomic = !self.source.cells();
        let mut pending = Vec::new();
        let mut row = 0u64;
        while let Some(batch) = data.next().await {
            let batch = batch?;
            for i in 0..batch.num_rows() {
                row += 1;
                pending.push(self.row(&batch, i, row)?);
            }
            if !atomic && pending.len() >= WRITE_CHUNK {
                self.write(std::mem::take(&mut pending)).await?;
            }
        }
        self.write(pending).await?;
        Ok(row)
    }
}

impl KeySink {
    async fn write(&self, rows: Vec<Written>) -> Result<()> {
        if rows.is_empty() {
            return Ok(());
        }
        let source = self.source.clone();
        tokio_blocking(move || source.write(rows)).await
    }

    /// Row `i` of `batch` (the statement's `n`th) as the store keeps it.
    fn row(&self, batch: &RecordBatch, i: usize, n: u64) -> Result<Written> {
        let fail = |column: &str, why: String| {
            DataFusionError::Execution(format!("INSERT: row {n}, column `{column}`: {why}"))
        };
        let mut values = Vec::with_capacity(self.keys.len());
        for (k, column) in self.keys.iter().enumerate() {
            let sql = ScalarValue::try_from_array(batch.column(k), i)?;
            values.push(key_value(column, sql).map_err(|why| fail(column.name(), why))?);
        }
        let key = self.layout.encode(&values).map_err(|e| {
            let column = e.field().unwrap_or("(key)");
            fail(column, e.to_string())
        })?;
        let mut written = Written {
            key,
            whole: Vec::new(),
            cells: Vec::new(),
        };
        for (v, column) in self.values.iter().enumerate() {
            let sql = ScalarValue::try_from_array(batch.column(self.keys.len() + v), i)?;
            let Some(bytes) = value_bytes(column.ty, sql).map_err(|why| fail(&column.name, why))?
            else {
                continue;
            };
            match &column.source {
                ValueSource::Whole => written.whole = bytes,
                ValueSource::Cell { family, qualifier } => {
                    written
                        .cells
                        .push((family.clone(), qualifier.clone(), bytes))
                }
            }
        }
        if self.source.cells() && written.cells.is_empty() {
            return Err(fail(
                self.values.first().map_or("(value)", |c| c.name.as_str()),
                "a row of HBase or Bigtable needs a cell: every value column is NULL".into(),
            ));
        }
        Ok(written)
    }
}

/// Runs the store's blocking write off the runtime's workers.
async fn tokio_blocking(f: impl FnOnce() -> Result<(), String> + Send + 'static) -> Result<()> {
    datafusion::common::runtime::SpawnedTask::spawn_blocking(f)
        .join()
        .await
        .map_err(|e| DataFusionError::Execution(format!("INSERT: the write stopped: {e}")))?
        .map_err(|e| DataFusionError::Execution(format!("INSERT: {e}")))
}

/// A key column's SQL value as its field's value.
fn key_value(column: &KeyColumn, sql: ScalarValue) -> Result<Value, String> {
    if sql.is_null() {
        return if column.nullable() {
            Ok(Value::Option(None))
        } else {
            Err("NULL, in a key field that is not an Option".into())
        };
    }
    let shown = sql.to_string();
    if column.kind == KeyKind::Wide {
        let text = match &sql {
            ScalarValue::Utf8(Some(t)) | ScalarValue::Utf8View(Some(t)) => t.clone(),
            _ => shown.clone(),
        };
        if let Ok(v) = text.parse::<i128>() {
            return Ok(Value::I128(v));
        }
        return text
            .parse::<u128>()
            .map(Value::U128)
            .map_err(|_| format!("`{text}` is not an integer"));
    }
    if column.kind == KeyKind::Enum {
        if let ScalarValue::Utf8(Some(t)) | ScalarValue::Utf8View(Some(t)) = &sql {
            return column
                .variant(t)
                .ok_or_else(|| format!("`{t}` is not a variant of the field's enum"));
        }
    }
    column
        .value_of(sql)
        .ok_or_else(|| format!("{shown} is not a value of the field"))
}

/// A value column's SQL value as the bytes the store keeps; `None` for
/// NULL.
fn value_bytes(ty: ValueType, sql: ScalarValue) -> Result<Option<Vec<u8>>, String> {
    use ScalarValue as S;
    if sql.is_null() {
        return Ok(None);
    }
    Ok(Some(match (ty, sql) {
        (
            ValueType::Binary,
            S::Binary(Some(b)) | S::LargeBinary(Some(b)) | S::BinaryView(Some(b)),
        ) => b,
        (
            ValueType::Utf8 | ValueType::Json,
            S::Utf8(Some(t)) | S::LargeUtf8(Some(t)) | S::Utf8View(Some(t)),
        ) => t.into_bytes(),
        (ValueType::Int64, S::Int64(Some(v))) => v.to_be_bytes().to_vec(),
        (ValueType::Float64, S::Float64(Some(v))) => v.to_be_bytes().to_vec(),
        (ty, other) => return Err(format!("{other} is not a {ty:?} value")),
    }))
}
