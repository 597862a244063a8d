//! Decoding arbitrary bytes under every layout never panics, and whatever
//! decodes re-encodes to the same bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
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
});
