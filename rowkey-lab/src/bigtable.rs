//! The lab on Cloud Bigtable's emulator (feature `bigtable`): the same
//! writes and scans through `rowkey-bigtable`, on a distributed engine's
//! API. The region model stays the lab's own, since the emulator has no
//! tablets.

use futures_util::StreamExt;
use rowkey_bigtable::admin_api::google::bigtable::admin::v2::DeleteTableRequest;
use rowkey_bigtable::emulator::{admin_at, client_at, Emulator};
use rowkey_bigtable::{
    create_table, stream_scan, stream_scan_reversed, write_raw_rows, AdminClient, Cell,
};
use rowkey_core::Scan;

use crate::store::Store;
use crate::BoxError;

const PROJECT: &str = "rowkey-lab";
const INSTANCE: &str = "lab";
const FAMILY: &str = "e";
/// Rows per `MutateRows` request (Bigtable allows 100,000 mutations).
const BATCH: usize = 10_000;

/// The event index in a row's cell.
fn event_index(
    key: &[u8],
    cells: &[rowkey_bigtable::bigtable_rs::bigtable::RowCell],
) -> Result<u64, BoxError> {
    cells
        .first()
        .and_then(|c| <[u8; 8]>::try_from(c.value.as_slice()).ok())
        .map(u64::from_be_bytes)
        .ok_or_else(|| format!("row {key:?} has no 8-byte event index").into())
}

/// Bigtable on an emulator: the one at `BIGTABLE_EMULATOR_HOST` when that is
/// set, else one this store starts on a free loopback port and stops (and
/// reaps) when dropped.
pub struct BigtableStore {
    runtime: tokio::runtime::Runtime,
    client: rowkey_bigtable::Client,
    admin: AdminClient,
    /// Held for its `Drop`, which kills the emulator.
    _emulator: Option<Emulator>,
}

impl BigtableStore {
    /// Connects to `BIGTABLE_EMULATOR_HOST`, or starts an emulator.
    pub fn start() -> Result<Self, BoxError> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let (emulator, host) = match std::env::var("BIGTABLE_EMULATOR_HOST") {
            Ok(host) if !host.is_empty() => (None, host),
            _ => {
                let emulator = Emulator::start()?;
                let host = emulator.host();
                (Some(emulator), host)
            }
        };
        let client = runtime.block_on(async { client_at(&host, PROJECT, INSTANCE) })?;
        let admin = runtime.block_on(admin_at(&host))?;
        Ok(BigtableStore {
            runtime,
            client,
            admin,
            _emulator: emulator,
        })
    }
}

impl Store for BigtableStore {
    fn name(&self) -> &'static str {
        "bigtable (emulator)"
    }

    fn create_table(&mut self, table: &str, splits: &[Vec<u8>]) -> Result<(), BoxError> {
        let instance = format!("projects/{PROJECT}/instances/{INSTANCE}");
        // A table left by an earlier run on a shared emulator goes first.
        let _ = self.drop_table(table);
        self.runtime.block_on(create_table(
            &mut self.admin,
            &instance,
            table,
            &[FAMILY],
            splits,
        ))?;
        Ok(())
    }

    fn write(&mut self, table: &str, rows: &[(&[u8], u64)]) -> Result<(), BoxError> {
        for chunk in rows.chunks(BATCH) {
            let rows = chunk.iter().map(|(key, index)| {
                let cell: Cell = (
                    FAMILY.to_string(),
                    b"i".to_vec(),
                    index.to_be_bytes().to_vec(),
                );
                (key.to_vec(), vec![cell])
            });
            self.runtime
                .block_on(write_raw_rows(&self.client, table, rows))?;
        }
        Ok(())
    }

    fn scan(
        &mut self,
        table: &str,
        scan: &Scan,
        row: &mut dyn FnMut(&[u8], u64) -> bool,
    ) -> Result<(), BoxError> {
        self.runtime.block_on(async {
            let mut rows = stream_scan(&self.client, table, scan, None).await?;
            while let Some(item) = rows.next().await {
                let (key, cells) = item?;
                if !row(&key, event_index(&key, &cells)?) {
                    break;
                }
            }
            Ok(())
        })
    }

    /// Each range read backwards (`stream_scan_reversed`, which announces
    /// reverse scans in the `bigtable-features` header), one after another.
    fn scan_reverse(
        &mut self,
        table: &str,
        scan: &Scan,
        row: &mut dyn FnMut(usize, &[u8], u64) -> bool,
    ) -> Result<(), BoxError> {
        self.runtime.block_on(async {
            for (i, r) in scan.ranges().enumerate() {
                let one = Scan::from_bounds(r.start(), r.stop());
                let mut rows = stream_scan_reversed(&self.client, table, &one, None).await?;
                while let Some(item) = rows.next().await {
                    let (key, cells) = item?;
                    if !row(i, &key, event_index(&key, &cells)?) {
                        break;
                    }
                }
            }
            Ok(())
        })
    }

    fn drop_table(&mut self, table: &str) -> Result<(), BoxError> {
        let name = format!("projects/{PROJECT}/instances/{INSTANCE}/tables/{table}");
        self.runtime
            .block_on(self.admin.delete_table(DeleteTableRequest { name }))?;
        Ok(())
    }
}
