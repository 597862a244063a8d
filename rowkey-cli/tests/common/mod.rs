//! What the `rowkey bulkload` tests (and the import bench) share: the
//! README's key as a derived type and as the text `--layout` takes, a
//! cell's shape, and the command run.

#![allow(dead_code)]

use std::process::{Command, Output};

use rowkey_core::prelude::*;

#[derive(RowKey, Debug, PartialEq)]
#[salt(buckets = 16, by(user_id))]
pub struct UserEvent {
    pub user_id: u64,
    #[desc_ts]
    pub ts_millis: i64,
    #[fixed(8)]
    pub kind: String,
}

/// `UserEvent`'s layout as a user types it.
pub const SPEC: &str =
    "[salt(user_id)/16][user_id u64][ts_millis desc_ts i64][kind fixed(8) String]";

/// The derive's key of one event.
pub fn key(user_id: u64, ts_millis: i64, kind: &str) -> Vec<u8> {
    UserEvent {
        user_id,
        ts_millis,
        kind: kind.to_string(),
    }
    .encode_to_vec()
    .unwrap()
}

/// A cell: row, family, qualifier, value.
pub type Cell = (Vec<u8>, Vec<u8>, Vec<u8>, Vec<u8>);

/// `rowkey ARGS`, run to its end.
pub fn rowkey(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rowkey"))
        .args(args)
        .output()
        .expect("run rowkey")
}

/// `rowkey ARGS`, which must succeed: its standard output.
pub fn ok(args: &[&str]) -> String {
    let run = rowkey(args);
    assert!(
        run.status.success(),
        "rowkey {args:?}: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    String::from_utf8(run.stdout).unwrap()
}
