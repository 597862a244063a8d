// Eight fixed-width fields, unsalted: at most twice the lines of four.
#[derive(RowKey)]
struct Eight {
    a: u32,
    b: u64,
    c: i16,
    d: u8,
    e: u32,
    f: u64,
    g: i16,
    h: u8,
}
