//! Writes: rows checked before sending, cut into `MutateRows` requests by
//! mutation count and by bytes, every entry's status read, and a request
//! that fails as a whole reported with the rows it leaves unwritten.

use std::ops::Range;

use bigtable_rs::google::bigtable::v2::{
    mutate_rows_request, mutation, MutateRowsRequest, Mutation,
};
use rowkey_core::hbase::to_string_binary;
use rowkey_core::RowKey;

use crate::{Client, Error, RejectedRow};

/// A cell to write: `(family, qualifier, value)`.
pub type Cell = (String, Vec<u8>, Vec<u8>);

/// Bigtable's limit on the mutations of one `MutateRows` request
/// (`MutateRowsRequest.entries`: "at most 100000 mutations").
pub const MAX_MUTATIONS: usize = 100_000;

/// Bigtable's limit on a row key's length, in bytes (4 KiB).
pub const MAX_KEY_LEN: usize = 4096;

/// The most bytes one `MutateRows` request carries: 20 MiB, the request
/// size at which Google's Java client cuts its write batches
/// (`bulkMutateRowsSettings`), far below the 256 MiB message size its
/// channels allow.
pub const MAX_REQUEST_BYTES: usize = 20 << 20;

/// gRPC's `INVALID_ARGUMENT`.
pub(crate) const INVALID_ARGUMENT: i32 = 3;

/// Why a row cannot be sent, if it cannot: Bigtable refuses these, and
/// one such row would fail its whole request.
pub(crate) fn unsendable(index: usize, key: &[u8], cells: usize) -> Option<RejectedRow> {
    let message = if key.is_empty() {
        "an empty row key".to_string()
    } else if key.len() > MAX_KEY_LEN {
        format!(
            "the row key is {} bytes, above Bigtable's limit of {MAX_KEY_LEN}",
            key.len()
        )
    } else if cells == 0 {
        "a row without cells".to_string()
    } else {
        return None;
    };
    Some(RejectedRow {
        index,
        key: to_string_binary(key),
        code: INVALID_ARGUMENT,
        message,
    })
}

/// A row as a `MutateRows` entry: one `SetCell` per cell, stamped with
/// `timestamp_micros` (-1: the server's time).
pub(crate) fn entry(
    key: Vec<u8>,
    cells: Vec<Cell>,
    timestamp_micros: i64,
) -> mutate_rows_request::Entry {
    let mutations = cells
        .into_iter()
        .map(|(family_name, column_qualifier, value)| Mutation {
            mutation: Some(mutation::Mutation::SetCell(mutation::SetCell {
                family_name,
                column_qualifier,
                timestamp_micros,
                value,
            })),
        })
        .collect();
    mutate_rows_request::Entry {
        row_key: key,
        mutations,
        ..Default::default()
    }
}

/// The bytes an entry adds to a request.
pub(crate) fn entry_bytes(e: &mutate_rows_request::Entry) -> usize {
    // The entry's encoding and its field header (tag and length).
    let len = prost::Message::encoded_len(e);
    len + 1 + prost::encoding::encoded_len_varint(len as u64)
}

/// Writes rows keyed by typed keys: for each row, cells
/// `(family, qualifier, value)` stamped with the server's time.
///
/// Any number of rows: they are sent in `MutateRows` requests of at most
/// [`MAX_MUTATIONS`] mutations and [`MAX_REQUEST_BYTES`] bytes each
/// (Bigtable's limit and Google's clients' batch size), in order. Bigtable
/// applies each row on its own: when some rows are rejected (an unknown
/// column family, say), the others are written and the error is
/// [`Error::Rejected`], naming every rejected row with its position in the
/// input. An empty key, a key longer than [`MAX_KEY_LEN`] and a row without
/// cells are rejected so before sending (one would fail its whole request).
/// A request that fails as a whole ends the call with
/// [`Error::Incomplete`], which says how many rows were written and which
/// were not. A key that cannot be encoded is [`Error::Encode`] before
/// anything is sent. Not retried: a cell stamped by the server is written
/// again by a second send (the [`BulkWriter`](crate::BulkWriter) stamps its
/// cells and retries).
pub async fn write_rows<K: RowKey>(
    client: &Client,
    table: &str,
    rows: impl IntoIterator<Item = (K, Vec<Cell>)>,
) -> Result<(), Error> {
    let rows = rows
        .into_iter()
        .map(|(key, cells)| Ok((key.encode_to_vec().map_err(Error::Encode)?, cells)))
        .collect::<Result<Vec<_>, Error>>()?;
    write_raw_rows(client, table, rows).await
}

