//! Decoding arbitrary bytes under every layout never panics, and whatever
//! decodes re-encodes to the same bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rowkey_core::DecodeRowKey as _;
use rowkey_fuzz::*;

fuzz_target!(|data: &[u8]| {
    canonical::<Ints>(data, false);
    canonical::<Floats>(data, false);
    canonical::<Strings>(data, false);
    canonical::<Options>(data, false);
    canonical::<Fixed>(data, false);
    canonical::<Reversed>(data, false);
    canonical::<Salted>(data, true);
    canonical::<SaltedJava>(data, true);
    canonical::<Borrowed<'_>>(data, false);
    canonical::<Text>(data, true);
    canonical::<TextOrdered>(data, true);
    canonical::<FamZero>(data, false);
    canonical::<FamText>(data, false);
    canonical::<FamEvent>(data, true);
    // The enum: a key decodes as the family its prefix names, or is an
    // error; whatever decodes re-encodes to the same bytes.
    if let Ok(row) = Fam::decode(data) {
        let again = rowkey_core::RowKey::encode_to_vec(&row).expect("a decoded key encodes");
        let salted = matches!(row, Fam::Event(_));
        if salted {
            assert_eq!(again[0], data[0]);
            assert_eq!(&again[2..], &data[2..]);
        } else {
            assert_eq!(again, data);
        }
    }
});
