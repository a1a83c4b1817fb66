//! The samples of a run, aggregated while the .SMP files stream by: one count per distinct
//! (CPU, state, address space, instruction address), so that memory follows the code the
//! guest ran, not the size of the input. The map is applied afterwards, once per distinct
//! address ([`super::rows::Rows::build`]), which keeps the per-sample work to one hash probe.

use hcpumf_formats::smp::Bsde;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Samples of one instruction address (or one row). Only busy samples are counted here: a
/// sample in the wait state (W = 1) has no instruction to attribute ("When the wait state bit
/// is one, the contents of this field are unpredictable", SA23-2260, Instruction Address)
/// and is counted apart ([`Addresses::wait`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Count {
    /// Busy samples (W = 0): IBM's SAMPLES.
    pub samples: u64,
    /// Of those, the samples with the unique-instruction bit set (U != 0): IBM's ISAMPLES
    /// ("the total number of samples that fall within a specific module which also have ...
    /// instruction unique cycle, turned on", Redbook SG24-7857 4.4).
    pub isamples: u64,
    /// The sum of U over the samples: SA23-2260's denominator of the CPI estimate ("Number of
    /// Unique Instructions"), which differs from ISAMPLES where a model completes several
    /// instructions at once (U > 1).
    pub unique: u64,
}

impl Count {
    /// Add another count.
    pub fn add(&mut self, o: &Count) {
        self.samples += o.samples;
        self.isamples += o.isamples;
        self.unique += o.unique;
    }

    /// CPI as IBM's report computes it: SAMPLES / ISAMPLES (Redbook 4.4: "dividing the total
    /// number of samples for this program by the ISAMPLES number").
    pub fn cpi(&self) -> Option<f64> {
        (self.isamples > 0).then(|| self.samples as f64 / self.isamples as f64)
    }

    /// SA23-2260's estimate: busy samples / sum of U.
    pub fn cpi_unique(&self) -> Option<f64> {
        (self.unique > 0).then(|| self.samples as f64 / self.unique as f64)
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

/// A hash map with [`KeyHasher`].
pub type Fast<K, V> = HashMap<K, V, BuildHasherDefault<KeyHasher>>;

/// How a sample's address space was found (the report says it for every row).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum By {
    /// The entry's primary ASN (bytes 6-7; CR4 bits 48-63), as z/OS's address spaces run:
    /// "This allows you to identify which address space is executing" (Redbook 4.2.1).
    Primary,
    /// The home ASID in the guest program parameter (bits 33-47, z/OS's dispatcher's and
    /// MVS awareness's), for entries without a primary ASN: S/370 guests such as MVS 3.8J
    /// (no ASN) and DAT-off runs.
    Home,
}

impl By {
    /// The word the reports print.
    pub fn word(self) -> &'static str {
        match self {
            By::Primary => "PASN",
            By::Home => "HOME",
        }
    }
}

/// The address space a sample counts for and how it was found: the primary ASN where the
/// entry carries one (DAT on, T = 1, and a non-zero ASN: ESA/390 and z/Architecture guests),
/// else the home ASID the guest program parameter carries (bits 33-47), else the primary
/// ASN as it is (0: no address space known).
#[inline]
pub fn attribution(s: &Bsde) -> (u16, By) {
    if s.dat && s.primary_asn != 0 {
        (s.primary_asn, By::Primary)
    } else if s.gpp != 0 {
        (((s.gpp >> 16) & 0x7FFF) as u16, By::Home)
    } else {
        (s.primary_asn, By::Primary)
    }
}

/// The address space of [`attribution`].
#[inline]
pub fn asid_of(s: &Bsde) -> u16 {
    attribution(s).0
}

/// Sets of the two-way cache in front of the index: a guest's hot loops fit, and the
/// cache stays in the CPU's first-level data cache (16 KB).
const SETS: usize = 512;

/// A cache slot: the key's instruction address and its state and address space (the CPU is
/// the cache's own), and the entry.
#[derive(Clone, Copy)]
struct Slot {
    ia: u64,
    sub: u32,
    entry: u32,
}

/// An empty slot (no sample has this state-and-space part).
const EMPTY: Slot = Slot {
    ia: u64::MAX,
    sub: u32::MAX,
    entry: u32::MAX,
};

/// Where a sample was taken: CPU (bits 18-33), how its address space was found (bit 17: home
/// ASID), problem state (bit 16) and address space (bits 0-15), one word so that the
/// per-sample key is two words.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Tag(pub u64);

