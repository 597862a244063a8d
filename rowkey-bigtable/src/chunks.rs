//! `ReadRows` answers merged into rows as the API's contract says: a row's
//! cells arrive as chunks that may span any number of responses (Bigtable
//! splits large rows and cells), a row ends with `commit_row`, a
//! `reset_row` drops what was sent of the row so far, and a response may
//! carry only `last_scanned_row_key`, the progress of a sparse filtered
//! scan. bigtable_rs decoded each response on its own, so a row split
//! across two failed every retry with a chunk error.
//!
//! The state machine is Google's clients' (`RowMerger`): each chunk is
//! checked against the state it arrives in, and a chunk that breaks the
//! contract is an error naming it, never a row of mixed parts. What a chunk
//! says of its size (`value_size`) is a hint bounded before it is used.

use std::collections::VecDeque;

use bigtable_rs::bigtable::{Error, RowCell};
use bigtable_rs::google::bigtable::v2::read_rows_response::cell_chunk::RowStatus;
use bigtable_rs::google::bigtable::v2::read_rows_response::CellChunk;
use bigtable_rs::google::bigtable::v2::ReadRowsResponse;
use futures_util::stream::{self, BoxStream, StreamExt};
use tonic::Streaming;

/// The most bytes reserved ahead for a cell from its chunk's `value_size`;
/// a larger cell grows as its chunks arrive.
const MAX_RESERVE: usize = 1 << 20;

/// What a response gives the reader.
#[derive(Debug)]
pub(crate) enum Merged {
    /// A whole row, committed.
    Row(Vec<u8>, Vec<RowCell>),
    /// The server scanned up to this key (rows up to it that the filter
    /// dropped will not come): progress, and where to resume.
    Scanned(Vec<u8>),
}

/// Where the merger is in the contract.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Between rows: the next chunk starts a row (a key, a family, a
    /// qualifier).
    NewRow,
    /// Inside a row, between cells.
    NewCell,
    /// Inside a cell whose value continues in the next chunk.
    CellValue,
}

/// Merges one `ReadRows` call's responses into rows.
pub(crate) struct RowMerger {
    state: State,
    reversed: bool,
    /// The last row committed (or scanned past): the next must be after
    /// it in the read's direction.
    last: Option<Vec<u8>>,
    key: Vec<u8>,
    cells: Vec<RowCell>,
    family: Option<String>,
    qualifier: Option<Vec<u8>>,
    cell: Option<RowCell>,
}

fn chunk_error(message: impl Into<String>) -> Error {
    Error::ChunkError(message.into())
}

impl RowMerger {
    pub(crate) fn new(reversed: bool) -> Self {
        RowMerger {
            state: State::NewRow,
            reversed,
            last: None,
            key: Vec::new(),
            cells: Vec::new(),
            family: None,
            qualifier: None,
            cell: None,
        }
    }

    /// Whether `key` comes after the last row in the read's direction.
    fn in_order(&self, key: &[u8]) -> bool {
        match &self.last {
            None => true,
            Some(last) if self.reversed => key < last.as_slice(),
            Some(last) => key > last.as_slice(),
        }
    }

    /// The rows (and progress) one response completes, in order; an error
    /// for a chunk that breaks the contract (the call then ends).
    pub(crate) fn push(&mut self, response: ReadRowsResponse) -> Result<Vec<Merged>, Error> {
        let mut out = Vec::new();
        for chunk in response.chunks {
            if let Some(row) = self.chunk(chunk)? {
                out.push(row);
            }
        }
        let scanned = response.last_scanned_row_key;
        if !scanned.is_empty() {
            if self.state != State::NewRow {
                return Err(chunk_error("last_scanned_row_key in the middle of a row"));
            }
            if self.in_order(&scanned) {
                self.last = Some(scanned.clone());
                out.push(Merged::Scanned(scanned));
            }
        }
        Ok(out)
    }

    /// The end of the call's stream: it must not end inside a row.
    pub(crate) fn finish(&self) -> Result<(), Error> {
        match self.state {
            State::NewRow => Ok(()),
            _ => Err(chunk_error(
                "ReadRows ended inside a row (no commit_row for its last row)",
            )),
        }
    }

