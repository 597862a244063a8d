//! The CSV reader: good input in its several shapes, and every bad line
//! named by its line and column.

use rowkey_lab::workload::{read_csv, read_csv_file, CsvError};
use rowkey_lab::Event;

fn read(s: &str) -> Result<Vec<Event>, CsvError> {
    read_csv(s.as_bytes(), "user_id", "ts")
}

fn err(s: &str) -> String {
    read(s).unwrap_err().to_string()
}

#[test]
fn reads_the_named_columns_in_time_order() {
    let events = read(
        "ts, page, user_id\n\
         1700000000500,\"/a,b\", 7\n\
         1700000000100,/home,3\n\
         1700000000100,/cart,4\n",
    )
    .unwrap();
    let e = |user_id, ts_millis| Event { user_id, ts_millis };
    // Sorted by time, stably; whitespace trimmed; a quoted comma is data.
    assert_eq!(
        events,
        [
            e(3, 1_700_000_000_100),
            e(4, 1_700_000_000_100),
            e(7, 1_700_000_000_500)
        ]
    );
    // Negative times and the largest user id are values like any other.
    let edge = read("user_id,ts\n18446744073709551615,-5\n").unwrap();
    assert_eq!(edge, [e(u64::MAX, -5)]);
}

#[test]
fn bad_values_name_their_line_and_column() {
    assert_eq!(
        err("user_id,ts\n1,10\n2,soon\n"),
        "line 3, column `ts`: `soon` is not a time in milliseconds since the epoch (an i64)"
    );
    assert_eq!(
        err("user_id,ts\n1,10\n\n2,11\nx,12\n"),
        "line 5, column `user_id`: `x` is not an unsigned integer (0 to 18446744073709551615)"
    );
    assert_eq!(
        err("user_id,ts\n1,10\n1.5,12\n"),
        "line 3, column `user_id`: `1.5` is not an unsigned integer (0 to 18446744073709551615)"
    );
    assert_eq!(
        err("user_id,ts\n,10\n"),
        "line 2, column `user_id`: `` is not an unsigned integer (0 to 18446744073709551615)"
    );
}

#[test]
fn malformed_lines_and_headers_are_named() {
    assert_eq!(
        err("user_id,ts\n1,10\n2\n"),
        "line 3: 1 fields, but the header has 2"
    );
    assert_eq!(
        err("user,ts\n1,10\n"),
        "the CSV header has no column `user_id` (it has: user,ts)"
    );
    assert_eq!(
        err("user_id,ts\n"),
        "no events: the CSV has a header and no rows"
    );
    assert!(matches!(read(""), Err(CsvError::MissingColumn { .. })));
}

#[test]
fn a_missing_file_is_named() {
    let e = read_csv_file("/nonexistent/events.csv".as_ref(), "user_id", "ts").unwrap_err();
    assert!(
        e.to_string()
            .starts_with("cannot read /nonexistent/events.csv: "),
        "{e}"
    );
}
