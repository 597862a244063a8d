//! Writes and deletes: streamed from the caller's rows in batches, each
//! call's cells stamped as the client's [`Timestamps`](crate::Timestamps) say (by the region
//! server, or with one reading of the client's clock per call, so that a
//! batch sent again writes the same cells).

use rowkey_core::hbase::to_string_binary;
use rowkey_core::RowKey;
use thrift::protocol::{
    verify_expected_message_type, verify_expected_sequence_number, verify_expected_service_call,
    TFieldIdentifier, TListIdentifier, TMessageIdentifier, TMessageType, TSerializable,
    TStructIdentifier, TType,
};
use thrift::TThriftClient;

use crate::client::Client;
use crate::error::{Error, RejectedRow};
use crate::gateway::transport::Thrift;
use crate::ops::encode;
use crate::shared::stamp::Clock;
use crate::thrift::{TColumnValue, TDelete, TDurability, TIOError, TPut, TTHBaseServiceSyncClient};
use crate::types::{Cell, MAX_ROW_LENGTH};

/// How HBase persists a write (HBase's `Durability`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Durability {
    /// The table's setting (`USE_DEFAULT`).
    #[default]
    Default,
    /// No write-ahead log: lost if a region server fails before a flush.
    SkipWal,
    /// The log written in the background.
    AsyncWal,
    /// The log written before the write is acknowledged.
    SyncWal,
    /// The log written and synced to disk before it is acknowledged.
    FsyncWal,
}

impl Durability {
    /// HBase's `Durability` code (`MutationProto.Durability`); `None`: the
    /// table's.
    #[cfg(feature = "native")]
    fn code(self) -> Option<i32> {
        match self {
            Durability::Default => None,
            Durability::SkipWal => Some(1),
            Durability::AsyncWal => Some(2),
            Durability::SyncWal => Some(3),
            Durability::FsyncWal => Some(4),
        }
    }

    fn thrift(self) -> Option<TDurability> {
        match self {
            Durability::Default => None,
            Durability::SkipWal => Some(TDurability::SKIP_WAL),
            Durability::AsyncWal => Some(TDurability::ASYNC_WAL),
            Durability::SyncWal => Some(TDurability::SYNC_WAL),
            Durability::FsyncWal => Some(TDurability::FSYNC_WAL),
        }
    }
}

/// Settings of one write or delete call, set by struct update from
/// `WriteOptions::default()`.
///
/// ```
/// use rowkey_hbase::{Durability, WriteOptions};
///
/// let opts = WriteOptions { timestamp: Some(1_700_000_000_000), durability: Durability::SkipWal };
/// assert_eq!(WriteOptions::default().timestamp, None);
/// # let _ = opts;
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WriteOptions {
    /// The timestamp of every cell written (or the newest version a delete
    /// removes), in milliseconds since the epoch. `None`: as the client's
    /// [`Timestamps`](crate::Timestamps) say (by default the region server stamps them).
    pub timestamp: Option<i64>,
    /// How HBase persists the write.
    pub durability: Durability,
}

impl Client {
    /// The timestamp of one write or delete call: the caller's, else the
    /// client's clock with [`Timestamps::Client`](crate::Timestamps::Client), else none (the region
    /// server's).
    fn stamp(&self, options: &WriteOptions) -> Option<i64> {
        options
            .timestamp
            .or_else(|| self.client_clock().map(Clock::next))
    }
}

/// A batch being written: the puts and their rows' positions in the input.
struct Batch {
    puts: Vec<TPut>,
    indices: Vec<usize>,
}

