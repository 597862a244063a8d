// A key family salted within its prefix, with a nested key as a field.
#[derive(RowKey)]
#[rowkey(prefix = "I")]
#[salt(buckets = 4, by(customer))]
struct ByCustomer {
    #[fixed(8)]
    customer: String,
    order: Order,
}
