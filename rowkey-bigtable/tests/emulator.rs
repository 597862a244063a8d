//! Against a real Bigtable: the Cloud Bigtable emulator (`cbtemulator`, from
//! the Debian package google-cloud-cli-bigtable-emulator), started by each
//! test on a free loopback port and stopped when the test ends, also when it
//! fails. Typed keys are written, random generated scans (edge values
//! included) run through `read_scan`, and the rows returned must equal a
//! plain filter over what was written, in key order.

#[path = "../../rowkey-core/tests/common/mod.rs"]
mod common;

use std::ops::{Bound, RangeBounds};

use rowkey_bigtable::{
    create_table, create_table_for, read_scan, read_typed, write_rows, AdminClient, Client,
};
use rowkey_core::prelude::*;
use rowkey_core::Scan;

use common::Sampler;

const PROJECT: &str = "rowkey-test";
const INSTANCE: &str = "rowkey";

/// The emulator with the clients these tests use.
struct Emulator(rowkey_bigtable::emulator::Emulator);

impl Emulator {
    fn start() -> Emulator {
        Emulator(
            rowkey_bigtable::emulator::Emulator::start().expect("the Bigtable emulator starts"),
        )
    }
    fn client(&self) -> Client {
        self.0
            .client(PROJECT, INSTANCE)
            .expect("connects to the emulator")
    }
    async fn admin(&self) -> AdminClient {
        self.0
            .admin()
            .await
            .expect("admin connects to the emulator")
    }
}

fn instance() -> String {
    format!("projects/{PROJECT}/instances/{INSTANCE}")
}

/// Salted by user, newest first, a reversed field, a descending string and
/// bytes that are raw to the end of the key.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[salt(buckets = 8, by(user))]
struct Salted {
    user: u32,
    #[desc_ts]
    ts: i64,
    #[desc]
    name: String,
    #[reverse]
    seq: u16,
    note: Vec<u8>,
}

/// Unsalted, fixed-width string first.
#[derive(RowKey, Debug, Clone, PartialEq)]
struct Plain {
    #[fixed(4)]
    region: String,
    id: u64,
    tail: Option<String>,
}

const USERS: &[u32] = &[0, 1, 2, 7, u32::MAX];
const TSS: &[i64] = &[i64::MIN, -1, 0, 1, 1_700_000_000_000, i64::MAX];
const NAMES: &[&str] = &["", "a", "ab", "\u{ff}"];
const NOTES: &[&[u8]] = &[b"", b"\x00", b"\xFF", b"\xFF\xFF", b"x"];
const REGIONS: &[&str] = &["", "eu", "us", "\u{7f}\u{7f}"];
const IDS: &[u64] = &[0, 1, 2, 1_000, u64::MAX];

/// The scan must return exactly the rows `pred` selects, in the order of
/// the keys after the salt byte.
async fn check<T>(
    client: &Client,
    table: &str,
    rows: &[T],
    salted: bool,
    what: &str,
    scan: &Scan,
    pred: impl Fn(&T) -> bool,
) where
    T: RowKey + for<'a> DecodeRowKey<'a> + std::fmt::Debug + PartialEq,
{
    let expected = common::expected_keys(rows, salted, &pred);
    let got: Vec<Vec<u8>> = read_scan(client, table, scan)
        .await
        .unwrap()
        .into_iter()
        .map(|(k, _)| k)
        .collect();
    assert_eq!(got.len(), expected.len(), "{what}: {scan:?}");
    assert!(
        got == expected,
        "{what}: {scan:?}: rows differ or are out of order"
    );
}