/// [`write_rows`] for keys already encoded (by a program that handles keys
/// of several types, such as the hot-spot lab): rows `(key bytes, cells)`.
pub async fn write_raw_rows(
    client: &Client,
    table: &str,
    rows: impl IntoIterator<Item = (Vec<u8>, Vec<Cell>)>,
) -> Result<(), Error> {
    let mut rejected = Vec::new();
    // Each entry to send, its position in the input, its mutations and
    // its bytes.
    let mut entries: Vec<mutate_rows_request::Entry> = Vec::new();
    let mut positions: Vec<usize> = Vec::new();
    let mut sizes: Vec<(usize, usize)> = Vec::new();
    for (index, (row_key, cells)) in rows.into_iter().enumerate() {
        if let Some(r) = unsendable(index, &row_key, cells.len()) {
            rejected.push(r);
            continue;
        }
        let e = entry(row_key, cells, -1);
        sizes.push((e.mutations.len(), entry_bytes(&e)));
        positions.push(index);
        entries.push(e);
    }
    let cuts = batches(&sizes, MAX_MUTATIONS, MAX_REQUEST_BYTES);
    let mut entries = entries.into_iter();
    let mut written = 0;
    for (n, batch) in cuts.iter().enumerate() {
        let sent: Vec<_> = entries.by_ref().take(batch.len()).collect();
        let outcome = send_batch(client, table, sent, &positions[batch.clone()]).await;
        written += outcome.written;
        rejected.extend(outcome.rejected);
        if let Some(source) = outcome.failed {
            // This batch's unconfirmed rows and every later batch's.
            let mut unwritten = outcome.unconfirmed;
            for later in &cuts[n + 1..] {
                unwritten.extend_from_slice(&positions[later.clone()]);
            }
            rejected.sort_by_key(|r| r.index);
            return Err(Error::Incomplete {
                written,
                unwritten,
                rejected,
                cause: Box::new(source),
            });
        }
    }
    if rejected.is_empty() {
        Ok(())
    } else {
        rejected.sort_by_key(|r| r.index);
        Err(Error::Rejected { rejected })
    }
}

/// Consecutive runs of rows, each run's `(mutations, bytes)` adding up to
/// at most `max_mutations` and `max_bytes` (a row over either on its own
/// goes alone, for the server to judge).
pub(crate) fn batches(
    sizes: &[(usize, usize)],
    max_mutations: usize,
    max_bytes: usize,
) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let (mut start, mut mutations, mut bytes) = (0, 0, 0);
    for (i, &(m, b)) in sizes.iter().enumerate() {
        if (mutations + m > max_mutations || bytes + b > max_bytes) && i > start {
            out.push(start..i);
            (start, mutations, bytes) = (i, 0, 0);
        }
        mutations += m;
        bytes += b;
    }
    if start < sizes.len() {
        out.push(start..sizes.len());
    }
    out
}

/// What one `MutateRows` request did.
pub(crate) struct Outcome {
    /// Entries the server confirmed.
    pub(crate) written: usize,
    /// Entries it refused for good.
    pub(crate) rejected: Vec<RejectedRow>,
    /// Entries it refused with a code worth retrying (`UNAVAILABLE`,
    /// `DEADLINE_EXCEEDED`, `ABORTED`), by their place in the request.
    pub(crate) retryable: Vec<usize>,
    /// The positions (in the caller's input) of entries with no status
    /// when the request failed.
    pub(crate) unconfirmed: Vec<usize>,
    /// The request's own failure, if it failed.
    pub(crate) failed: Option<Error>,
}

