//! What a careful engineer writes by hand for exactly the benchmarked
//! layouts: the baselines of both benchmarks.

#[inline]
pub fn encode_event(user_id: u64, ts: i64, kind: u8) -> [u8; 18] {
    let mut k = [0u8; 18];
    k[1..9].copy_from_slice(&user_id.to_be_bytes());
    k[9..17].copy_from_slice(&i64::MAX.wrapping_sub(ts).to_be_bytes());
    k[17] = kind;
    k[0] = (xxhash_rust::xxh3::xxh3_64(&k[1..9]) % 16) as u8;
    k
}

#[inline]
pub fn decode_event(k: &[u8]) -> Option<(u64, i64, u8)> {
    let k: &[u8; 18] = k.try_into().ok()?;
    if k[0] >= 16 {
        return None;
    }
    let user_id = u64::from_be_bytes(k[1..9].try_into().unwrap());
    let ts = i64::MAX.wrapping_sub(i64::from_be_bytes(k[9..17].try_into().unwrap()));
    Some((user_id, ts, k[17]))
}

#[inline]
pub fn encode_named(user_id: u64, name: &str, seq: u32) -> Option<[u8; 29]> {
    let b = name.as_bytes();
    if b.len() > 16 || b.last() == Some(&0) {
        return None;
    }
    let mut k = [0u8; 29];
    k[1..9].copy_from_slice(&user_id.to_be_bytes());
    k[9..9 + b.len()].copy_from_slice(b);
    k[25..29].copy_from_slice(&seq.to_be_bytes());
    k[0] = (xxhash_rust::xxh3::xxh3_64(&k[1..9]) % 16) as u8;
    Some(k)
}

#[inline]
pub fn decode_named(k: &[u8]) -> Option<(u64, &str, u32)> {
    let k: &[u8; 29] = k.try_into().ok()?;
    if k[0] >= 16 {
        return None;
    }
    let user_id = u64::from_be_bytes(k[1..9].try_into().unwrap());
    let name = &k[9..25];
    let len = name.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
    let name = std::str::from_utf8(&name[..len]).ok()?;
    Some((
        user_id,
        name,
        u32::from_be_bytes(k[25..29].try_into().unwrap()),
    ))
}

/// 00 -> 00 FF, then 00 01, with memchr: the escaper to beat.
#[inline]
pub fn escape_into(s: &[u8], out: &mut [u8]) -> usize {
    let mut w = 0;
    let mut rest = s;
    while let Some(i) = memchr::memchr(0, rest) {
        out[w..w + i].copy_from_slice(&rest[..i]);
        out[w + i] = 0;
        out[w + i + 1] = 0xFF;
        w += i + 2;
        rest = &rest[i + 1..];
    }
    out[w..w + rest.len()].copy_from_slice(rest);
    w += rest.len();
    out[w] = 0;
    out[w + 1] = 1;
    w + 2
}
