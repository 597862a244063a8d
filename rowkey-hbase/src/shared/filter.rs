//! Skip scans on HBase: a [`KeyFilter`] as the filter HBase's region
//! servers run themselves, serialized as `TScan.filterBytes` (HBase's
//! `FilterProtos.Filter` protobuf, which the Thrift2 gateway parses with
//! `ProtobufUtil.toFilter`).
//!
//! - [`Pushdown::Server`] when the servers have rowkey's own filter
//!   ([`ClientBuilder::server_filter`](crate::ClientBuilder::server_filter)):
//!   the whole [`KeyFilter`] ([`server_filter_bytes`]), which seeks past
//!   every run of rows that cannot match, whatever fields it constrains.
//!   A cluster found without it gets HBase's own filters instead, below.
//!
//! Otherwise, HBase's own filters where they express the filter:
//! - [`Pushdown::FuzzyRowFilter`] when the constrained fields sit at fixed
//!   offsets and hold a few values ([`KeyFilter::fuzzy_row_filter`]): the
//!   region server seeks past every run of rows that cannot match
//!   (`FuzzyRowFilter.getNextCellHint`), as a skip scan does.
//! - [`Pushdown::MultiRowRangeFilter`] when the filter is a set of ranges
//!   ([`KeyFilter::multi_row_ranges`]): the server seeks from range to
//!   range.
//! - [`Pushdown::FuzzyRowFilter`] again when a range over a fixed-width
//!   part holds few values (a few days, a few groups:
//!   [`KeyFilter::fuzzy_row_filter_enumerated`]), as those values.
//! - [`Pushdown::Client`] otherwise: the filter's ranges are read and each
//!   row is checked with [`KeyFilter::matches`] here, which
//!   [`Rows::pushdown`](crate::Rows::pushdown) reports.

use rowkey_core::{KeyFilter, Scan};

use crate::shared::proto::{field, flag, uint};

/// Where a skip scan's filter runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pushdown {
    /// rowkey's own filter (`rowkey.hbase.KeyFilter`), on the region
    /// servers.
    Server,
    /// HBase's `FuzzyRowFilter`, on the region servers.
    FuzzyRowFilter,
    /// HBase's `MultiRowRangeFilter`, on the region servers.
    MultiRowRangeFilter,
    /// In this client: every row of the filter's ranges is sent and
    /// checked here.
    Client,
}

/// The filter HBase runs for `filter` with HBase's own filters only, as
/// `TScan.filterBytes`, and where it runs (a client with
/// [`server_filter`](crate::ClientBuilder::server_filter) sends
/// [`server_filter_bytes`] instead).
///
/// ```
/// use rowkey_core::prelude::*;
/// use rowkey_hbase::{filter_bytes, Pushdown};
///
/// #[derive(RowKey)]
/// struct Metric {
///     metric: u16,
///     host: u16,
///     ts: i64,
/// }
///
/// // A host "in any metric": fixed offset, one value.
/// let filter = Metric::filter().host(7).build()?;
/// let (pushdown, bytes) = filter_bytes(&filter);
/// assert_eq!(pushdown, Pushdown::FuzzyRowFilter);
/// assert!(bytes.unwrap().starts_with(b"\x0a\x2dorg.apache.hadoop.hbase.filter.FuzzyRowFilter"));
/// # Ok::<(), EncodeError>(())
/// ```
pub fn filter_bytes(filter: &KeyFilter) -> (Pushdown, Option<Vec<u8>>) {
    match plan(filter) {
        Plan::Fuzzy(bytes) => (Pushdown::FuzzyRowFilter, Some(bytes)),
        Plan::Ranges(ranges) => (
            Pushdown::MultiRowRangeFilter,
            Some(multi_row_range_filter(&ranges)),
        ),
        Plan::Client => (Pushdown::Client, None),
    }
}