impl Client {
    /// Writes rows keyed by typed keys: for each row, cells
    /// `(family, qualifier, value)`, stamped as the client's
    /// [`Timestamps`](crate::Timestamps) say (by the region server, unless the client was
    /// built with [`Timestamps::Client`](crate::Timestamps::Client); see [`WriteOptions`]).
    ///
    /// The rows are read from the iterator as they are sent, in
    /// `putMultiple` calls of [`with_write_batch`](Self::with_write_batch)
    /// rows: one batch is in memory at a time. A batch that fails as a
    /// whole and may succeed again (a connection that failed, a region
    /// server that was busy) is sent again, as the client's
    /// [`RetryPolicy`](crate::RetryPolicy) allows: with client
    /// timestamps it writes the same cells again, with server timestamps
    /// it adds a version holding the same values.
    ///
    /// Rows HBase cannot take are [`Error::Rejected`], each named with its
    /// position in the input, and every other row is written: a key that is
    /// empty or longer than [`MAX_ROW_LENGTH`] and a row without cells are
    /// not sent; a row naming a family the table does not have is found
    /// from the table's families when HBase refuses its batch; any other
    /// refusal of a batch is resolved row by row. A missing table is one
    /// error at once. A key that cannot be encoded is [`Error::Encode`]:
    /// the rows of its batch are not sent (earlier batches were written).
    pub fn write_rows<K: RowKey>(
        &self,
        table: &str,
        rows: impl IntoIterator<Item = (K, Vec<Cell>)>,
    ) -> Result<(), Error> {
        self.write_rows_with(table, rows, WriteOptions::default())
    }

    /// [`write_rows`](Self::write_rows) with a timestamp and durability of
    /// the caller's.
    pub fn write_rows_with<K: RowKey>(
        &self,
        table: &str,
        rows: impl IntoIterator<Item = (K, Vec<Cell>)>,
        options: WriteOptions,
    ) -> Result<(), Error> {
        let rows = rows
            .into_iter()
            .map(|(key, cells)| Ok((encode(table, &key)?, cells)));
        self.write_stream(table, rows, options)
    }

    /// [`write_rows`](Self::write_rows) for keys already encoded: rows
    /// `(key bytes, cells)`.
    pub fn write_raw_rows(
        &self,
        table: &str,
        rows: impl IntoIterator<Item = (Vec<u8>, Vec<Cell>)>,
    ) -> Result<(), Error> {
        self.write_raw_rows_with(table, rows, WriteOptions::default())
    }

    /// [`write_raw_rows`](Self::write_raw_rows) with a timestamp and
    /// durability of the caller's.
    pub fn write_raw_rows_with(
        &self,
        table: &str,
        rows: impl IntoIterator<Item = (Vec<u8>, Vec<Cell>)>,
        options: WriteOptions,
    ) -> Result<(), Error> {
        self.write_stream(table, rows.into_iter().map(Ok), options)
    }

    /// Writes rows whose cells carry their own timestamps
    /// ([`VersionedCell`](crate::VersionedCell), as
    /// [`scan_versions`](Self::scan_versions) reads them): a copy of a
    /// table that keeps its cells' times, so that a newer write of the same
    /// cell (a later timestamp) stays the one HBase returns. Batched,
    /// retried and reported as [`write_rows`](Self::write_rows) (a cell
    /// sent again is the same cell); a row with a cell stamped below 0 or
    /// `i64::MAX` is [`Error::Rejected`] with the others.
    pub fn write_versioned_rows(
        &self,
        table: &str,
        rows: impl IntoIterator<Item = crate::VersionedRow>,
    ) -> Result<(), Error> {
        let mut rejected = Vec::new();
        let mut total = 0;
        let mut rows = rows.into_iter().enumerate().peekable();
        while rows.peek().is_some() {
            let mut batch = Vec::new();
            let mut indices = Vec::new();
            for (index, (key, cells)) in rows.by_ref().take(self.write_batch) {
                total = index + 1;
                let bad_stamp = cells.iter().find(|c| !(0..i64::MAX).contains(&c.timestamp));
                let refusal = match bad_stamp {
                    Some(c) => Some(format!(
                        "a cell stamped {}: HBase keeps 0 to i64::MAX - 1",
                        c.timestamp
                    )),
                    None => unsendable(&key, cells.len()),
                };
                if let Some(message) = refusal {
                    rejected.push(RejectedRow {
                        index,
                        key: to_string_binary(&key),
                        message,
                    });
                    continue;
                }
                batch.push((key, cells));
                indices.push(index);
            }
            let result = self.write_versioned_batch(table, batch, &mut rejected, &indices);
            if let Err(Error::Rejected { rejected: r, .. }) = result {
                rejected.extend(r.into_iter().map(|mut r| {
                    r.index = indices[r.index];
                    r
                }));
            } else {
                result?;
            }
        }
        written(table, rejected, total)
    }

