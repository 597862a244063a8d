//! The physical scan of a [`KeyTable`](crate::KeyTable): its partitions
//! (a plan's branches and salt buckets), each read on a blocking thread of
//! its own that decodes keys into Arrow batches.

use std::fmt;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use datafusion::arrow::compute::SortOptions;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::{DataFusionError, Result};
use datafusion::execution::TaskContext;
use datafusion::physical_expr::expressions::Column;
use datafusion::physical_expr::{
    EquivalenceProperties, LexOrdering, PhysicalExpr, PhysicalSortExpr,
};
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::metrics::{ExecutionPlanMetricsSet, MetricBuilder, MetricsSet};
use datafusion::physical_plan::stream::RecordBatchReceiverStreamBuilder;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, Partitioning, PlanProperties,
    SendableRecordBatchStream,
};
use rowkey_core::scan::{Buckets, KeyFilter};
use rowkey_core::{DynLayout, Value};

use crate::columns::{Builder, KeyColumn, KeyKind, ValueColumn, ValueSource};
use crate::pushdown::Plan;
use crate::source::{Bounds, How, Source, Stored};

/// A column of the scan's output.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Col {
    /// The key field of this index in the table's key columns.
    Key(usize),
    /// The value column of this index.
    Value(usize),
}

/// What every partition of one scan shares.
#[derive(Debug)]
pub(crate) struct Shared {
    pub(crate) source: Arc<dyn Source>,
    pub(crate) layout: Arc<DynLayout>,
    pub(crate) keys: Vec<KeyColumn>,
    pub(crate) values: Vec<ValueColumn>,
    pub(crate) projection: Vec<Col>,
    /// The projected schema.
    pub(crate) schema: SchemaRef,
    pub(crate) plan: Plan,
    /// The table's count of rows read.
    pub(crate) rows_read: Arc<AtomicU64>,
}

impl Shared {
    /// Whether the scan projects a value column: without one, a store of
    /// cells sends no values.
    fn reads_values(&self) -> bool {
        self.projection.iter().any(|c| matches!(c, Col::Value(_)))
    }
}

/// One read of a partition: a branch's filter (in one bucket), within one
/// region of the store (`None`: the filter's own ranges).
#[derive(Clone, Debug)]
struct Read {
    branch: usize,
    filter: KeyFilter,
    within: Option<Bounds>,
}

/// A partition's reads, in key order when the plan is one ordered branch.
type Part = Vec<Read>;

/// The scan of a [`KeyTable`](crate::KeyTable).
#[derive(Debug)]
pub(crate) struct KeyScanExec {
    shared: Arc<Shared>,
    parts: Arc<Vec<Part>>,
    /// Stop after this many rows (a `LIMIT` pushed down).
    fetch: Option<usize>,
    properties: Arc<PlanProperties>,
    metrics: ExecutionPlanMetricsSet,
}

impl KeyScanExec {
    /// The scan, cut at the store's `regions` (their first keys) into at
    /// most `partitions` partitions.
    pub(crate) fn new(
        shared: Shared,
        partitions: usize,
        regions: &[Vec<u8>],
        fetch: Option<usize>,
    ) -> KeyScanExec {
        let parts = cut(&shared.plan, partitions.max(1), regions);
        // One branch of one key-ordered run of reads: each partition's
        // reads follow one another in key order.
        let ordered = match &shared.plan.branches[..] {
            [only] => !matches!(only.scan().buckets(), Buckets::All(n) if n > 1),
            _ => false,
        };
        let ordering = if ordered { key_ordering(&shared) } else { None };
        let mut eq = EquivalenceProperties::new(shared.schema.clone());
        if let Some(o) = ordering {
            eq = EquivalenceProperties::new_with_orderings(shared.schema.clone(), [o]);
        }
        let properties = PlanProperties::new(
            eq,
            Partitioning::UnknownPartitioning(parts.len()),
            EmissionType::Incremental,
            Boundedness::Bounded,
        );
        KeyScanExec {
            shared: Arc::new(shared),
            parts: Arc::new(parts),
            fetch,
            properties: Arc::new(properties),
            metrics: ExecutionPlanMetricsSet::new(),
        }
    }
}

/// The plan's reads cut into partitions: each branch's salt buckets apart
/// (a branch that reads one bucket, or an unsalted one, is one read), a
/// read of one range cut again at the store's regions inside it; then
/// runs of them dealt to at most `partitions`, in order.
fn cut(plan: &Plan, partitions: usize, regions: &[Vec<u8>]) -> Vec<Part> {
    let mut reads = Vec::new();
    for (branch, f) in plan.branches.iter().enumerate() {
        let filters = match f.scan().buckets() {
            Buckets::All(n) => (0..n).map(|b| f.in_bucket(b as u8)).collect(),
            _ => vec![f.clone()],
        };
        for filter in filters {
            for within in in_regions(&filter, regions) {
                reads.push(Read {
                    branch,
                    filter: filter.clone(),
                    within,
                });
            }
        }
    }
    let n = partitions.min(reads.len()).max(1);
    let len = reads.len();
    let mut parts: Vec<Part> = vec![Vec::new(); n];
    for (k, read) in reads.into_iter().enumerate() {
        parts[k * n / len.max(1)].push(read);
    }
    parts
}