/// rowkey's region-server filter for `filter`, as `TScan.filterBytes`: a
/// `FilterProtos.Filter` naming `rowkey.hbase.KeyFilter`, holding
/// [`KeyFilter::to_bytes`]. `None` where that is `None` (a layout the Java
/// filter could not read; none that has a filter today).
///
/// ```
/// use rowkey_core::prelude::*;
/// use rowkey_hbase::server_filter_bytes;
///
/// #[derive(RowKey)]
/// struct Event {
///     user: String,
///     ts: i64,
/// }
///
/// // A range on a field after a variable-width one: no HBase filter
/// // expresses it, rowkey's does.
/// let filter = Event::filter().ts(0..60_000).build()?;
/// let bytes = server_filter_bytes(&filter).unwrap();
/// assert!(bytes.starts_with(b"\x0a\x16rowkey.hbase.KeyFilter"));
/// # Ok::<(), EncodeError>(())
/// ```
pub fn server_filter_bytes(filter: &KeyFilter) -> Option<Vec<u8>> {
    filter
        .to_bytes()
        .map(|body| named("rowkey.hbase.KeyFilter", &body))
}

/// What the region servers run for a filter, chosen once.
enum Plan {
    /// A serialized `FuzzyRowFilter`.
    Fuzzy(Vec<u8>),
    /// The row ranges of a `MultiRowRangeFilter`.
    Ranges(Vec<(Vec<u8>, Vec<u8>)>),
    /// Nothing: rows are checked here.
    Client,
}

fn plan(filter: &KeyFilter) -> Plan {
    if let Some(pairs) = filter.fuzzy_row_filter() {
        return Plan::Fuzzy(fuzzy_row_filter(&pairs));
    }
    if let Some(ranges) = filter.multi_row_ranges() {
        return Plan::Ranges(ranges);
    }
    // A range over a few values of a fixed-width part (a few days), as
    // those values.
    match filter.fuzzy_row_filter_enumerated() {
        Some(pairs) => Plan::Fuzzy(fuzzy_row_filter(&pairs)),
        None => Plan::Client,
    }
}

/// `FuzzyRowFilter { repeated BytesBytesPair fuzzy_keys_data = 1 }`,
/// `BytesBytesPair { bytes first = 1; bytes second = 2 }`: the key and its
/// mask (0: fixed, 1: any byte).
fn fuzzy_row_filter(pairs: &[(Vec<u8>, Vec<u8>)]) -> Vec<u8> {
    let mut body = Vec::new();
    for (key, mask) in pairs {
        let mut pair = Vec::new();
        field(&mut pair, 1, key);
        field(&mut pair, 2, mask);
        field(&mut body, 1, &pair);
    }
    named("org.apache.hadoop.hbase.filter.FuzzyRowFilter", &body)
}

/// [`filter_bytes`] for each range of `scan` (the filter's own
/// [`KeyFilter::scan`]): a `MultiRowRangeFilter` holds only the row ranges
/// inside its scanner's range (a salted key's bucket), not every bucket's.
/// With `server`, rowkey's filter when it can read the layout.
pub(crate) fn filter_bytes_per_range(
    filter: &KeyFilter,
    scan: &Scan,
    server: bool,
) -> (Pushdown, Vec<Option<Vec<u8>>>) {
    let same = |bytes: Option<Vec<u8>>| scan.ranges().map(|_| bytes.clone()).collect();
    if let Some(bytes) = server.then(|| server_filter_bytes(filter)).flatten() {
        return (Pushdown::Server, same(Some(bytes)));
    }
    match plan(filter) {
        Plan::Fuzzy(bytes) => (Pushdown::FuzzyRowFilter, same(Some(bytes))),
        Plan::Client => (Pushdown::Client, same(None)),
        Plan::Ranges(ranges) => {
            let per_range = scan
                .ranges()
                .map(|r| {
                    let inside: Vec<(Vec<u8>, Vec<u8>)> = ranges
                        .iter()
                        .filter(|(start, stop)| {
                            (r.stop().is_empty() || start.as_slice() < r.stop())
                                && (stop.is_empty() || stop.as_slice() > r.start())
                        })
                        .cloned()
                        .collect();
                    // HBase refuses a MultiRowRangeFilter of no range; a scan
                    // range holds some of the filter's, but never send none.
                    Some(multi_row_range_filter(if inside.is_empty() {
                        &ranges
                    } else {
                        &inside
                    }))
                })
                .collect();
            (Pushdown::MultiRowRangeFilter, per_range)
        }
    }
}

