//! The timeline: samples over the run's time per CPU, by module and by job, aggregated while
//! the .SMP files stream by into a fixed number of time buckets, so that its memory does not
//! grow with the input.
//!
//! Time comes from the blocks' trailers (TOD clock when the block was full, or when the run
//! ended for the last, partial block): the entries of a block are spread evenly over the time
//! between the previous block's timestamp (the run's start for a file's first block) and its
//! own.

use super::rows::{job_of, place};
use super::samples::{Fast, Key};
use hcpumf_formats::map::MapFile;
use hcpumf_formats::smp::Trailer;

/// Time buckets of the run.
pub const BUCKETS: usize = 200;
/// Groups of a kind beyond which new ones count as "other" (memory stays bounded whatever
/// the input's address spaces).
const MAX_GROUPS: usize = 256;
/// The group of what is not shown by name.
pub const OTHER: &str = "other";

/// The bucket of TOD `t` in a timeline from `t0` to `t1`.
fn bucket(t0: u64, t1: u64, t: u64) -> usize {
    if t <= t0 {
        return 0;
    }
    let span = u128::from(t1 - t0) + 1;
    ((u128::from(t - t0) * BUCKETS as u128 / span) as usize).min(BUCKETS - 1)
}

/// What the timeline is coloured by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Module = 0,
    Job = 1,
}

/// One CPU's samples: per kind, per group, per time bucket.
pub struct Series {
    pub cpu: u16,
    pub counts: [Vec<[u64; BUCKETS]>; 2],
}

/// Group names of one kind (index 0: "other").
#[derive(Default)]
struct Groups {
    names: Vec<String>,
    index: Fast<String, u16>,
}

impl Groups {
    fn id(&mut self, name: &str) -> u16 {
        if self.names.is_empty() {
            self.names.push(OTHER.into());
        }
        if let Some(&i) = self.index.get(name) {
            return i;
        }
        if self.names.len() >= MAX_GROUPS {
            return 0;
        }
        let i = self.names.len() as u16;
        self.names.push(name.to_string());
        self.index.insert(name.to_string(), i);
        i
    }
}

/// The timeline of a run from TOD `t0` to `t1`.
pub struct Timeline {
    pub t0: u64,
    pub t1: u64,
    groups: [Groups; 2],
    /// Per entry of the report's `Addresses`: its module group (bits 0-15) and job group
    /// (bits 16-31).
    entry: Vec<u32>,
    pub series: Vec<Series>,
}

impl Timeline {
    pub fn new(t0: u64, t1: u64) -> Timeline {
        let mut t = Timeline {
            t0,
            t1: t1.max(t0),
            groups: Default::default(),
            entry: Vec::new(),
            series: Vec::new(),
        };
        t.groups[0].id(OTHER);
        t.groups[1].id(OTHER);
        t
    }

    /// Seconds the timeline covers.
    pub fn seconds(&self) -> f64 {
        (self.t1 - self.t0) as f64 / 4096e6
    }

    /// Do the blocks' timestamps span any time at all?
    pub fn has_time(&self) -> bool {
        self.t1 > self.t0
    }

    /// The groups of entries `entry.len()..` of the report's addresses, new since the last
    /// call, through the map.
    pub fn classify(&mut self, entries: &[(Key, super::samples::Count)], m: &MapFile, bucket: u64) {
        for &((tag, ia), _) in entries.iter().skip(self.entry.len()) {
            let asid = tag.asid();
            let p = place(m, asid, ia, bucket);
            let job = match job_of(m, asid, p.common) {
                "-" => format!("ASID {asid:04X}"),
                j => j.to_string(),
            };
            let module = self.groups[0].id(p.module);
            let job = self.groups[1].id(&job);
            self.entry.push(u32::from(module) | (u32::from(job) << 16));
        }
    }

    /// The series of CPU `cpu` (made on first use).
    pub fn series_of(&mut self, cpu: u16) -> usize {
        match self.series.iter().position(|s| s.cpu == cpu) {
            Some(i) => i,
            None => {
                self.series.push(Series {
                    cpu,
                    counts: [Vec::new(), Vec::new()],
                });
                self.series.len() - 1
            }
        }
    }

    /// The groups of entry `i` of `entries` (classified on first sight).
    #[inline]
    fn groups_of(
        &mut self,
        i: usize,
        entries: &[(Key, super::samples::Count)],
        m: &MapFile,
        bucket: u64,
    ) -> u32 {
        match self.entry.get(i) {
            Some(&g) => g,
            None => {
                self.classify(entries, m, bucket);
                self.entry.get(i).copied().unwrap_or(0)
            }
        }
    }

