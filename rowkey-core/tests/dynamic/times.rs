//! Timestamps of chrono, time and jiff types in binary and text keys, run
//! time against derived.

use super::*;

/// Timestamps of the types the runtime knows, at three units, ascending,
/// `#[desc]` and `#[desc_ts]`: a value is the `i64` of the field's unit,
/// the bytes are the derive's, decoding checks the type's range, and
/// explain shows the time as the derive does.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[salt(buckets = 4, by(at))]
struct Times {
    at: chrono::DateTime<chrono::Utc>,
    #[desc_ts]
    #[ts(micros)]
    newest: jiff::Timestamp,
    #[desc]
    #[ts(secs)]
    day: time::OffsetDateTime,
    #[desc]
    maybe: Option<jiff::Timestamp>,
    #[rowkey(added)]
    #[ts(nanos)]
    gone: Option<time::PrimitiveDateTime>,
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn timestamps_agree_with_the_derive(
        millis in 0..4_000_000_000_000i64,
        micros in 0..4_000_000_000_000_000i64,
        secs in -2_000_000_000..4_000_000_000i64,
        maybe in proptest::option::of(-4_000_000_000_000..4_000_000_000_000i64),
        gone in proptest::option::of(0..4_000_000_000_000_000_000i64),
    ) {
        let t = Times {
            at: chrono::DateTime::from_timestamp_millis(millis).unwrap(),
            newest: jiff::Timestamp::from_microsecond(micros).unwrap(),
            day: time::OffsetDateTime::from_unix_timestamp(secs).unwrap(),
            maybe: maybe.map(|m| jiff::Timestamp::from_millisecond(m).unwrap()),
            gone: gone.map(|n| {
                let t = time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(n)).unwrap();
                time::PrimitiveDateTime::new(t.date(), t.time())
            }),
        };
        let values = [
            Value::I64(millis),
            Value::I64(micros),
            Value::I64(secs),
            Value::from(maybe),
            Value::from(gone),
        ];
        let dynamic = DynLayout::parse(&format!("Times: {}", Times::LAYOUT)).unwrap();
        prop_assert_eq!(dynamic.layout().id(), Times::LAYOUT_ID);
        let key = t.encode_to_vec().unwrap();
        prop_assert_eq!(dynamic.encode(&values).unwrap(), key.clone());
        prop_assert_eq!(dynamic.decode(&key).unwrap(), values.to_vec());
        prop_assert_eq!(dynamic.explain(&key[..]).to_string(), Times::explain(&key[..]).to_string());
        // A tick the type cannot hold: the derive's error.
        let mut bad = key.clone();
        bad[1..9].copy_from_slice(&(i64::MAX ^ i64::MIN).to_be_bytes());
        prop_assert_eq!(
            dynamic.decode(&bad).unwrap_err().to_string(),
            Times::decode(&bad).unwrap_err().to_string()
        );
    }
}

/// Timestamps in a text key: digits of the unit, `desc_ts` digits.
#[derive(RowKey, Debug, Clone, PartialEq)]
#[rowkey(text, sep = "_")]
struct TextTimes {
    at: chrono::DateTime<chrono::Utc>,
    #[desc_ts]
    #[ts(secs)]
    newest: jiff::Timestamp,
    #[ts(micros)]
    day: time::OffsetDateTime,
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn text_timestamps_agree_with_the_derive(
        millis in -4_000_000_000_000..4_000_000_000_000i64,
        secs in 0..4_000_000_000i64,
        micros in 0..4_000_000_000_000_000i64,
    ) {
        let t = TextTimes {
            at: chrono::DateTime::from_timestamp_millis(millis).unwrap(),
            newest: jiff::Timestamp::from_second(secs).unwrap(),
            day: time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(micros) * 1000).unwrap(),
        };
        let values = [Value::I64(millis), Value::I64(secs), Value::I64(micros)];
        let dynamic = DynLayout::parse(&format!("TextTimes: {}", TextTimes::LAYOUT)).unwrap();
        prop_assert_eq!(dynamic.layout().id(), TextTimes::LAYOUT_ID);
        let key = t.encode_to_vec().unwrap();
        prop_assert_eq!(dynamic.encode(&values).unwrap(), key.clone());
        prop_assert_eq!(dynamic.decode(&key).unwrap(), values.to_vec());
        prop_assert_eq!(dynamic.explain(&key[..]).to_string(), TextTimes::explain(&key[..]).to_string());
    }
}
