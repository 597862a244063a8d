// An enum over key families: decode by prefix, encode by variant, and a
// const check that no two prefixes overlap.
#[derive(RowKey)]
enum Row<'a> {
    Order(Order),
    ByCustomer(ByCustomer<'a>),
}
