//! Salt hashes: compatible with Apache Phoenix and OpenTSDB (java), equal to
//! an independent xxh3 implementation, and spreading sequential ids evenly.

use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use rowkey_core::prelude::*;
use rowkey_core::salt::{java_bucket, java_hash, JavaHash, SaltHash, Xxh3};

/// OpenTSDB's row key: salt, 3-byte metric UID, 4-byte base hour, tag UID
/// pairs; the salt hashes metric and tags, not the timestamp.
#[derive(RowKey, Debug, PartialEq)]
#[salt(buckets = 20, by(metric, tags), hash = "java")]
struct TsdbRow {
    metric: [u8; 3],
    base_hour: u32,
    tags: Vec<u8>,
}

fn tsdb(metric: [u8; 3], base_hour: u32, tags: &[u8]) -> u8 {
    TsdbRow {
        metric,
        base_hour,
        tags: tags.to_vec(),
    }
    .encode_to_vec()
    .unwrap()[0]
}

/// The expected salts are those of OpenTSDB's own `TestRowKey`
/// (`prefixKeyWithSalt*`, 20 buckets, salt width 1).
#[test]
fn java_hash_matches_opentsdb_test_rowkey() {
    const HOUR: u32 = 0x50E2_2700;
    assert_eq!(tsdb([0, 0, 1], HOUR, &[0, 0, 1, 0, 0, 1]), 0x08);
    assert_eq!(
        tsdb([0, 0, 1], HOUR, &[0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1]),
        0x10
    );
    assert_eq!(
        tsdb(
            [0, 0, 1],
            HOUR,
            &[0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1]
        ),
        0x00
    );
    assert_eq!(tsdb([0, 0, 1], HOUR, &[0, 0, 1, 0, 0, 2]), 0x09);
    assert_eq!(
        tsdb([0, 0, 1], HOUR, &[0, 0, 1, 0, 0, 1, 0, 0, 2, 0, 0, 3]),
        0x03
    );
    assert_eq!(tsdb([0, 0, 1], HOUR, &[]), 0x0C);
    assert_eq!(tsdb([0, 0, 2], HOUR, &[0, 0, 1, 0, 0, 1]), 0x09);
    assert_eq!(tsdb([0, 0, 3], HOUR, &[0, 0, 1, 0, 0, 1]), 0x06);
    assert_eq!(tsdb([0x0B, 0x14, 0x20], HOUR, &[0, 0, 1, 0, 0, 1]), 0x06);
    // The timestamp is not hashed: every hour of a series is in one bucket.
    for hour in [0x50E2_3510, 0x510B_1390, 0] {
        assert_eq!(tsdb([0, 0, 1], hour, &[0, 0, 1, 0, 0, 1]), 0x08);
    }
}

/// Apache Phoenix's `SaltingUtilTest`.
#[test]
fn java_hash_matches_phoenix_salting_util_test() {
    // testGetSaltingByte_EdgeCaseHashCode: this key hashes to Integer.MIN_VALUE.
    let key = [-106i8, 0, -10, 0, 19, -2].map(|b| b as u8);
    assert_eq!(java_hash(&key), i32::MIN);
    assert_eq!(JavaHash::bucket(&[&key], 3), 2, "abs(MIN_VALUE % 3) == 2");
    for buckets in 1..=256u16 {
        assert!(u16::from(java_bucket(i32::MIN, buckets)) < buckets);
        assert!(u16::from(java_bucket(i32::MAX, buckets)) < buckets);
    }

    // testGetSaltingByte: Bytes.toBytes(i) for i in 0..100 over 3 buckets
    // hits exactly {0, 1, 2}.
    #[derive(RowKey)]
    #[salt(buckets = 3, hash = "java")]
    struct PhoenixInt {
        i: u32,
    }
    let seen: std::collections::BTreeSet<u8> =
        (0..100).map(|i| PhoenixInt { i }.encode()[0]).collect();
    assert_eq!(seen.into_iter().collect::<Vec<_>>(), [0, 1, 2]);
}

#[test]
fn java_hash_is_arrays_hash_code() {
    // Values printed by java.util.Arrays.hashCode(byte[]) on OpenJDK 17.
    assert_eq!(java_hash(&[]), 1);
    assert_eq!(java_hash(&[0]), 31);
    assert_eq!(java_hash(&[1, 2, 3]), 30817);
    assert_eq!(java_hash(b"hello"), 127_791_473);
    assert_eq!(java_hash(&[0xFF; 4]), 892_737);
}