fn in_range<T: PartialOrd>(r: &(Bound<T>, Bound<T>), v: &T) -> bool {
    r.contains(v)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn generated_scans_on_bigtable_match_a_filter() {
    let emulator = Emulator::start();
    let client = emulator.client();
    let mut admin = emulator.admin().await;

    // Rows from the edge-value pools, so equality scans hit many rows.
    let mut rng = Sampler::new();
    let salted: Vec<Salted> = (0..1_500)
        .map(|_| Salted {
            user: rng.pick(USERS),
            ts: rng.pick(TSS),
            name: rng.pick(NAMES).to_string(),
            seq: rng.below(4) as u16 * 0x0101,
            note: rng.pick(NOTES).to_vec(),
        })
        .collect();
    let plain: Vec<Plain> = (0..1_500)
        .map(|_| Plain {
            region: rng.pick(REGIONS).to_string(),
            id: rng.pick(IDS),
            tail: if rng.below(3) == 0 {
                None
            } else {
                Some(rng.pick(NAMES).to_string())
            },
        })
        .collect();

    create_table(
        &mut admin,
        &instance(),
        "salted",
        &["d"],
        &Salted::split_points(),
    )
    .await
    .unwrap();
    create_table(
        &mut admin,
        &instance(),
        "plain",
        &["d"],
        &Plain::split_points(),
    )
    .await
    .unwrap();
    let cell = |i: usize| vec![("d".to_string(), b"i".to_vec(), i.to_string().into_bytes())];
    write_rows(
        &client,
        "salted",
        salted
            .iter()
            .cloned()
            .enumerate()
            .map(|(i, r)| (r, cell(i))),
    )
    .await
    .unwrap();
    write_rows(
        &client,
        "plain",
        plain.iter().cloned().enumerate().map(|(i, r)| (r, cell(i))),
    )
    .await
    .unwrap();

    // Typed read of everything, merged across the 8 buckets.
    let all: Vec<(Salted, _)> = read_typed(&client, "salted", &Salted::scan_all())
        .await
        .unwrap();
    let mut distinct = salted.clone();
    distinct.sort_by_key(|r| r.encode_to_vec().unwrap()[1..].to_vec());
    distinct.dedup();
    assert_eq!(all.len(), distinct.len());
    assert!(all
        .iter()
        .all(|(_, cells)| cells.iter().any(|c| c.family_name == "d")));

    for _ in 0..12 {
        let u = rng.pick(USERS);
        check(
            &client,
            "salted",
            &salted,
            true,
            "scan_by_user",
            &Salted::scan_by_user(u),
            |r| r.user == u,
        )
        .await;
        let t = rng.pick(TSS);
        let tr = rng.range(TSS);
        check(
            &client,
            "salted",
            &salted,
            true,
            "range_by_user_ts",
            &Salted::range_by_user_ts(u, tr),
            |r| r.user == u && in_range(&tr, &r.ts),
        )
        .await;
        let ur = rng.range(USERS);
        let s = Salted::range_by_user(ur);
        check(
            &client,
            "salted",
            &salted,
            true,
            "range_by_user (fan-out)",
            &s,
            |r| in_range(&ur, &r.user),
        )
        .await;
        let n = rng.pick(NAMES);
        let nr = rng.range(NAMES);
        check(
            &client,
            "salted",
            &salted,
            true,
            "range_by_user_ts_name",
            &Salted::range_by_user_ts_name(u, t, nr),
            |r| r.user == u && r.ts == t && in_range(&nr, &r.name.as_str()),
        )
        .await;
        let q = rng.below(4) as u16 * 0x0101;
        let note = rng.pick(NOTES);
        let s = Salted::scan_by_user_ts_name_seq_note(u, t, n, q, note);
        check(
            &client,
            "salted",
            &salted,
            true,
            "scan_by all fields",
            &s,
            |r| r.user == u && r.ts == t && r.name == n && r.seq == q && r.note == note,
        )
        .await;

        let region = rng.pick(REGIONS);
        let s = Plain::scan_by_region(region).unwrap();
        check(&client, "plain", &plain, false, "scan_by_region", &s, |r| {
            r.region == region
        })
        .await;
        let ir = rng.range(IDS);
        let s = Plain::range_by_region_id(region, ir).unwrap();
        check(
            &client,
            "plain",
            &plain,
            false,
            "range_by_region_id",
            &s,
            |r| r.region == region && in_range(&ir, &r.id),
        )
        .await;
        let id = rng.pick(IDS);
        let tails: Vec<Option<&str>> = std::iter::once(None)
            .chain(NAMES.iter().map(|n| Some(*n)))
            .collect();
        let tr = rng.range(&tails);
        let s = Plain::range_by_region_id_tail(region, id, tr).unwrap();
        check(
            &client,
            "plain",
            &plain,
            false,
            "range_by_region_id_tail",
            &s,
            |r| r.region == region && r.id == id && in_range(&tr, &r.tail.as_deref()),
        )
        .await;
    }
    // An empty scan reads nothing (an empty Bigtable row set would read all).
    let empty = Plain::range_by_region_id("eu", 5..5).unwrap();
    assert!(read_scan(&client, "plain", &empty)
        .await
        .unwrap()
        .is_empty());
}

/// The table is created with one split per bucket. The emulator accepts
/// `initial_splits` but does not model tablets (its SampleRowKeys returns
/// randomly sampled row keys, not tablet boundaries), so what can be checked
/// here is that the request carries exactly `split_points()` and that the
/// pre-split table takes and serves rows in every bucket.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn salted_table_is_created_pre_split_one_split_per_bucket() {
    let request = rowkey_bigtable::create_table_request(
        &instance(),
        "events",
        &["d"],
        &Salted::split_points(),
    );
    let splits: Vec<Vec<u8>> = request
        .initial_splits
        .iter()
        .map(|s| s.key.clone())
        .collect();
    assert_eq!(
        splits,
        (1..8u8).map(|b| vec![b]).collect::<Vec<_>>(),
        "one split per bucket boundary"
    );

    let emulator = Emulator::start();
    let client = emulator.client();
    let mut admin = emulator.admin().await;
    create_table(
        &mut admin,
        &instance(),
        "events",
        &["d"],
        &Salted::split_points(),
    )
    .await
    .unwrap();
    // Creating it again is an error the caller sees, not a silent success.
    assert!(create_table(
        &mut admin,
        &instance(),
        "events",
        &["d"],
        &Salted::split_points()
    )
    .await
    .is_err());

    let rows: Vec<Salted> = (0..400u32)
        .map(|i| Salted {
            user: i,
            ts: 0,
            name: String::new(),
            seq: 0,
            note: vec![],
        })
        .collect();
    let cells = || vec![("d".to_string(), b"i".to_vec(), b"v".to_vec())];
    write_rows(
        &client,
        "events",
        rows.iter().cloned().map(|r| (r, cells())),
    )
    .await
    .unwrap();
    let read: Vec<(Salted, _)> = read_typed(&client, "events", &Salted::scan_all())
        .await
        .unwrap();
    assert_eq!(read.len(), 400);
    let buckets: std::collections::BTreeSet<u8> = read.iter().map(|(r, _)| r.bucket()).collect();
    assert_eq!(buckets.len(), 8, "rows in every bucket");
    assert!(
        read.windows(2).all(|w| w[0].0.user < w[1].0.user),
        "merged in user order"
    );
}