    fn chunk(&mut self, mut c: CellChunk) -> Result<Option<Merged>, Error> {
        if matches!(c.row_status, Some(RowStatus::ResetRow(true))) {
            if self.state == State::NewRow {
                return Err(chunk_error("reset_row between rows"));
            }
            if !c.row_key.is_empty()
                || c.family_name.is_some()
                || c.qualifier.is_some()
                || c.timestamp_micros != 0
                || !c.labels.is_empty()
                || !c.value.is_empty()
                || c.value_size != 0
            {
                return Err(chunk_error("reset_row with data"));
            }
            self.reset();
            return Ok(None);
        }
        match self.state {
            State::NewRow => {
                if c.row_key.is_empty() {
                    return Err(chunk_error("a new row without a row key"));
                }
                if c.family_name.is_none() || c.qualifier.is_none() {
                    return Err(chunk_error(
                        "a new row's first cell without a family and qualifier",
                    ));
                }
                if !self.in_order(&c.row_key) {
                    return Err(chunk_error("row keys out of order"));
                }
                self.key = std::mem::take(&mut c.row_key);
            }
            State::NewCell => {
                if !c.row_key.is_empty() && c.row_key != self.key {
                    return Err(chunk_error("a new row key before the row's commit_row"));
                }
                if c.family_name.is_some() && c.qualifier.is_none() {
                    return Err(chunk_error("a new family without a qualifier"));
                }
            }
            State::CellValue => {
                if !c.row_key.is_empty()
                    || c.family_name.is_some()
                    || c.qualifier.is_some()
                    || c.timestamp_micros != 0
                    || !c.labels.is_empty()
                {
                    return Err(chunk_error(
                        "a cell's continuation with a key, column, timestamp or labels",
                    ));
                }
            }
        }
        if self.state != State::CellValue {
            if let Some(f) = c.family_name.take() {
                self.family = Some(f);
            }
            if let Some(q) = c.qualifier.take() {
                self.qualifier = Some(q);
            }
            let (Some(family), Some(qualifier)) = (&self.family, &self.qualifier) else {
                return Err(chunk_error("a cell without a column"));
            };
            let reserve = usize::try_from(c.value_size).unwrap_or(0).min(MAX_RESERVE);
            self.cell = Some(RowCell {
                family_name: family.clone(),
                qualifier: qualifier.clone(),
                value: Vec::with_capacity(reserve.max(c.value.len())),
                timestamp_micros: c.timestamp_micros,
                labels: std::mem::take(&mut c.labels),
            });
        }
        let Some(cell) = self.cell.as_mut() else {
            return Err(chunk_error("a cell's value without its cell"));
        };
        cell.value.append(&mut c.value);
        if c.value_size > 0 {
            // The value goes on in the next chunk.
            if matches!(c.row_status, Some(RowStatus::CommitRow(true))) {
                return Err(chunk_error("commit_row inside a cell's value"));
            }
            self.state = State::CellValue;
            return Ok(None);
        }
        if c.value_size < 0 {
            return Err(chunk_error("a negative value_size"));
        }
        if let Some(cell) = self.cell.take() {
            self.cells.push(cell);
        }
        if matches!(c.row_status, Some(RowStatus::CommitRow(true))) {
            let key = std::mem::take(&mut self.key);
            let cells = std::mem::take(&mut self.cells);
            self.last = Some(key.clone());
            self.reset();
            return Ok(Some(Merged::Row(key, cells)));
        }
        self.state = State::NewCell;
        Ok(None)
    }

    /// Drops the row in progress: the next chunk starts a row.
    fn reset(&mut self) {
        self.state = State::NewRow;
        self.key.clear();
        self.cells.clear();
        self.family = None;
        self.qualifier = None;
        self.cell = None;
    }
}

/// One call's responses merged: its rows and progress, in order; an error
/// (a chunk that breaks the contract, the stream failing, or it ending
/// inside a row) ends it.
pub(crate) fn merged(
    responses: Streaming<ReadRowsResponse>,
    reversed: bool,
) -> BoxStream<'static, Result<Merged, Error>> {
    let start = (responses, RowMerger::new(reversed), VecDeque::new());
    stream::unfold(Some(start), |state| async move {
        let (mut responses, mut merger, mut ready) = state?;
        loop {
            if let Some(m) = ready.pop_front() {
                return Some((Ok(m), Some((responses, merger, ready))));
            }
            match responses.message().await {
                Ok(Some(r)) => match merger.push(r) {
                    Ok(out) => ready.extend(out),
                    Err(e) => return Some((Err(e), None)),
                },
                Ok(None) => {
                    return match merger.finish() {
                        Ok(()) => None,
                        Err(e) => Some((Err(e), None)),
                    }
                }
                Err(status) => return Some((Err(Error::RpcError(status)), None)),
            }
        }
    })
    .boxed()
}

