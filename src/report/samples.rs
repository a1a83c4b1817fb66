//! The samples of a run, aggregated while the .SMP files stream by: one count per distinct
//! (address space, instruction address), so that memory follows the code the guest ran, not
//! the size of the input. The map is applied afterwards, once per distinct address
//! ([`Rows::build`]), which keeps the per-sample work to one hash probe.

use crate::his::map::{MapEntry, MapFile};
use crate::his::smp::Sample;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Samples of one instruction address (or one row).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Count {
    /// Valid samples.
    pub samples: u64,
    /// Of those, busy ones (W = 0): the numerator of the CPI estimate.
    pub busy: u64,
    /// The sum of U over the busy samples: IBM's ISAMPLES ("samples that have the unique
    /// instruction bit on") when U is 0 or 1, and the architecture's denominator of the CPI
    /// estimate when a model completes several instructions at once (SA23-2260, "Number of
    /// Unique Instructions").
    pub unique: u64,
}

impl Count {
    fn add(&mut self, o: &Count) {
        self.samples += o.samples;
        self.busy += o.busy;
        self.unique += o.unique;
    }

    /// Cycles per instruction estimated from the samples: busy samples / sum of U.
    pub fn cpi(&self) -> Option<f64> {
        (self.unique > 0).then(|| self.busy as f64 / self.unique as f64)
    }
}

/// A multiplicative hash for the (address space, address) keys: std's SipHash would cost
/// more than the rest of the per-sample work.
#[derive(Default)]
pub struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.write_u64(u64::from(*b));
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x517C_C1B7_2722_0A95);
    }
    fn write_u16(&mut self, v: u16) {
        self.write_u64(u64::from(v));
    }
}

type Fast<K, V> = HashMap<K, V, BuildHasherDefault<KeyHasher>>;

/// The address space a sample counts for: the home ASID the guest program parameter carries
/// (z/OS's dispatcher, and hcpumf's MVS awareness, put it in bits 33-47), else the primary
/// ASN of the entry.
pub fn asid_of(s: &Sample) -> u16 {
    if s.gpp != 0 {
        ((s.gpp >> 16) & 0x7FFF) as u16
    } else {
        s.asn
    }
}

/// Slots of the direct-mapped cache in front of the index: a guest's hot loop fits.
const CACHE: usize = 512;

/// Every sample kept, by (address space, instruction address).
pub struct Addresses {
    index: Fast<(u16, u64), usize>,
    pub entries: Vec<((u16, u64), Count)>,
    /// Recently seen keys and their entries (most samples hit here, not the hash map).
    cache: Vec<((u16, u64), usize)>,
    /// All valid samples kept.
    pub total: Count,
    /// Invalid samples (I = 1) seen.
    pub invalid: u64,
}

impl Default for Addresses {
    fn default() -> Self {
        Addresses {
            index: Fast::default(),
            entries: Vec::new(),
            cache: vec![((u16::MAX, u64::MAX), usize::MAX); CACHE],
            total: Count::default(),
            invalid: 0,
        }
    }
}

impl Addresses {
    /// Count one sample.
    #[inline]
    pub fn add(&mut self, s: &Sample) {
        if s.invalid {
            self.invalid += 1;
            return;
        }
        let key = (asid_of(s), s.ia);
        let slot = ((s.ia >> 1) ^ (s.ia >> 13) ^ u64::from(key.0)) as usize % CACHE;
        let i = match self.cache[slot] {
            (k, i) if k == key => i,
            _ => {
                let n = self.entries.len();
                let i = *self.index.entry(key).or_insert(n);
                if i == n {
                    self.entries.push((key, Count::default()));
                }
                self.cache[slot] = (key, i);
                i
            }
        };
        let c = &mut self.entries[i].1;
        c.samples += 1;
        if !s.wait {
            c.busy += 1;
            c.unique += u64::from(s.unique);
        }
    }

    /// Sum the totals (after all samples are in).
    pub fn finish(&mut self) {
        let mut t = Count::default();
        for (_, c) in &self.entries {
            t.add(c);
        }
        self.total = t;
    }
}

