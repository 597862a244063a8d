//! The native client's wire format against HBase's own classes, no
//! server: the preamble, a `ConnectionHeader`, a `Get` call, a cellblock,
//! a response with cells and one with an exception, as HBase 2.6.1 writes
//! them (`tests/data/native_golden.txt`, printed by the launcher's
//! `rpc-golden`). The encoder writes the same bytes, the reader reads
//! HBase's; and where the launcher is built (it is in CI), it still
//! prints the same file.

use prost::Message;
use rowkey_hbase::native::pb;
use rowkey_hbase::native::wire::{self, KeyValue, PUT};

fn golden() -> Vec<(String, Vec<u8>)> {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/native_golden.txt"
    ))
    .unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| {
            let (name, hex) = l.split_once(' ').unwrap();
            (name.to_owned(), unhex(hex))
        })
        .collect()
}

fn bytes(name: &str) -> Vec<u8> {
    golden()
        .into_iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("no {name} in the golden file"))
        .1
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

const TS: i64 = 1_700_000_000_000;

fn two_cells() -> Vec<KeyValue> {
    vec![
        KeyValue {
            row: b"r1".to_vec(),
            family: b"d".to_vec(),
            qualifier: b"q".to_vec(),
            timestamp: TS,
            kind: PUT,
            value: b"v".to_vec(),
        },
        KeyValue {
            row: b"r1".to_vec(),
            family: b"d".to_vec(),
            qualifier: b"q2".to_vec(),
            timestamp: TS + 1,
            kind: PUT,
            value: vec![0; 300],
        },
    ]
}

#[test]
fn the_preamble_and_connection_header_are_hbases() {
    assert_eq!(wire::PREAMBLE_SIMPLE.to_vec(), bytes("preamble"));
    assert_eq!(wire::PREAMBLE_KERBEROS.to_vec(), bytes("preamble_kerberos"));
    let mut switch = wire::SASL_SUCCESS.to_be_bytes().to_vec();
    switch.extend_from_slice(&wire::SASL_SWITCH_TO_SIMPLE.to_be_bytes());
    assert_eq!(switch, bytes("sasl_switch_to_simple"));
    assert_eq!(
        wire::connection_header("rowkey", "ClientService"),
        bytes("connection_header")
    );
}

#[test]
fn a_get_call_is_framed_as_hbases_client_frames_it() {
    let request = pb::GetRequest {
        region: pb::RegionSpecifier {
            r#type: pb::region_specifier::RegionSpecifierType::RegionName as i32,
            value: b"t,,1.abc.".to_vec(),
        },
        get: pb::Get {
            row: b"r1".to_vec(),
            column: vec![pb::Column {
                family: b"d".to_vec(),
                qualifier: Vec::new(),
            }],
            time_range: Some(pb::TimeRange {
                from: Some(0),
                to: Some(i64::MAX as u64),
            }),
            max_versions: Some(1),
            cache_blocks: Some(true),
            ..Default::default()
        },
    };
    assert_eq!(wire::call(7, "Get", &request, &[], 5000), bytes("get_call"));
}

#[test]
fn cellblocks_are_key_value_codecs() {
    let mut block = Vec::new();
    for kv in two_cells() {
        kv.write(&mut block);
    }
    assert_eq!(block, bytes("cellblock"));
    assert_eq!(wire::cells(&bytes("cellblock"), 2).unwrap(), two_cells());
}

#[test]
fn hbases_responses_are_read() {
    let frame = bytes("get_response");
    let len = wire::frame_len(frame[..4].try_into().unwrap()).unwrap();
    assert_eq!(len, frame.len() - 4);
    let response = wire::response(&frame[4..]).unwrap();
    assert_eq!(response.call_id, 7);
    let answer = response.body.unwrap();
    let get = pb::GetResponse::decode(answer.message.as_slice()).unwrap();
    let count = get.result.unwrap().associated_cell_count.unwrap();
    assert_eq!(
        wire::cells(&answer.cellblock, count as usize).unwrap(),
        two_cells()
    );

    let frame = bytes("exception_response");
    let response = wire::response(&frame[4..]).unwrap();
    assert_eq!(response.call_id, 8);
    let e = response.body.unwrap_err();
    assert_eq!(
        e.exception_class_name.as_deref(),
        Some("org.apache.hadoop.hbase.NotServingRegionException")
    );
    assert_eq!(e.do_not_retry, Some(false));

    // Every cut of a response is an error, never a panic.
    let frame = bytes("get_response");
    for cut in 4..frame.len() {
        assert!(wire::response(&frame[4..cut]).is_err(), "cut at {cut}");
    }
    // A frame past the limit is refused from its length alone.
    assert!(wire::frame_len([0x7f, 0xff, 0xff, 0xff]).is_err());
}

/// The golden file is HBase's: the launcher prints it again.
#[test]
fn the_golden_file_is_what_hbase_prints() {
    let mut cmd = rowkey_hbase::testing::launcher(&[], &["rpc-golden"])
        .unwrap_or_else(|e| panic!("the launcher builds: {e}"));
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let printed: Vec<(String, Vec<u8>)> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let (name, hex) = l.split_once(' ').unwrap();
            (name.to_owned(), unhex(hex))
        })
        .collect();
    assert_eq!(printed, golden());
}