/// `bigtable_rs`'s prefix helper ends the range for prefix `01 FF` at
/// `02 00`, so it also returns the row `02`, which does not start with the
/// prefix. rowkey's bounds (trailing FF dropped, then incremented: `02`)
/// do not.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rowkey_bounds_avoid_the_bigtable_rs_prefix_bug() {
    #[derive(RowKey, Debug, PartialEq)]
    struct Raw {
        bytes: Vec<u8>,
    }
    let emulator = Emulator::start();
    let client = emulator.client();
    let mut admin = emulator.admin().await;
    create_table(&mut admin, &instance(), "raw", &["d"], &[])
        .await
        .unwrap();
    let keys: [&[u8]; 4] = [b"\x01\xFE", b"\x01\xFF", b"\x01\xFF\x05", b"\x02"];
    let cells = || vec![("d".to_string(), b"i".to_vec(), b"v".to_vec())];
    write_rows(
        &client,
        "raw",
        keys.iter().map(|k| (Raw { bytes: k.to_vec() }, cells())),
    )
    .await
    .unwrap();

    // bigtable_rs's own client, on the same emulator.
    let mut c = bigtable_rs::bigtable::BigTableConnection::new_with_emulator(
        &emulator.0.host(),
        PROJECT,
        INSTANCE,
        false,
        1,
        None,
    )
    .unwrap()
    .client();
    let request = bigtable_rs::google::bigtable::v2::ReadRowsRequest {
        table_name: c.get_full_table_name("raw"),
        ..Default::default()
    };
    let theirs: Vec<Vec<u8>> = c
        .read_rows_with_prefix(request, vec![0x01, 0xFF])
        .await
        .unwrap()
        .into_iter()
        .map(|(k, _)| k)
        .collect();
    assert_eq!(
        theirs,
        [vec![0x01, 0xFF], vec![0x01, 0xFF, 0x05], vec![0x02]],
        "bigtable_rs includes 02"
    );

    let scan = rowkey_core::Scan::from_bounds(
        &[0x01, 0xFF],
        &rowkey_core::scan::prefix_stop(&[0x01, 0xFF]).unwrap(),
    );
    let ours: Vec<Vec<u8>> = read_scan(&client, "raw", &scan)
        .await
        .unwrap()
        .into_iter()
        .map(|(k, _)| k)
        .collect();
    assert_eq!(ours, [vec![0x01, 0xFF], vec![0x01, 0xFF, 0x05]]);

    // rowkey's scan over bigtable_rs's connection (Client::from): the same.
    let theirs_conn = Client::from(c);
    assert_eq!(
        theirs_conn.table_name("raw"),
        format!("{}/tables/raw", instance())
    );
    let over_theirs: Vec<Vec<u8>> = read_scan(&theirs_conn, "raw", &scan)
        .await
        .unwrap()
        .into_iter()
        .map(|(k, _)| k)
        .collect();
    assert_eq!(over_theirs, ours);
}

