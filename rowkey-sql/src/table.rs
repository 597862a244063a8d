//! [`KeyTable`]: one table of one layout, as DataFusion's `TableProvider`.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use async_trait::async_trait;
use datafusion::arrow::datatypes::{Schema, SchemaRef};
use datafusion::catalog::Session;
use datafusion::common::runtime::SpawnedTask;
use datafusion::common::{DataFusionError, Result};
use datafusion::datasource::sink::DataSinkExec;
use datafusion::datasource::{TableProvider, TableType};
use datafusion::logical_expr::dml::InsertOp;
use datafusion::logical_expr::{Expr, TableProviderFilterPushDown};
use datafusion::physical_plan::ExecutionPlan;
use rowkey_core::layout::Layout;
use rowkey_core::DynLayout;

use crate::columns::{KeyColumn, ValueColumn, ValueSource};
use crate::error::Error;
use crate::exec::{Col, KeyScanExec, Shared};
use crate::insert::KeySink;
use crate::pushdown;
use crate::source::Source;

/// One table of one key layout, as a DataFusion table: a column per key
/// field (named as the field, the salt and prefix left out), then the
/// value columns added with [`value`](Self::value).
///
/// Key predicates are pushed down as the scans rowkey plans for the typed
/// API (see the [crate documentation](crate)); [`rows_read`](Self::rows_read)
/// counts what they read.
pub struct KeyTable {
    source: Arc<dyn Source>,
    layout: Arc<DynLayout>,
    keys: Vec<KeyColumn>,
    values: Vec<ValueColumn>,
    schema: SchemaRef,
    rows_read: Arc<AtomicU64>,
    pushdown: bool,
}

impl fmt::Debug for KeyTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("KeyTable")
            .field("source", &self.source)
            .field("layout", &self.layout.layout().to_string())
            .finish()
    }
}

impl KeyTable {
    /// The redb table `table` of `&[u8]` keys and `&[u8]` values, its keys
    /// of `layout` (a derived key's `K::LAYOUT`, or a [`DynLayout`]'s
    /// `layout()`). A table not yet created holds no rows.
    #[cfg(feature = "redb")]
    pub fn redb(
        db: Arc<redb::Database>,
        table: &str,
        layout: &'static Layout,
    ) -> Result<KeyTable, Error> {
        let source = crate::source::Redb {
            db,
            table: table.to_owned(),
        };
        KeyTable::new(Arc::new(source), layout)
    }

    /// The keyspace `keyspace` of the fjall database `db` (opened, or
    /// created empty), its keys of `layout`.
    #[cfg(feature = "fjall")]
    pub fn fjall(
        db: fjall::Database,
        keyspace: &str,
        layout: &'static Layout,
    ) -> Result<KeyTable, Error> {
        let keyspace = db
            .keyspace(keyspace, fjall::KeyspaceCreateOptions::default)
            .map_err(|e| Error::Open(format!("fjall keyspace `{keyspace}`: {e}")))?;
        KeyTable::new(Arc::new(crate::source::Fjall { db, keyspace }), layout)
    }

    /// The HBase table `table`, through `client` (the native client or the
    /// Thrift2 gateway's), its keys of `layout`. A scan is the client's
    /// skip scan ([`Client::filter`](rowkey_hbase::Client::filter): rowkey's
    /// filter on the region servers); values are cells
    /// ([`ValueColumn::cell`]); [`rows_read`](Self::rows_read) counts the
    /// rows the scans read as the client counts them.
    #[cfg(feature = "hbase")]
    pub fn hbase(
        client: rowkey_hbase::Client,
        table: &str,
        layout: &'static Layout,
    ) -> Result<KeyTable, Error> {
        let source = crate::source::HBase {
            client,
            table: table.to_owned(),
        };
        KeyTable::new(Arc::new(source), layout)
    }

    /// The Bigtable table `table` (its id in the client's instance), its
    /// keys of `layout`. A scan is
    /// [`stream_filter`](rowkey_bigtable::stream_filter) (the filter's row
    /// regex sent to the server), driven on the runtime the query runs in;
    /// values are cells ([`ValueColumn::cell`]).
    #[cfg(feature = "bigtable")]
    pub fn bigtable(
        client: rowkey_bigtable::Client,
        table: &str,
        layout: &'static Layout,
    ) -> Result<KeyTable, Error> {
        let source = crate::source::Bigtable {
            client,
            table: table.to_owned(),
        };
        KeyTable::new(Arc::new(source), layout)
    }

    fn new(source: Arc<dyn Source>, layout: &'static Layout) -> Result<KeyTable, Error> {
        // A struct's summary leaves out its name, which EXPLAIN and errors
        // show; a family's names each member.
        let text = if layout.members().is_empty() {
            format!("{}: {layout}", layout.name())
        } else {
            layout.to_string()
        };
        let dynamic = DynLayout::parse(&text).map_err(|source| Error::Layout {
            layout: layout.name(),
            source,
        })?;
        KeyTable::of(source, dynamic)
    }

