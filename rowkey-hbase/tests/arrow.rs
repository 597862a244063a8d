//! `BulkLoad::put_batch`: Arrow record batches become the derive's keys
//! and HBase's `Bytes.toBytes` cells; a bad row puts nothing and is named;
//! a column that cannot fill its field is refused before any row.

use std::sync::Arc;

use arrow_array::types::Int8Type;
use arrow_array::{
    BinaryArray, BooleanArray, DictionaryArray, FixedSizeBinaryArray, Float64Array, Int16Array,
    RecordBatch, TimestampMicrosecondArray, UInt64Array,
};
use arrow_schema::{DataType, Field, Schema, TimeUnit};
use rowkey_core::prelude::*;
use rowkey_core::DynLayout;
use rowkey_hbase::bulk::{BulkError, BulkLoad, CellEncoding, ColumnMap};
use rowkey_hbase::hfile::HFileReader;

#[derive(RowKey, Debug, PartialEq)]
struct Visit {
    site: u64,
    at: i64,
    #[fixed(16)]
    id: Vec<u8>,
    tag: Option<String>,
}

fn layout() -> DynLayout {
    DynLayout::parse(&Visit::LAYOUT.to_string()).unwrap()
}

/// Three visits; `at` in microseconds, whole milliseconds but for
/// `sub_ms` rows; `tag` dictionary-encoded.
fn batch(sub_ms: &[usize]) -> RecordBatch {
    let schema = Arc::new(Schema::new(vec![
        Field::new("site", DataType::UInt64, false),
        Field::new(
            "at",
            DataType::Timestamp(TimeUnit::Microsecond, None),
            false,
        ),
        Field::new("id", DataType::FixedSizeBinary(16), false),
        Field::new(
            "tag",
            DataType::Dictionary(Box::new(DataType::Int8), Box::new(DataType::Utf8)),
            true,
        ),
        Field::new("hits", DataType::Int16, false),
        Field::new("score", DataType::Float64, true),
        Field::new("ok", DataType::Boolean, false),
        Field::new("raw", DataType::Binary, false),
    ]));
    let at: Vec<i64> = (0..3)
        .map(|i| (1_700_000_000_000 + i as i64) * 1000 + i64::from(sub_ms.contains(&i)))
        .collect();
    let ids: Vec<[u8; 16]> = (0..3u8).map(|i| [i + 1; 16]).collect();
    RecordBatch::try_new(
        schema,
        vec![
            Arc::new(UInt64Array::from(vec![7, 8, 9])),
            Arc::new(TimestampMicrosecondArray::from(at)),
            Arc::new(FixedSizeBinaryArray::try_from_iter(ids.iter()).unwrap()),
            // Dictionary-encoded, as pyarrow writes strings, a null among
            // them.
            Arc::new(DictionaryArray::<Int8Type>::from_iter([
                Some("a"),
                None,
                Some("c"),
            ])),
            Arc::new(Int16Array::from(vec![1, -2, 300])),
            Arc::new(Float64Array::from(vec![Some(1.5), None, Some(-0.25)])),
            Arc::new(BooleanArray::from(vec![true, false, true])),
            Arc::new(BinaryArray::from(vec![&b"\x00\xff"[..], b"", b"z"])),
        ],
    )
    .unwrap()
}

fn cells(dir: &std::path::Path) -> Vec<(Vec<u8>, Vec<u8>, Vec<u8>)> {
    let mut out = Vec::new();
    for file in std::fs::read_dir(dir.join("d")).unwrap() {
        let mut r = HFileReader::open(file.unwrap().path()).unwrap();
        while let Some(c) = r.next_cell().unwrap() {
            out.push((c.row, c.qualifier, c.value));
        }
    }
    out.sort();
    out
}

fn key(i: u8) -> Vec<u8> {
    Visit {
        site: 7 + u64::from(i),
        at: 1_700_000_000_000 + i64::from(i),
        id: vec![i + 1; 16],
        tag: [Some("a"), None, Some("c")][usize::from(i)].map(String::from),
    }
    .encode_to_vec()
    .unwrap()
}

