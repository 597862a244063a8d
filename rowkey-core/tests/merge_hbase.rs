//! `merge_salted` (order, laziness, errors) and the HBase text helpers.

use std::cell::Cell;

use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use rowkey_core::hbase::{
    create_table_statement, from_string_binary, to_string_binary, ParseBinaryError,
};
use rowkey_core::scan::prefix_stop;
use rowkey_core::{
    merge_salted, merge_salted_by, merge_salted_reversed_by, merge_salted_reversed_with,
};

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: Some(Box::new(FileFailurePersistence::Direct("tests/merge_hbase.proptest-regressions"))), ..ProptestConfig::default() })]

    /// Merging per-bucket sorted streams equals sorting everything by the
    /// key after the salt byte (ties in bucket order).
    #[test]
    fn merge_equals_sort_after_salt(rows in prop::collection::vec((0u8..16, prop::collection::vec(any::<u8>(), 0..4)), 0..200)) {
        let mut buckets: Vec<Vec<(Vec<u8>, usize)>> = vec![Vec::new(); 16];
        for (i, (b, rest)) in rows.iter().enumerate() {
            let mut key = vec![*b];
            key.extend(rest);
            buckets[usize::from(*b)].push((key, i));
        }
        for b in &mut buckets {
            b.sort();
        }
        let mut expected: Vec<(Vec<u8>, usize)> = buckets.iter().flatten().cloned().collect();
        expected.sort_by(|a, b| a.0[1..].cmp(&b.0[1..]).then(a.0[0].cmp(&b.0[0])));
        let merged: Vec<_> = merge_salted(buckets.into_iter().map(Vec::into_iter)).collect();
        prop_assert_eq!(merged, expected);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: Some(Box::new(FileFailurePersistence::Direct("tests/merge_hbase.proptest-regressions"))), ..ProptestConfig::default() })]

    /// Keys that share their first 8+ bytes after the salt (where the merge's
    /// cached 8-byte summary ties) and keys shorter than 8 bytes.
    #[test]
    fn merge_orders_long_shared_prefixes(rows in prop::collection::vec((0u8..4, 0usize..12, prop::collection::vec(0u8..3, 0..3)), 0..100)) {
        let common = [7u8; 12];
        let mut buckets: Vec<Vec<(Vec<u8>, ())>> = vec![Vec::new(); 4];
        for (b, cut, rest) in &rows {
            let mut key = vec![*b];
            key.extend(&common[..*cut]);
            key.extend(rest);
            buckets[usize::from(*b)].push((key, ()));
        }
        for b in &mut buckets {
            b.sort();
        }
        let mut expected: Vec<Vec<u8>> = buckets.iter().flatten().map(|(k, _)| k.clone()).collect();
        expected.sort_by(|a, b| a[1..].cmp(&b[1..]).then(a[0].cmp(&b[0])));
        let merged: Vec<Vec<u8>> = merge_salted(buckets.into_iter().map(Vec::into_iter)).map(|(k, _)| k).collect();
        prop_assert_eq!(merged, expected);
    }
}

/// A stream's item in the reference merge: a key, or an error.
type Item = Result<(Vec<u8>, usize), usize>;

/// The key of a `(usize, key)` item, `None` for an error.
fn second_key(r: &Result<(usize, Vec<u8>), usize>) -> Option<&[u8]> {
    r.as_ref().ok().map(|(_, k)| &k[..])
}