/// The bounds of a read of `filter`: its one range cut at each region's
/// first key inside it, or (`None`) the filter's own ranges.
fn in_regions(filter: &KeyFilter, regions: &[Vec<u8>]) -> Vec<Option<Bounds>> {
    let scan = filter.scan();
    let mut ranges = scan.ranges();
    let (Some(range), None) = (ranges.next(), ranges.next()) else {
        return vec![None];
    };
    let (start, stop) = (range.start(), range.stop());
    let inside: Vec<&Vec<u8>> = regions
        .iter()
        .filter(|r| r.as_slice() > start && (stop.is_empty() || r.as_slice() < stop))
        .collect();
    if inside.is_empty() {
        return vec![None];
    }
    let mut edges = vec![start.to_vec()];
    edges.extend(inside.into_iter().cloned());
    edges.push(stop.to_vec());
    edges
        .windows(2)
        .map(|w| Some((w[0].clone(), w[1].clone())))
        .collect()
}

/// The order rows come out of one read in: the key's leading fields, each
/// ascending or (`desc`) descending, up to the first whose key order is
/// not SQL's (floats, `Option`s, enums, reversed bytes) or that the scan
/// does not project.
fn key_ordering(shared: &Shared) -> Option<LexOrdering> {
    let mut sort = Vec::new();
    for key in &shared.keys {
        let f = key.layout;
        let ordered = matches!(
            key.kind,
            KeyKind::Bool
                | KeyKind::U8
                | KeyKind::U16
                | KeyKind::U32
                | KeyKind::U64
                | KeyKind::I8
                | KeyKind::I16
                | KeyKind::I32
                | KeyKind::I64
                | KeyKind::Str
                | KeyKind::Bytes
                | KeyKind::Time(_)
        ) && !f.is_option()
            && !f.is_reverse()
            && !f.is_reverse_domain()
            && shared.layout.layout().format() == rowkey_core::layout::Format::Binary;
        let at = shared
            .projection
            .iter()
            .position(|c| matches!(c, Col::Key(k) if *k == key.index));
        let (true, Some(at)) = (ordered, at) else {
            break;
        };
        let column: Arc<dyn PhysicalExpr> = Arc::new(Column::new(key.name(), at));
        sort.push(PhysicalSortExpr::new(
            column,
            SortOptions {
                descending: f.is_desc(),
                nulls_first: false,
            },
        ));
    }
    LexOrdering::new(sort)
}

impl DisplayAs for KeyScanExec {
    fn fmt_as(&self, t: DisplayFormatType, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = &self.shared;
        match t {
            DisplayFormatType::Default | DisplayFormatType::Verbose => {
                write!(
                    f,
                    "KeyScanExec: {} `{}`, partitions={}, {}",
                    s.source.name(),
                    s.layout.layout().name(),
                    self.parts.len(),
                    s.plan
                )?;
                if let Some(n) = self.fetch {
                    write!(f, ", fetch={n}")?;
                }
                if s.source.cells() && !s.reads_values() {
                    f.write_str(", keys only")?;
                }
                Ok(())
            }
            DisplayFormatType::TreeRender => write!(f, "{}", s.plan),
        }
    }
}

impl ExecutionPlan for KeyScanExec {
    fn name(&self) -> &str {
        "KeyScanExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        Vec::new()
    }

    fn apply_expressions(
        &self,
        _f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        Ok(TreeNodeRecursion::Continue)
    }

    fn with_new_children(
        self: Arc<Self>,
        children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        if children.is_empty() {
            Ok(self)
        } else {
            Err(DataFusionError::Internal(
                "KeyScanExec has no children".into(),
            ))
        }
    }

    fn with_fetch(&self, limit: Option<usize>) -> Option<Arc<dyn ExecutionPlan>> {
        Some(Arc::new(KeyScanExec {
            shared: self.shared.clone(),
            parts: self.parts.clone(),
            fetch: limit,
            properties: self.properties.clone(),
            metrics: ExecutionPlanMetricsSet::new(),
        }))
    }

    fn fetch(&self) -> Option<usize> {
        self.fetch
    }

    fn metrics(&self) -> Option<MetricsSet> {
        Some(self.metrics.clone_inner())
    }

