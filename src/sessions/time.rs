//! Timestamps as the CLI writes them.

/// Now as `YYYY-MM-DDTHH:MM:SS.mmmZ`, the CLI's timestamp format.
pub(crate) fn now_iso() -> String {
    let ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    let ms = i64::try_from(ms).unwrap_or(0);
    epoch_ms_to_iso(ms)
}

pub(crate) fn epoch_ms_to_iso(ms: i64) -> String {
    let (days, rem) = (ms.div_euclid(86_400_000), ms.rem_euclid(86_400_000));
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3_600_000,
        rem / 60_000 % 60,
        rem / 1000 % 60,
        rem % 1000
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_format_like_the_cli() {
        assert_eq!(epoch_ms_to_iso(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(
            epoch_ms_to_iso(1_709_209_845_500),
            "2024-02-29T12:30:45.500Z"
        );
        assert_eq!(epoch_ms_to_iso(-1), "1969-12-31T23:59:59.999Z");
        assert_eq!(now_iso().len(), "1970-01-01T00:00:00.000Z".len());
    }
}
