//! SMFINTVAL: the run's counters every N seconds into `SYSHIS....INT` ([`hcpumf_formats::int`]
//! has the layout). The run's timer calls [`Intervals::tick`] every 200 ms; a line per CPU is
//! appended when an interval is due, and END writes the last, shorter one from the same
//! snapshots as the .CNT, so that the intervals add up to the .CNT's deltas.

use crate::his::counters::{RunCounters, Snap};
use crate::his::files::FileError;
use crate::host::model;
use hcpumf_formats::int::{render_header, render_row, IntHeader};
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A run's interval file.
pub struct Intervals {
    pub name: String,
    /// `name` in the run's PATH, for the errors.
    path: PathBuf,
    file: Option<File>,
    every: Duration,
    next: Instant,
    prev: Vec<Option<Snap>>,
    /// Intervals written (one line per CPU each).
    pub written: u64,
    /// Why writing stopped (disk full); reported at END.
    pub error: Option<FileError>,
}

impl Intervals {
    /// Create `{id}.INT` in `dir` with its header; the first interval ends `secs` from now.
    pub fn create(
        dir: &Path,
        id: &str,
        secs: u64,
        c: &RunCounters,
    ) -> Result<Intervals, FileError> {
        let name = format!("{id}.INT");
        let header = render_header(&IntHeader {
            file_name: name.clone(),
            interval_secs: secs,
            start_tod: c.start_tod,
            cpu_speed: model::current().cpu_speed,
            cfvn: model::current().cfvn,
            csvn: model::current().csvn,
            counters: c.interval_counters(),
        });
        let path = dir.join(&name);
        let mut file = match File::create(&path) {
            Ok(f) => f,
            Err(source) => return Err(FileError::Create { path, source }),
        };
        if let Err(source) = file.write_all(header.as_bytes()) {
            let _ = std::fs::remove_file(&path);
            return Err(FileError::Header { path, source });
        }
        let every = Duration::from_secs(secs);
        Ok(Intervals {
            name,
            path,
            file: Some(file),
            every,
            next: Instant::now() + every,
            prev: c.begin.clone(),
            written: 0,
            error: None,
        })
    }

    fn write(&mut self, c: &RunCounters, now: Vec<Option<Snap>>, tod: u64) {
        let mut text = String::new();
        for r in c.interval_rows(&self.prev, &now, tod) {
            text.push_str(&render_row(&r));
        }
        self.prev = now;
        if let Some(f) = self.file.as_mut() {
            match f.write_all(text.as_bytes()) {
                Ok(()) => self.written += 1,
                Err(source) => {
                    self.error = Some(FileError::Append {
                        path: self.path.clone(),
                        written: self.written,
                        source,
                    });
                    self.file = None;
                }
            }
        }
    }

    /// Write the interval that is due, if one is (`tod`: the TOD clock now).
    pub fn tick(&mut self, c: &RunCounters, tod: u64) {
        let now = Instant::now();
        if now < self.next {
            return;
        }
        self.write(c, c.snaps_now(), tod);
        // After a stall of more than an interval, the next ends one interval from now.
        self.next += self.every;
        if self.next <= now {
            self.next = now + self.every;
        }
    }

    /// END: the last interval, from the END snapshots `ends` at `tod`; the file's name, or
    /// why it is incomplete.
    pub fn finish(
        mut self,
        c: &RunCounters,
        ends: &[Option<Snap>],
        tod: u64,
    ) -> Result<String, FileError> {
        self.write(c, ends.to_vec(), tod);
        if let Some(f) = self.file.take() {
            if let Err(source) = f.sync_all() {
                return Err(FileError::Sync {
                    path: self.path.clone(),
                    source,
                });
            }
        }
        match self.error {
            Some(e) => Err(e),
            None => Ok(format!("{} ({} intervals)", self.name, self.written)),
        }
    }
}