/// How a row names its code: IBM's report prints `<COMMON>` for the job of common-area code,
/// `<NoModule>` and `<NoCSECT>` where the map names nothing.
pub const COMMON: &str = "<COMMON>";
pub const NO_MODULE: &str = "<NoModule>";
pub const NO_CSECT: &str = "<NoCSECT>";
/// The module of nucleus code, as IBM's report names it.
pub const NUCLEUS: &str = "Nucleus";

/// One row of the hot-spot table: a CSECT, a module, or an address bucket outside them.
#[derive(Clone, Debug, Default)]
pub struct Row {
    pub count: Count,
    /// PASN: the address space (0 for the common area, as IBM's report shows it).
    pub asid: u16,
    pub job: String,
    pub module: String,
    pub csect: String,
    pub start: u64,
    pub end: u64,
    /// The row's hottest instruction addresses and their samples (most first).
    pub hot: Vec<(u64, u64)>,
}

/// Places of the common area in a .MAP's boundary records (z/OS's and hcpumf's).
fn common_place(name: &str) -> bool {
    !matches!(name, "PRIVATE" | "EPRV" | "EPRIVATE")
}

fn in_nucleus(name: &str) -> bool {
    matches!(name, "NUC" | "RWNUC" | "RON" | "ERON" | "ERWN" | "DONUC")
}

/// The hot-spot rows of a run.
pub struct Rows {
    pub rows: Vec<Row>,
}

