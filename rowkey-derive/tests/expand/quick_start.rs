// The README's quick-start key: salted by a leading field, newest-first
// timestamp, a padded string (which can fail to encode).
#[derive(RowKey)]
#[salt(buckets = 16, by(user_id))]
struct UserEvent {
    user_id: u64,
    #[desc_ts]
    ts_millis: i64,
    #[fixed(8)]
    kind: String,
}
