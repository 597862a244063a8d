// A text key: the HBase guide's `phone % 10 _ phone _ MAX - ts _ note`, a
// mod salt, and a delimited, domain-reversed string.
#[derive(RowKey)]
#[rowkey(text, sep = "_")]
#[salt(buckets = 10, by(phone), hash = "mod")]
struct Call {
    #[digits(11)]
    phone: u64,
    #[desc_ts]
    ts: i64,
    #[reverse_domain]
    host: String,
    note: String,
}