#[derive(RowKey, Debug, PartialEq)]
#[salt(buckets = 251)]
struct XxAll {
    a: u64,
    s: String,
}

#[derive(RowKey, Debug, PartialEq)]
#[salt(buckets = 16, by(user, kind))]
struct XxGap {
    user: u32,
    #[desc_ts]
    ts: i64,
    kind: u16,
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, failure_persistence: Some(Box::new(FileFailurePersistence::Direct("tests/salt.proptest-regressions"))), ..ProptestConfig::default() })]

    /// The default hash is xxh3_64 (seed 0) mod buckets, as computed by the
    /// independent `twox-hash` implementation.
    #[test]
    fn xxh3_matches_an_independent_implementation(a in any::<u64>(), s in ".{0,40}".prop_map(String::from), user in any::<u32>(), ts in any::<i64>(), kind in any::<u16>(), bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        let key = XxAll { a, s }.encode_to_vec().unwrap();
        prop_assert_eq!(u64::from(key[0]), twox_hash::XxHash3_64::oneshot(&key[1..]) % 251);

        // by(user, kind) with a field between them: the hashed bytes are the
        // two fields' encodings concatenated.
        let key = XxGap { user, ts, kind }.encode();
        let mut by = user.to_be_bytes().to_vec();
        by.extend(kind.to_be_bytes());
        prop_assert_eq!(u64::from(key[0]), twox_hash::XxHash3_64::oneshot(&by) % 16);

        // Streaming over parts (longer than xxh3's internal buffers) equals one shot.
        let (x, y) = bytes.split_at(bytes.len() / 3);
        prop_assert_eq!(Xxh3::bucket(&[x, y], 256), Xxh3::bucket(&[&bytes], 256));
        prop_assert_eq!(u64::from(Xxh3::bucket(&[&bytes], 256)), twox_hash::XxHash3_64::oneshot(&bytes) % 256);
    }
}

/// Pearson's chi-square statistic of bucket counts against a uniform spread.
fn chi_square(counts: &[u64]) -> f64 {
    let total: u64 = counts.iter().sum();
    let expected = total as f64 / counts.len() as f64;
    counts
        .iter()
        .map(|&c| (c as f64 - expected).powi(2) / expected)
        .sum()
}

/// Sequential ids (the hot-spot case) spread evenly: the chi-square statistic
/// stays below the critical value for p = 0.001 (37.70 at 15 degrees of
/// freedom; 310.5 at 255). The inputs are fixed, so the test is deterministic.
#[test]
fn sequential_ids_spread_evenly() {
    #[derive(RowKey)]
    #[salt(buckets = 16)]
    struct Seq16 {
        id: u64,
    }
    #[derive(RowKey)]
    #[salt(buckets = 16, hash = "java")]
    struct SeqJava {
        id: u64,
    }
    #[derive(RowKey)]
    #[salt(buckets = 256)]
    struct Seq256 {
        id: u64,
    }
    let mut c16 = [0u64; 16];
    let mut cj = [0u64; 16];
    let mut c256 = [0u64; 256];
    for id in 0..200_000u64 {
        c16[usize::from(Seq16 { id }.encode()[0])] += 1;
        cj[usize::from(SeqJava { id }.encode()[0])] += 1;
        c256[usize::from(Seq256 { id }.encode()[0])] += 1;
    }
    let (x16, xj, x256) = (chi_square(&c16), chi_square(&cj), chi_square(&c256));
    assert!(
        x16 < 37.70,
        "xxh3, 16 buckets: chi-square {x16:.1}, counts {c16:?}"
    );
    assert!(
        xj < 37.70,
        "java, 16 buckets: chi-square {xj:.1}, counts {cj:?}"
    );
    assert!(x256 < 310.5, "xxh3, 256 buckets: chi-square {x256:.1}");
    // And a skewed spread is detected: the check can fail.
    let mut skewed = c16;
    skewed[0] += 2_000;
    assert!(chi_square(&skewed) > 37.70);
}

#[test]
fn split_points_one_region_per_bucket() {
    #[derive(RowKey)]
    #[salt(buckets = 4)]
    struct S {
        id: u8,
    }
    #[derive(RowKey)]
    struct U {
        id: u8,
    }
    assert_eq!(S::split_points(), vec![vec![1], vec![2], vec![3]]);
    assert!(U::split_points().is_empty());
    #[derive(RowKey)]
    #[salt(buckets = 256)]
    struct Max {
        id: u8,
    }
    let points = Max::split_points();
    assert_eq!(points.len(), 255);
    assert_eq!(points.last().unwrap(), &vec![255]);
}
