//! The samples of a run, aggregated while the .SMP files stream by: one count per distinct
//! (CPU, state, address space, instruction address), so that memory follows the code the
//! guest ran, not the size of the input. The map is applied afterwards, once per distinct
//! address ([`super::rows::Rows::build`]), which keeps the per-sample work to one hash probe.

use hcpumf_formats::smp::Bsde;
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
    /// Add another count.
    pub fn add(&mut self, o: &Count) {
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

/// A hash map with [`KeyHasher`].
pub type Fast<K, V> = HashMap<K, V, BuildHasherDefault<KeyHasher>>;

/// The address space a sample counts for: the home ASID the guest program parameter carries
/// (z/OS's dispatcher, and hcpumf's MVS awareness, put it in bits 33-47), else the primary
/// ASN of the entry.
pub fn asid_of(s: &Bsde) -> u16 {
    if s.gpp != 0 {
        ((s.gpp >> 16) & 0x7FFF) as u16
    } else {
        s.primary_asn
    }
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

/// Where a sample was taken: CPU (bits 17-32), problem state (bit 16) and address space
/// (bits 0-15), one word so that the per-sample key is two words.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Tag(pub u64);

impl Tag {
    /// The tag of CPU `cpu`'s samples (state and address space added per sample).
    pub fn of_cpu(cpu: u16) -> Tag {
        Tag(u64::from(cpu) << 17)
    }
    /// This CPU's tag for a sample.
    #[inline]
    pub fn with(self, s: &Bsde) -> Tag {
        Tag(self.0 | (u64::from(s.problem_state) << 16) | u64::from(asid_of(s)))
    }
    pub fn cpu(self) -> u16 {
        (self.0 >> 17) as u16
    }
    pub fn problem(self) -> bool {
        self.0 & 0x1_0000 != 0
    }
    pub fn asid(self) -> u16 {
        self.0 as u16
    }
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
            cache: Box::new([[EMPTY; 2]; SETS]),
            cached: Tag::of_cpu(0),
            total: Count::default(),
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
    /// entry in `entries` (new entries come last), or [`NO_ENTRY`] for an invalid sample.
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
        let sub = (u32::from(s.problem_state) << 16) | u32::from(asid_of(s));
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
        let busy = u64::from(!s.wait);
        c.samples += 1;
        c.busy += busy;
        c.unique += busy * u64::from(s.unique);
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