/// Errors keep their causes: a bad endpoint and an unreachable one name the
/// endpoint, and their source is the URI's or the transport's error (the
/// rule of every crate, C-GOOD-ERR: `Display` says what failed, `source()`
/// why), which the chain printer shows once, down to the socket.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn admin_connection_errors_print_their_cause_once() {
    use std::error::Error as _;
    let bad = rowkey_bigtable::connect_admin("not a uri\n")
        .await
        .err()
        .unwrap();
    assert!(
        matches!(bad, rowkey_bigtable::Error::Endpoint { .. }),
        "{bad:?}"
    );
    assert!(!bad.to_string().contains("invalid"), "{bad}");
    assert!(
        bad.source().unwrap().to_string().contains("invalid"),
        "{bad:?}"
    );
    let chain = rowkey_core::error_chain(&bad);
    assert_eq!(chain.matches("invalid").count(), 1, "{chain}");
    // A loopback port nothing listens on, held for the test: bound but
    // never listening, so a connection is refused and no other process
    // takes the port meanwhile (one bound and dropped was taken once by a
    // server that reset the connection).
    let socket = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).unwrap();
    socket
        .bind(&std::net::SocketAddr::from(([127, 0, 0, 1], 0)).into())
        .unwrap();
    let port = socket.local_addr().unwrap().as_socket().unwrap().port();
    let endpoint = format!("http://127.0.0.1:{port}");
    let down = rowkey_bigtable::connect_admin(&endpoint)
        .await
        .err()
        .unwrap();
    assert!(
        matches!(down, rowkey_bigtable::Error::Connect { .. }),
        "{down:?}"
    );
    assert!(down.to_string().contains(&endpoint), "{down}");
    assert!(down.source().is_some(), "{down:?}");
    let chain = rowkey_core::error_chain(&down);
    assert!(
        chain.to_lowercase().contains("refused"),
        "the transport's cause, down to the socket: {chain}"
    );
}

/// The HBase guide's call records as a text key: `phone % 10` salt, the
/// phone, `Long.MAX_VALUE - ts`, then any text.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(text, sep = "_")]
#[salt(buckets = 10, by(phone), hash = "mod")]
struct Call {
    #[digits(11)]
    phone: u64,
    #[desc_ts]
    ts: i64,
    note: String,
}

