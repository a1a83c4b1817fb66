//! Calendar time for the HIS files, without a date crate. z/OS writes local time (Redbook
//! SG24-7857 Example 2-6: START TIME 12:13:54 beside a START TOD of 17:13:54 UTC, and the
//! file name SYSHIS20100221.121354 of that local time); the writers here take a [`Civil`]
//! the caller made in the time zone it wants (the plugin: the host's, `localtime_r`), and
//! [`Civil::utc`] is there for callers without a time zone. This crate stays free of
//! platform code: it only formats and parses.

/// A calendar date and time of day, in whatever time zone the caller made it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Civil {
    pub year: u32,
    /// 1-12.
    pub month: u8,
    /// 1-31.
    pub day: u8,
    pub hour: u8,
    pub minute: u8,
    pub second: u8,
    /// Hundredths of a second (the .MAP's `I TIME` carries them).
    pub centis: u8,
}

impl Civil {
    /// The UTC date and time of `t`.
    pub fn utc(t: std::time::SystemTime) -> Civil {
        let d = t.duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
        let (y, mo, da, h, mi, s) = civil(d.as_secs());
        Civil {
            year: y as u32,
            month: mo as u8,
            day: da as u8,
            hour: h as u8,
            minute: mi as u8,
            second: s as u8,
            centis: (d.subsec_millis() / 10) as u8,
        }
    }

    /// `yyyy/mm/dd hh:mm:ss`: the .CNT's START TIME and END TIME (Redbook Example 2-6).
    pub fn his_time(&self) -> String {
        format!(
            "{:04}/{:02}/{:02} {:02}:{:02}:{:02}",
            self.year, self.month, self.day, self.hour, self.minute, self.second
        )
    }

    /// `yyyymmdd.hhmmss`: the run's part of the file names (SYSHISyyyymmdd.hhmmss).
    pub fn file_stamp(&self) -> String {
        format!(
            "{:04}{:02}{:02}.{:02}{:02}{:02}",
            self.year, self.month, self.day, self.hour, self.minute, self.second
        )
    }

    /// `yyddd`: the .MAP's `I DATE` (Redbook Figure 4-8: "JULIAN DATE FROM CVT", `10048`).
    pub fn julian(&self) -> String {
        let doy = day_of_year(
            u64::from(self.year),
            u64::from(self.month),
            u64::from(self.day),
        );
        format!("{:02}{doy:03}", self.year % 100)
    }

    /// `hhmmsshh`: the .MAP's `I TIME` (Figure 4-7: `23392786`, hundredths last).
    pub fn map_time(&self) -> String {
        format!(
            "{:02}{:02}{:02}{:02}",
            self.hour, self.minute, self.second, self.centis
        )
    }
}

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

    /// The forms of the HIS files: Example 2-6's START TIME and file name, Figure 4-7's
    /// `I DATE10053` (22 February 2010) and `I TIME23392786`.
    #[test]
    fn his_forms() {
        let c = Civil {
            year: 2010,
            month: 2,
            day: 21,
            hour: 12,
            minute: 13,
            second: 54,
            centis: 0,
        };
        assert_eq!(c.his_time(), "2010/02/21 12:13:54");
        assert_eq!(c.file_stamp(), "20100221.121354");
        let m = Civil {
            day: 22,
            hour: 23,
            minute: 39,
            second: 27,
            centis: 86,
            ..c
        };
        assert_eq!(
            (m.julian(), m.map_time()),
            ("10053".into(), "23392786".into())
        );
        let t = std::time::UNIX_EPOCH + std::time::Duration::from_millis(1_795_471_641_250);
        assert_eq!(
            Civil::utc(t),
            Civil {
                year: 2026,
                month: 11,
                day: 23,
                hour: 22,
                minute: 7,
                second: 21,
                centis: 25
            }
        );
    }
}
