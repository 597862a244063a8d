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
    // Quoted, as the shell prints it (--quoted), and from standard input.
    let quoted = format!("\"{PASTED}\"");
    assert_eq!(
        ok(&["explain", "-l", SPEC, "--quoted", &quoted]),
        derived_explain(PASTED)
    );
    let out = rowkey(
        &["explain", "-l", SPEC, "--quoted"],
        Some(&format!("{quoted}\r\n{quoted}\n")),
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
        "user_id=42 ts_millis=1700000000000 kind=\"click\"\n"
    );
    assert_eq!(
        ok(&["decode", "-l", SPEC, PASTED]),
        "user_id=42 ts_millis=1700000000000 kind=\"click\"\n"
    );
    // What decode prints, encode reads back.
    let again = ok(&[
        "encode",
        "-l",
        SPEC,
        "user_id=42",
        "ts_millis=1700000000000",
        "kind=\"click\"",
    ]);
    assert_eq!(again, out);
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
        "site=7 ts=1700000000000 page=\"/home\"\n"
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

/// Decode and explain go on past a bad key, report it with its line
/// number or argument, and say so in the exit status (0 all good, 1 some
/// bad, 2 usage errors).
#[test]
fn bad_keys_are_reported_by_line_and_the_others_go_on() {
    let good = PASTED;
    let input = format!("{good}\n\\x0C\\x00\n{good}\nzz\\x\n");
    let out = rowkey(&["decode", "-l", SPEC], Some(&input));
    assert_eq!(out.status.code(), Some(1));
    let line = "user_id=42 ts_millis=1700000000000 kind=\"click\"\n";
    assert_eq!(String::from_utf8(out.stdout).unwrap(), line.repeat(2));
    let err = String::from_utf8(out.stderr).unwrap();
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 2, "{err}");
    assert!(lines[0].starts_with("rowkey: line 2: "), "{err}");
    assert!(lines[1].starts_with("rowkey: line 4: "), "{err}");
    // Arguments are named as themselves.
    let out = rowkey(&["decode", "-l", SPEC, r"\x0C\x00", PASTED], None);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.starts_with(r"rowkey: key `\x0C\x00`: "), "{err}");
    assert_eq!(String::from_utf8(out.stdout).unwrap(), line);
    let out = rowkey(&["decode", "-l", SPEC, "--hex", "0c0"], None);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not hex"));
    // All good: 0. A usage error: 2.
    assert_eq!(
        rowkey(&["decode", "-l", SPEC, PASTED], None).status.code(),
        Some(0)
    );
    assert_eq!(
        rowkey(&["decode", "-l", "[x", PASTED], None).status.code(),
        Some(2)
    );
}

/// Keys from standard input keep every byte but the line ending: a
/// trailing space is a byte of the key (toStringBinary prints a space as
/// itself), and quotes are a key's bytes unless --quoted.
#[test]
fn standard_input_keeps_the_keys_bytes() {
    let spec = "[id u8][name String]";
    let out = rowkey(
        &["decode", "-l", spec],
        Some("\\x01a \n \\x01a\n\"\\x01\"\n"),
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "id=1 name=\"a \"\nid=32 name=\"\\u{1}a\"\nid=34 name=\"\\u{1}\\\"\"\n"
    );
}