impl Tag {
    /// The tag of CPU `cpu`'s samples (state and address space added per sample).
    pub fn of_cpu(cpu: u16) -> Tag {
        Tag(u64::from(cpu) << 18)
    }
    /// This CPU's tag for a sample.
    #[inline]
    pub fn with(self, s: &Bsde) -> Tag {
        Tag(self.0 | u64::from(sub_of(s)))
    }
    pub fn cpu(self) -> u16 {
        (self.0 >> 18) as u16
    }
    pub fn problem(self) -> bool {
        self.0 & 0x1_0000 != 0
    }
    pub fn asid(self) -> u16 {
        self.0 as u16
    }
    pub fn by(self) -> By {
        if self.0 & 0x2_0000 != 0 {
            By::Home
        } else {
            By::Primary
        }
    }
}

/// The state-and-space part of a sample's tag: bits 0-17 of [`Tag`].
#[inline]
fn sub_of(s: &Bsde) -> u32 {
    let (asid, by) = attribution(s);
    (u32::from(by == By::Home) << 17) | (u32::from(s.problem_state) << 16) | u32::from(asid)
}

/// A key of the aggregation: where the sample was taken and its instruction address.
pub type Key = (Tag, u64);

/// Every sample kept, by (CPU, state, address space, instruction address).
pub struct Addresses {
    index: Fast<Key, usize>,
    pub entries: Vec<(Key, Count)>,
    /// Recently seen keys of the CPU `cached` and their entries (most samples hit here, not
    /// the hash map).
    cache: Box<[[Slot; 2]; SETS]>,
    cached: Tag,
    /// All busy samples kept.
    pub total: Count,
    /// Valid samples in the wait state (W = 1): counted, never attributed.
    pub wait: u64,
    /// Invalid samples (I = 1) seen.
    pub invalid: u64,
}

impl Default for Addresses {
    fn default() -> Self {
        Addresses {
            index: Fast::default(),
            entries: Vec::new(),
            cache: Box::new([[EMPTY; 2]; SETS]),
            cached: Tag::of_cpu(0),
            total: Count::default(),
            wait: 0,
            invalid: 0,
        }
    }
}

/// What [`Addresses::add`] returns for an invalid sample: no entry.
pub const NO_ENTRY: usize = usize::MAX;

impl Addresses {
    /// The samples that follow are of CPU `cpu` (a [`Tag::of_cpu`]).
    pub fn begin_cpu(&mut self, cpu: Tag) {
        if cpu != self.cached {
            self.cached = cpu;
            self.cache.fill([EMPTY; 2]);
        }
    }

    /// Count one sample taken on the CPU of `cpu` (a [`Tag::of_cpu`]); the index of its
    /// entry in `entries` (new entries come last), or [`NO_ENTRY`] for an invalid sample or
    /// one in the wait state.
    #[inline]
    pub fn add(&mut self, s: &Bsde, cpu: Tag) -> usize {
        self.begin_cpu(cpu);
        self.add_same_cpu(s)
    }

    /// Count one sample of the CPU of the last [`Addresses::begin_cpu`].
    #[inline(always)]
    pub fn add_same_cpu(&mut self, s: &Bsde) -> usize {
        if s.invalid {
            self.invalid += 1;
            return NO_ENTRY;
        }
        if s.wait {
            self.wait += 1;
            return NO_ENTRY;
        }
        let sub = sub_of(s);
        let h = (s.ia ^ (u64::from(sub) << 40)).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32;
        let slot = h as usize % SETS;
        let set = &mut self.cache[slot];
        let i = if set[0].ia == s.ia && set[0].sub == sub {
            set[0].entry as usize
        } else if set[1].ia == s.ia && set[1].sub == sub {
            set.swap(0, 1);
            set[0].entry as usize
        } else {
            self.miss(slot, s.ia, sub)
        };
        let c = &mut self.entries[i].1;
        c.samples += 1;
        c.isamples += u64::from(s.unique != 0);
        c.unique += u64::from(s.unique);
        i
    }

    /// The entry of a key the cache does not have: from the index, or new; cached.
    #[cold]
    #[inline(never)]
    fn miss(&mut self, slot: usize, ia: u64, sub: u32) -> usize {
        let key = (Tag(self.cached.0 | u64::from(sub)), ia);
        let n = self.entries.len();
        let i = *self.index.entry(key).or_insert(n);
        if i == n {
            self.entries.push((key, Count::default()));
        }
        // Entries beyond u32 (never in practice) just miss the cache.
        if let Ok(e) = u32::try_from(i) {
            let set = &mut self.cache[slot];
            set[1] = set[0];
            set[0] = Slot { ia, sub, entry: e };
        }
        i
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
