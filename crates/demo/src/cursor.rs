//! Opaque keyset cursors: the last row's `(createdAt, id)`, bound to the list and the filters
//! they were issued for, so a cursor used elsewhere is refused with 400 `invalid_cursor`.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use uuid::Uuid;

use super::query::ApiErr;

/// The sort key of a row: API order is this key descending.
pub(crate) type Key = (i128, Uuid);

/// Layout: kind (1) · createdAt in ns (16) · id (16) · filter hash (8) · check (4).
const LEN: usize = 45;

/// Encodes a cursor for the row with `key`, issued for list `kind` and filter hash `filter`.
pub(crate) fn encode(kind: u8, key: Key, filter: u64) -> String {
    let mut b = Vec::with_capacity(LEN);
    b.push(kind);
    b.extend_from_slice(&key.0.to_be_bytes());
    b.extend_from_slice(key.1.as_bytes());
    b.extend_from_slice(&filter.to_be_bytes());
    let check = fnv1a(&b) as u32;
    b.extend_from_slice(&check.to_be_bytes());
    URL_SAFE_NO_PAD.encode(b)
}

/// Decodes a cursor; anything not issued by [`encode`] for this list and filter is a 400.
pub(crate) fn decode(s: &str, kind: u8, filter: u64) -> Result<Key, ApiErr> {
    let bad = |why: &str| ApiErr::invalid_cursor(format!("cursor is not valid: {why}"));
    let b = URL_SAFE_NO_PAD
        .decode(s)
        .map_err(|_| bad("not a cursor this server issued"))?;
    if b.len() != LEN {
        return Err(bad("not a cursor this server issued"));
    }
    let (body, check) = b.split_at(LEN - 4);
    if check != (fnv1a(body) as u32).to_be_bytes() {
        return Err(bad("it was altered"));
    }
    if body[0] != kind {
        return Err(bad("it belongs to the other list"));
    }
    let mut ns = [0u8; 16];
    ns.copy_from_slice(&body[1..17]);
    let mut id = [0u8; 16];
    id.copy_from_slice(&body[17..33]);
    let mut f = [0u8; 8];
    f.copy_from_slice(&body[33..41]);
    if u64::from_be_bytes(f) != filter {
        return Err(bad("it was issued for other filters"));
    }
    Ok((i128::from_be_bytes(ns), Uuid::from_bytes(id)))
}

/// FNV-1a, 64 bits.
pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// A hash of the filter's canonical form (normalised values, fixed order).
pub(crate) fn filter_hash(parts: &[(&str, Option<String>)]) -> u64 {
    let mut s = Vec::with_capacity(128);
    for (k, v) in parts {
        s.extend_from_slice(k.as_bytes());
        s.push(b'=');
        match v {
            Some(v) => {
                s.push(b'1');
                s.extend_from_slice(v.as_bytes());
            }
            None => s.push(b'0'),
        }
        s.push(0);
    }
    fnv1a(&s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_refusals() {
        let key = (1_795_348_800_000_000_000i128, Uuid::from_u128(42));
        let c = encode(b'c', key, 7);
        assert_eq!(decode(&c, b'c', 7).ok(), Some(key));
        assert!(decode(&c, b'v', 7).is_err());
        assert!(decode(&c, b'c', 8).is_err());
        assert!(decode("!!", b'c', 7).is_err());
        let mut tampered = c.clone().into_bytes();
        tampered[5] = if tampered[5] == b'A' { b'B' } else { b'A' };
        let tampered = String::from_utf8(tampered).unwrap();
        assert!(decode(&tampered, b'c', 7).is_err());
    }

    #[test]
    fn filter_hash_tells_absent_from_empty() {
        assert_ne!(
            filter_hash(&[("a", None)]),
            filter_hash(&[("a", Some(String::new()))])
        );
    }
}
