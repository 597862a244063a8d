//! Skip scans on the Bigtable emulator (`stream_filter`): the filter's
//! ranges with its row-key regex as the request's `row_key_regex_filter`,
//! so the server sends only matching rows. For a salted newest-first key
//! (a window on its second field), a key with escaped strings holding
//! `00`, `FF` and non-ASCII bytes, and a key whose regex is not exact (an
//! optional string), the rows returned are exactly the filter's model in
//! merged key order; where the regex is exact, the server sent no other
//! row.

use futures_util::StreamExt;
use rowkey_bigtable::emulator::Emulator;
use rowkey_bigtable::{
    create_table, stream_filter, stream_filter_keys_in, write_rows, Client, Row,
};
use rowkey_core::{any_of, prelude::*, KeyFilter};

const PROJECT: &str = "rowkey-test";
const INSTANCE: &str = "rowkey";

#[derive(RowKey, Debug, Clone, PartialEq)]
#[salt(buckets = 16, by(user_id))]
struct UserNewest {
    user_id: u64,
    #[desc_ts]
    ts_millis: i64,
}

#[derive(RowKey, Debug, Clone, PartialEq)]
struct Page {
    site: String,
    #[desc]
    path: String,
    hits: u16,
}

#[derive(RowKey, Debug, Clone, PartialEq)]
struct Tagged {
    id: u8,
    tag: Option<String>,
    n: u16,
}

async fn table(emulator: &Emulator, name: &str, splits: &[Vec<u8>]) -> Client {
    let client = emulator.client(PROJECT, INSTANCE).expect("client");
    let mut admin = emulator.admin().await.expect("admin");
    let instance = format!("projects/{PROJECT}/instances/{INSTANCE}");
    create_table(&mut admin, &instance, name, &["d"], splits)
        .await
        .expect("table created");
    client
}

async fn write<K: RowKey + Clone>(client: &Client, name: &str, rows: &[K]) {
    let cells = rows.iter().map(|k| {
        (
            k.clone(),
            vec![("d".to_string(), b"v".to_vec(), b"x".to_vec())],
        )
    });
    write_rows(client, name, cells).await.expect("written");
}

/// The keys the filter matches, sorted as a merged read returns them.
fn model<K: RowKey>(rows: &[K], filter: &KeyFilter) -> Vec<Vec<u8>> {
    let head = filter.layout().head_len();
    let mut keys: Vec<Vec<u8>> = rows
        .iter()
        .map(|r| r.encode_to_vec().unwrap())
        .filter(|k| filter.matches(k))
        .collect();
    keys.sort_by(|a, b| a[head..].cmp(&b[head..]));
    keys.dedup();
    keys
}