/// `#`-separated, salted (xxh3) by a delimited string, so scans over the
/// other fields fan out to 12 buckets (two digits: a merge skips three
/// bytes); a signed and a reversed integer.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(text, sep = "#")]
#[salt(buckets = 12, by(device))]
struct Reading {
    device: String,
    delta: i32,
    #[reverse]
    seq: u32,
    metric: String,
}

const PHONES: &[u64] = &[0, 9, 10, 18_518_885_160, 99_999_999_999];
const TEXT_TSS: &[i64] = &[0, 1, 1_638_620_506_000, i64::MAX];
/// Last fields: empty, the separators, bytes below them, above them.
const TEXTS: &[&str] = &["", "_", "#", "a", "a_b", "a!", "a0", "~"];
/// Delimited strings: no `#`, bytes below and above it, prefixes.
const DEVICES: &[&str] = &["", "a", "a!", "a$", "ab", "b"];
const DELTAS: &[i32] = &[i32::MIN, -10, -1, 0, 1, 10, i32::MAX];

/// Text keys on Bigtable: random rows of two text layouts, random scans;
/// each returns exactly what a filter selects, merged in key order after
/// the bucket digits.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_key_scans_on_bigtable_match_a_filter() {
    let emulator = Emulator::start();
    let client = emulator.client();
    let mut admin = emulator.admin().await;
    let mut rng = Sampler::new();
    let calls: Vec<Call> = (0..800)
        .map(|_| Call {
            phone: rng.pick(PHONES),
            ts: rng.pick(TEXT_TSS),
            note: rng.pick(TEXTS).to_string(),
        })
        .collect();
    let readings: Vec<Reading> = (0..800)
        .map(|_| Reading {
            device: rng.pick(DEVICES).to_string(),
            delta: rng.pick(DELTAS),
            seq: rng.below(3) as u32 * 10,
            metric: rng.pick(TEXTS).to_string(),
        })
        .collect();
    let splits = Call::split_points();
    assert_eq!(splits[0], b"1");
    // Pre-split and with its row-key schema: the rows and scans below run
    // on a table created as a user would create it.
    create_table_for::<Call>(&mut admin, &instance(), "calls", &["d"])
        .await
        .unwrap();
    create_table(
        &mut admin,
        &instance(),
        "readings",
        &["d"],
        &Reading::split_points(),
    )
    .await
    .unwrap();
    let cell = || vec![("d".to_string(), b"i".to_vec(), b"1".to_vec())];
    write_rows(&client, "calls", calls.iter().cloned().map(|r| (r, cell())))
        .await
        .unwrap();
    write_rows(
        &client,
        "readings",
        readings.iter().cloned().map(|r| (r, cell())),
    )
    .await
    .unwrap();

    check(
        &client,
        "calls",
        &calls,
        true,
        "calls scan_all",
        &Call::scan_all(),
        |_| true,
    )
    .await;
    check(
        &client,
        "readings",
        &readings,
        true,
        "readings scan_all",
        &Reading::scan_all(),
        |_| true,
    )
    .await;
    for _ in 0..10 {
        let p = rng.pick(PHONES);
        let s = Call::scan_by_phone(p).unwrap();
        assert_eq!(s.range_count(), 1);
        check(&client, "calls", &calls, true, "scan_by_phone", &s, |r| {
            r.phone == p
        })
        .await;
        let pr = rng.range(PHONES);
        let s = Call::range_by_phone(pr).unwrap();
        check(&client, "calls", &calls, true, "range_by_phone", &s, |r| {
            in_range(&pr, &r.phone)
        })
        .await;
        let tr = rng.range(TEXT_TSS);
        let s = Call::range_by_phone_ts(p, tr).unwrap();
        check(
            &client,
            "calls",
            &calls,
            true,
            "range_by_phone_ts",
            &s,
            |r| r.phone == p && in_range(&tr, &r.ts),
        )
        .await;
        let t = rng.pick(TEXT_TSS);
        let nr = rng.range(TEXTS);
        let s = Call::range_by_phone_ts_note(p, t, nr).unwrap();
        check(
            &client,
            "calls",
            &calls,
            true,
            "range_by_..._note",
            &s,
            |r| r.phone == p && r.ts == t && in_range(&nr, &r.note.as_str()),
        )
        .await;

        let d = rng.pick(DEVICES);
        let s = Reading::scan_by_device(d).unwrap();
        check(
            &client,
            "readings",
            &readings,
            true,
            "scan_by_device",
            &s,
            |r| r.device == d,
        )
        .await;
        let dr = rng.range(DELTAS);
        let s = Reading::range_by_device_delta(d, dr).unwrap();
        check(
            &client,
            "readings",
            &readings,
            true,
            "range_by_device_delta",
            &s,
            |r| r.device == d && in_range(&dr, &r.delta),
        )
        .await;
        let q = rng.below(3) as u32 * 10;
        let delta = rng.pick(DELTAS);
        let s = Reading::scan_by_device_delta_seq(d, delta, q).unwrap();
        check(
            &client,
            "readings",
            &readings,
            true,
            "scan_by_..._seq",
            &s,
            |r| r.device == d && r.delta == delta && r.seq == q,
        )
        .await;
    }
}