    fn execute(
        &self,
        partition: usize,
        context: Arc<TaskContext>,
    ) -> Result<SendableRecordBatchStream> {
        let part = self.parts.get(partition).cloned().ok_or_else(|| {
            DataFusionError::Internal(format!(
                "KeyScanExec: partition {partition} of {}",
                self.parts.len()
            ))
        })?;
        let shared = self.shared.clone();
        let batch_size = context.session_config().batch_size().max(1);
        let fetch = self.fetch;
        let rows_read = MetricBuilder::new(&self.metrics).counter("rows_read", partition);
        let value_bytes = MetricBuilder::new(&self.metrics).counter("value_bytes", partition);
        let output = MetricBuilder::new(&self.metrics).output_rows(partition);
        let mut builder = RecordBatchReceiverStreamBuilder::new(shared.schema.clone(), 2);
        let tx = builder.tx();
        builder.spawn_blocking(move || {
            let mut batch = Batch::new(&shared, batch_size.min(fetch.unwrap_or(usize::MAX)));
            let mut left = fetch.unwrap_or(usize::MAX);
            let mut failed = None;
            let mut closed = false;
            for read in &part {
                if left == 0 || closed || failed.is_some() {
                    break;
                }
                let earlier = &shared.plan.branches[..read.branch];
                // A later branch's read skips rows an earlier one read: the
                // rows it visits are not its rows returned, so no limit.
                let how = How {
                    within: read.within.as_ref(),
                    values: shared.reads_values(),
                    limit: (shared.plan.branches.len() == 1 && left != usize::MAX).then_some(left),
                };
                let read = shared.source.scan(&read.filter, how, &mut |key, value| {
                    // A row an earlier branch reads too is that branch's.
                    if earlier.iter().any(|f| f.matches(key)) {
                        return ControlFlow::Continue(());
                    }
                    value_bytes.add(value.value_bytes());
                    if let Err(e) = batch.push(&shared, key, value) {
                        failed = Some(e);
                        return ControlFlow::Break(());
                    }
                    left -= 1;
                    if batch.rows == batch.capacity || left == 0 {
                        let rows = batch.rows;
                        match batch.finish(&shared) {
                            Ok(b) => {
                                output.add(rows);
                                if tx.blocking_send(Ok(b)).is_err() {
                                    closed = true;
                                }
                            }
                            Err(e) => failed = Some(e.to_string()),
                        }
                    }
                    if left == 0 || closed || failed.is_some() {
                        ControlFlow::Break(())
                    } else {
                        ControlFlow::Continue(())
                    }
                });
                match read {
                    Ok(n) => {
                        rows_read.add(n as usize);
                        shared.rows_read.fetch_add(n, Ordering::Relaxed);
                    }
                    Err(e) => failed = Some(e),
                }
            }
            if let Some(e) = failed {
                return Err(DataFusionError::Execution(e));
            }
            if batch.rows > 0 && !closed {
                output.add(batch.rows);
                let b = batch.finish(&shared)?;
                let _ = tx.blocking_send(Ok(b));
            }
            Ok(())
        });
        Ok(builder.build())
    }
}

/// The rows of one batch under construction.
struct Batch {
    builders: Vec<Builder>,
    /// A key column is projected: each key is decoded (once per scan, not
    /// asked again per row).
    decode: bool,
    values: Vec<Value>,
    rows: usize,
    capacity: usize,
}

impl Batch {
    fn new(shared: &Shared, capacity: usize) -> Batch {
        let builders = shared
            .schema
            .fields()
            .iter()
            .map(|f| Builder::new(f.data_type(), capacity))
            .collect();
        Batch {
            builders,
            decode: shared.projection.iter().any(|c| matches!(c, Col::Key(_))),
            values: Vec::with_capacity(shared.keys.len()),
            rows: 0,
            capacity,
        }
    }

    /// Decodes one row into the builders.
    fn push(&mut self, shared: &Shared, key: &[u8], stored: &dyn Stored) -> Result<(), String> {
        let row = || rowkey_core::hbase::to_string_binary(key);
        if self.decode {
            shared
                .layout
                .decode_into(key, &mut self.values)
                .map_err(|e| format!("row {}: {e}", row()))?;
        }
        for (b, col) in self.builders.iter_mut().zip(&shared.projection) {
            match *col {
                Col::Key(i) => b
                    .push_key(&shared.keys[i], &self.values[i])
                    .map_err(|e| format!("row {}: {e}", row()))?,
                Col::Value(i) => {
                    let column = &shared.values[i];
                    let bytes = match &column.source {
                        ValueSource::Whole => stored.whole(),
                        ValueSource::Cell { family, qualifier } => stored.cell(family, qualifier),
                    };
                    b.push_value(column, bytes)
                        .map_err(|e| format!("column `{}`, row {}: {e}", column.name, row()))?
                }
            }
        }
        self.rows += 1;
        Ok(())
    }

    fn finish(&mut self, shared: &Shared) -> Result<RecordBatch> {
        let columns = self
            .builders
            .iter_mut()
            .zip(shared.schema.fields())
            .map(|(b, f)| b.finish(f.data_type()))
            .collect();
        // The count, for a projection of no columns (`count(*)`).
        let options = datafusion::arrow::record_batch::RecordBatchOptions::new()
            .with_row_count(Some(std::mem::take(&mut self.rows)));
        Ok(RecordBatch::try_new_with_options(
            shared.schema.clone(),
            columns,
            &options,
        )?)
    }
}
