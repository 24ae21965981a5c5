//! ISO-8601 timestamps (as the CLI writes them in transcript entries) to
//! Unix epoch milliseconds, without a date-time dependency.

/// `YYYY-MM-DD[T ]HH:MM[:SS[.fff...]][Z|±HH[:]MM]` to epoch milliseconds;
/// `None` for anything else. A timestamp without an offset is taken as UTC.
pub(crate) fn iso_to_epoch_ms(ts: &str) -> Option<i64> {
    let b = ts.as_bytes();
    let num = |range: std::ops::Range<usize>| -> Option<i64> {
        let digits = b.get(range)?;
        if !digits.iter().all(u8::is_ascii_digit) {
            return None;
        }
        std::str::from_utf8(digits).ok()?.parse().ok()
    };
    if b.get(4) != Some(&b'-')
        || b.get(7) != Some(&b'-')
        || !matches!(b.get(10), Some(b'T' | b't' | b' '))
        || b.get(13) != Some(&b':')
    {
        return None;
    }
    let (year, month, day) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (hour, minute) = (num(11..13)?, num(14..16)?);
    let mut pos = 16;
    let mut second = 0;
    let mut millis = 0;
    if b.get(pos) == Some(&b':') {
        second = num(pos + 1..pos + 3)?;
        pos += 3;
        if matches!(b.get(pos), Some(b'.' | b',')) {
            pos += 1;
            let start = pos;
            while b.get(pos).is_some_and(u8::is_ascii_digit) {
                pos += 1;
            }
            if pos == start {
                return None;
            }
            // Milliseconds: the first three fraction digits, zero-padded.
            let frac = &ts[start..pos.min(start + 3)];
            millis = format!("{frac:0<3}").parse::<i64>().ok()?;
        }
    }
    let offset_minutes = match b.get(pos) {
        None => 0,
        Some(b'Z' | b'z') if pos + 1 == b.len() => 0,
        Some(sign @ (b'+' | b'-')) => {
            let hours = num(pos + 1..pos + 3)?;
            let rest = pos + 3;
            let minutes = match b.get(rest) {
                Some(b':') if rest + 3 == b.len() => num(rest + 1..rest + 3)?,
                None => 0,
                Some(_) if rest + 2 == b.len() => num(rest..rest + 2)?,
                _ => return None,
            };
            let total = hours * 60 + minutes;
            if *sign == b'+' { total } else { -total }
        }
        _ => return None,
    };
    if !(1..=12).contains(&month)
        || !(1..=31).contains(&day)
        || hour > 23
        || minute > 59
        || second > 60
    {
        return None;
    }
    let days = days_from_civil(year, month, day);
    let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset_minutes * 60;
    Some(seconds * 1000 + millis)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
/// algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::iso_to_epoch_ms;

    #[test]
    fn parses_the_cli_timestamp_forms() {
        assert_eq!(iso_to_epoch_ms("1970-01-01T00:00:00.000Z"), Some(0));
        assert_eq!(
            iso_to_epoch_ms("2024-01-01T00:00:01.000Z"),
            Some(1_704_067_201_000)
        );
        assert_eq!(
            iso_to_epoch_ms("2024-02-29T12:30:45.5Z"),
            Some(1_709_209_845_500)
        );
        assert_eq!(
            iso_to_epoch_ms("2024-01-01T01:00:00+01:00"),
            Some(1_704_067_200_000)
        );
        assert_eq!(
            iso_to_epoch_ms("2024-01-01T00:00:00.123456-0030"),
            Some(1_704_069_000_123)
        );
        assert_eq!(iso_to_epoch_ms("2024-01-01T00:00"), Some(1_704_067_200_000));
    }

    #[test]
    fn rejects_what_is_not_a_timestamp() {
        for bad in [
            "",
            "yesterday",
            "2024-13-01T00:00:00Z",
            "2024-01-01",
            "2024-01-01T00:00:00Zjunk",
            "2024-01-01T00:00:00.",
        ] {
            assert_eq!(iso_to_epoch_ms(bad), None, "{bad}");
        }
    }
}