    /// One batch of [`write_versioned_rows`](Self::write_versioned_rows):
    /// rows the native client refuses come back as `Error::Rejected` by
    /// their places in `batch`; the gateway's are added to `rejected` by
    /// their places in the input.
    fn write_versioned_batch(
        &self,
        table: &str,
        batch: Vec<crate::VersionedRow>,
        rejected: &mut Vec<RejectedRow>,
        indices: &[usize],
    ) -> Result<(), Error> {
        #[cfg(feature = "native")]
        if let Some(n) = self.native_backend() {
            return n.block_on(n.client().put_versioned(table, batch));
        }
        let mut puts = Batch {
            puts: Vec::with_capacity(batch.len()),
            indices: indices.to_vec(),
        };
        for (key, cells) in batch {
            let values = cells
                .into_iter()
                .map(|c| {
                    let ts = Some(c.timestamp);
                    TColumnValue::new(c.family.into_bytes(), c.qualifier, c.value, ts, None, None)
                })
                .collect();
            puts.puts
                .push(TPut::new(key, values, None, None, None, None));
        }
        let mut families = None;
        self.send(table, &mut puts, rejected, &mut families)
    }

    fn write_stream(
        &self,
        table: &str,
        rows: impl Iterator<Item = Result<(Vec<u8>, Vec<Cell>), Error>>,
        options: WriteOptions,
    ) -> Result<(), Error> {
        let stamp = self.stamp(&options);
        #[cfg(feature = "native")]
        if let Some(n) = self.native_backend() {
            return self.write_native(n, table, rows, stamp, options.durability, false);
        }
        let durability = options.durability.thrift();
        let mut rejected = Vec::new();
        let mut batch = Batch {
            puts: Vec::with_capacity(self.write_batch.min(1 << 16)),
            indices: Vec::new(),
        };
        let mut families = None;
        let mut total = 0;
        for (index, row) in rows.enumerate() {
            total = index + 1;
            let (key, cells) = row?;
            if let Some(message) = unsendable(&key, cells.len()) {
                rejected.push(RejectedRow {
                    index,
                    key: to_string_binary(&key),
                    message,
                });
                continue;
            }
            batch.puts.push(tput(key, cells, stamp, durability));
            batch.indices.push(index);
            if batch.puts.len() == self.write_batch {
                self.send(table, &mut batch, &mut rejected, &mut families)?;
            }
        }
        if !batch.puts.is_empty() {
            self.send(table, &mut batch, &mut rejected, &mut families)?;
        }
        written(table, rejected, total)
    }

    /// Sends a batch (retried while that is safe); when HBase refuses it,
    /// finds the rows it refuses and writes the others. Leaves the batch
    /// empty.
    fn send(
        &self,
        table: &str,
        batch: &mut Batch,
        rejected: &mut Vec<RejectedRow>,
        families: &mut Option<Vec<String>>,
    ) -> Result<(), Error> {
        let name = table.as_bytes();
        let result = self.call("putMultiple", table, None, true, |t| {
            put_multiple(t, name, &batch.puts)
        });
        match result {
            Ok(()) => {}
            Err(Error::Server { .. }) => {
                // What HBase refused, found without a round trip per row: a
                // missing table is one error (`Client::call` found it, or
                // the families' lookup does); rows naming a family the
                // table lacks are named from its families; the rest is
                // sent again, and only if HBase refuses it too is it
                // resolved row by row.
                let known = match families {
                    Some(f) => f,
                    None => families.insert(self.families(table)?),
                };
                let mut keep = Batch {
                    puts: Vec::new(),
                    indices: Vec::new(),
                };
                for (put, index) in batch.puts.drain(..).zip(batch.indices.drain(..)) {
                    let unknown = put
                        .column_values
                        .iter()
                        .find(|c| !known.iter().any(|f| f.as_bytes() == c.family.as_slice()));
                    match unknown {
                        Some(c) => rejected.push(RejectedRow {
                            index,
                            key: to_string_binary(&put.row),
                            message: format!(
                                "table {table} has no column family {}",
                                String::from_utf8_lossy(&c.family)
                            ),
                        }),
                        None => {
                            keep.puts.push(put);
                            keep.indices.push(index);
                        }
                    }
                }
                if !keep.puts.is_empty() {
                    let again = self.call("putMultiple", table, None, true, |t| {
                        put_multiple(t, name, &keep.puts)
                    });
                    match again {
                        Ok(()) => {}
                        Err(Error::Server { .. }) => self.row_by_row(table, &keep, rejected)?,
                        Err(e) => return Err(e),
                    }
                }
            }
            Err(e) => return Err(e),
        }
        batch.puts.clear();
        batch.indices.clear();
        Ok(())
    }