/// The merge's contract, written the slow way: each step takes, among every
/// stream's next item, an error first, else the smallest key after the
/// salt byte (the largest when `reversed`), ties to the lower stream.
fn reference_merge(streams: &[Vec<Item>], reversed: bool) -> Vec<Item> {
    let mut at = vec![0; streams.len()];
    let mut out = Vec::new();
    loop {
        let mut best: Option<usize> = None;
        for (s, items) in streams.iter().enumerate() {
            let Some(item) = items.get(at[s]) else {
                continue;
            };
            let Some(b) = best else {
                best = Some(s);
                continue;
            };
            let first = match (item, &streams[b][at[b]]) {
                (Err(_), Ok(_)) => true,
                (Ok((k, _)), Ok((kb, _))) if reversed => k[1..] > kb[1..],
                (Ok((k, _)), Ok((kb, _))) => k[1..] < kb[1..],
                _ => false,
            };
            if first {
                best = Some(s);
            }
        }
        let Some(b) = best else { return out };
        out.push(streams[b][at[b]].clone());
        at[b] += 1;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, failure_persistence: Some(Box::new(FileFailurePersistence::Direct("tests/merge_hbase.proptest-regressions"))), ..ProptestConfig::default() })]

    /// Forward and reversed merges of streams read in runs (few buckets,
    /// few distinct keys, so one stream often gives many rows in a row),
    /// with ties across streams and errors anywhere, equal the reference,
    /// taken by `next`, by `fold`, or both in turn.
    #[test]
    fn merge_of_runs_and_errors_equals_reference(
        rows in prop::collection::vec((0u8..5, prop::collection::vec(0u8..3, 0..10), 0u8..20), 0..300),
        reversed: bool,
        first in 0usize..40,
    ) {
        let mut streams: Vec<Vec<Item>> = vec![Vec::new(); 5];
        for (i, (b, rest, err)) in rows.iter().enumerate() {
            let mut key = vec![*b];
            key.extend(rest);
            streams[usize::from(*b)].push(if *err == 0 { Err(i) } else { Ok((key, i)) });
        }
        for s in &mut streams {
            // Sorted (largest first when reversed), each error kept where
            // it falls among the rows.
            let mut ok: Vec<(Vec<u8>, usize)> = s.iter().filter_map(|r| r.clone().ok()).collect();
            ok.sort();
            if reversed {
                ok.reverse();
            }
            let mut ok = ok.into_iter();
            for item in s.iter_mut() {
                if item.is_ok() {
                    *item = Ok(ok.next().unwrap());
                }
            }
        }
        let expected = reference_merge(&streams, reversed);
        let merge = || {
            let iters = streams.clone().into_iter().map(Vec::into_iter);
            if reversed {
                merge_salted_reversed_with(1, iters)
            } else {
                merge_salted(iters)
            }
        };
        // Row by row (`next`, as `collect` takes them), by `fold` (its own
        // loop), and `next` for the first rows then `fold` mid-run.
        let by_next: Vec<Item> = merge().collect();
        prop_assert_eq!(&by_next, &expected);
        let by_fold = merge().fold(Vec::new(), |mut v, r| { v.push(r); v });
        prop_assert_eq!(&by_fold, &expected);
        let mut rest = merge();
        let mut mixed: Vec<Item> = rest.by_ref().take(first).collect();
        rest.for_each(|r| mixed.push(r));
        prop_assert_eq!(&mixed, &expected);
        // The same streams merged with a key function (`merge_salted_by`):
        // the items are not `MergeItem`s, but `(usize, key)` or an error.
        let by_fn = || {
            let iters = streams.clone().into_iter().map(|s| {
                s.into_iter()
                    .map(|r| r.map(|(k, i)| (i, k)))
                    .collect::<Vec<_>>()
                    .into_iter()
            });
            if reversed {
                merge_salted_reversed_by(1, second_key, iters)
            } else {
                merge_salted_by(1, second_key, iters)
            }
        };
        let expected_by_fn: Vec<_> =
            expected.iter().map(|r| r.clone().map(|(k, i)| (i, k))).collect();
        prop_assert_eq!(&by_fn().collect::<Vec<_>>(), &expected_by_fn);
        let mut rest = by_fn();
        let mut mixed: Vec<_> = rest.by_ref().take(first).collect();
        rest.for_each(|r| mixed.push(r));
        prop_assert_eq!(&mixed, &expected_by_fn);
    }
}

#[test]
fn merge_is_lazy_and_holds_one_item_per_stream() {
    let pulled = Cell::new(0usize);
    let streams: Vec<_> = (0..4u8)
        .map(|b| {
            let pulled = &pulled;
            (0..1_000u32).map(move |i| {
                pulled.set(pulled.get() + 1);
                let mut k = vec![b];
                k.extend((i * 4 + u32::from(b)).to_be_bytes());
                (k, ())
            })
        })
        .collect();
    let mut merged = merge_salted(streams);
    assert_eq!(pulled.get(), 0, "nothing is read before the first next()");
    let first: Vec<_> = merged.by_ref().take(10).collect();
    assert_eq!(first.len(), 10);
    assert!(
        pulled.get() <= 10 + 4,
        "read {} items for 10 results",
        pulled.get()
    );
    // Keys interleave across buckets: 0, 1, 2, 3, 4, ...
    let order: Vec<u32> = first
        .iter()
        .map(|(k, _)| u32::from_be_bytes(k[1..5].try_into().unwrap()))
        .collect();
    assert_eq!(order, (0..10).collect::<Vec<_>>());
    assert_eq!(merged.count(), 3_990);
}

#[test]
fn merge_passes_errors_through() {
    let ok = vec![Ok((vec![0, 5], 'a')), Ok((vec![0, 9], 'c'))];
    let bad = vec![Ok((vec![1, 7], 'b')), Err("disk"), Ok((vec![1, 8], 'x'))];
    let out: Vec<Result<char, &str>> = merge_salted([ok.into_iter(), bad.into_iter()])
        .map(|r| r.map(|(_, v)| v))
        .collect();
    assert_eq!(out, [Ok('a'), Ok('b'), Err("disk"), Ok('x'), Ok('c')]);
}