/// Sends one `MutateRows` request within the attempt timeout; every
/// entry's status is read. `positions` are the entries' positions in the
/// caller's input.
pub(crate) async fn send_batch(
    client: &Client,
    table: &str,
    entries: Vec<mutate_rows_request::Entry>,
    positions: &[usize],
) -> Outcome {
    // The request is given away; its keys are kept to name refused rows,
    // formatted only for those.
    let keys: Vec<Vec<u8>> = entries.iter().map(|e| e.row_key.clone()).collect();
    let mut status: Vec<Option<(i32, String)>> = vec![None; entries.len()];
    let request = MutateRowsRequest {
        table_name: client.table_name(table),
        entries,
        ..Default::default()
    };
    let options = client.options();
    let deadline = options.attempt_timeout.min(options.total_timeout);
    let end = tokio::time::Instant::now() + deadline;
    let timeout = || {
        client.counters().timeout();
        Error::Timeout {
            call: "MutateRows",
            deadline,
            retries: 0,
            last: None,
        }
    };
    let failed = async {
        let mut responses = tokio::time::timeout_at(end, client.mutate_rows(request))
            .await
            .map_err(|_| timeout())??;
        while let Some(response) = tokio::time::timeout_at(end, responses.message())
            .await
            .map_err(|_| timeout())?
            .map_err(|s| Error::from(bigtable_rs::bigtable::Error::from(s)))?
        {
            for e in response.entries {
                let s = e.status.unwrap_or_default();
                if let Some(slot) = usize::try_from(e.index)
                    .ok()
                    .and_then(|i| status.get_mut(i))
                {
                    *slot = Some((s.code, s.message));
                }
            }
        }
        Ok::<(), Error>(())
    }
    .await
    .err();
    let mut outcome = Outcome {
        written: 0,
        rejected: Vec::new(),
        retryable: Vec::new(),
        unconfirmed: Vec::new(),
        failed,
    };
    for (i, s) in status.into_iter().enumerate() {
        match s {
            Some((0, _)) => outcome.written += 1,
            Some((code, message)) if matches!(code, 4 | 10 | 14) => {
                // DEADLINE_EXCEEDED, ABORTED, UNAVAILABLE: not applied.
                outcome.retryable.push(i);
                outcome.rejected.push(RejectedRow {
                    index: positions[i],
                    key: to_string_binary(&keys[i]),
                    code,
                    message,
                });
            }
            Some((code, message)) => outcome.rejected.push(RejectedRow {
                index: positions[i],
                key: to_string_binary(&keys[i]),
                code,
                message,
            }),
            None if outcome.failed.is_some() => outcome.unconfirmed.push(positions[i]),
            // The stream ended without the entry's status: not confirmed.
            None => outcome.rejected.push(RejectedRow {
                index: positions[i],
                key: to_string_binary(&keys[i]),
                code: 2,
                message: "the server sent no status for this row".into(),
            }),
        }
    }
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_hold_at_most_the_limits() {
        let counts = |c: &[usize]| c.iter().map(|&m| (m, 1)).collect::<Vec<_>>();
        assert_eq!(batches(&[], 10, 10), Vec::<Range<usize>>::new());
        assert_eq!(batches(&counts(&[5, 5, 5]), 10, 100), [0..2, 2..3]);
        assert_eq!(batches(&counts(&[10, 1]), 10, 100), [0..1, 1..2]);
        assert_eq!(
            batches(&counts(&[3, 20, 3]), 10, 100),
            [0..1, 1..2, 2..3],
            "a row over the limit alone"
        );
        // 60,000 rows of 2 cells: 50,000 rows in the first request.
        assert_eq!(
            batches(&counts(&vec![2; 60_000]), MAX_MUTATIONS, MAX_REQUEST_BYTES),
            [0..50_000, 50_000..60_000]
        );
    }

    #[test]
    fn batches_are_cut_by_bytes() {
        // 50 rows of one 1 MiB cell: 19 per 20 MiB request (each row is a
        // little over 1 MiB with its key and framing).
        let sizes: Vec<(usize, usize)> = (0..50u32)
            .map(|i| {
                let e = entry(
                    i.to_be_bytes().to_vec(),
                    vec![("d".into(), b"q".to_vec(), vec![0; 1 << 20])],
                    -1,
                );
                (1, entry_bytes(&e))
            })
            .collect();
        assert!(sizes[0].1 > 1 << 20 && sizes[0].1 < (1 << 20) + 64);
        let cuts = batches(&sizes, MAX_MUTATIONS, MAX_REQUEST_BYTES);
        assert_eq!(cuts, [0..19, 19..38, 38..50]);
        for c in &cuts {
            let bytes: usize = sizes[c.clone()].iter().map(|s| s.1).sum();
            assert!(bytes <= MAX_REQUEST_BYTES);
        }
        // The sizes are the request's: a request of the entries encodes to
        // their sum and the table name's field.
        let entries: Vec<_> = (0..3u32)
            .map(|i| {
                entry(
                    i.to_be_bytes().to_vec(),
                    vec![("d".into(), b"q".to_vec(), vec![7; 300])],
                    -1,
                )
            })
            .collect();
        let sum: usize = entries.iter().map(entry_bytes).sum();
        let request = MutateRowsRequest {
            entries,
            ..Default::default()
        };
        assert_eq!(prost::Message::encoded_len(&request), sum);
    }

    #[test]
    fn rows_bigtable_refuses_are_named_before_sending() {
        let cells = [("d".to_string(), b"q".to_vec(), b"v".to_vec())];
        assert_eq!(unsendable(0, b"k", cells.len()), None);
        let empty = unsendable(3, b"", cells.len()).unwrap();
        assert_eq!(
            (empty.index, empty.message.as_str()),
            (3, "an empty row key")
        );
        let long = unsendable(4, &[b'a'; MAX_KEY_LEN + 1], cells.len()).unwrap();
        assert!(long.message.contains("4097 bytes"), "{}", long.message);
        let bare = unsendable(5, b"k", 0).unwrap();
        assert_eq!(
            (bare.key.as_str(), bare.message.as_str()),
            ("k", "a row without cells")
        );
    }
}
