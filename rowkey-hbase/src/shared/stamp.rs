//! Who stamps what a client writes: [`Timestamps`], and the clock a
//! client stamps with when it does.

/// Who stamps the cells a client writes and the deletes it sends: a
/// setting of the whole client ([`ClientBuilder::timestamps`](crate::ClientBuilder::timestamps)),
/// which [`WriteOptions::timestamp`](crate::WriteOptions::timestamp) overrides for one call.
///
/// HBase orders the versions of a cell by timestamp alone, in
/// milliseconds, and a delete removes every version at or below its own:
/// which clock stamps a write decides which of two writes wins.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Timestamps {
    /// The region server stamps each cell and delete when it applies it,
    /// as HBase's Java client does (the default). Writes to one row from
    /// any number of hosts are ordered by one clock, the row's server's.
    /// A retried put adds a version holding the same value (a read sees
    /// no difference; a `VERSIONS => 1` family keeps one). HBase's own
    /// rule holds: a delete and a put of one cell in the same server
    /// millisecond collide, the delete masking the put (HBASE-2256), until
    /// a major compaction removes both. The remedy is the family's
    /// `NEW_VERSION_BEHAVIOR`, under which a delete masks only what was
    /// written before it: [`TableOptions::new_version_behavior`](crate::TableOptions::new_version_behavior).
    #[default]
    Server,
    /// This client stamps each call's cells with one reading of a clock
    /// that strictly increases within the [`Client`](crate::Client) and its clones (the
    /// wall clock in milliseconds, or one more than the last reading), so
    /// one client's delete then put of a row never collide, and a retried
    /// batch writes the same cells again. Across hosts the rule is the
    /// hosts' clocks: a write from a host whose clock is behind is older
    /// than one made before it on a host whose clock is ahead, and is
    /// hidden by it (or by its delete) for as long as the skew lasts. Use
    /// it where one writer owns each row, or the hosts' clocks are kept
    /// close (NTP) and the skew is acceptable.
    Client,
}

pub(crate) use rowkey_core::clock::Clock;
