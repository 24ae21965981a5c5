//! Random bits without an RNG dependency. The standard library draws its
//! hash keys from the OS once per thread and steps them for each
//! `RandomState`, so hashing nothing under a fresh one gives 64 bits that
//! differ from call to call. Enough for ids that must not collide and for
//! jitter; not for secrets.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};

/// 64 random bits.
pub(crate) fn bits() -> u64 {
    RandomState::new().build_hasher().finish()
}

/// A uniform draw from `[0, 1)`.
#[cfg(feature = "host")]
pub(crate) fn unit() -> f64 {
    (bits() >> 11) as f64 / (1u64 << 53) as f64
}

/// A random (version 4) UUID, hyphenated and lower-case, as the CLI
/// writes its own.
pub(crate) fn uuid_v4() -> String {
    let hi = (bits() & !0xF000) | 0x4000;
    let lo = (bits() & !(0b11 << 62)) | (0b10 << 62);
    format!(
        "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
        hi >> 32,
        (hi >> 16) & 0xFFFF,
        hi & 0xFFFF,
        lo >> 48,
        lo & 0xFFFF_FFFF_FFFF
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuids_are_version_4_rfc_variant_and_distinct() {
        let ids: std::collections::BTreeSet<String> = (0..1000).map(|_| uuid_v4()).collect();
        assert_eq!(ids.len(), 1000);
        for id in &ids {
            assert!(crate::session_id::is_session_id(id), "{id}");
            assert_eq!(&id[14..15], "4", "{id}");
            assert!(matches!(&id[19..20], "8" | "9" | "a" | "b"), "{id}");
        }
    }

    #[cfg(feature = "host")]
    #[test]
    fn unit_draws_stay_in_range_and_vary() {
        let draws: Vec<f64> = (0..1000).map(|_| unit()).collect();
        assert!(draws.iter().all(|u| (0.0..1.0).contains(u)));
        let mean = draws.iter().sum::<f64>() / draws.len() as f64;
        assert!((0.3..0.7).contains(&mean), "{mean}");
    }
}
