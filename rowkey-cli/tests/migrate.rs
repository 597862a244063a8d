//! `rowkey migrate plan|run|verify` on a redb file and a fjall folder: the
//! issue's salt change (10 `mod` buckets to 32, the timestamp turned
//! `desc_ts`) planned, run, verified, a planted difference found (exit
//! status 1), a second run finding every part done; a field added with
//! `--set`, on fjall and on the Bigtable emulator; bad arguments refused
//! with status 2, naming the argument. (On HBase: the bulk-load test.)

use std::process::{Command, Output};

use redb::{Database, ReadableDatabase, TableDefinition};
use rowkey_core::DynLayout;

const OLD: &str = "[salt(user_id)/10 mod][user_id u64][ts i64]";
const NEW: &str = "[salt(user_id)/32][user_id u64][ts desc_ts i64]";

fn rowkey(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rowkey"))
        .args(args)
        .output()
        .expect("run rowkey")
}

fn text(out: &[u8]) -> String {
    String::from_utf8_lossy(out).into_owned()
}

/// Status and standard output, standard error printed on failure.
fn status(args: &[&str]) -> (i32, String) {
    let out = rowkey(args);
    let code = out.status.code().unwrap_or(-1);
    if code != 0 {
        eprintln!("rowkey {args:?}: {}", text(&out.stderr));
    }
    (code, text(&out.stdout))
}

#[test]
fn redb_plan_run_verify() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("events.redb");
    let old = DynLayout::parse(OLD).unwrap();
    let db = Database::create(&file).unwrap();
    let tx = db.begin_write().unwrap();
    {
        let mut t = tx
            .open_table(TableDefinition::<&[u8], &[u8]>::new("events"))
            .unwrap();
        for i in 0..5_000u64 {
            let k = old.encode(&[(i % 30).into(), (i as i64).into()]).unwrap();
            t.insert(k.as_slice(), &b"v"[..]).unwrap();
        }
    }
    tx.commit().unwrap();
    drop(db);
    let path = file.to_str().unwrap();
    let common = [
        "--from",
        OLD,
        "--to",
        NEW,
        "--redb",
        path,
        "--table",
        "events",
        "--to-table",
        "events_v2",
    ];
    let with = |step: &str| {
        let mut args = vec!["migrate", step];
        args.extend(common);
        status(&args)
    };

    let (code, plan) = with("plan");
    assert_eq!(code, 0);
    assert!(
        plan.contains("old: [salt(user_id)/10 mod 1][user_id u64 8][ts i64 8] = 17 bytes"),
        "{plan}"
    );
    assert!(
        plan.contains("salt: [salt(user_id)/10 mod 1] -> [salt(user_id)/32 1]"),
        "{plan}"
    );
    assert!(
        plan.contains("[ts i64 8]                   -> [ts desc_ts i64 8]           re-encoded"),
        "{plan}"
    );
    assert!(plan.contains("key size: 17 bytes -> 17 bytes"), "{plan}");
    assert!(plan.contains("new split points (31): \"\\x01\""), "{plan}");
    assert!(
        plan.contains("to move: 5000 rows, 90000 bytes of keys and values (90000 bytes after, +0)"),
        "{plan}"
    );

    let (code, run) = with("run");
    assert_eq!(code, 0);
    assert!(run.starts_with("5000 rows copied (5000 read"), "{run}");
    assert!(run.contains("10 parts, 0 done before, 0 resumed"), "{run}");
    let (code, verify) = with("verify");
    assert_eq!(code, 0);
    assert_eq!(
        verify.trim(),
        "5000 rows old, 5000 new: 0 missing, 0 extra, 0 differing"
    );
    let (code, again) = with("run");
    assert_eq!(code, 0);
    assert!(again.contains("10 parts, 10 done before"), "{again}");

    // A planted difference: exit status 1, the row named.
    let db = Database::open(&file).unwrap();
    let tx = db.begin_write().unwrap();
    {
        let mut t = tx
            .open_table(TableDefinition::<&[u8], &[u8]>::new("events_v2"))
            .unwrap();
        let new = DynLayout::parse(NEW).unwrap();
        let k = new.encode(&[7u64.into(), 37i64.into()]).unwrap();
        t.insert(k.as_slice(), &b"changed"[..]).unwrap();
    }
    tx.commit().unwrap();
    assert!(db.begin_read().is_ok());
    drop(db);
    let (code, verify) = with("verify");
    assert_eq!(code, 1);
    assert!(
        verify.contains("0 missing, 0 extra, 1 differing\n  differing (user_id=7, ts=37)"),
        "{verify}"
    );
}