#[test]
fn merge_of_nothing_is_empty() {
    let none: Vec<std::vec::IntoIter<(Vec<u8>, ())>> = Vec::new();
    assert_eq!(merge_salted(none).count(), 0);
    let empty = vec![Vec::<(Vec<u8>, ())>::new().into_iter(); 3];
    assert_eq!(merge_salted(empty).count(), 0);
}

#[test]
fn prefix_stop_follows_hbase() {
    // HBase's own example: prefix 12 23 FF FF -> stop row 12 24.
    assert_eq!(
        prefix_stop(&[0x12, 0x23, 0xFF, 0xFF]),
        Some(vec![0x12, 0x24])
    );
    assert_eq!(prefix_stop(&[0x00]), Some(vec![0x01]));
    assert_eq!(prefix_stop(&[0xFF]), None);
    assert_eq!(prefix_stop(&[]), None);
}

#[test]
fn to_string_binary_is_hbase_format() {
    // Bytes.toStringBinary: printable ASCII except '\' as is, the rest \xHH.
    assert_eq!(to_string_binary(b"row-1"), "row-1");
    assert_eq!(to_string_binary(&[0x12, 0x23, 0xFF]), r"\x12#\xFF");
    assert_eq!(
        to_string_binary(&[b' ', b'~', 0x7F, 0x1F, b'\\']),
        r" ~\x7F\x1F\x5C"
    );
    assert_eq!(to_string_binary(&[]), "");
}

proptest! {
    #![proptest_config(ProptestConfig { failure_persistence: Some(Box::new(FileFailurePersistence::Direct("tests/merge_hbase.proptest-regressions"))), ..ProptestConfig::default() })]
    #[test]
    fn string_binary_round_trips(bytes in prop::collection::vec(any::<u8>(), 0..64)) {
        let s = to_string_binary(&bytes);
        prop_assert!(s.is_ascii());
        prop_assert_eq!(from_string_binary(&s).unwrap(), bytes);
    }
}

#[test]
fn from_string_binary_rejects_what_hbase_would_mangle() {
    assert_eq!(
        from_string_binary(r"a\x4"),
        Err(ParseBinaryError::BadEscape { offset: 1 })
    );
    assert_eq!(
        from_string_binary(r"\xZZ"),
        Err(ParseBinaryError::BadEscape { offset: 0 })
    );
    assert_eq!(
        from_string_binary("é"),
        Err(ParseBinaryError::NonAscii { offset: 0 })
    );
    // HBase reads `\x0a` as the text `x0a` (it accepts only upper-case
    // hex and drops the backslash of a bad escape): an error here.
    assert_eq!(
        from_string_binary(r"\x0A\x0a"),
        Err(ParseBinaryError::LowercaseHex { offset: 4 })
    );
    assert_eq!(
        from_string_binary(r"\xaB"),
        Err(ParseBinaryError::LowercaseHex { offset: 0 })
    );
    assert!(from_string_binary(r"\x5a")
        .unwrap_err()
        .to_string()
        .contains("upper-case"));
    // `\x` too close to the end: HBase throws.
    assert_eq!(
        from_string_binary(r"ab\x"),
        Err(ParseBinaryError::BadEscape { offset: 2 })
    );
}

/// Inputs on which HBase's `Bytes.toBytesBinary` defines a result get that
/// result, worked out by hand from its rules: upper-case `\xHH` is a byte;
/// a backslash not followed by `x`, or at the end, stands for itself.
#[test]
fn from_string_binary_matches_hbase_where_hbase_defines_a_result() {
    let cases: &[(&str, &[u8])] = &[
        ("", b""),
        ("row-1", b"row-1"),
        (r"\x00\x7F\x80\xFF", &[0x00, 0x7F, 0x80, 0xFF]),
        (r"\x41\x5C", b"A\\"),
        (r"a\b", b"a\\b"),
        (r"abc\", b"abc\\"),
        (r"\\x41", b"\\A"),
        (r"\X41", b"\\X41"),
        (r"x41\x30", b"x410"),
    ];
    for (text, bytes) in cases {
        assert_eq!(from_string_binary(text).unwrap(), *bytes, "{text}");
    }
}

#[test]
fn create_statement_quotes_for_the_ruby_shell() {
    let splits: Vec<Vec<u8>> = vec![
        vec![0x01],
        vec![b'"'],
        vec![b'#', b'{'],
        vec![b'\\'],
        vec![b'a', 0xFF],
    ];
    assert_eq!(
        create_table_statement("my'table", &["d", "meta"], &splits),
        r#"create 'my\'table', 'd', 'meta', SPLITS => ["\x01", "\x22", "\x23{", "\x5C", "a\xFF"]"#
    );
}