#[test]
fn a_batch_becomes_the_derives_keys_and_hbases_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let map = ColumnMap::new(&layout(), "d").unwrap();
    let mut load = BulkLoad::new(dir.path().join("out"));
    assert_eq!(load.put_batch(&batch(&[]), &map).unwrap(), 3);
    load.finish().unwrap();
    let got = cells(&dir.path().join("out"));
    let cell = |i: u8, q: &str, v: &[u8]| (key(i), q.as_bytes().to_vec(), v.to_vec());
    let mut want = vec![
        cell(0, "hits", &1i16.to_be_bytes()),
        cell(0, "score", &1.5f64.to_bits().to_be_bytes()),
        cell(0, "ok", &[0xff]),
        cell(0, "raw", b"\x00\xff"),
        cell(1, "hits", &(-2i16).to_be_bytes()),
        // A null score is no cell.
        cell(1, "ok", &[0]),
        cell(1, "raw", b""),
        cell(2, "hits", &300i16.to_be_bytes()),
        cell(2, "score", &(-0.25f64).to_bits().to_be_bytes()),
        cell(2, "ok", &[0xff]),
        cell(2, "raw", b"z"),
    ];
    want.sort();
    assert_eq!(got, want);

    // As text, only the columns named.
    let map = ColumnMap::new(&layout(), "d")
        .unwrap()
        .value("hits", "d", b"h")
        .encoding(CellEncoding::Text);
    let mut load = BulkLoad::new(dir.path().join("text"));
    load.put_batch(&batch(&[]), &map).unwrap();
    load.finish().unwrap();
    let got = cells(&dir.path().join("text"));
    assert_eq!(got[2], (key(2), b"h".to_vec(), b"300".to_vec()));
    assert_eq!(got.len(), 3);
}

#[test]
fn a_bad_row_puts_nothing_and_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let map = ColumnMap::new(&layout(), "d").unwrap();
    let mut load = BulkLoad::new(dir.path().join("out"));
    // Row 1's timestamp has a part of a millisecond: truncated, two rows
    // could become one key.
    let err = load.put_batch(&batch(&[1]), &map).unwrap_err();
    match &err {
        BulkError::BadInput {
            row,
            column,
            reason,
        } => {
            assert_eq!((*row, column.as_str()), (1, "at"));
            assert!(reason.contains("not a whole number"), "{reason}");
        }
        other => panic!("{other}"),
    }
    // Nothing of the batch was put (not even row 0, before the bad one).
    let summary = load.finish().unwrap();
    assert_eq!(summary.rows, 0);

    // The skipping form puts the others and lists the bad one.
    let mut load = BulkLoad::new(dir.path().join("skip"));
    let mut bad = Vec::new();
    assert_eq!(
        load.put_batch_skipping(&batch(&[0, 2]), &map, &mut bad)
            .unwrap(),
        1
    );
    let rows: Vec<usize> = bad.iter().map(|b| b.row).collect();
    assert_eq!(rows, [0, 2]);

    // A key HBase cannot store (over 32,767 bytes) is the row's own fault
    // too: listed, the others put.
    let long = "x".repeat(40_000);
    let mut columns = batch(&[]).columns().to_vec();
    columns[3] = Arc::new(DictionaryArray::<Int8Type>::from_iter([
        Some("a"),
        Some(long.as_str()),
        None,
    ]));
    let long_batch = RecordBatch::try_new(batch(&[]).schema(), columns).unwrap();
    let mut bad = Vec::new();
    assert_eq!(
        load.put_batch_skipping(&long_batch, &map, &mut bad)
            .unwrap(),
        2
    );
    assert_eq!(bad.len(), 1);
    assert_eq!(bad[0].row, 1);
    assert!(
        bad[0].reason.contains("HBase takes 1 to 32767"),
        "{:?}",
        bad[0]
    );
}

#[test]
fn a_column_that_cannot_fill_its_field_is_refused_by_name() {
    let map = ColumnMap::new(&layout(), "d").unwrap();
    let mut load = BulkLoad::new(tempfile::tempdir().unwrap().path().join("out"));
    let b = batch(&[]);
    // `site` from a boolean column.
    let renamed = ColumnMap::new(&layout(), "d")
        .unwrap()
        .key_column("site", "ok")
        .unwrap();
    let err = load.put_batch(&b, &renamed).unwrap_err().to_string();
    assert!(
        err.contains("column `ok` is Boolean, and the key field `site` is u64"),
        "{err}"
    );
    // A key field with no column.
    let missing = map.clone().key_column("site", "nowhere").unwrap();
    let err = load.put_batch(&b, &missing).unwrap_err().to_string();
    assert!(
        err.contains("no column `nowhere` for the key field `site`"),
        "{err}"
    );
    // A value the field's codec refuses: named by its column.
    let mut zero = batch(&[]).columns().to_vec();
    zero[2] = Arc::new(FixedSizeBinaryArray::try_from_iter([[0u8; 16]; 3].iter()).unwrap());
    let zero = RecordBatch::try_new(b.schema(), zero).unwrap();
    let err = load.put_batch(&zero, &map.clone()).unwrap_err();
    assert!(
        matches!(&err, BulkError::BadInput { row: 0, column, .. } if column == "id"),
        "{err}"
    );
    // A field the layout does not have.
    let err = map.key_column("nope", "site").unwrap_err().to_string();
    assert!(err.contains("no such field"), "{err}");
}

