// Ecosystem types: a UUID (a FixedField), a chrono timestamp at its
// default unit stored newest first, and a jiff timestamp in microseconds.
#[derive(RowKey)]
struct Session {
    id: Uuid,
    #[desc_ts]
    at: DateTime<Utc>,
    #[ts(micros)]
    seen: jiff::Timestamp,
}