/// A text key's table is created with its row-key schema: one UTF-8
/// string field per part (salt, then the fields), `DelimitedBytes` on the
/// separator, as `Layout::bigtable_row_key_schema` writes it for gcloud;
/// with the same splits as `create_table`. A binary key gets none. The
/// emulator takes the request and does not keep the schema, so the request
/// is what is checked; the table it creates serves the text-key scans
/// above.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_key_tables_carry_their_row_key_schema() {
    use rowkey_bigtable::admin_api::google::bigtable::admin::v2::r#type;
    let request = rowkey_bigtable::create_table_request_for::<Reading>(&instance(), "r", &["d"]);
    let splits: Vec<Vec<u8>> = request
        .initial_splits
        .iter()
        .map(|s| s.key.clone())
        .collect();
    assert_eq!(splits, Reading::split_points());
    let schema = request
        .table
        .unwrap()
        .row_key_schema
        .expect("a text key has a schema");
    let names: Vec<&str> = schema
        .fields
        .iter()
        .map(|f| f.field_name.as_str())
        .collect();
    assert_eq!(names, ["salt", "device", "delta", "seq", "metric"]);
    for f in &schema.fields {
        let Some(r#type::Kind::StringType(string)) = f.r#type.clone().and_then(|t| t.kind) else {
            panic!("{} is not a string field", f.field_name)
        };
        assert_eq!(
            string.encoding.and_then(|e| e.encoding),
            Some(r#type::string::encoding::Encoding::Utf8Bytes(
                r#type::string::encoding::Utf8Bytes {}
            ))
        );
    }
    assert_eq!(
        schema.encoding.and_then(|e| e.encoding),
        Some(r#type::r#struct::encoding::Encoding::DelimitedBytes(
            r#type::r#struct::encoding::DelimitedBytes {
                delimiter: b"#".to_vec()
            }
        ))
    );
    // The same schema as the JSON for gcloud.
    let json: serde_json::Value =
        serde_json::from_str(&Reading::LAYOUT.bigtable_row_key_schema().unwrap()).unwrap();
    let json_names: Vec<&str> = json["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["fieldName"].as_str().unwrap())
        .collect();
    assert_eq!(json_names, names);

    let binary = rowkey_bigtable::create_table_request_for::<Salted>(&instance(), "s", &["d"]);
    assert_eq!(binary.table.unwrap().row_key_schema, None);
    assert_eq!(rowkey_bigtable::row_key_schema(Salted::LAYOUT), None);

    let emulator = Emulator::start();
    let mut admin = emulator.admin().await;
    create_table_for::<Reading>(&mut admin, &instance(), "readings", &["d"])
        .await
        .unwrap();
    let got = admin
        .get_table(
            rowkey_bigtable::admin_api::google::bigtable::admin::v2::GetTableRequest {
                name: format!("{}/tables/readings", instance()),
                ..Default::default()
            },
        )
        .await
        .unwrap()
        .into_inner();
    assert!(got.column_families.contains_key("d"));
    assert_eq!(
        got.row_key_schema, None,
        "the emulator keeps no row-key schema; if it now does, check it is the request's"
    );
}

