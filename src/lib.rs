//! The rowkey hot-spot lab and the workspace's examples and tests.
//!
//! [`lab`] stores one event workload under several row-key designs in a real
//! embedded sorted store (redb), models the table's regions the way HBase
//! splits them, and measures where the writes land and what typical queries
//! cost. `cargo run --release --example hotspots` runs it.

pub mod lab;
