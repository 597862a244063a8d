// A borrowed key, salted by a variable-length field (bucket() needs alloc),
// a 'static field (decodes from 'static bytes only), a custom crate path.
#[derive(RowKey)]
#[rowkey(crate = "::my_crate::rowkey")]
#[salt(buckets = 8, by(host))]
struct Access<'a> {
    host: &'a str,
    path: &'a [u8],
    region: &'static str,
}