/// A client with an interceptor (where credentials go) runs it on every
/// request, reads and writes alike, on the same sized channel; an
/// interceptor that refuses fails the call with its status.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_interceptor_runs_on_every_request() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    let emulator = Emulator::start();
    let mut admin = emulator.admin().await;
    create_table(
        &mut admin,
        &instance(),
        "auth",
        &["d"],
        &Salted::split_points(),
    )
    .await
    .unwrap();
    let uri = format!("http://{}", emulator.0.host());
    let channel = Client::endpoint(&uri).unwrap().connect_lazy();
    let calls = Arc::new(AtomicUsize::new(0));
    let seen = Arc::clone(&calls);
    let client = Client::with_interceptor(channel.clone(), PROJECT, INSTANCE, move |mut r| {
        seen.fetch_add(1, Ordering::Relaxed);
        r.metadata_mut()
            .insert("authorization", "Bearer test-token".parse().unwrap());
        Ok(r)
    });
    let rows: Vec<Salted> = (0..50u32)
        .map(|user| Salted {
            user,
            ts: 1,
            name: "n".into(),
            seq: 2,
            note: vec![3],
        })
        .collect();
    let cell = || vec![("d".to_string(), b"i".to_vec(), b"v".to_vec())];
    write_rows(&client, "auth", rows.iter().cloned().map(|r| (r, cell())))
        .await
        .unwrap();
    assert_eq!(calls.load(Ordering::Relaxed), 1, "one MutateRows");
    let read = read_typed::<Salted>(&client, "auth", &Salted::scan_all())
        .await
        .unwrap();
    assert_eq!(read.len(), 50);
    assert_eq!(
        calls.load(Ordering::Relaxed),
        1 + 8,
        "one ReadRows per bucket"
    );

    let refusing = Client::with_interceptor(channel, PROJECT, INSTANCE, |_| {
        Err(tonic::Status::unauthenticated("no token"))
    });
    let err = read_scan(&refusing, "auth", &Salted::scan_all())
        .await
        .unwrap_err();
    let Some(status) = (match &err {
        rowkey_bigtable::Error::Bigtable(e) => e.status(),
        _ => None,
    }) else {
        panic!("{err:?}")
    };
    assert_eq!(status.code(), tonic::Code::Unauthenticated);
    assert_eq!(status.message(), "no token");
}

/// Bigtable's structured row keys (`#[rowkey(ordered_code)]`): salted (the
/// bucket an `Int64` struct field), a trailing string and bytes that keys
/// leave out when empty.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(ordered_code)]
#[salt(buckets = 4, by(user))]
struct OcEvent {
    user: i64,
    name: String,
    blob: Vec<u8>,
}

const OC_USERS: &[i64] = &[i64::MIN, -1, 0, 63, 64, i64::MAX];
const OC_NAMES: &[&str] = &["", "\0", "a", "a\0b", "b"];

