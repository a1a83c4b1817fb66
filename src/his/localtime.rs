//! The host's local time, as z/OS writes the times of its HIS files: the .CNT's START TIME
//! and END TIME, the files' `yyyymmdd.hhmmss` and the .MAP's `I DATE` and `I TIME` are local
//! (Redbook SG24-7857 Example 2-6: START TIME 12:13:54 beside a START TOD of 17:13:54 UTC),
//! while the TODs stay UTC. The time zone is the host's: `TZ` in Hercules' environment, else
//! the system's (`localtime_r`); the formats crate only formats what it is given.

use hcpumf_formats::time::Civil;
use std::time::{SystemTime, UNIX_EPOCH};

extern "C" {
    /// POSIX: set the C library's time zone from `TZ` (not in the libc crate for Linux).
    fn tzset();
}

/// The local date and time of `t` (UTC when the C library cannot convert it).
pub fn local(t: SystemTime) -> Civil {
    let d = t.duration_since(UNIX_EPOCH).unwrap_or_default();
    let Ok(secs) = libc::time_t::try_from(d.as_secs()) else {
        return Civil::utc(t);
    };
    // SAFETY: tzset only reads TZ into the C library's own state; localtime_r writes the
    // `tm` it is given and nothing else, and either returns it or null.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    let ok = unsafe {
        tzset();
        !libc::localtime_r(&secs, &mut tm).is_null()
    };
    if !ok {
        return Civil::utc(t);
    }
    Civil {
        year: (tm.tm_year + 1900).max(0) as u32,
        month: (tm.tm_mon + 1) as u8,
        day: tm.tm_mday as u8,
        hour: tm.tm_hour as u8,
        minute: tm.tm_min as u8,
        // A leap second (60) is kept as the C library gives it.
        second: tm.tm_sec as u8,
        centis: (d.subsec_millis() / 10) as u8,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// Example 2-6's run: its START TOD C592FB9B1DB68F92 is 2010-02-21 17:13:54 UTC, and the
    /// file says 12:13:54 (US Eastern time, UTC-5 in February). The time zone comes from TZ,
    /// so the test sets it (other tests of this binary do not look at the local time).
    #[test]
    fn local_time_follows_tz() {
        // TOD C592FB9B1DB68F92: bits 0-51 microseconds since 1900; 2,208,988,800 s to 1970.
        let us = 0xC592_FB9B_1DB6_8F92u64 >> 12;
        let t = UNIX_EPOCH + Duration::from_micros(us - 2_208_988_800_000_000);
        std::env::set_var("TZ", "EST5EDT");
        let c = local(t);
        assert_eq!(c.his_time(), "2010/02/21 12:13:54");
        assert_eq!(c.file_stamp(), "20100221.121354");
        std::env::set_var("TZ", "UTC");
        assert_eq!(local(t).his_time(), "2010/02/21 17:13:54");
        std::env::remove_var("TZ");
    }
}