impl Rows {
    /// Attribute every distinct address through the map: to its CSECT (when the map has C
    /// records), else its module, else an address bucket of `bucket` bytes in the common
    /// area or the address space's private area. Rows come sorted by samples, most first;
    /// each keeps its `hot` hottest addresses.
    pub fn build(a: &Addresses, m: &MapFile, bucket: u64, hot: usize) -> Rows {
        let bucket = bucket.max(1);
        let mut index: Fast<(u16, u64, bool), usize> = Fast::default();
        let mut rows: Vec<Row> = Vec::new();
        let mut addrs: Vec<Vec<(u64, u64)>> = Vec::new();
        for &((asid, ia), c) in &a.entries {
            let module = m.module_at(asid, ia);
            let csect = if m.csects.is_empty() {
                None
            } else {
                m.csect_at(asid, ia)
            };
            let boundary = m
                .boundaries
                .iter()
                .find(|b| b.start <= ia && ia <= b.end && b.end >= b.start);
            let common = |e: &MapEntry| e.area != 'X';
            let (is_common, start, end, module_name) = match (csect, module) {
                (Some(cs), md) => (
                    common(cs),
                    cs.start,
                    cs.end,
                    md.map(|e| e.name.clone()).unwrap_or_else(|| {
                        if cs.area == 'N' {
                            NUCLEUS.to_string()
                        } else {
                            NO_MODULE.to_string()
                        }
                    }),
                ),
                (None, Some(md)) => (common(md), md.start, md.end, md.name.clone()),
                (None, None) => {
                    let b = ia / bucket * bucket;
                    let name = boundary.map(|b| b.name.as_str()).unwrap_or("");
                    let module = if in_nucleus(name) { NUCLEUS } else { NO_MODULE };
                    (
                        boundary.is_some_and(|b| common_place(&b.name)),
                        b,
                        b.saturating_add(bucket - 1),
                        module.to_string(),
                    )
                }
            };
            let pasn = if is_common { 0 } else { asid };
            let key = (pasn, start, is_common);
            let n = rows.len();
            let i = *index.entry(key).or_insert(n);
            if i == n {
                let job = if is_common {
                    COMMON.to_string()
                } else {
                    m.jobs.get(&asid).cloned().unwrap_or_else(|| "-".into())
                };
                rows.push(Row {
                    asid: pasn,
                    job,
                    module: module_name,
                    csect: csect
                        .map(|e| e.name.clone())
                        .unwrap_or_else(|| NO_CSECT.to_string()),
                    start,
                    end,
                    ..Default::default()
                });
                addrs.push(Vec::new());
            }
            rows[i].count.add(&c);
            addrs[i].push((ia, c.samples));
        }
        for (r, mut v) in rows.iter_mut().zip(addrs) {
            v.sort_by(|x, y| y.1.cmp(&x.1).then(x.0.cmp(&y.0)));
            v.truncate(hot);
            r.hot = v;
        }
        rows.sort_by(|a, b| {
            b.count
                .samples
                .cmp(&a.count.samples)
                .then(a.asid.cmp(&b.asid))
                .then(a.start.cmp(&b.start))
        });
        Rows { rows }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::his::map;

    fn sample(asid: u16, ia: u64, unique: u8) -> Sample {
        Sample {
            ia,
            unique,
            gpp: u64::from(asid) << 16,
            ..Default::default()
        }
    }

    /// IBM's columns (Redbook SG24-7857 Figure 4-9): CPI = SAMPLES / ISAMPLES per row, the
    /// common area's rows under <COMMON> with PASN 0000, <NoModule> and <NoCSECT> where the
    /// map names nothing, the nucleus as "Nucleus".
    #[test]
    fn rows_name_their_code_as_ibms_report_does() {
        let m = map::parse(
            "I MODE 64-BIT\n\
             B BDY NUC     0000000000000000000000000000FFFF\n\
             B BDY PRIVATE 000000000001000000000000007FFFFF\n\
             B BDY CSA     000000000080000000000000009FFFFF\n\
             AX0021DEMOJOB 00000000000089000000000000008900\n\
             MX0021HOTLOOP 000000000002000000000000000200FF\n\
             MPPLPAIEFBR14 0000000000A000000000000000A000FF\n",
        );
        assert!(m.problems.is_empty(), "{:?}", m.problems);
        let mut a = Addresses::default();
        // HOTLOOP: 300 samples, CPI 30 (10 with U = 1); IEFBR14 in two ASIDs: 40, CPI 4;
        // the nucleus 20; the CSA 10; private code outside any module 5.
        for i in 0..300 {
            a.add(&sample(0x21, 0x20000 + (i % 3) * 2, u8::from(i % 30 == 0)));
        }
        for i in 0..40 {
            a.add(&sample(
                0x21 + (i % 2) as u16,
                0xA00010,
                u8::from(i % 4 == 0),
            ));
        }
        for i in 0..20 {
            a.add(&sample(0x21, 0x100 + i, 0));
        }
        for _ in 0..10 {
            a.add(&sample(0x21, 0x800100, 0));
        }
        for _ in 0..5 {
            a.add(&sample(0x21, 0x50000, 1));
        }
        a.finish();
        assert_eq!(a.total.samples, 375);
        let r = Rows::build(&a, &m, 4096, 3);
        let row = |name: &str| {
            r.rows
                .iter()
                .find(|x| x.module == name)
                .unwrap_or_else(|| panic!("{name}: {:#?}", r.rows))
                .clone()
        };
        let hot = row("HOTLOOP");
        assert_eq!((hot.count.samples, hot.count.unique), (300, 10));
        assert_eq!(hot.count.cpi(), Some(30.0));
        assert_eq!(
            (hot.asid, hot.job.as_str(), hot.csect.as_str()),
            (0x21, "DEMOJOB", NO_CSECT)
        );
        assert_eq!(
            hot.hot,
            vec![(0x20000, 100), (0x20002, 100), (0x20004, 100)]
        );
        let lpa = row("IEFBR14");
        assert_eq!(
            (lpa.asid, lpa.job.as_str(), lpa.count.samples),
            (0, COMMON, 40)
        );
        assert_eq!(lpa.count.cpi(), Some(4.0));
        let nuc = row(NUCLEUS);
        assert_eq!(
            (nuc.asid, nuc.job.as_str(), nuc.count.cpi()),
            (0, COMMON, None)
        );
        let none: Vec<&Row> = r.rows.iter().filter(|x| x.module == NO_MODULE).collect();
        assert_eq!(none.len(), 2, "{none:#?}");
        assert!(none
            .iter()
            .any(|x| x.job == COMMON && x.count.samples == 10 && x.start == 0x800000));
        assert!(none
            .iter()
            .any(|x| x.job == "DEMOJOB" && x.count.samples == 5 && x.start == 0x50000));
        assert_eq!(r.rows[0].module, "HOTLOOP", "most samples first");
    }
}
