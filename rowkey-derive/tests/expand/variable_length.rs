// Variable-length fields, salted over all fields with the Java hash: an
// escaped string, an Option, raw bytes to the end of the key.
#[derive(RowKey)]
#[salt(buckets = 4, hash = "java")]
struct Document {
    tenant: String,
    version: Option<u32>,
    body: Vec<u8>,
}
