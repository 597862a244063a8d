//! Merged scans: one server-side scanner per range, read in batches.

use std::collections::VecDeque;
use std::marker::PhantomData;

use rowkey_core::hbase::to_string_binary;
use rowkey_core::{DecodeRowKey, KeyFilter, MergeHeads, Scan, ScanRange};

use crate::conn::{cell, Cell, Client, Error, Row};
use crate::filter::{filter_bytes_per_range, Pushdown};
use crate::thrift::{TScan, TTHBaseServiceSyncClient};

/// One range's scanner and the rows it has fetched and not yet merged.
struct RangeReader {
    /// The open scanner; `None` once it is exhausted (and closed).
    scanner: Option<i32>,
    buffer: VecDeque<Row>,
    /// Rows fetched from this range.
    read: usize,
}

/// The rows of [`Client::scan`]: `Result<(key, cells), Error>` in merged key
/// order. Holds at most `ranges × batch` rows.
pub struct Rows<'c> {
    client: &'c mut Client,
    table: String,
    ranges: Vec<RangeReader>,
    heads: MergeHeads<Row>,
    /// The limit on the rows yielded.
    limit: Option<usize>,
    /// The limit on the rows read per range (none when rows are checked
    /// here: some may be dropped).
    range_limit: Option<usize>,
    yielded: usize,
    started: bool,
    /// An error met while refilling a range, yielded after the row that was
    /// already popped; then the scan ends.
    pending: Option<Error>,
    failed: bool,
    /// A skip scan: where its filter runs, and the filter when rows are
    /// checked here.
    pushdown: Option<Pushdown>,
    check: Option<KeyFilter>,
}

impl<'c> Rows<'c> {
    pub(crate) fn open(
        client: &'c mut Client,
        table: &str,
        scan: &Scan,
        limit: Option<usize>,
        reversed: bool,
    ) -> Result<Rows<'c>, Error> {
        Rows::open_with(client, table, scan, limit, reversed, None)
    }

    /// A skip scan: the filter's ranges, with the filter HBase runs
    /// ([`filter_bytes`]) or, where it has none, checked here.
    pub(crate) fn open_filter(
        client: &'c mut Client,
        table: &str,
        filter: &KeyFilter,
        limit: Option<usize>,
    ) -> Result<Rows<'c>, Error> {
        let scan = filter.scan();
        let (pushdown, per_range) = filter_bytes_per_range(filter, &scan);
        // Rows are checked here whatever the server runs (its filters let
        // keys that are not of the layout through), so the limit counts
        // matched rows here and is never sent as `TScan.limit`: a page is
        // never short while more rows exist.
        let mut rows = Rows::open_with(client, table, &scan, limit, false, Some(per_range))?;
        rows.pushdown = Some(pushdown);
        // The server's filters match like `matches` on keys of the layout;
        // a row of another layout in the table is dropped here too.
        rows.check = Some(filter.clone());
        Ok(rows)
    }

    fn open_with(
        client: &'c mut Client,
        table: &str,
        scan: &Scan,
        limit: Option<usize>,
        reversed: bool,
        filter: Option<Vec<Option<Vec<u8>>>>,
    ) -> Result<Rows<'c>, Error> {
        let n = scan.range_count();
        let mut rows = Rows {
            client,
            table: table.to_string(),
            ranges: Vec::with_capacity(n),
            heads: if reversed {
                MergeHeads::new_reversed(scan.head_len(), n)
            } else {
                MergeHeads::new(scan.head_len(), n)
            },
            limit,
            range_limit: match &filter {
                Some(_) => None,
                None => limit,
            },
            yielded: 0,
            started: false,
            pending: None,
            failed: false,
            pushdown: None,
            check: None,
        };
        if limit == Some(0) {
            return Ok(rows);
        }
        let caching = i32::try_from(rows.client.scan_batch()).unwrap_or(i32::MAX);
        let limit = rows
            .range_limit
            .map(|l| i32::try_from(l).unwrap_or(i32::MAX));
        let mut per_range = filter.map(Vec::into_iter);
        for r in scan.ranges() {
            let mut tscan = tscan(&r, reversed, Some(caching), limit);
            tscan.filter_bytes = per_range.as_mut().and_then(|f| f.next().flatten());
            let id = rows
                .client
                .thrift()
                .open_scanner(table.as_bytes().to_vec(), tscan)
                .map_err(|e| Error::call("openScanner", table, Some(r.start()), e))?;
            // Pushed before the next call, so that a failure closes it.
            rows.ranges.push(RangeReader {
                scanner: Some(id),
                buffer: VecDeque::new(),
                read: 0,
            });
        }
        Ok(rows)
    }

    /// The rows fetched from the server so far, over all ranges: with a
    /// limit, at most `limit × ranges`.
    pub fn rows_read(&self) -> usize {
        self.ranges.iter().map(|r| r.read).sum()
    }

    /// For a skip scan ([`Client::filter`]), where its filter runs: on the
    /// region servers, or here (every row of its ranges sent).
    pub fn pushdown(&self) -> Option<Pushdown> {
        self.pushdown
    }

    /// The next row of range `i` into the merge, fetching a batch when its
    /// buffer is empty.
    fn refill(&mut self, i: usize) -> Result<(), Error> {
        let batch = self.client.scan_batch();
        // Rows the filter does not match (checked here) are skipped.
        loop {
            self.fetch(i, batch)?;
            let range = &mut self.ranges[i];
            match range.buffer.pop_front() {
                Some(row) if self.check.as_ref().is_some_and(|f| !f.matches(&row.0)) => continue,
                Some(row) => {
                    self.heads.push(i, row);
                    return Ok(());
                }
                None => return Ok(()),
            }
        }
    }

    /// A batch of range `i`'s rows when its buffer is empty.
    fn fetch(&mut self, i: usize, batch: usize) -> Result<(), Error> {
        let range = &mut self.ranges[i];
        if range.buffer.is_empty() {
            if let Some(id) = range.scanner {
                let want = match self.range_limit {
                    Some(l) => batch.min(l - range.read.min(l)),
                    None => batch,
                };
                let fetched = if want == 0 {
                    Vec::new()
                } else {
                    let want = i32::try_from(want).unwrap_or(i32::MAX);
                    self.client
                        .thrift()
                        .get_scanner_rows(id, want)
                        .map_err(|e| Error::call("getScannerRows", &self.table, None, e))?
                };
                if fetched.is_empty() {
                    range.scanner = None;
                    // The gateway drops an exhausted scanner's resources
                    // here; an error is of no consequence to the rows.
                    let _ = self.client.thrift().close_scanner(id);
                } else {
                    range.read += fetched.len();
                    range.buffer.extend(fetched.into_iter().map(|r| {
                        let cells: Vec<Cell> = r.column_values.into_iter().map(cell).collect();
                        (r.row.unwrap_or_default(), cells)
                    }));
                }
            }
        }
        Ok(())
    }

    fn fail(&mut self, e: Error) -> Option<Result<Row, Error>> {
        self.failed = true;
        Some(Err(e))
    }
}

