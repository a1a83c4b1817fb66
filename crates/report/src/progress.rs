//! A progress bar on stderr while a report reads large input (over [`LARGE`] bytes of
//! .SMP) and stderr is a terminal; nothing otherwise, so that logs and pipes stay clean.

use std::io::{IsTerminal, Read, Write};
use std::time::{Duration, Instant};

/// Input from which on a report shows its progress.
pub const LARGE: u64 = 64 << 20;

/// Progress through the bytes of the input.
pub struct Progress {
    total: u64,
    done: u64,
    started: Instant,
    last: Option<Instant>,
    /// Characters of the bar last drawn.
    drawn: usize,
}

impl Progress {
    /// A progress bar over `total` bytes, if `total` is large and stderr a terminal.
    pub fn for_input(total: u64) -> Option<Progress> {
        let tty = std::io::stderr().is_terminal();
        (total > LARGE && tty).then(|| Progress {
            total,
            done: 0,
            started: Instant::now(),
            last: None,
            drawn: 0,
        })
    }

    /// `n` more bytes read: redraw at most ten times a second.
    pub fn advance(&mut self, n: u64) {
        self.done += n;
        let now = Instant::now();
        if self
            .last
            .is_some_and(|l| now.duration_since(l) < Duration::from_millis(100))
        {
            return;
        }
        self.last = Some(now);
        let line = bar(
            self.done,
            self.total,
            self.started.elapsed().as_secs_f64(),
            30,
        );
        self.drawn = line.chars().count();
        let mut e = std::io::stderr().lock();
        let _ = write!(e, "\r{line}");
        let _ = e.flush();
    }

    /// Clear the bar's line.
    pub fn finish(&mut self) {
        if self.drawn > 0 {
            let mut e = std::io::stderr().lock();
            let _ = write!(e, "\r{:w$}\r", "", w = self.drawn);
            let _ = e.flush();
            self.drawn = 0;
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
    }
}

/// The bar's text: `[#######.......]  45%  461/1024 MB  812 MB/s`.
pub fn bar(done: u64, total: u64, secs: f64, width: usize) -> String {
    let frac = if total == 0 {
        1.0
    } else {
        (done as f64 / total as f64).clamp(0.0, 1.0)
    };
    let full = (frac * width as f64).round() as usize;
    let mb = |b: u64| b >> 20;
    format!(
        "hcpumf-report: [{}{}] {:>3.0}% {}/{} MB {:.0} MB/s",
        "#".repeat(full),
        ".".repeat(width - full),
        frac * 100.0,
        mb(done),
        mb(total),
        mb(done) as f64 / secs.max(1e-3)
    )
}

/// A reader that tells a progress bar what it read.
pub struct Counting<'a, R> {
    pub inner: R,
    pub progress: Option<&'a mut Progress>,
}

impl<R: Read> Read for Counting<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        if let Some(p) = self.progress.as_deref_mut() {
            p.advance(n as u64);
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bar_shows_the_share_read() {
        assert_eq!(
            bar(512 << 20, 1024 << 20, 0.5, 10),
            "hcpumf-report: [#####.....]  50% 512/1024 MB 1024 MB/s"
        );
        assert!(bar(0, 0, 0.0, 4).contains("[####] 100%"));
        assert!(bar(5, 1, 1.0, 4).contains("[####] 100%"));
    }
}
