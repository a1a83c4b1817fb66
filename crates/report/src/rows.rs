//! The hot-spot rows: every distinct address of [`Addresses`] attributed through the map to
//! its CSECT, module or address bucket ([`place`]), with each row's split by CPU and state
//! (so that a page can filter by them) and its hottest addresses.

use super::samples::{Addresses, By, Count, Fast};
use hcpumf_formats::map::{MapEntry, MapFile};

/// How a row names its code: IBM's report prints `<COMMON>` for the job of common-area code,
/// `<NoModule>` and `<NoCSECT>` where the map names nothing.
pub const COMMON: &str = "<COMMON>";
pub const NO_MODULE: &str = "<NoModule>";
pub const NO_CSECT: &str = "<NoCSECT>";
/// The module of nucleus code, as IBM's report names it.
pub const NUCLEUS: &str = "Nucleus";

/// Places of the common area in a .MAP's boundary records (z/OS's and hcpumf's).
fn common_place(name: &str) -> bool {
    !matches!(name, "PRIVATE" | "EPRV" | "EPRIVATE")
}

fn in_nucleus(name: &str) -> bool {
    matches!(name, "NUC" | "RWNUC" | "RON" | "ERON" | "ERWN" | "DONUC")
}

/// Where an instruction address is, as the map says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Place<'m> {
    /// In the common area (PASN 0, job `<COMMON>`).
    pub common: bool,
    /// The CSECT's, module's or address bucket's range.
    pub start: u64,
    pub end: u64,
    pub module: &'m str,
    pub csect: &'m str,
}

/// The place of `ia` in address space `asid`: its CSECT (when the map has C records), else
/// its module, else an address bucket of `bucket` bytes in the common area or the address
/// space's private area.
pub fn place(m: &MapFile, asid: u16, ia: u64, bucket: u64) -> Place<'_> {
    let bucket = bucket.max(1);
    let module = m.module_at(asid, ia);
    let csect = if m.csects.is_empty() {
        None
    } else {
        m.csect_at(asid, ia)
    };
    let common = |e: &MapEntry| e.area != 'X';
    let csect_name = csect.map(|e| e.name.as_str()).unwrap_or(NO_CSECT);
    match (csect, module) {
        (Some(cs), md) => Place {
            common: common(cs),
            start: cs.start,
            end: cs.end,
            module: md.map(|e| e.name.as_str()).unwrap_or(if cs.area == 'N' {
                NUCLEUS
            } else {
                NO_MODULE
            }),
            csect: csect_name,
        },
        (None, Some(md)) => Place {
            common: common(md),
            start: md.start,
            end: md.end,
            module: md.name.as_str(),
            csect: csect_name,
        },
        (None, None) => {
            let b = ia / bucket * bucket;
            let boundary = m
                .boundaries
                .iter()
                .find(|b| b.start <= ia && ia <= b.end && b.end >= b.start);
            let name = boundary.map(|b| b.name.as_str()).unwrap_or("");
            Place {
                common: boundary.is_some_and(|b| common_place(&b.name)),
                start: b,
                end: b.saturating_add(bucket - 1),
                module: if in_nucleus(name) { NUCLEUS } else { NO_MODULE },
                csect: csect_name,
            }
        }
    }
}

/// The JOBNAME of a place: `<COMMON>`, the map's job of the address space, or `-`.
pub fn job_of(m: &MapFile, asid: u16, common: bool) -> &str {
    if common {
        COMMON
    } else {
        m.jobs.get(&asid).map(String::as_str).unwrap_or("-")
    }
}

/// A row's samples taken on one CPU in one state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Part {
    pub cpu: u16,
    pub problem: bool,
    pub count: Count,
}

/// One row of the hot-spot table: a CSECT, a module, or an address bucket outside them.
#[derive(Clone, Debug, Default)]
pub struct Row {
    pub count: Count,
    /// PASN: the address space (0 for the common area, as IBM's report shows it).
    pub asid: u16,
    /// How the address space was found: the entries' primary ASN or the home ASID of their
    /// program parameter; None for the common area.
    pub by: Option<By>,
    pub job: String,
    pub module: String,
    pub csect: String,
    pub start: u64,
    pub end: u64,
    /// The row's hottest instruction addresses and their samples (most first).
    pub hot: Vec<(u64, u64)>,
    /// The row's samples by CPU and state (CPU, then supervisor before problem state).
    pub parts: Vec<Part>,
}

/// The hot-spot rows of a run.
pub struct Rows {
    pub rows: Vec<Row>,
}