impl Iterator for Rows<'_> {
    type Item = Result<Row, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        if let Some(e) = self.pending.take() {
            return self.fail(e);
        }
        if self.limit.is_some_and(|l| self.yielded >= l) {
            return None;
        }
        if !self.started {
            self.started = true;
            for i in 0..self.ranges.len() {
                if let Err(e) = self.refill(i) {
                    return self.fail(e);
                }
            }
        }
        let (i, row) = self.heads.pop()?;
        self.yielded += 1;
        // Range i's next row is not smaller than this one, so an error
        // reading it can wait until this row is out.
        if self.limit.is_none_or(|l| self.yielded < l) {
            if let Err(e) = self.refill(i) {
                self.pending = Some(e);
            }
        }
        Some(Ok(row))
    }
}

impl Drop for Rows<'_> {
    fn drop(&mut self) {
        for r in &mut self.ranges {
            if let Some(id) = r.scanner.take() {
                let _ = self.client.thrift().close_scanner(id);
            }
        }
    }
}

/// The rows of [`Client::scan_typed`]: `Result<(K, cells), Error>` in merged
/// key order. A row whose key is not a `K` is an [`Error::ForeignRow`] and
/// the scan goes on; any other error ends it.
pub struct TypedRows<'c, K> {
    rows: Rows<'c>,
    key: PhantomData<fn() -> K>,
}

impl<'c, K: for<'a> DecodeRowKey<'a>> TypedRows<'c, K> {
    pub(crate) fn new(rows: Rows<'c>) -> Self {
        TypedRows {
            rows,
            key: PhantomData,
        }
    }

    /// The rows fetched from the server so far (see [`Rows::rows_read`]).
    pub fn rows_read(&self) -> usize {
        self.rows.rows_read()
    }

    /// For a skip scan ([`Client::filter_typed`]), where its filter runs
    /// (see [`Rows::pushdown`]).
    pub fn pushdown(&self) -> Option<Pushdown> {
        self.rows.pushdown()
    }
}