    fn of(source: Arc<dyn Source>, layout: DynLayout) -> Result<KeyTable, Error> {
        if layout.members().is_empty() {
            if let Err(e) = layout.filter().build() {
                return Err(Error::NoFilter {
                    layout: layout.layout().name(),
                    why: e.to_string(),
                });
            }
        }
        let keys = if layout.members().is_empty() {
            KeyColumn::of(&layout)
        } else {
            Vec::new()
        };
        let mut table = KeyTable {
            source,
            layout: Arc::new(layout),
            keys,
            values: Vec::new(),
            schema: Arc::new(Schema::empty()),
            rows_read: Arc::new(AtomicU64::new(0)),
            pushdown: true,
        };
        table.schema = table.full_schema();
        Ok(table)
    }

    /// The table of a key family's member `name` (its keys start with the
    /// member's prefix): a family is one table per member.
    pub fn member(self, name: &str) -> Result<KeyTable, Error> {
        let members = || {
            self.layout
                .members()
                .iter()
                .map(|m| m.layout().name())
                .collect::<Vec<_>>()
                .join(", ")
        };
        if self.layout.members().is_empty() {
            return Err(Error::NotFamily {
                layout: self.layout.layout().name(),
            });
        }
        let Some(member) = self.layout.member(name).cloned() else {
            return Err(Error::NoMember {
                family: self.layout.layout().name(),
                name: name.to_owned(),
                members: members(),
            });
        };
        let mut table = KeyTable::of(self.source, member)?;
        for v in self.values {
            table = table.value(v)?;
        }
        Ok(table)
    }

    /// Adds a column read from each row's value: the whole value on redb
    /// and fjall ([`ValueColumn::whole`]), a cell on HBase and Bigtable
    /// ([`ValueColumn::cell`]).
    pub fn value(mut self, column: ValueColumn) -> Result<KeyTable, Error> {
        if self.schema.field_with_name(&column.name).is_ok() {
            return Err(Error::DuplicateColumn(column.name));
        }
        let why = match (&column.source, self.source.cells()) {
            (ValueSource::Cell { .. }, false) => Some("a cell column is read from HBase or Bigtable rows; a redb or fjall row's value is one (ValueColumn::whole)"),
            (ValueSource::Whole, true) => Some("an HBase or Bigtable row's value is its cells: name one (ValueColumn::cell)"),
            _ => None,
        };
        if let Some(why) = why {
            return Err(Error::ValueColumn {
                column: column.name,
                why,
            });
        }
        if column.source == ValueSource::Whole
            && self.values.iter().any(|v| v.source == ValueSource::Whole)
        {
            return Err(Error::ValueColumn {
                column: column.name,
                why: "a row's whole value is one column",
            });
        }
        self.values.push(column);
        self.schema = self.full_schema();
        Ok(self)
    }

    /// The same table with no predicate pushed down: every filter left to
    /// DataFusion over a scan of every key of the layout (a baseline for
    /// benchmarks; its [`rows_read`](Self::rows_read) counts apart).
    pub fn without_pushdown(mut self) -> KeyTable {
        self.pushdown = false;
        self.rows_read = Arc::new(AtomicU64::new(0));
        self
    }

    /// The rows this table's scans have read from the store since it was
    /// made: matches and the rows a skip scan stepped over.
    pub fn rows_read(&self) -> u64 {
        self.rows_read.load(Ordering::Relaxed)
    }

    /// The key's layout (a family's member, once chosen).
    pub fn layout(&self) -> &'static Layout {
        self.layout.layout()
    }

    /// What the table is, as `rowkey sql`'s `\d` prints it: the store,
    /// each column with its Arrow type and where it comes from (a key
    /// field as the layout shows it, or the value), then the key's layout.
    ///
    /// ```text
    /// redb table `events`
    ///  column    | type                       | from
    ///  user_id   | UInt64                     | key: user_id u64 8
    ///  ts_millis | Int64                      | key: ts_millis desc_ts i64 8
    ///  body      | Utf8 (nullable)            | value: Json
    /// key: Event: [salt(user_id)/16 1][user_id u64 8][ts_millis desc_ts i64 8] = 17 bytes
    /// ```
    pub fn describe(&self) -> String {
        let mut rows: Vec<[String; 3]> = vec![["column".into(), "type".into(), "from".into()]];
        for (field, key) in self.schema.fields().iter().zip(&self.keys) {
            rows.push([
                field.name().clone(),
                type_text(field),
                format!("key: {}", key.layout),
            ]);
        }
        for (field, v) in self.schema.fields()[self.keys.len()..]
            .iter()
            .zip(&self.values)
        {
            let from = match &v.source {
                ValueSource::Whole => format!("value: {:?}", v.ty),
                ValueSource::Cell { family, qualifier } => format!(
                    "cell {}:{}, {:?}",
                    rowkey_core::hbase::to_string_binary(family),
                    rowkey_core::hbase::to_string_binary(qualifier),
                    v.ty
                ),
            };
            rows.push([field.name().clone(), type_text(field), from]);
        }
        let width = |i: usize| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0);
        let (a, b) = (width(0), width(1));
        let mut out = format!("{:?}\n", self.source);
        for r in &rows {
            out.push_str(&format!(" {:a$} | {:b$} | {}\n", r[0], r[1], r[2]));
        }
        let layout = self.layout.layout();
        out.push_str(&format!("key: {}: {layout}", layout.name()));
        if !self.layout.members().is_empty() {
            out.push_str("\n(a key family: choose a member)");
        }
        out
    }

    /// The names of the key columns, in key order.
    pub fn key_columns(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.keys.iter().map(KeyColumn::name)
    }

    fn full_schema(&self) -> SchemaRef {
        let fields = self
            .keys
            .iter()
            .map(KeyColumn::field)
            .chain(self.values.iter().map(ValueColumn::field));
        Arc::new(Schema::new(fields.collect::<Vec<_>>()))
    }

    fn check_member(&self) -> Result<(), Error> {
        if self.layout.members().is_empty() {
            return Ok(());
        }
        Err(Error::Family {
            family: self.layout.layout().name(),
            members: self
                .layout
                .members()
                .iter()
                .map(|m| m.layout().name())
                .collect::<Vec<_>>()
                .join(", "),
        })
    }
}

