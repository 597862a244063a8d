//! rowkey scans as the scan ranges of other clients, each behind its own
//! feature (off by default):
//!
//! A conversion checked without a server; the engines rowkey runs against
//! are in the guide's chapter "Engines" (the book in `docs/` of rowkey's
//! repository: `mdbook serve docs`).
//!
//! - `tikv`: [`tikv::bound_ranges`], TiKV `BoundRange`s for `tikv-client`'s
//!   raw and transactional `scan`.
//!
//! (HBase has its own crate, `rowkey-hbase`: a client of HBase's Thrift2
//! gateway tested on a real HBase; `rowkey_hbase::tscans` converts a scan
//! for another Thrift2 client.)
//!
//! These are conversions only: they are compiled and their results checked
//! in the test suite, without a TiKV server. A salted scan becomes
//! one range per bucket; merge what the server returns with
//! `rowkey_core::merge_salted`.
#![forbid(unsafe_code)]

#[cfg(feature = "tikv")]
pub mod tikv {
    //! TiKV `BoundRange`s.
    use std::ops::Bound;

    use rowkey_core::{Scan, ScanRange};
    use tikv_client::{BoundRange, Key};

    /// One scan range: start key included, stop key excluded, unbounded
    /// when the stop row is empty.
    pub fn bound_range(r: &ScanRange) -> BoundRange {
        let to = if r.stop().is_empty() {
            Bound::Unbounded
        } else {
            Bound::Excluded(Key::from(r.stop().to_vec()))
        };
        BoundRange::new(Bound::Included(Key::from(r.start().to_vec())), to)
    }

    /// Every range of a scan, in bucket order (none for an empty scan).
    pub fn bound_ranges(scan: &Scan) -> Vec<BoundRange> {
        scan.ranges().map(|r| bound_range(&r)).collect()
    }
}