/// Values print unambiguously and read back: a string "None" is not an
/// Option's None, and `..` inside a quoted value is no range.
#[test]
fn values_print_unambiguously_and_read_back() {
    let spec = "[id u8][tag Option<String>][name String]";
    let key = |args: &[&str]| {
        let out = ok(&[&["encode", "-l", spec][..], args].concat());
        out.lines().nth(1).unwrap().to_owned()
    };
    let none = key(&["id=1", "tag=None", "name=a"]);
    let word = key(&["id=1", "tag=\"None\"", "name=a"]);
    assert_ne!(none, word);
    assert_eq!(
        ok(&["decode", "-l", spec, "--hex", &none]),
        "id=1 tag=None name=\"a\"\n"
    );
    assert_eq!(
        ok(&["decode", "-l", spec, "--hex", &word]),
        "id=1 tag=\"None\" name=\"a\"\n"
    );
    assert_eq!(
        key(&["id=1", "tag=Some(\"None\")", "name=a"]),
        word,
        "Some(...) is the value"
    );
    // A quoted value with `..` in it scans the one value, not a range.
    let scan = |v: &str| ok(&["scan", "-l", spec, "id=1", &format!("tag={v}")]);
    let layout = rowkey_core::DynLayout::parse(spec).unwrap();
    let some =
        |s: &str| rowkey_core::Value::Option(Some(Box::new(rowkey_core::Value::Str(s.into()))));
    let want = layout.scan(&[1u8.into(), some("a..b")], None).unwrap();
    assert_eq!(scan("\"a..b\""), rows(&want));
    let want = layout
        .scan(
            &[1u8.into()],
            Some((
                std::ops::Bound::Included(some("a")),
                std::ops::Bound::Excluded(some("b")),
            )),
        )
        .unwrap();
    assert_eq!(scan("\"a\"..\"b\""), rows(&want));
    // --json: one object per key, the string and the None distinct.
    let json = ok(&["decode", "-l", spec, "--hex", "--json", &none, &word]);
    let lines: Vec<&str> = json.lines().collect();
    assert_eq!(
        lines[0],
        r#"{"key": "\\x01\\x00a", "member": null, "fields": {"id": 1, "tag": null, "name": "a"}}"#
    );
    assert!(lines[1].contains(r#""tag": "None""#), "{}", lines[1]);
}

/// A closed output (`| head -1`) ends the command quietly.
#[test]
fn a_closed_pipe_ends_quietly() {
    let input = format!("{PASTED}\n").repeat(20_000);
    let mut child = Command::new(env!("CARGO_BIN_EXE_rowkey"))
        .args(["decode", "-l", SPEC])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        // The command may stop reading: a write error here is expected.
        let _ = stdin.write_all(input.as_bytes());
    });
    // Read one line, then close the pipe.
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 16];
    std::io::Read::read_exact(&mut stdout, &mut first).unwrap();
    drop(stdout);
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}

/// `rowkey splits` of a key family: a boundary at each member's prefix and
/// each member's buckets, in the quoting `create_table_statement` uses; a
/// member added later gets `split` statements of its own.
#[test]
fn a_familys_splits_and_a_member_added_later() {
    let spec = r#"User: [prefix "u" 1][id u32 4] = 5 bytes | Event: [prefix "e" 1][salt(id)/4 1][id u32 4] = 6 bytes"#;
    assert_eq!(
        ok(&["splits", "-l", spec]),
        "'e'\n\"e\\x01\"\n\"e\\x02\"\n\"e\\x03\"\n'u'\n"
    );
    let layout = rowkey_core::DynLayout::parse(spec).unwrap();
    assert_eq!(
        ok(&["splits", "-l", spec, "--hbase-create", "t", "d"]),
        format!(
            "{}\n",
            rowkey_core::hbase::create_table_statement("t", &["d"], &layout.split_points())
        )
    );
    assert_eq!(
        ok(&[
            "splits",
            "-l",
            spec,
            "--member",
            "Event",
            "--hbase-split",
            "t"
        ]),
        "split 't', 'e'\nsplit 't', \"e\\x01\"\nsplit 't', \"e\\x02\"\nsplit 't', \"e\\x03\"\n"
    );
    let err = fails(&["splits", "-l", spec, "--member", "Nope"]);
    assert!(
        err.contains("the family's members are User, Event"),
        "{err}"
    );
}