#[test]
fn fjall_set_field() {
    let dir = tempfile::tempdir().unwrap();
    let old = DynLayout::parse("[user_id u64][ts i64]").unwrap();
    {
        let db = fjall::SingleWriterTxDatabase::builder(dir.path())
            .open()
            .unwrap();
        let ks = db
            .keyspace("events", fjall::KeyspaceCreateOptions::default)
            .unwrap();
        for i in 0..300u64 {
            ks.insert(old.encode(&[i.into(), 1i64.into()]).unwrap(), "v")
                .unwrap();
        }
    }
    let path = dir.path().to_str().unwrap();
    let args = |step: &'static str, set: &'static str| {
        vec![
            "migrate",
            step,
            "--from",
            "[user_id u64][ts i64]",
            "--to",
            "[user_id u64][region u8][ts i64]",
            "--set",
            set,
            "--fjall",
            path,
            "--table",
            "events",
            "--to-table",
            "events_v2",
        ]
    };
    let (code, run) = status(&args("run", "region=3"));
    assert_eq!(code, 0);
    assert!(run.starts_with("300 rows copied"), "{run}");
    let (code, verify) = status(&args("verify", "region=3"));
    assert_eq!(
        (code, verify.trim()),
        (0, "300 rows old, 300 new: 0 missing, 0 extra, 0 differing")
    );
    // Verified with another value: every row differs from what it would be.
    let (code, verify) = status(&args("verify", "region=4"));
    assert_eq!(code, 1);
    assert!(verify.contains("300 missing, 300 extra"), "{verify}");
}

#[test]
fn refused_arguments() {
    let cases: [(&[&str], &str); 4] = [
        (
            &["migrate", "plan", "--from", OLD, "--to", "[user_id u64]"],
            "field `ts` of the old layout is not in the new one",
        ),
        (
            &[
                "migrate",
                "plan",
                "--from",
                "[user_id u64]",
                "--to",
                "[user_id u64][region u8]",
                "--set",
                "region=300",
            ],
            "--set region=300:",
        ),
        (
            &["migrate", "run", "--from", OLD, "--to", NEW],
            "migrate run: needs --redb FILE, --fjall DIR, --hbase ADDRESS or --bigtable ENDPOINT, --table and --to-table",
        ),
        (
            &["migrate", "plan", "--from", "[user_id u65]", "--to", NEW],
            "--from: ",
        ),
    ];
    for (args, message) in cases {
        let out = rowkey(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = text(&out.stderr);
        assert!(
            err.starts_with("rowkey: ") && err.contains(message),
            "{args:?}: {err}"
        );
    }
}

/// A field added in the middle on the Bigtable emulator: planned, run,
/// verified; a planted row found extra.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bigtable_set_field() {
    let emulator = rowkey_bigtable::emulator::Emulator::start().expect("the emulator starts");
    let client = emulator.client("p", "i").unwrap();
    let mut admin = emulator.admin().await.unwrap();
    let old = DynLayout::parse(OLD).unwrap();
    rowkey_bigtable::create_table(
        &mut admin,
        "projects/p/instances/i",
        "events",
        &["d"],
        &old.split_points(),
    )
    .await
    .unwrap();
    let rows = (0..2_000u64).map(|i| {
        let k = old.encode(&[(i % 30).into(), (i as i64).into()]).unwrap();
        (
            k,
            vec![("d".to_string(), b"v".to_vec(), i.to_be_bytes().to_vec())],
        )
    });
    rowkey_bigtable::write_raw_rows(&client, "events", rows)
        .await
        .unwrap();
    let endpoint = format!("http://{}", emulator.host());
    let to = "[salt(user_id)/8][user_id u64][region u8][ts desc_ts i64]";
    let args = |step: &'static str| {
        vec![
            "migrate".to_string(),
            step.into(),
            "--from".into(),
            OLD.into(),
            "--to".into(),
            to.into(),
            "--set".into(),
            "region=4".into(),
            "--bigtable".into(),
            endpoint.clone(),
            "--project".into(),
            "p".into(),
            "--instance".into(),
            "i".into(),
            "--table".into(),
            "events".into(),
            "--to-table".into(),
            "events_v2".into(),
        ]
    };
    let run = |step| {
        let args = args(step);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        status(&args)
    };
    let (code, plan) = run("plan");
    assert_eq!(code, 0);
    assert!(plan.contains("to move: 2000 rows"), "{plan}");
    let (code, copied) = run("run");
    assert_eq!(code, 0);
    assert!(copied.starts_with("2000 rows copied"), "{copied}");
    let (code, clean) = run("verify");
    assert_eq!(code, 0, "{clean}");
    assert!(
        clean.starts_with("2000 rows old, 2000 new: 0 missing, 0 extra, 0 differing"),
        "{clean}"
    );
    let new = DynLayout::parse(to).unwrap();
    let planted = new
        .encode(&[3u64.into(), 4u8.into(), 99_999i64.into()])
        .unwrap();
    rowkey_bigtable::write_raw_rows(
        &client,
        "events_v2",
        [(
            planted,
            vec![("d".to_string(), b"v".to_vec(), b"x".to_vec())],
        )],
    )
    .await
    .unwrap();
    let (code, found) = run("verify");
    assert_eq!(code, 1, "{found}");
    assert!(
        found.contains("1 extra") && found.contains("extra (user_id=3, region=4, ts=99999)"),
        "{found}"
    );
}