    /// Count `n` samples of the groups `g` (packed as in `entry`) in bucket `b` of series `s`.
    fn count(&mut self, s: usize, g: u32, b: usize, n: u64) {
        self.count_kind(s, 0, (g & 0xFFFF) as usize, b, n);
        self.count_kind(s, 1, (g >> 16) as usize, b, n);
    }

    /// Count `n` samples of group `group` of a kind in bucket `b` of series `s`.
    fn count_kind(&mut self, s: usize, kind: usize, group: usize, b: usize, n: u64) {
        let rows = &mut self.series[s].counts[kind];
        if rows.len() <= group {
            rows.resize(self.groups[kind].names.len().max(group + 1), [0; BUCKETS]);
        }
        rows[group][b] += n;
    }

    /// The names of a kind's groups (index 0: "other").
    pub fn names(&self, kind: Kind) -> &[String] {
        &self.groups[kind as usize].names
    }

    /// The `n` groups of a kind with the most samples (most first), never "other"; each with
    /// its samples.
    pub fn top(&self, kind: Kind, n: usize) -> Vec<(u16, u64)> {
        let names = self.names(kind);
        let mut total = vec![0u64; names.len()];
        for s in &self.series {
            for (g, row) in s.counts[kind as usize].iter().enumerate() {
                total[g] += row.iter().sum::<u64>();
            }
        }
        let mut v: Vec<(u16, u64)> = total
            .iter()
            .enumerate()
            .skip(1)
            .filter(|(_, &t)| t > 0)
            .map(|(g, &t)| (g as u16, t))
            .collect();
        v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        v.truncate(n);
        v
    }

    /// A series' buckets for the groups `shown` (in order) and, last, everything else.
    pub fn stacks(&self, s: &Series, kind: Kind, shown: &[u16]) -> Vec<[u64; BUCKETS]> {
        let mut out = vec![[0u64; BUCKETS]; shown.len() + 1];
        for (g, row) in s.counts[kind as usize].iter().enumerate() {
            let i = shown
                .iter()
                .position(|&x| usize::from(x) == g)
                .unwrap_or(shown.len());
            for (o, v) in out[i].iter_mut().zip(row.iter()) {
                *o += v;
            }
        }
        out
    }
}

/// A CPU file's place in the timeline while it streams: its series, the previous block's
/// timestamp and the current block. A block within one time bucket (nearly all) is counted as
/// its samples come, in runs of the same groups, into per-group counts of the bucket that
/// go to the series when the bucket changes; a block that spans buckets is kept (126
/// entries at most) until its end, when the number of its samples is known.
pub struct Cursor {
    series: usize,
    prev: u64,
    from: u64,
    tod: u64,
    /// The block's bucket when it lies within one.
    bucket: Option<usize>,
    run: (u32, u64),
    block: Vec<u32>,
    /// Samples per module and job group (ids below MAX_GROUPS) of the bucket `pending_at`.
    pending: Box<[[u64; MAX_GROUPS]; 2]>,
    pending_at: Option<usize>,
}

impl Cursor {
    pub fn new(t: &mut Timeline, cpu: u16) -> Cursor {
        Cursor {
            series: t.series_of(cpu),
            prev: t.t0,
            from: t.t0,
            tod: t.t0,
            bucket: None,
            run: (0, 0),
            block: Vec::with_capacity(128),
            pending: Box::new([[0; MAX_GROUPS]; 2]),
            pending_at: None,
        }
    }

    /// The pending counts to the series.
    fn flush(&mut self, t: &mut Timeline) {
        let Some(b) = self.pending_at.take() else {
            return;
        };
        for kind in 0..2 {
            for g in 0..MAX_GROUPS {
                let n = std::mem::take(&mut self.pending[kind][g]);
                if n > 0 {
                    t.count_kind(self.series, kind, g, b, n);
                }
            }
        }
    }

    #[inline]
    fn end_run(&mut self) {
        let (g, n) = self.run;
        if n > 0 {
            self.pending[0][g as usize % MAX_GROUPS] += n;
            self.pending[1][(g >> 16) as usize % MAX_GROUPS] += n;
        }
    }