async fn read(client: &Client, name: &str, filter: &KeyFilter) -> (Vec<Vec<u8>>, u64) {
    let mut rows = stream_filter(client, name, filter, None)
        .await
        .expect("opens");
    let mut keys = Vec::new();
    while let Some(row) = rows.next().await {
        let (key, _): Row = row.expect("a row");
        keys.push(key);
    }
    (keys, rows.rows_received())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn regex_filtered_scans_return_the_model() {
    let emulator = Emulator::start().expect("the Bigtable emulator starts");

    // Every user's events of one minute.
    let client = table(&emulator, "events", &UserNewest::split_points()).await;
    let t0 = 1_700_000_000_000i64;
    let rows: Vec<UserNewest> = (0..300u64)
        .flat_map(|u| {
            (0..20).map(move |i| UserNewest {
                user_id: u,
                ts_millis: t0 + (u as i64 % 13) * 4_000 + i * 9_000,
            })
        })
        .collect();
    write(&client, "events", &rows).await;
    let filter = UserNewest::filter()
        .ts_millis(t0 + 60_000..t0 + 120_000)
        .build()
        .unwrap();
    assert!(filter.regex_is_exact());
    let want = model(&rows, &filter);
    let (got, received) = read(&client, "events", &filter).await;
    assert!(want.len() > 300, "{} rows", want.len());
    assert!(
        got == want,
        "the minute's rows: {} of {}",
        got.len(),
        want.len()
    );
    assert_eq!(received, want.len() as u64, "the server filtered");

    // Keys only: the same rows, each cell there with its value stripped
    // by the server (a chain of the regex and strip_value_transformer).
    let mut keys = stream_filter_keys_in(&client, "events", &filter, &filter.scan(), None)
        .await
        .expect("opens");
    let mut got = Vec::new();
    while let Some(row) = keys.next().await {
        let (key, cells): Row = row.expect("a row");
        let cells: Vec<(&str, &[u8], &[u8])> = cells
            .iter()
            .map(|c| (c.family_name.as_str(), &c.qualifier[..], &c.value[..]))
            .collect();
        assert_eq!(cells, [("d", &b"v"[..], &b""[..])]);
        got.push(key);
    }
    assert!(got == want, "keys only: {} of {}", got.len(), want.len());
    assert_eq!(keys.rows_received(), want.len() as u64);

    // Escaped strings with 00, FF and UTF-8 bytes; a desc string range.
    let client = table(&emulator, "pages", &[]).await;
    let sites = ["a", "a\0b", "ÿ", "é\0", ""];
    let paths = ["/", "/x\0", "/ÿ", "", "/\u{7f}"];
    let rows: Vec<Page> = sites
        .iter()
        .flat_map(|s| paths.iter().map(move |p| (s, p)))
        .enumerate()
        .map(|(i, (s, p))| Page {
            site: s.to_string(),
            path: p.to_string(),
            hits: i as u16,
        })
        .collect();
    write(&client, "pages", &rows).await;
    for filter in [
        Page::filter().path("/x\0").build().unwrap(),
        Page::filter().path("/".."/ÿ").hits(3..20).build().unwrap(),
        Page::filter()
            .site(any_of(["ÿ", "a\0b"]))
            .path(any_of(["", "/\u{7f}"]))
            .build()
            .unwrap(),
    ] {
        assert!(filter.regex_is_exact());
        let want = model(&rows, &filter);
        let (got, received) = read(&client, "pages", &filter).await;
        assert!(!want.is_empty());
        assert_eq!(
            got,
            want,
            "{}",
            String::from_utf8_lossy(&filter.bigtable_regex())
        );
        assert_eq!(received, want.len() as u64, "the server filtered");
    }
    // A pattern past Bigtable's filter size (2,000 paths): none is sent,
    // the ranges are read and every row is checked here.
    let many: Vec<String> = (0..2_000).map(|i| format!("/p{i:05}")).collect();
    let mut paths_wanted: Vec<&str> = many.iter().map(String::as_str).collect();
    paths_wanted.extend(["/", "/ÿ"]);
    let filter = Page::filter().path(any_of(paths_wanted)).build().unwrap();
    let regex = filter.bigtable_row_regex();
    assert!(regex.pattern.is_none() && !regex.exact);
    let want = model(&rows, &filter);
    assert_eq!(want.len(), 2 * sites.len());
    let (got, received) = read(&client, "pages", &filter).await;
    assert_eq!(got, want);
    assert_eq!(
        received,
        rows.len() as u64,
        "every row of the range was sent"
    );

    // A regex that is not exact (an optional string is not delimited):
    // the rows it lets through are checked here.
    let client = table(&emulator, "tagged", &[]).await;
    let rows: Vec<Tagged> = (0..60u16)
        .map(|n| Tagged {
            id: (n % 3) as u8,
            tag: (n % 2 == 0).then(|| format!("t{}", n % 5)),
            n,
        })
        .collect();
    write(&client, "tagged", &rows).await;
    let filter = Tagged::filter().n(10..30).build().unwrap();
    assert!(!filter.regex_is_exact());
    let want = model(&rows, &filter);
    let (got, received) = read(&client, "tagged", &filter).await;
    assert_eq!(got, want);
    assert!(received >= want.len() as u64);
}

/// A filter that matches 1 row in 200,000 (one millisecond of any user:
/// the regex, not the ranges, does the work, on the server): the one row,
/// within a short idle timeout, though the server sends nothing else.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_filter_matching_one_row_in_200_000_returns_it() {
    let emulator = Emulator::start().expect("the Bigtable emulator starts");
    let client = table(&emulator, "sparse", &UserNewest::split_points()).await;
    let options = rowkey_bigtable::ClientOptions {
        idle_timeout: std::time::Duration::from_secs(5),
        ..client.options().clone()
    };
    let client = client.with_options(options);
    let mut writer = client.bulk_writer("sparse");
    let rows: Vec<UserNewest> = (0..200_000i64)
        .map(|i| UserNewest {
            user_id: (i % 97) as u64,
            ts_millis: 1_700_000_000_000 + i,
        })
        .collect();
    for r in &rows {
        writer
            .push_row(r, vec![("d".into(), b"v".to_vec(), b"x".to_vec())])
            .await
            .unwrap();
    }
    writer.flush().await.unwrap();
    let ts = rows[123_457].ts_millis;
    let filter = UserNewest::filter().ts_millis(ts..ts + 1).build().unwrap();
    let (keys, received) = read(&client, "sparse", &filter).await;
    assert_eq!(keys, model(&rows, &filter));
    assert_eq!(keys, vec![rows[123_457].encode_to_vec().unwrap()]);
    assert_eq!(received, 1, "the server sent the one row only");
}