/// Ordered-code keys on the emulator: the table is created with the key's
/// `OrderedCodeBytes` schema (checked in the request: the emulator keeps
/// none), and the generated scans, forward and reversed, return exactly the
/// rows a filter selects, including rows whose trailing strings are empty
/// and so not written.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ordered_code_keys_on_bigtable() {
    use futures_util::TryStreamExt;
    use rowkey_bigtable::admin_api::google::bigtable::admin::v2::r#type;
    let request = rowkey_bigtable::create_table_request_for::<OcEvent>(&instance(), "oc", &["d"]);
    let schema = request
        .table
        .unwrap()
        .row_key_schema
        .expect("an ordered-code schema");
    let kinds: Vec<(&str, &str)> = schema
        .fields
        .iter()
        .map(|f| {
            let kind = match f.r#type.clone().and_then(|t| t.kind) {
                Some(r#type::Kind::Int64Type(t)) => {
                    assert_eq!(
                        t.encoding.and_then(|e| e.encoding),
                        Some(r#type::int64::encoding::Encoding::OrderedCodeBytes(
                            r#type::int64::encoding::OrderedCodeBytes {}
                        ))
                    );
                    "int64"
                }
                Some(r#type::Kind::StringType(_)) => "string",
                Some(r#type::Kind::BytesType(_)) => "bytes",
                other => panic!("{}: {other:?}", f.field_name),
            };
            (f.field_name.as_str(), kind)
        })
        .collect();
    assert_eq!(
        kinds,
        [
            ("salt", "int64"),
            ("user", "int64"),
            ("name", "string"),
            ("blob", "bytes")
        ]
    );
    assert_eq!(
        schema.encoding.and_then(|e| e.encoding),
        Some(r#type::r#struct::encoding::Encoding::OrderedCodeBytes(
            r#type::r#struct::encoding::OrderedCodeBytes {}
        ))
    );

    let emulator = Emulator::start();
    let mut admin = emulator.admin().await;
    create_table_for::<OcEvent>(&mut admin, &instance(), "oc", &["d"])
        .await
        .unwrap();
    let client = emulator.client();
    let mut rng = Sampler::new();
    let rows: Vec<OcEvent> = (0..600)
        .map(|_| OcEvent {
            user: rng.pick(OC_USERS),
            name: rng.pick(OC_NAMES).into(),
            blob: rng.pick(NOTES).to_vec(),
        })
        .collect();
    let cell = || vec![("d".to_string(), b"c".to_vec(), b"v".to_vec())];
    write_rows(&client, "oc", rows.iter().cloned().map(|r| (r, cell())))
        .await
        .unwrap();
    let table = "oc";
    check(
        &client,
        table,
        &rows,
        true,
        "scan_all",
        &OcEvent::scan_all(),
        |_| true,
    )
    .await;
    for _ in 0..12 {
        let u = rng.pick(OC_USERS);
        let s = OcEvent::scan_by_user(u);
        check(&client, table, &rows, true, "scan_by_user", &s, |r| {
            r.user == u
        })
        .await;
        let nr = rng.range(OC_NAMES);
        let s = OcEvent::range_by_user_name(u, nr);
        check(&client, table, &rows, true, "range_by_user_name", &s, |r| {
            r.user == u && in_range(&nr, &r.name.as_str())
        })
        .await;
        let n = rng.pick(OC_NAMES);
        let br = rng.range(NOTES);
        let s = OcEvent::range_by_user_name_blob(u, n, br);
        check(
            &client,
            table,
            &rows,
            true,
            "range_by_user_name_blob",
            &s,
            |r| r.user == u && r.name == n && in_range(&br, &r.blob.as_slice()),
        )
        .await;
        // Read backwards, the typed rows are the forward rows reversed.
        for scan in [OcEvent::scan_all(), OcEvent::scan_by_user(u)] {
            let forward: Vec<OcEvent> =
                rowkey_bigtable::stream_typed::<OcEvent>(&client, table, &scan, None)
                    .await
                    .unwrap()
                    .map_ok(|(k, _)| k)
                    .try_collect()
                    .await
                    .unwrap();
            let mut backward: Vec<OcEvent> =
                rowkey_bigtable::stream_typed_reversed::<OcEvent>(&client, table, &scan, None)
                    .await
                    .unwrap()
                    .map_ok(|(k, _)| k)
                    .try_collect()
                    .await
                    .unwrap();
            backward.reverse();
            assert_eq!(backward, forward, "{scan:?}");
        }
    }
}

/// An emulator that cannot listen (its port taken by another process) is
/// an error saying so, not a client of whatever holds the port.
#[test]
fn an_emulator_that_exits_is_an_error_not_another_servers_port() {
    let other = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = other.local_addr().unwrap().port();
    let err = rowkey_bigtable::emulator::Emulator::start_on(port)
        .err()
        .expect("the port is taken");
    let msg = err.to_string();
    assert!(msg.contains("exited before it listened"), "{msg}");
    assert!(msg.contains("address already in use"), "{msg}");
}