/// `ColumnMap::index`: each row's entry in an index read from the batch's
/// columns, its last field the row's key, is the derived index key's
/// bytes, in the load's index family with the load's timestamp; a row
/// whose indexed value does not fit is a bad row named by its column,
/// and neither its data row nor its entry is put.
#[cfg(feature = "index")]
#[test]
fn a_batch_with_an_index_puts_each_rows_entry_beside_it() {
    use arrow_array::{StringArray, UInt16Array};
    use rowkey_hbase::bulk::ColumnIndex;

    #[derive(RowKey, Debug, Clone, Copy, PartialEq)]
    #[rowkey(prefix = "D")]
    struct Hit {
        site: u64,
        n: u16,
    }
    #[derive(RowKey, Debug, PartialEq)]
    #[rowkey(prefix = "I")]
    #[salt(buckets = 4, by(tag))]
    struct ByTag {
        #[fixed(4)]
        tag: String,
        hit: Hit,
    }
    let data = DynLayout::parse(&Hit::LAYOUT.to_string()).unwrap();
    let by_tag = DynLayout::parse(&ByTag::LAYOUT.to_string()).unwrap();
    let index = ColumnIndex::new(&by_tag, &data).unwrap();
    assert_eq!(index.columns().collect::<Vec<_>>(), ["tag"]);
    let schema = Arc::new(Schema::new(vec![
        Field::new("site", DataType::UInt64, false),
        Field::new("n", DataType::UInt16, false),
        Field::new("tag", DataType::Utf8, false),
    ]));
    let batch = RecordBatch::try_new(
        schema,
        vec![
            Arc::new(UInt64Array::from(vec![1, 2, 3])),
            Arc::new(UInt16Array::from(vec![10, 20, 30])),
            Arc::new(StringArray::from(vec!["ab", "toolong", "cd"])),
        ],
    )
    .unwrap();
    let map = ColumnMap::new(&data, "d").unwrap().index(&index);
    let dir = tempfile::tempdir().unwrap();
    let mut load = BulkLoad::new(dir.path().join("out"))
        .index_family("d")
        .timestamp(5);
    let mut bad = Vec::new();
    assert_eq!(load.put_batch_skipping(&batch, &map, &mut bad).unwrap(), 2);
    assert_eq!(bad.len(), 1);
    assert_eq!((bad[0].row, bad[0].column.as_str()), (1, "tag"));
    load.finish().unwrap();
    let ts = rowkey_core::index::entry_value(5).to_vec();
    let mut want = Vec::new();
    for (site, n, tag) in [(1, 10, "ab"), (3, 30, "cd")] {
        let hit = Hit { site, n };
        let key = hit.encode_to_vec().unwrap();
        want.push((key, b"tag".to_vec(), tag.as_bytes().to_vec()));
        let entry = ByTag {
            tag: tag.into(),
            hit,
        };
        want.push((entry.encode_to_vec().unwrap(), b"v".to_vec(), ts.clone()));
    }
    want.sort();
    assert_eq!(cells(&dir.path().join("out")), want);
    // All or nothing: the bad row fails the batch, naming its column.
    let mut load = BulkLoad::new(dir.path().join("all")).index_family("d");
    let err = load.put_batch(&batch, &map).unwrap_err();
    assert!(err.to_string().contains("tag"), "{err}");
    // Entries need the index family.
    let mut load = BulkLoad::new(dir.path().join("none"));
    let err = load.put_batch(&batch.slice(0, 1), &map).unwrap_err();
    assert!(err.to_string().contains("index_family"), "{err}");
    // An index whose last field is not the data key's width is refused.
    let short = DynLayout::parse("[prefix \"I\"][tag fixed(4) String][hit u64]").unwrap();
    let err = ColumnIndex::new(&short, &data).unwrap_err();
    assert!(err.to_string().contains("must be the data key"), "{err}");
}