    /// Each put of a refused batch alone, so that every row HBase accepts
    /// is written and each one it refuses is named.
    fn row_by_row(
        &self,
        table: &str,
        batch: &Batch,
        rejected: &mut Vec<RejectedRow>,
    ) -> Result<(), Error> {
        for (put, &index) in batch.puts.iter().zip(&batch.indices) {
            let one = std::slice::from_ref(put);
            match self.call("put", table, Some(&put.row), true, |t| {
                put_multiple(t, table.as_bytes(), one)
            }) {
                Ok(()) => {}
                Err(Error::Server { key, message, .. }) => rejected.push(RejectedRow {
                    index,
                    key: key.unwrap_or_default(),
                    message,
                }),
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// Deletes the rows at `keys` (every cell of each, up to the call's
    /// timestamp: the server's time when it applies the delete, or the
    /// client's, as its [`Timestamps`](crate::Timestamps) say; see [`WriteOptions`]), in
    /// `deleteMultiple` calls of
    /// [`with_write_batch`](Self::with_write_batch) keys, retried like
    /// writes (a delete sent again removes what it removed, and with
    /// server timestamps what was written in between too). Deleting a row
    /// that does not exist is not an error.
    pub fn delete_rows<K: RowKey>(
        &self,
        table: &str,
        keys: impl IntoIterator<Item = K>,
    ) -> Result<(), Error> {
        let keys = keys.into_iter().map(|k| encode(table, &k));
        self.delete_stream(table, keys, WriteOptions::default())
    }

    /// [`delete_rows`](Self::delete_rows) by the keys' bytes, with a
    /// timestamp and durability of the caller's.
    pub fn delete_raw_rows_with(
        &self,
        table: &str,
        keys: impl IntoIterator<Item = Vec<u8>>,
        options: WriteOptions,
    ) -> Result<(), Error> {
        self.delete_stream(table, keys.into_iter().map(Ok), options)
    }

    /// Deletes `columns` of the row `key` of `table`: each column whole
    /// (every version up to the region server's time) or one version of it
    /// ([`ColumnDelete`](crate::ColumnDelete)); the row's other columns
    /// stay. One call.
    pub fn delete_columns<K: RowKey>(
        &self,
        table: &str,
        key: &K,
        columns: &[crate::ColumnDelete],
    ) -> Result<(), Error> {
        let key = crate::ops::encode_all(table, std::slice::from_ref(key))?;
        self.delete_columns_raw(table, &key[0], columns)
    }

    /// [`delete_columns`](Self::delete_columns) by the key's bytes.
    pub fn delete_columns_raw(
        &self,
        table: &str,
        key: &[u8],
        columns: &[crate::ColumnDelete],
    ) -> Result<(), Error> {
        if columns.is_empty() {
            return Ok(());
        }
        #[cfg(feature = "native")]
        if let Some(n) = self.native_backend() {
            return n.block_on(n.client().delete_columns(table, key, columns));
        }
        // One delete per kind: HBase's gateway takes one type per delete.
        let deletes: Vec<TDelete> = [
            (false, crate::thrift::TDeleteType::DELETE_COLUMNS),
            (true, crate::thrift::TDeleteType::DELETE_COLUMN),
        ]
        .into_iter()
        .filter_map(|(one, kind)| {
            let cols: Vec<crate::thrift::TColumn> = columns
                .iter()
                .filter(|c| c.version.is_some() == one)
                .map(|c| {
                    crate::thrift::TColumn::new(
                        c.family.as_bytes().to_vec(),
                        c.qualifier.clone(),
                        c.version,
                    )
                })
                .collect();
            (!cols.is_empty()).then(|| TDelete::new(key.to_vec(), cols, None, kind, None, None))
        })
        .collect();
        let left = self.call("deleteMultiple", table, Some(key), true, |t| {
            t.delete_multiple(table.as_bytes().to_vec(), deletes.clone())
        })?;
        if left.is_empty() {
            Ok(())
        } else {
            Err(Error::Server {
                op: "deleteMultiple",
                table: table.into(),
                key: Some(rowkey_core::hbase::to_string_binary(key)),
                message: "HBase's gateway did not apply the delete".into(),
                can_retry: false,
            })
        }
    }

    fn delete_stream(
        &self,
        table: &str,
        keys: impl Iterator<Item = Result<Vec<u8>, Error>>,
        options: WriteOptions,
    ) -> Result<(), Error> {
        let stamp = self.stamp(&options);
        #[cfg(feature = "native")]
        if let Some(n) = self.native_backend() {
            let rows = keys.map(|k| k.map(|k| (k, Vec::new())));
            return self.write_native(n, table, rows, stamp, options.durability, true);
        }
        let durability = options.durability.thrift();
        let mut keys = keys.peekable();
        while keys.peek().is_some() {
            let batch = keys
                .by_ref()
                .take(self.write_batch)
                .map(|k| Ok(TDelete::new(k?, None, stamp, None, None, durability)))
                .collect::<Result<Vec<_>, Error>>()?;
            // Keys only: a copy per try costs little.
            self.call("deleteMultiple", table, None, true, |t| {
                t.delete_multiple(table.as_bytes().to_vec(), batch.clone())
            })?;
        }
        Ok(())
    }
}

#[cfg(feature = "native")]
impl Client {
    /// Rows put (or, `delete`, deleted) through the native client, in
    /// calls of `write_batch` rows: the rows HBase's client refuses to send
    /// and those the region servers refuse are [`Error::Rejected`] by their
    /// places in the input, every other row written.
    fn write_native(
        &self,
        native: &crate::native::NativeBackend,
        table: &str,
        rows: impl Iterator<Item = Result<(Vec<u8>, Vec<Cell>), Error>>,
        stamp: Option<i64>,
        durability: Durability,
        delete: bool,
    ) -> Result<(), Error> {
        let write = crate::native::Write {
            delete,
            timestamp: stamp,
            durability: durability.code(),
        };
        let mut rejected = Vec::new();
        let mut total = 0;
        let mut rows = rows.enumerate().peekable();
        while rows.peek().is_some() {
            let mut batch = Vec::new();
            let mut indices = Vec::new();
            for (index, row) in rows.by_ref().take(self.write_batch) {
                total = index + 1;
                let (key, cells) = row?;
                let refusal = match delete {
                    true => unsendable(&key, 1),
                    false => unsendable(&key, cells.len()),
                };
                if let Some(message) = refusal {
                    rejected.push(RejectedRow {
                        index,
                        key: to_string_binary(&key),
                        message,
                    });
                    continue;
                }
                batch.push((key, cells));
                indices.push(index);
            }
            match native.block_on(native.client().write(table, batch, write)) {
                Ok(()) => {}
                Err(Error::Rejected { rejected: r, .. }) => {
                    rejected.extend(r.into_iter().map(|mut r| {
                        r.index = indices[r.index];
                        r
                    }));
                }
                Err(e) => return Err(e),
            }
        }
        written(table, rejected, total)
    }
}

/// The end of a write of `total` rows: `Ok`, or the rows HBase refused
/// in input order.
fn written(table: &str, mut rejected: Vec<RejectedRow>, total: usize) -> Result<(), Error> {
    rejected.sort_by_key(|r| r.index);
    if rejected.is_empty() {
        Ok(())
    } else {
        Err(Error::rejected("write", table, rejected, total))
    }
}

/// Why a row cannot be sent, if it cannot: HBase's client refuses these
/// before sending them.
/// Why HBase would refuse a row of `key` and `cells` cells, if it would.
fn unsendable(key: &[u8], cells: usize) -> Option<String> {
    match key.len() {
        1..=MAX_ROW_LENGTH if cells == 0 => Some("a row without cells".to_string()),
        1..=MAX_ROW_LENGTH => None,
        len => Some(format!(
            "a row key of {len} bytes: HBase takes 1 to {MAX_ROW_LENGTH}"
        )),
    }
}

fn tput(
    key: Vec<u8>,
    cells: Vec<Cell>,
    stamp: Option<i64>,
    durability: Option<TDurability>,
) -> TPut {
    let values = cells
        .into_iter()
        .map(|(family, qualifier, value)| {
            TColumnValue::new(family.into_bytes(), qualifier, value, None, None, None)
        })
        .collect();
    TPut::new(key, values, stamp, None, durability, None)
}

/// `putMultiple` with the puts borrowed, so that a batch is sent again
/// without a copy: the generated client's call takes them by value. The
/// same messages as the generated `put_multiple` (`THBaseService
/// .putMultiple(table, tputs)`, answered by nothing or a `TIOError`).
fn put_multiple(t: &mut Thrift, table: &[u8], puts: &[TPut]) -> thrift::Result<()> {
    t.increment_sequence_number();
    let seq = t.sequence_number();
    let o = t.o_prot_mut();
    o.write_message_begin(&TMessageIdentifier::new(
        "putMultiple",
        TMessageType::Call,
        seq,
    ))?;
    o.write_struct_begin(&TStructIdentifier::new("putMultiple_args"))?;
    o.write_field_begin(&TFieldIdentifier::new("table", TType::String, 1))?;
    o.write_bytes(table)?;
    o.write_field_end()?;
    o.write_field_begin(&TFieldIdentifier::new("tputs", TType::List, 2))?;
    let len = i32::try_from(puts.len()).map_err(|_| {
        thrift::Error::Protocol(thrift::ProtocolError::new(
            thrift::ProtocolErrorKind::SizeLimit,
            "more than 2^31 puts",
        ))
    })?;
    o.write_list_begin(&TListIdentifier::new(TType::Struct, len))?;
    for put in puts {
        put.write_to_out_protocol(o)?;
    }
    o.write_list_end()?;
    o.write_field_end()?;
    o.write_field_stop()?;
    o.write_struct_end()?;
    o.write_message_end()?;
    o.flush()?;

    let i = t.i_prot_mut();
    let ident = i.read_message_begin()?;
    verify_expected_sequence_number(seq, ident.sequence_number)?;
    verify_expected_service_call("putMultiple", &ident.name)?;
    if ident.message_type == TMessageType::Exception {
        let e = thrift::Error::read_application_error_from_in_protocol(i)?;
        i.read_message_end()?;
        return Err(thrift::Error::Application(e));
    }
    verify_expected_message_type(TMessageType::Reply, ident.message_type)?;
    i.read_struct_begin()?;
    let mut io = None;
    loop {
        let field = i.read_field_begin()?;
        if field.field_type == TType::Stop {
            break;
        }
        match field.id {
            Some(1) => io = Some(TIOError::read_from_in_protocol(i)?),
            _ => i.skip(field.field_type)?,
        }
        i.read_field_end()?;
    }
    i.read_struct_end()?;
    i.read_message_end()?;
    match io {
        Some(e) => Err(thrift::Error::User(Box::new(e))),
        None => Ok(()),
    }
}