/// `rowkey gen python`: the README's key as a Python dataclass whose bytes
/// are the derived type's (the key the README pastes), checked by
/// `python3` itself; a layout the generator does not write yet is refused
/// naming what.
#[test]
fn gen_python_writes_the_derived_keys_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().to_str().unwrap();
    let printed = ok(&[
        "gen",
        "python",
        "--layout",
        SPEC,
        "--name",
        "UserEvent",
        "--package",
        "events",
        "--out",
        out_dir,
    ]);
    // The key's module, and the package's helpers beside it.
    assert_eq!(
        printed.trim(),
        format!(
            "{}\n{}",
            dir.path().join("events.py").display(),
            dir.path().join("_rowkey.py").display()
        )
    );
    let event = UserEvent {
        user_id: 42,
        ts_millis: 1_700_000_000_000,
        kind: "click".into(),
    };
    let key = event.encode_to_vec().unwrap();
    let ranges = format!(
        "{:?}",
        UserEvent::range_by_user_id_ts_millis(42, 1_699_000_000_000..1_700_000_000_000)
            .ranges()
            .map(|r| [hex(r.start()), hex(r.stop())])
            .collect::<Vec<_>>()
    );
    let script = format!(
        "import events\n\
         e = events.UserEvent(user_id=42, ts_millis=1_700_000_000_000, kind='click')\n\
         assert e.to_bytes().hex() == '{hex}', e.to_bytes().hex()\n\
         assert events.UserEvent.from_bytes(e.to_bytes()) == e\n\
         assert e.bucket() == {bucket}\n\
         assert events.LAYOUT_ID == {id}\n\
         assert len(events.UserEvent.split_points()) == 15\n\
         r = events.UserEvent.range_by_user_id_ts_millis(42, 1_699_000_000_000, 1_700_000_000_000)\n\
         assert [[a.hex(), b.hex()] for a, b in r] == {ranges}, r\n\
         assert events.scan_kwargs(events.UserEvent.scan_all())[15] == {{'row_start': bytes([15]), 'row_stop': bytes([16])}}\n\
         try:\n    events.UserEvent(42, 1, 'far too long').to_bytes()\n    raise SystemExit('no error')\n\
         except ValueError as err:\n    assert 'UserEvent.kind' in str(err), err\n\
         print('ok')\n",
        hex = hex(&key),
        bucket = event.bucket(),
        ranges = ranges,
        id = UserEvent::LAYOUT_ID,
    );
    let run = Command::new("python3")
        .args(["-c", &script])
        .current_dir(dir.path())
        .output()
        .expect("python3 runs");
    assert!(
        run.status.success(),
        "{}{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    assert_eq!(to_string_binary(&key), PASTED);
    // The seed's text key (FORMAT.md's golden call record), in Python.
    let call = "text(\"_\") [salt(phone)/10 mod][phone digits(11) u64][ts desc_ts digits(19) i64]";
    ok(&[
        "gen",
        "python",
        "--layout",
        call,
        "--name",
        "Call",
        "--package",
        "calls",
        "--out",
        out_dir,
    ]);
    let run = Command::new("python3")
        .args([
            "-c",
            "import calls\n\
             c = calls.Call(phone=18518885160, ts=1638620506000)\n\
             assert c.to_bytes() == b'0_18518885160_9223370398234269807', c.to_bytes()\n\
             assert calls.Call.from_bytes(c.to_bytes()) == c\n\
             assert calls.Call.split_points() == [str(b).encode() for b in range(1, 10)]\n",
        ])
        .current_dir(dir.path())
        .output()
        .expect("python3 runs");
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    // Go writes the same text key; a field enum of a 128-bit repr it does not write, naming the field, naming the field.
    ok(&[
        "gen",
        "go",
        "--layout",
        call,
        "--name",
        "Call",
        "--package",
        "calls",
        "--out",
        out_dir,
    ]);
    assert_eq!(
        fails(&[
            "gen",
            "go",
            "--layout",
            "[a u32][b Kind(u128: A = 1, B = 2)]",
            "--name",
            "K",
            "--package",
            "k",
            "--out",
            out_dir
        ]),
        "rowkey: gen: go: field `b`: field enums of a 128-bit repr not supported yet\n"
    );
    // Go: the key's file and the package's helpers (rowkey-codegen's Go
    // binding tester compiles and runs them).
    let go_dir = dir.path().join("go");
    let printed = ok(&[
        "gen",
        "go",
        "--layout",
        SPEC,
        "--name",
        "UserEvent",
        "--package",
        "events",
        "--out",
        go_dir.to_str().unwrap(),
    ]);
    assert_eq!(
        printed.lines().collect::<Vec<_>>(),
        [
            go_dir.join("userevent.go").display().to_string(),
            go_dir.join("rowkey_helpers.go").display().to_string()
        ]
    );
    let source = std::fs::read_to_string(go_dir.join("userevent.go")).unwrap();
    assert!(
        source.contains("func (k UserEvent) Encode() ([]byte, error)"),
        "{source}"
    );
    assert!(source.contains(&format!(
        "const UserEventLayoutID uint64 = {:#018x}",
        UserEvent::LAYOUT_ID
    )));
    // Java: the record and the package's helpers, in the package's folder
    // (rowkey-codegen's Java binding tester compiles and runs them).
    let java_dir = dir.path().join("java");
    let printed = ok(&[
        "gen",
        "java",
        "--layout",
        SPEC,
        "--name",
        "UserEvent",
        "--package",
        "com.example.keys",
        "--out",
        java_dir.to_str().unwrap(),
    ]);
    assert_eq!(
        printed.lines().collect::<Vec<_>>(),
        [
            java_dir
                .join("com/example/keys/UserEvent.java")
                .display()
                .to_string(),
            java_dir
                .join("com/example/keys/RowkeyHelpers.java")
                .display()
                .to_string()
        ]
    );
    assert_eq!(
        fails(&[
            "gen",
            "python",
            "--layout",
            "[a u32][b Kind(i128: A = -1, B = 1)]",
            "--name",
            "K",
            "--package",
            "k",
            "--out",
            out_dir,
        ]),
        "rowkey: gen: python: field `b`: field enums of a 128-bit repr not supported yet\n"
    );
    assert_eq!(
        fails(&[
            "gen",
            "python",
            "--layout",
            SPEC,
            "--name",
            "User Event",
            "--package",
            "k",
            "--out",
            out_dir,
        ]),
        "rowkey: gen: python: `User Event` is not a valid type name\n"
    );
    // The client companions: Java's HBase scans, Go's Bigtable row sets
    // (tests/generated_clients.rs runs them on the real clients).
    let printed = ok(&[
        "gen",
        "java",
        "--layout",
        SPEC,
        "--name",
        "UserEvent",
        "--package",
        "k",
        "--out",
        out_dir,
        "--hbase",
    ]);
    assert!(printed.ends_with("k/UserEventHBase.java\n"), "{printed}");
    let printed = ok(&[
        "gen",
        "go",
        "--layout",
        SPEC,
        "--name",
        "UserEvent",
        "--package",
        "k",
        "--out",
        out_dir,
        "--bigtable",
    ]);
    assert!(
        printed.contains("/userevent_bigtable.go\n") && printed.ends_with("/rowkey_bigtable.go\n"),
        "{printed}"
    );
    assert_eq!(
        fails(&[
            "gen",
            "python",
            "--layout",
            SPEC,
            "--name",
            "K",
            "--package",
            "k",
            "--out",
            out_dir,
            "--hbase",
        ]),
        "rowkey: gen: python: --hbase is an option of java only\n"
    );
    assert_eq!(
        fails(&[
            "gen",
            "java",
            "--layout",
            SPEC,
            "--name",
            "K",
            "--package",
            "k",
            "--out",
            out_dir,
            "--bigtable",
        ]),
        "rowkey: gen: java: --bigtable is an option of go only\n"
    );
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// A name in the layout text becomes a file's name and code's: an enum or
/// type named with a path (`../../outside/pwn`) is refused, naming it, and
/// nothing is written outside `--out` (a Go field enum's file used to be
/// `{name}_enum.go` joined onto `--out`, so such a name wrote outside it).
#[test]
fn gen_refuses_a_path_as_a_name_and_writes_nothing_outside_out() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("a/b/out");
    std::fs::create_dir_all(&out).unwrap();
    let out_dir = out.to_str().unwrap();
    for (layout, says) in [
        (
            "[k ../../outside/pwn(u8: A = 1) 1]",
            "`../../outside/pwn` is not an enum's name",
        ),
        ("[k pwn/x(u8: A = 1) 1]", "`pwn/x` is not an enum's name"),
        ("[sku ../Sku 8]", "`../Sku` is not a type's name"),
    ] {
        for language in ["go", "java", "python"] {
            let e = fails(&[
                "gen",
                language,
                "--layout",
                layout,
                "--name",
                "Key",
                "--package",
                "keys",
                "--out",
                out_dir,
            ]);
            assert!(e.contains(says), "{language} {layout}: {e}");
        }
    }
    let written: Vec<_> = walk(dir.path());
    assert!(written.is_empty(), "{written:?}");
}

/// Every file under `dir`, recursively.
fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// A field enum's value that is no variant, by name or by discriminant:
/// the error says so and lists the variants (it said "expected a the
/// discriminant of one of the enum's variants value, got u8", or "is not
/// a u8" for a name).
#[test]
fn an_enum_value_of_no_variant_lists_the_variants() {
    let layout = "[kind Kind(u8: Temp = 1, Volt = 2, Rssi = 3) 1][id u16]";
    let e = fails(&["encode", "-l", layout, "kind=Humidity", "id=1"]);
    assert!(
        e.contains("`Humidity` is not a variant of `Kind`: one of Temp (1), Volt (2), Rssi (3)"),
        "{e}"
    );
    let e = rowkey(&["encode", "-l", layout, "kind=9", "id=1"], None);
    let e = String::from_utf8_lossy(&e.stderr);
    assert!(
        e.contains(
            "field `kind`: not the discriminant of a variant of `Kind` (Temp = 1, Volt = 2, Rssi = 3)"
        ),
        "{e}"
    );
    assert!(ok(&["encode", "-l", layout, "kind=Volt", "id=1"]).contains("020001"));
    assert!(ok(&["encode", "-l", layout, "kind=3", "id=1"]).contains("030001"));
}
