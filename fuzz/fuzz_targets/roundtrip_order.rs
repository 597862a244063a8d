//! Structured values: every layout round-trips, the bytes sort like the
//! values, salted keys carry their bucket, and the generated scans select a
//! key exactly when its values match.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use rowkey_core::{DecodeRowKey as _, RowKey as _};
use rowkey_fuzz::*;

#[derive(Arbitrary, Debug)]
enum Pair {
    Ints(Ints, Ints),
    Floats(Floats, Floats),
    Strings(Strings, Strings),
    Options(Options, Options),
    Fixed(Fixed, Fixed),
    Reversed(Reversed, Reversed),
    Salted(Salted, Salted),
    SaltedJava(SaltedJava, SaltedJava),
    Text(Text, Text),
    TextOrdered(TextOrdered, TextOrdered),
    Fam(Fam, FamEvent, FamEvent),
}

/// `scan` selects `key` exactly when `matches`.
fn selects(scan: &rowkey_core::Scan, key: &[u8], matches: bool) {
    let hit = scan.ranges().any(|r| r.contains(key));
    assert_eq!(hit, matches, "{scan:?} on {key:02X?}");
}

fuzz_target!(|pair: Pair| {
    match pair {
        Pair::Ints(a, b) => {
            order(&a, &b, 0, ints_key);
            let kb = b.encode();
            selects(&Ints::scan_by_a_b(a.a, a.b), &kb, (a.a, a.b) == (b.a, b.b));
            selects(
                &Ints::range_by_a_b_c(a.a, a.b, ..=a.c),
                &kb,
                (a.a, a.b) == (b.a, b.b) && b.c <= a.c,
            );
            selects(
                &Ints::range_by_a_b_c_ts(a.a, a.b, a.c, a.ts..),
                &kb,
                (a.a, a.b, a.c) == (b.a, b.b, b.c) && b.ts >= a.ts,
            );
        }
        Pair::Floats(a, b) => order(&a, &b, 0, floats_key),
        Pair::Strings(a, b) => {
            order(&a, &b, 0, strings_key);
            let kb = b.encode_to_vec().unwrap();
            selects(
                &Strings::scan_by_s_t(&a.s, &a.t),
                &kb,
                (&a.s, &a.t) == (&b.s, &b.t),
            );
            selects(&Strings::range_by_s(a.s.as_str()..), &kb, b.s >= a.s);
            let all = Strings::scan_by_s_t_b_c_last(&a.s, &a.t, &a.b, &a.c, &a.last);
            selects(&all, &kb, a == b);
        }
        Pair::Options(a, b) => {
            order(&a, &b, 0, options_key);
            let kb = b.encode_to_vec().unwrap();
            selects(
                &Options::range_by_a_b(a.a, ..a.b),
                &kb,
                a.a == b.a && b.b < a.b,
            );
        }
        Pair::Fixed(a, b) => order(&a, &b, 0, fixed_key),
        Pair::Reversed(a, b) => {
            round_trip(&a);
            if let (Some(ka), Some(kb)) = (encode(&a), encode(&b)) {
                selects(&Reversed::scan_by_a(a.a), &kb, a.a == b.a);
                assert!(Reversed::scan_by_a(a.a).ranges().any(|r| r.contains(&ka)));
            }
        }
        Pair::Salted(a, b) => {
            order(&a, &b, 1, salted_key);
            let ka = a.encode_to_vec().unwrap();
            assert_eq!(Some(ka[0]), a.try_bucket().ok(), "{a:?}: salt byte");
            let kb = b.encode_to_vec().unwrap();
            let scan = Salted::scan_by_a_b_c_d(a.a, &a.b, a.c, a.d);
            assert_eq!(scan.range_count(), 1, "the by fields are fixed: one bucket");
            selects(&scan, &kb, (a.a, &a.b, a.c, a.d) == (b.a, &b.b, b.c, b.d));
        }
        Pair::SaltedJava(a, b) => {
            // The space pad keeps order only for bytes above it: round trip.
            for v in [a, b] {
                if let Some(k) = round_trip(&v) {
                    assert_eq!(Some(k[0]), v.try_bucket().ok());
                }
            }
        }
        Pair::Text(a, b) => {
            // A delimited string does not sort by value: round trip, the
            // bucket digits, and equality scans on every prefix.
            let (Some(ka), Some(kb)) = (round_trip(&a), round_trip(&b)) else {
                return;
            };
            assert_eq!(ka[0] - b'0', a.try_bucket().unwrap());
            assert_eq!(String::from_utf8(ka.clone()).ok(), a.encode_to_string().ok());
            if let Ok(scan) = Text::scan_by_phone_ts_user(a.phone, a.ts, &a.user) {
                let same = (a.phone, a.ts, &a.user) == (b.phone, b.ts, &b.user);
                selects(&scan, &kb, same);
            }
        }
        Pair::Fam(row, a, b) => {
            // The enum round-trips every family; a family's keys sort by
            // value after its prefix and salt, and its scans stay inside it.
            if let Some(key) = encode(&row) {
                assert_eq!(Fam::decode(&key).unwrap(), row);
            }
            order(&a, &b, FamEvent::SALT_LEN, fam_event_key);
            let Some(kb) = encode(&b) else { return };
            selects(&FamEvent::scan_by_device(a.device), &kb, a.device == b.device);
            selects(
                &FamEvent::range_by_device_level(a.device, ..a.level),
                &kb,
                a.device == b.device && b.level < a.level,
            );
        }
        Pair::TextOrdered(a, b) => {
            order(&a, &b, TextOrdered::SALT_LEN, text_ordered_key);
            let Some(kb) = encode(&b) else { return };
            let scan = TextOrdered::range_by_a_b(a.a, ..=a.b);
            selects(&scan, &kb, a.a == b.a && b.b <= a.b);
        }
    }
});