/// `filter` (none: every row) with HBase's `KeyOnlyFilter` beside it, as
/// `TScan.filterBytes`: a `FilterList { operator = MUST_PASS_ALL; filters
/// }` of the two, or the `KeyOnlyFilter { len_as_val = false }` alone. The
/// servers then send each cell with an empty value; the row filter still
/// decides which rows (and seeks past the rest).
pub(crate) fn keys_only(filter: Option<Vec<u8>>) -> Vec<u8> {
    let mut key_only = Vec::new();
    flag(&mut key_only, 1, false);
    let key_only = named("org.apache.hadoop.hbase.filter.KeyOnlyFilter", &key_only);
    let Some(filter) = filter else {
        return key_only;
    };
    const MUST_PASS_ALL: u64 = 1;
    let mut list = Vec::new();
    uint(&mut list, 1, MUST_PASS_ALL);
    field(&mut list, 2, &filter);
    field(&mut list, 2, &key_only);
    named("org.apache.hadoop.hbase.filter.FilterList", &list)
}

/// `MultiRowRangeFilter { repeated RowRange row_range_list = 1 }`,
/// `RowRange { bytes start_row = 1; bool start_row_inclusive = 2; bytes
/// stop_row = 3; bool stop_row_inclusive = 4 }`; an empty stop row is the
/// end of the table.
fn multi_row_range_filter(ranges: &[(Vec<u8>, Vec<u8>)]) -> Vec<u8> {
    let mut body = Vec::new();
    for (start, stop) in ranges {
        let mut range = Vec::new();
        field(&mut range, 1, start);
        flag(&mut range, 2, true);
        field(&mut range, 3, stop);
        flag(&mut range, 4, false);
        field(&mut body, 1, &range);
    }
    named("org.apache.hadoop.hbase.filter.MultiRowRangeFilter", &body)
}

/// `Filter { string name = 1; bytes serialized_filter = 2 }`.
fn named(name: &str, body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    field(&mut out, 1, name.as_bytes());
    field(&mut out, 2, body);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_buckets_scanner_gets_only_its_own_row_ranges() {
        use rowkey_core::prelude::*;
        #[derive(RowKey)]
        #[salt(buckets = 4, by(metric))]
        struct Point {
            metric: u16,
            hour: u32,
        }
        let filter = Point::filter()
            .metric(any_of([1, 2, 3, 9]))
            .build()
            .unwrap();
        let scan = filter.scan();
        let all = filter.multi_row_ranges().unwrap();
        let (pushdown, per_range) = filter_bytes_per_range(&filter, &scan, false);
        assert_eq!(pushdown, Pushdown::MultiRowRangeFilter);
        assert_eq!(per_range.len(), scan.range_count());
        assert!(scan.range_count() > 1);
        let mut seen = 0;
        for (r, bytes) in scan.ranges().zip(&per_range) {
            // The bucket's own ranges: those that start with its salt byte.
            let own: Vec<(Vec<u8>, Vec<u8>)> = all
                .iter()
                .filter(|(start, _)| start[0] == r.start()[0])
                .cloned()
                .collect();
            assert!(!own.is_empty() && own.len() < all.len());
            seen += own.len();
            assert_eq!(
                bytes.as_deref(),
                Some(multi_row_range_filter(&own).as_slice())
            );
        }
        assert_eq!(seen, all.len());
    }

    /// HBase's bytes for a `FilterList` of a `MultiRowRangeFilter` and a
    /// `KeyOnlyFilter`, and for the `KeyOnlyFilter` alone, as the
    /// launcher's `rpc-golden` prints them (`ProtobufUtil.toFilter`).
    #[test]
    fn key_only_filters_are_hbases_bytes() {
        let golden = include_str!("../../tests/data/native_golden.txt");
        let bytes = |name: &str| -> Vec<u8> {
            let hex = golden
                .lines()
                .find_map(|l| l.strip_prefix(name)?.strip_prefix(' '))
                .unwrap_or_else(|| panic!("no {name} in the golden file"));
            (0..hex.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
                .collect()
        };
        let ranges = multi_row_range_filter(&[(b"a".to_vec(), b"b".to_vec())]);
        assert_eq!(keys_only(Some(ranges)), bytes("key_only_filter_list"));
        assert_eq!(keys_only(None), bytes("key_only_filter"));
    }
}