    #[inline]
    pub fn block(&mut self, t: &mut Timeline, trailer: &Trailer) {
        self.block.clear();
        self.tod = trailer.tod();
        // A timestamp before the previous one (damaged, or a file of another run) is a
        // moment, not a span.
        self.from = if self.tod >= self.prev {
            self.prev
        } else {
            self.tod
        };
        let (b0, b1) = (bucket(t.t0, t.t1, self.from), bucket(t.t0, t.t1, self.tod));
        self.bucket = (b0 == b1).then_some(b0);
        if self.bucket.is_some() && self.pending_at != self.bucket {
            self.flush(t);
            self.pending_at = self.bucket;
        }
        self.run = (0, 0);
    }

    /// A sample of entry `i` of `entries`.
    #[inline]
    pub fn sample(
        &mut self,
        t: &mut Timeline,
        i: usize,
        entries: &[(Key, super::samples::Count)],
        m: &MapFile,
        bucket: u64,
    ) {
        let g = t.groups_of(i, entries, m, bucket);
        if self.bucket.is_some() {
            if self.run.0 == g {
                self.run.1 += 1;
            } else {
                self.end_run();
                self.run = (g, 1);
            }
        } else {
            self.block.push(g);
        }
    }

    #[inline]
    pub fn block_end(&mut self, t: &mut Timeline) {
        if self.bucket.is_some() {
            self.end_run();
        } else {
            // Spread over the block's time: sample k of n at from + (k + 1/2) / n.
            let n = self.block.len() as u128;
            let span = u128::from(self.tod - self.from);
            for (k, &g) in self.block.iter().enumerate() {
                let at = self.from + (span * (2 * k as u128 + 1) / (2 * n)) as u64;
                t.count(self.series, g, bucket(t.t0, t.t1, at), 1);
            }
        }
        self.prev = self.tod;
        self.run = (0, 0);
        self.block.clear();
    }

    /// The file is done: its pending counts to the series.
    pub fn finish(&mut self, t: &mut Timeline) {
        self.flush(t);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::samples::{Addresses, Tag};
    use hcpumf_formats::smp::Bsde;

    /// A block's entries are spread over the time since the previous block; the groups are
    /// the map's modules and jobs.
    #[test]
    fn blocks_spread_over_their_time() {
        let m = hcpumf_formats::map::parse(
            "I MODE 64-BIT\n\
             AX0021DEMOJOB 00000000000089000000000000008900\n\
             MX0021HOTLOOP 000000000002000000000000000200FF\n",
        );
        let mut a = Addresses::default();
        let t0 = 1_000_000u64;
        let mut t = Timeline::new(t0, t0 + 200 * 1000 - 1);
        let mut c = Cursor::new(&mut t, 3);
        let s = |ia: u64| Bsde {
            ia,
            primary_asn: 0x21,
            ..Default::default()
        };
        // Block 1: 10 samples from t0 to t0 + 10 buckets: one per bucket.
        c.block(
            &mut t,
            &Trailer {
                timestamp: hcpumf_formats::sdb::Timestamp::Stck(t0 + 10_000),
                ..Default::default()
            },
        );
        for _ in 0..10 {
            let i = a.add(&s(0x20010), Tag::of_cpu(3));
            c.sample(&mut t, i, &a.entries, &m, 4096);
        }
        c.block_end(&mut t);
        // Block 2: 4 samples within bucket 10.
        c.block(
            &mut t,
            &Trailer {
                timestamp: hcpumf_formats::sdb::Timestamp::Stck(t0 + 10_500),
                ..Default::default()
            },
        );
        for _ in 0..4 {
            let i = a.add(&s(0x90000), Tag::of_cpu(3));
            c.sample(&mut t, i, &a.entries, &m, 4096);
        }
        c.block_end(&mut t);
        c.finish(&mut t);
        let top = t.top(Kind::Module, 5);
        let names: Vec<&str> = top
            .iter()
            .map(|(g, _)| t.names(Kind::Module)[usize::from(*g)].as_str())
            .collect();
        assert_eq!(names, ["HOTLOOP", "<NoModule>"]);
        let shown: Vec<u16> = top.iter().map(|x| x.0).take(1).collect();
        let st = t.stacks(&t.series[0], Kind::Module, &shown);
        assert_eq!(st.len(), 2);
        assert_eq!(&st[0][..11], &[1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0]);
        assert_eq!(st[1][10], 4, "the rest is 'other'");
        let jobs = t.top(Kind::Job, 5);
        assert_eq!(jobs.len(), 1);
        assert_eq!(t.names(Kind::Job)[usize::from(jobs[0].0)], "DEMOJOB");
        assert_eq!(jobs[0].1, 14);
    }
}