impl Rows {
    /// Attribute every distinct address through the map ([`place`]). Rows come sorted by
    /// samples, most first; each keeps its `hot` hottest addresses and its split by CPU and
    /// state.
    pub fn build(a: &Addresses, m: &MapFile, bucket: u64, hot: usize) -> Rows {
        let mut index: Fast<(u16, Option<By>, u64, bool), usize> = Fast::default();
        let mut rows: Vec<Row> = Vec::new();
        let mut addrs: Vec<Vec<(u64, u64)>> = Vec::new();
        for &((tag, ia), c) in &a.entries {
            let asid = tag.asid();
            let p = place(m, asid, ia, bucket);
            let (pasn, by) = if p.common {
                (0, None)
            } else {
                (asid, Some(tag.by()))
            };
            let key = (pasn, by, p.start, p.common);
            let n = rows.len();
            let i = *index.entry(key).or_insert(n);
            if i == n {
                rows.push(Row {
                    asid: pasn,
                    by,
                    job: job_of(m, asid, p.common).to_string(),
                    module: p.module.to_string(),
                    csect: p.csect.to_string(),
                    start: p.start,
                    end: p.end,
                    ..Default::default()
                });
                addrs.push(Vec::new());
            }
            let r = &mut rows[i];
            r.count.add(&c);
            let (cpu, problem) = (tag.cpu(), tag.problem());
            match r
                .parts
                .iter_mut()
                .find(|x| x.cpu == cpu && x.problem == problem)
            {
                Some(x) => x.count.add(&c),
                None => r.parts.push(Part {
                    cpu,
                    problem,
                    count: c,
                }),
            }
            addrs[i].push((ia, c.samples));
        }
        for (r, mut v) in rows.iter_mut().zip(addrs) {
            // One address may come from several CPUs and states.
            v.sort_unstable();
            let mut merged: Vec<(u64, u64)> = Vec::with_capacity(v.len());
            for (ia, n) in v {
                match merged.last_mut() {
                    Some(last) if last.0 == ia => last.1 += n,
                    _ => merged.push((ia, n)),
                }
            }
            merged.sort_by(|x, y| y.1.cmp(&x.1).then(x.0.cmp(&y.0)));
            merged.truncate(hot);
            // Only addresses with at least 0.1% of the row's samples are worth naming.
            merged.retain(|(_, n)| *n * 1000 >= r.count.samples);
            r.hot = merged;
            r.parts.sort_by_key(|p| (p.cpu, p.problem));
        }
        rows.sort_by(|a, b| {
            b.count
                .samples
                .cmp(&a.count.samples)
                .then(a.asid.cmp(&b.asid))
                .then(a.by.cmp(&b.by))
                .then(a.start.cmp(&b.start))
        });
        Rows { rows }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::samples::Tag;
    use hcpumf_formats::map;
    use hcpumf_formats::smp::Bsde;

    fn sample(asid: u16, ia: u64, unique: u8) -> Bsde {
        Bsde {
            ia,
            unique,
            gpp: u64::from(asid) << 16,
            ..Default::default()
        }
    }

    /// IBM's columns (Redbook SG24-7857 Figure 4-9): CPI = SAMPLES / ISAMPLES per row, the
    /// common area's rows under <COMMON> with PASN 0000, <NoModule> and <NoCSECT> where the
    /// map names nothing, the nucleus as "Nucleus"; a row's split by CPU and state.
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
        let (cpu0, cpu1) = (Tag::of_cpu(0), Tag::of_cpu(1));
        // HOTLOOP: 300 samples, CPI 30 (10 with U = 1), 100 of them on CPU 1 in the problem
        // state; IEFBR14 in two ASIDs: 40, CPI 4; the nucleus 20; the CSA 10; private code
        // outside any module 5.
        for i in 0..300 {
            let mut s = sample(0x21, 0x20000 + (i % 3) * 2, u8::from(i % 30 == 0));
            s.problem_state = i % 3 == 1;
            a.add(&s, if i % 3 == 1 { cpu1 } else { cpu0 });
        }
        for i in 0..40 {
            a.add(
                &sample(0x21 + (i % 2) as u16, 0xA00010, u8::from(i % 4 == 0)),
                cpu0,
            );
        }
        for i in 0..20 {
            a.add(&sample(0x21, 0x100 + i, 0), cpu0);
        }
        for _ in 0..10 {
            a.add(&sample(0x21, 0x800100, 0), cpu0);
        }
        for _ in 0..5 {
            a.add(&sample(0x21, 0x50000, 1), cpu0);
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
        let parts: Vec<(u16, bool, u64)> = hot
            .parts
            .iter()
            .map(|p| (p.cpu, p.problem, p.count.samples))
            .collect();
        assert_eq!(parts, vec![(0, false, 200), (1, true, 100)]);
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

    /// The same address on two CPUs is one hot address.
    #[test]
    fn hot_addresses_add_up_across_cpus() {
        let m = map::MapFile::default();
        let mut a = Addresses::default();
        for cpu in 0..3u16 {
            for _ in 0..=cpu {
                a.add(&sample(1, 0x1000, 1), Tag::of_cpu(cpu));
            }
            a.add(&sample(1, 0x1002, 1), Tag::of_cpu(cpu));
        }
        a.finish();
        let r = Rows::build(&a, &m, 4096, 2);
        assert_eq!(r.rows.len(), 1);
        assert_eq!(r.rows[0].hot, vec![(0x1000, 6), (0x1002, 3)]);
        assert_eq!(r.rows[0].parts.len(), 3);
    }
}