#[async_trait]
impl TableProvider for KeyTable {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    fn table_type(&self) -> TableType {
        TableType::Base
    }

    fn supports_filters_pushdown(
        &self,
        filters: &[&Expr],
    ) -> Result<Vec<TableProviderFilterPushDown>> {
        if !self.pushdown || !self.layout.members().is_empty() {
            return Ok(vec![
                TableProviderFilterPushDown::Unsupported;
                filters.len()
            ]);
        }
        Ok(pushdown::plan(&self.layout, &self.keys, filters).0)
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        self.check_member()
            .map_err(|e| DataFusionError::External(Box::new(e)))?;
        let filters: Vec<&Expr> = if self.pushdown {
            filters.iter().collect()
        } else {
            Vec::new()
        };
        let (_, plan) = pushdown::plan(&self.layout, &self.keys, &filters);
        let all: Vec<usize> = (0..self.schema.fields().len()).collect();
        let projection = projection.unwrap_or(&all);
        let cols = projection
            .iter()
            .map(|&i| match i.checked_sub(self.keys.len()) {
                None => Col::Key(i),
                Some(v) => Col::Value(v),
            })
            .collect();
        let shared = Shared {
            source: self.source.clone(),
            layout: self.layout.clone(),
            keys: self.keys.clone(),
            values: self.values.clone(),
            projection: cols,
            schema: Arc::new(self.schema.project(projection)?),
            plan,
            rows_read: self.rows_read.clone(),
        };
        let partitions = state.config().target_partitions();
        // The store's parts (HBase's regions, Bigtable's sampled keys): a
        // blocking call, off the runtime's workers.
        let source = self.source.clone();
        let regions = SpawnedTask::spawn_blocking(move || source.regions(partitions))
            .join()
            .await
            .map_err(|e| DataFusionError::Execution(format!("the table's regions: {e}")))?
            .map_err(|e| DataFusionError::Execution(format!("the table's regions: {e}")))?;
        Ok(Arc::new(KeyScanExec::new(
            shared, partitions, &regions, limit,
        )))
    }

    /// `INSERT INTO`: each row's key encoded from its key columns (a
    /// value that does not fit its field fails the statement, naming the
    /// row and the column), its value columns written as the store keeps
    /// them. On redb and fjall every row of the statement is encoded
    /// first, then written in one transaction: all or nothing. On HBase
    /// and Bigtable rows are written 1,000 at a time as they come: a
    /// failure leaves the rows before it written. A row's key that is
    /// already there is written over. `INSERT OVERWRITE` is refused.
    async fn insert_into(
        &self,
        _state: &dyn Session,
        input: Arc<dyn ExecutionPlan>,
        insert_op: InsertOp,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        self.check_member()
            .map_err(|e| DataFusionError::External(Box::new(e)))?;
        if insert_op != InsertOp::Append {
            return Err(DataFusionError::NotImplemented(format!(
                "{insert_op} on a rowkey table: INSERT INTO writes rows over those of the same key"
            )));
        }
        let sink = KeySink {
            source: self.source.clone(),
            layout: self.layout.clone(),
            keys: self.keys.clone(),
            values: self.values.clone(),
            schema: self.schema.clone(),
        };
        Ok(Arc::new(DataSinkExec::new(input, Arc::new(sink), None)))
    }
}

/// A column's type as `\d` prints it.
fn type_text(field: &datafusion::arrow::datatypes::Field) -> String {
    if field.is_nullable() {
        format!("{} (nullable)", field.data_type())
    } else {
        field.data_type().to_string()
    }
}
