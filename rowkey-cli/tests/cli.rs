//! The `rowkey` command against the derive: the README's key type given
//! as text prints the explanation, key, fields, scan rows and split points
//! the derived type gives; bad arguments exit with status 2 and one line
//! naming the argument.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use rowkey_core::hbase::to_string_binary;
use rowkey_core::prelude::*;

#[derive(RowKey, Debug, PartialEq)]
#[salt(buckets = 16, by(user_id))]
struct UserEvent {
    user_id: u64,
    #[desc_ts]
    ts_millis: i64,
    #[fixed(8)]
    kind: String,
}

/// The layout as a user types it: no widths, no tail.
const SPEC: &str = "[salt(user_id)/16][user_id u64][ts_millis desc_ts i64][kind fixed(8) String]";
/// The key the README pastes from the HBase shell.
const PASTED: &str =
    r"\x0C\x00\x00\x00\x00\x00\x00\x00*\x7F\xFF\xFEt0\x1A\x97\xFFclick\x00\x00\x00";

fn rowkey(args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_rowkey"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run rowkey");
    if let Some(input) = stdin {
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
    }
    drop(child.stdin.take());
    child.wait_with_output().unwrap()
}

fn ok(args: &[&str]) -> String {
    let out = rowkey(args, None);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The error line of a failing run (status 2, one line, nothing on
/// standard output).
fn fails(args: &[&str]) -> String {
    let out = rowkey(args, None);
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    assert!(out.stdout.is_empty(), "{args:?}");
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    err
}

/// `explain` prints the derived type's table, but for the layout's name.
fn derived_explain(key: &str) -> String {
    format!("{}\n", UserEvent::explain(key)).replacen("UserEvent:", "DynLayout:", 1)
}

#[test]
fn explain_prints_the_derived_explanation_of_a_pasted_key() {
    assert_eq!(
        ok(&["explain", "--layout", SPEC, PASTED]),
        derived_explain(PASTED)
    );
    // Quoted, as the shell prints it, and from standard input.
    let quoted = format!("\"{PASTED}\"");
    assert_eq!(
        ok(&["explain", "-l", SPEC, &quoted]),
        derived_explain(PASTED)
    );
    let out = rowkey(
        &["explain", "-l", SPEC],
        Some(&format!("{PASTED}\n\n{quoted}\n")),
    );
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        derived_explain(PASTED).repeat(2)
    );
    // A key cut short: where it stops, as the derived type says.
    let cut = &PASTED[..PASTED.len() - 4];
    assert_eq!(ok(&["explain", "-l", SPEC, cut]), derived_explain(cut));
}

#[test]
fn encode_and_decode_agree_with_the_derive() {
    let event = UserEvent {
        user_id: 42,
        ts_millis: 1_700_000_000_000,
        kind: "click".into(),
    };
    let key = event.try_encode().unwrap();
    let out = ok(&[
        "encode",
        "-l",
        SPEC,
        "kind=click",
        "user_id=42",
        "ts_millis=1700000000000",
    ]);
    let hex: String = key.iter().map(|b| format!("{b:02x}")).collect();
    let mut lines = out.lines();
    let shell = lines.next().unwrap();
    assert_eq!(lines.next(), Some(hex.as_str()));
    assert_eq!(shell.trim_matches('"'), to_string_binary(&key));
    assert_eq!(
        ok(&["decode", "-l", SPEC, "--hex", &hex]),
        "user_id=42 ts_millis=1700000000000 kind=click\n"
    );
    assert_eq!(
        ok(&["decode", "-l", SPEC, PASTED]),
        "user_id=42 ts_millis=1700000000000 kind=click\n"
    );
}

/// Start and stop rows as `STARTROW => "..", STOPROW => ".."` lines.
fn rows(scan: &Scan) -> String {
    scan.ranges()
        .map(|r| {
            format!(
                "STARTROW => \"{}\", STOPROW => \"{}\"\n",
                to_string_binary(r.start()),
                to_string_binary(r.stop())
            )
        })
        .collect()
}

#[test]
fn scan_prints_the_rows_of_range_by() {
    let (from, to) = (1_700_000_000_000i64, 1_700_003_600_000i64);
    let expected = rows(&UserEvent::range_by_user_id_ts_millis(42, from..to));
    let out = ok(&[
        "scan",
        "-l",
        SPEC,
        "user_id=42",
        "ts_millis=1700000000000..1700003600000",
    ]);
    assert_eq!(out, expected);
    let expected = rows(&UserEvent::range_by_user_id_ts_millis(42, from..=to));
    let out = ok(&[
        "scan",
        "-l",
        SPEC,
        "user_id=42",
        "ts_millis=1700000000000..=1700003600000",
    ]);
    assert_eq!(out, expected);
    // No field fixed: every bucket.
    let out = ok(&["scan", "-l", SPEC]);
    assert_eq!(out.lines().count(), 16);
    let out = ok(&["scan", "-l", SPEC, "--table", "events", "user_id=42"]);
    assert!(
        out.starts_with("scan 'events', {STARTROW => \"\\x0C"),
        "{out}"
    );
}

#[test]
fn splits_print_the_derived_split_points_as_a_create_statement() {
    let points: Vec<String> = UserEvent::split_points()
        .iter()
        .map(|p| format!("\"{}\"", to_string_binary(p)))
        .collect();
    assert_eq!(points.len(), 15);
    assert_eq!(
        ok(&["splits", "-l", SPEC, "--hbase-create", "events", "e"]),
        format!("create 'events', 'e', SPLITS => [{}]\n", points.join(", "))
    );
    assert_eq!(
        ok(&["splits", "-l", SPEC]),
        points.iter().map(|p| format!("{p}\n")).collect::<String>()
    );
}

#[test]
fn a_layout_file_is_read() {
    let dir = std::env::temp_dir().join(format!("rowkey-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("layout.txt");
    std::fs::write(&path, format!("{}\n", UserEvent::LAYOUT)).unwrap();
    let spec = format!("@{}", path.display());
    assert_eq!(
        ok(&["explain", "-l", &spec, PASTED]),
        derived_explain(PASTED)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_arguments_give_one_error_naming_them() {
    let err = fails(&["explain", "-l", "[user_id u64 4]", PASTED]);
    assert_eq!(
        err,
        "rowkey: --layout: field `user_id` (at byte 1): the text gives width 4, but u64 is 8 bytes\n"
    );
    let err = fails(&["explain", "-l", "[user_id u64][ts desc_tss i64]", PASTED]);
    assert!(err.contains("field `ts`"), "{err}");
    let err = fails(&["encode", "-l", SPEC, "user_id=x", "ts_millis=1", "kind=a"]);
    assert_eq!(
        err,
        "rowkey: argument `user_id=x`: field `user_id`: `x` is not a u64\n"
    );
    let err = fails(&["encode", "-l", SPEC, "user_id=1", "kind=a"]);
    assert_eq!(err, "rowkey: no value for ts_millis\n");
    let err = fails(&[
        "encode",
        "-l",
        SPEC,
        "user_id=1",
        "ts_millis=1",
        "kind=toolongkind",
    ]);
    assert!(
        err.contains("field `kind`: value is 11 bytes, longer than #[fixed(8)]"),
        "{err}"
    );
    let err = fails(&["scan", "-l", SPEC, "ts_millis=1"]);
    assert!(err.starts_with("rowkey: argument `ts_millis=1`:"), "{err}");
    let err = fails(&["scan", "-l", SPEC, "user=1"]);
    assert!(
        err.contains("no such field; the layout's fields are user_id, ts_millis, kind"),
        "{err}"
    );
    let err = fails(&["decode", "-l", SPEC, r"\x0C\x00"]);
    assert!(err.starts_with(r"rowkey: key `\x0C\x00`:"), "{err}");
    let err = fails(&["decode", "-l", SPEC, "--hex", "0c0"]);
    assert!(err.contains("not hex"), "{err}");
    let err = fails(&["explain", "-l", "@/nonexistent/layout.txt", PASTED]);
    assert!(
        err.starts_with("rowkey: --layout @/nonexistent/layout.txt: cannot read"),
        "{err}"
    );
}

/// The HBase guides' call-record text key.
#[derive(RowKey, Debug, PartialEq)]
#[rowkey(text, sep = "_")]
#[salt(buckets = 10, by(phone), hash = "mod")]
struct Call {
    #[digits(11)]
    phone: u64,
    #[desc_ts]
    ts: i64,
}

#[test]
fn text_keys_explain_encode_and_scan_as_derived() {
    let spec = Call::LAYOUT.to_string();
    assert_eq!(
        spec,
        "text(\"_\") [salt(phone)/10 mod 2][phone digits(11) u64 12][ts desc_ts digits(19) i64 19] = 33 bytes"
    );
    let call = Call {
        phone: 18_518_885_160,
        ts: 1_700_000_000_000,
    };
    let text = call.encode_to_string().unwrap();
    assert_eq!(
        ok(&["explain", "-l", &spec, &text]),
        format!("{}\n", Call::explain(text.as_str())).replacen("Call:", "DynLayout:", 1)
    );
    let out = ok(&[
        "encode",
        "-l",
        &spec,
        "phone=18518885160",
        "ts=1700000000000",
    ]);
    assert_eq!(out.lines().next(), Some(format!("\"{text}\"").as_str()));
    assert_eq!(
        ok(&["decode", "-l", &spec, &text]),
        "phone=18518885160 ts=1700000000000\n"
    );
    let hour = 1_700_000_000_000i64..1_700_003_600_000;
    assert_eq!(
        ok(&[
            "scan",
            "-l",
            &spec,
            "phone=18518885160",
            "ts=1700000000000..1700003600000"
        ]),
        rows(&Call::range_by_phone_ts(18_518_885_160, hour).unwrap())
    );
}

/// A key family: explain and decode name the member a key belongs to;
/// encoding needs a member's layout.
#[test]
fn a_family_decodes_with_the_member_its_prefix_names() {
    let spec = r#"User: [prefix "u" 1][id u32 4] = 5 bytes | Event: [prefix "e" 1][id u32 4][ts i64 8] = 13 bytes"#;
    assert_eq!(
        ok(&["decode", "-l", spec, r"u\x00\x00\x00\x07"]),
        "User: id=7\n"
    );
    let explained = ok(&["explain", "-l", spec, r"u\x00\x00\x00\x07"]);
    assert!(explained.starts_with("User: [prefix"), "{explained}");
    let err = fails(&["encode", "-l", spec, "id=7"]);
    assert!(err.contains("no such field"), "{err}");
}

/// Bigtable's structured keys: a salted, prefixed `#[rowkey(ordered_code)]`
/// layout given as text explains, encodes, decodes and scans as derived.
#[test]
fn ordered_code_keys_explain_encode_decode_and_scan_as_derived() {
    #[derive(RowKey, Debug, PartialEq)]
    #[rowkey(ordered_code, prefix = "v")]
    #[salt(buckets = 8, by(site))]
    struct Visit {
        site: i64,
        #[desc]
        ts: i64,
        page: String,
    }
    let spec =
        "ordered_code [prefix \"v\\x00\\x01\"][salt(site)/8][site i64][ts desc i64][page String]";
    let visit = Visit {
        site: 7,
        ts: 1_700_000_000_000,
        page: "/home".into(),
    };
    let key = visit.encode_to_vec().unwrap();
    let hex: String = key.iter().map(|b| format!("{b:02x}")).collect();
    let out = ok(&[
        "encode",
        "-l",
        spec,
        "site=7",
        "ts=1700000000000",
        "page=/home",
    ]);
    assert_eq!(out.lines().nth(1), Some(hex.as_str()), "{out}");
    assert_eq!(
        ok(&["decode", "-l", spec, "--hex", &hex]),
        "site=7 ts=1700000000000 page=/home\n"
    );
    let shell = to_string_binary(&key);
    assert_eq!(
        ok(&["explain", "-l", spec, &shell]),
        format!("{}\n", Visit::explain(shell.as_str())).replacen("Visit:", "DynLayout:", 1)
    );
    let (from, to) = (1_699_000_000_000i64, 1_700_000_000_000i64);
    assert_eq!(
        ok(&[
            "scan",
            "-l",
            spec,
            "site=7",
            "ts=1699000000000..1700000000000"
        ]),
        rows(&Visit::range_by_site_ts(7, from..to))
    );
    assert_eq!(ok(&["scan", "-l", spec]).lines().count(), 8);
}
