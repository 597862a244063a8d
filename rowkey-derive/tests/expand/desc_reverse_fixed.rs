// Descending, reversed and padded fields; an unsigned desc_ts that can fail;
// a user type of unknown width with max_len checked by const assertions.
#[derive(RowKey)]
#[rowkey(max_len = 64)]
struct Order {
    #[desc]
    priority: i32,
    #[reverse]
    seq: u64,
    #[fixed(4, pad = b' ')]
    #[desc]
    code: String,
    #[desc_ts]
    ts: u64,
    id: OrderId,
}
