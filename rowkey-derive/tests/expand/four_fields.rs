// Four fixed-width fields, unsalted: the baseline for linear growth.
#[derive(RowKey)]
struct Four {
    a: u32,
    b: u64,
    c: i16,
    d: u8,
}