impl<K: for<'a> DecodeRowKey<'a>> Iterator for TypedRows<'_, K> {
    type Item = Result<(K, Vec<Cell>), Error>;

    fn next(&mut self) -> Option<Self::Item> {
        let (key, cells) = match self.rows.next()? {
            Ok(row) => row,
            Err(e) => return Some(Err(e)),
        };
        Some(match K::decode(&key) {
            Ok(k) => Ok((k, cells)),
            Err(source) => Err(Error::ForeignRow {
                table: self.rows.table.clone(),
                key: to_string_binary(&key),
                source,
            }),
        })
    }
}

/// Every range of `scan` as a Thrift2 `TScan`, in [`Scan::ranges`] order,
/// read forwards or (`reversed`) backwards: for a Thrift2 client of your
/// own. [`Client::scan`] uses these, with a batch size (`caching`) and a
/// limit on top.
///
/// ```
/// use rowkey_core::Scan;
///
/// let t = rowkey_hbase::tscans(&Scan::from_bounds(b"a", b"c"), false).remove(0);
/// assert_eq!((t.start_row.as_deref(), t.stop_row.as_deref()), (Some(&b"a"[..]), Some(&b"c"[..])));
/// let r = rowkey_hbase::tscans(&Scan::from_bounds(b"a", b"c"), true).remove(0);
/// assert_eq!((r.start_row.as_deref(), r.reversed), (Some(&b"c"[..]), Some(true)));
/// ```
pub fn tscans(scan: &Scan, reversed: bool) -> Vec<TScan> {
    scan.ranges()
        .map(|r| tscan(&r, reversed, None, None))
        .collect()
}

/// One range as a Thrift `TScan`.
///
/// Forwards: `startRow` (included) and `stopRow` (excluded), as a
/// [`ScanRange`] means them. Backwards, HBase starts at `startRow`
/// (included) and stops before `stopRow`, both the wrong way round for a
/// half-open range: the scan starts at the range's stop key, a filter drops
/// that key itself, and a `WHILE` filter ends the scan at the first key
/// below the range's start, so no row outside the range is read or sent.
fn tscan(r: &ScanRange, reversed: bool, caching: Option<i32>, limit: Option<i32>) -> TScan {
    // Not `TScan::default()`: the generated default sets every optional
    // field (an empty filter, `maxVersions` 0, `limit` 0), which HBase
    // refuses.
    #[rustfmt::skip]
    let mut t = TScan::new(
        None, None, None, caching, None, None, None, None, None, None,
        None, None, None, None, limit, None, None, None,
    );
    if !reversed {
        t.start_row = Some(r.start().to_vec());
        t.stop_row = (!r.stop().is_empty()).then(|| r.stop().to_vec());
        return t;
    }
    t.reversed = Some(true);
    let mut filters = Vec::new();
    if !r.start().is_empty() {
        filters.push(row_filter("WHILE RowFilter(>=, ", r.start()));
    }
    if !r.stop().is_empty() {
        t.start_row = Some(r.stop().to_vec());
        filters.push(row_filter("RowFilter(<, ", r.stop()));
    }
    if !filters.is_empty() {
        t.filter_string = Some(filters.join(&b" AND "[..]));
    }
    t
}

/// `{head}'binary:KEY')` in HBase's filter language: the key's bytes as
/// they are, a quote doubled.
fn row_filter(head: &str, key: &[u8]) -> Vec<u8> {
    let mut f = head.as_bytes().to_vec();
    f.extend_from_slice(b"'binary:");
    for &b in key {
        if b == b'\'' {
            f.push(b'\'');
        }
        f.push(b);
    }
    f.extend_from_slice(b"')");
    f
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reversed_ranges_become_filters_with_quotes_doubled() {
        let scan = Scan::from_bounds(b"a'b", b"c");
        let r = scan.ranges().next().unwrap();
        let t = tscan(&r, true, Some(10), Some(5));
        assert_eq!(t.start_row.as_deref(), Some(&b"c"[..]));
        assert_eq!(t.stop_row, None);
        assert_eq!(t.reversed, Some(true));
        assert_eq!(
            t.filter_string.as_deref(),
            Some(&b"WHILE RowFilter(>=, 'binary:a''b') AND RowFilter(<, 'binary:c')"[..])
        );
        let f = tscan(&r, false, Some(10), None);
        assert_eq!(
            (
                f.start_row.as_deref(),
                f.stop_row.as_deref(),
                f.filter_string,
                f.limit
            ),
            (Some(&b"a'b"[..]), Some(&b"c"[..]), None, None)
        );
    }
}
