//! Compile errors for an ecosystem type whose feature is off: the message
//! names the feature. Runs with rowkey-core's default features (CI:
//! `cargo test -p rowkey-core --test ui_features`); with the features on,
//! these files compile, so there is nothing to check.
//! Refresh with `TRYBUILD=overwrite cargo test -p rowkey-core --test ui_features`.

#[cfg(not(any(feature = "chrono", feature = "uuid")))]
#[test]
fn ui_features() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui-features/*.rs");
}

/// With the features on, the same fields compile and work.
#[cfg(all(feature = "chrono", feature = "uuid"))]
#[test]
fn with_the_features_on_they_are_field_types() {
    use rowkey_core::prelude::*;

    #[derive(RowKey, Debug, PartialEq)]
    struct Event {
        id: uuid::Uuid,
        at: chrono::DateTime<chrono::Utc>,
    }

    let e = Event {
        id: uuid::Uuid::from_u128(1),
        at: chrono::DateTime::from_timestamp_millis(2).unwrap(),
    };
    assert_eq!(Event::decode(&e.try_encode().unwrap()).unwrap(), e);
}
