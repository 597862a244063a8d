use rowkey_core::prelude::*;

use rowkey_core::{FieldError, FixedField};

struct Uuid([u8; 16]);

impl FixedField for Uuid {
    type Bytes = [u8; 16];
    fn to_key_bytes(&self) -> [u8; 16] {
        self.0
    }
    fn from_key_bytes(bytes: [u8; 16]) -> Result<Self, FieldError> {
        Ok(Uuid(bytes))
    }
}

#[derive(RowKey)]
#[rowkey(max_len = 16)]
struct Session {
    tenant: u16,
    id: Uuid,
}

fn main() {}
