//! Calendar time for the HIS files (UTC), without a date crate.

/// UTC calendar date and time of a Unix time (days-from-civil inverse, Howard Hinnant).
pub fn civil(secs: u64) -> (u64, u64, u64, u64, u64, u64) {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y + 1 } else { y };
    (
        y as u64,
        m as u64,
        d as u64,
        rem / 3600,
        (rem % 3600) / 60,
        rem % 60,
    )
}

/// Day of the year (1-366) of a Gregorian date.
pub fn day_of_year(y: u64, m: u64, d: u64) -> u64 {
    const CUM: [u64; 12] = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334];
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    CUM[(m.clamp(1, 12) - 1) as usize] + d + u64::from(leap && m > 2)
}

/// Seconds since the Unix epoch (0 before it).
pub fn unix_secs(t: std::time::SystemTime) -> u64 {
    t.duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calendar_dates() {
        assert_eq!(civil(0), (1970, 1, 1, 0, 0, 0));
        // 2026-11-23 22:07:21 UTC.
        assert_eq!(civil(1_795_471_641), (2026, 11, 23, 22, 7, 21));
        // 2000-02-29 (a leap day of a year divisible by 400).
        assert_eq!(civil(951_782_400), (2000, 2, 29, 0, 0, 0));
        assert_eq!(day_of_year(2026, 11, 23), 327);
        assert_eq!(day_of_year(2000, 12, 31), 366);
        assert_eq!(day_of_year(1900, 3, 1), 60);
    }
}