/// Every row of one call, read to its end.
pub(crate) async fn collect(
    responses: Streaming<ReadRowsResponse>,
    reversed: bool,
) -> Result<Vec<(Vec<u8>, Vec<RowCell>)>, Error> {
    let mut rows = Vec::new();
    let mut all = merged(responses, reversed);
    while let Some(m) = all.next().await {
        if let Merged::Row(k, cells) = m? {
            rows.push((k, cells));
        }
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use crate::chunks::{CellChunk, Merged, ReadRowsResponse, RowMerger, RowStatus, MAX_RESERVE};

    fn chunk(
        key: &str,
        fam: Option<&str>,
        q: Option<&str>,
        ts: i64,
        value: &str,
        size: i32,
    ) -> CellChunk {
        CellChunk {
            row_key: key.as_bytes().to_vec(),
            family_name: fam.map(str::to_string),
            qualifier: q.map(|q| q.as_bytes().to_vec()),
            timestamp_micros: ts,
            labels: vec![],
            value: value.as_bytes().to_vec(),
            value_size: size,
            row_status: None,
        }
    }

    fn commit(mut c: CellChunk) -> CellChunk {
        c.row_status = Some(RowStatus::CommitRow(true));
        c
    }

    fn reset() -> CellChunk {
        CellChunk {
            row_status: Some(RowStatus::ResetRow(true)),
            ..Default::default()
        }
    }

    fn response(chunks: Vec<CellChunk>) -> ReadRowsResponse {
        ReadRowsResponse {
            chunks,
            ..Default::default()
        }
    }

    /// A cell as text: family, qualifier, timestamp, value.
    type Text = (String, String, i64, String);

    fn rows(m: Vec<Merged>) -> Vec<(String, Vec<Text>)> {
        m.into_iter()
            .filter_map(|m| match m {
                Merged::Row(k, cells) => Some((
                    String::from_utf8(k).unwrap(),
                    cells
                        .into_iter()
                        .map(|c| {
                            (
                                c.family_name,
                                String::from_utf8(c.qualifier).unwrap(),
                                c.timestamp_micros,
                                String::from_utf8(c.value).unwrap(),
                            )
                        })
                        .collect(),
                )),
                Merged::Scanned(_) => None,
            })
            .collect()
    }

    fn cell(f: &str, q: &str, ts: i64, v: &str) -> Text {
        (f.into(), q.into(), ts, v.into())
    }

    /// A row whose cells, and a cell whose value, span three responses:
    /// one row, whole (bigtable_rs's decoder failed on the second
    /// response with "new row missing row key").
    #[test]
    fn a_row_split_across_responses_is_one_row() {
        let mut m = RowMerger::new(false);
        let a = m
            .push(response(vec![
                chunk("r1", Some("d"), Some("a"), 10, "x", 0),
                chunk("", None, Some("b"), 20, "hel", 6),
            ]))
            .unwrap();
        assert!(a.is_empty());
        let b = m
            .push(response(vec![chunk("", None, None, 0, "lo", 6)]))
            .unwrap();
        assert!(b.is_empty());
        let c = m
            .push(response(vec![
                chunk("", None, None, 0, "!", 0),
                commit(chunk("", Some("e"), Some("c"), 30, "y", 0)),
                commit(chunk("r2", Some("d"), Some("a"), 5, "z", 0)),
            ]))
            .unwrap();
        assert_eq!(
            rows(c),
            [
                (
                    "r1".into(),
                    vec![
                        cell("d", "a", 10, "x"),
                        cell("d", "b", 20, "hello!"),
                        cell("e", "c", 30, "y")
                    ]
                ),
                ("r2".into(), vec![cell("d", "a", 5, "z")]),
            ]
        );
        m.finish().unwrap();
    }

    /// A reset in the middle of a row (after a response): what came of the
    /// row is dropped and the row sent again is the row.
    #[test]
    fn a_reset_drops_the_row_so_far() {
        let mut m = RowMerger::new(false);
        m.push(response(vec![chunk(
            "r1",
            Some("d"),
            Some("a"),
            1,
            "old",
            0,
        )]))
        .unwrap();
        let out = m
            .push(response(vec![
                reset(),
                chunk("r1", Some("d"), Some("a"), 2, "new", 0),
                commit(chunk("", None, Some("b"), 2, "v", 0)),
            ]))
            .unwrap();
        assert_eq!(
            rows(out),
            [(
                "r1".into(),
                vec![cell("d", "a", 2, "new"), cell("d", "b", 2, "v")]
            )]
        );
    }

    /// Progress of a sparse scan: `last_scanned_row_key` alone.
    #[test]
    fn a_scanned_key_is_progress() {
        let mut m = RowMerger::new(false);
        let out = m
            .push(ReadRowsResponse {
                last_scanned_row_key: b"k9".to_vec(),
                ..Default::default()
            })
            .unwrap();
        assert!(
            matches!(&out[..], [Merged::Scanned(k)] if k == b"k9"),
            "{out:?}"
        );
        // A row at or before it is out of order.
        let e = m
            .push(response(vec![commit(chunk(
                "k1",
                Some("d"),
                Some("a"),
                1,
                "v",
                0,
            ))]))
            .unwrap_err();
        assert!(format!("{e:?}").contains("out of order"), "{e}");
    }

    /// Chunks that break the contract are errors, never rows.
    #[test]
    fn broken_chunks_are_errors() {
        let cases: Vec<(Vec<CellChunk>, &str)> = vec![
            (
                vec![chunk("", Some("d"), Some("a"), 1, "v", 0)],
                "without a row key",
            ),
            (vec![chunk("r", None, None, 1, "v", 0)], "without a family"),
            (
                vec![
                    chunk("r", Some("d"), Some("a"), 1, "v", 0),
                    chunk("s", Some("d"), Some("a"), 1, "v", 0),
                ],
                "before the row's commit_row",
            ),
            (vec![reset()], "reset_row between rows"),
            (
                vec![
                    chunk("r", Some("d"), Some("a"), 1, "v", 3),
                    chunk("", None, Some("b"), 0, "w", 0),
                ],
                "continuation",
            ),
            (
                vec![chunk("r", Some("d"), Some("a"), 1, "v", 0), {
                    let mut r = reset();
                    r.value = b"x".to_vec();
                    r
                }],
                "reset_row with data",
            ),
            (
                vec![commit(chunk("r", Some("d"), Some("a"), 1, "v", 4))],
                "commit_row inside",
            ),
        ];
        for (chunks, says) in cases {
            let e = RowMerger::new(false).push(response(chunks)).unwrap_err();
            assert!(format!("{e:?}").contains(says), "{says}: {e}");
        }
        let mut m = RowMerger::new(false);
        m.push(response(vec![chunk("r", Some("d"), Some("a"), 1, "v", 0)]))
            .unwrap();
        let e = m.finish().unwrap_err();
        assert!(format!("{e:?}").contains("ended inside a row"), "{e:?}");
    }

    /// A `value_size` of 2^31 - 1 reserves at most a MiB.
    #[test]
    fn a_stated_size_reserves_a_bounded_buffer() {
        let mut m = RowMerger::new(false);
        m.push(response(vec![chunk(
            "r",
            Some("d"),
            Some("a"),
            1,
            "v",
            i32::MAX,
        )]))
        .unwrap();
        let cap = m.cell.as_ref().unwrap().value.capacity();
        assert!(cap <= MAX_RESERVE, "{cap}");
    }

    /// Reversed reads: keys descend.
    #[test]
    fn reversed_rows_descend() {
        let mut m = RowMerger::new(true);
        let out = m
            .push(response(vec![
                commit(chunk("b", Some("d"), Some("a"), 1, "v", 0)),
                commit(chunk("a", Some("d"), Some("a"), 1, "v", 0)),
            ]))
            .unwrap();
        assert_eq!(rows(out).len(), 2);
        let e = m
            .push(response(vec![commit(chunk(
                "c",
                Some("d"),
                Some("a"),
                1,
                "v",
                0,
            ))]))
            .unwrap_err();
        assert!(format!("{e:?}").contains("out of order"), "{e}");
    }
}
