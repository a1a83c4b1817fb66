//! The machine model the plugin presents: version numbers, counter-set sizes, CPU speed,
//! sampling limits and the authorizations set by "external means" (SA23-2260, section 2).
//!
//! The model is chosen from the CPU-ID machine type Hercules reports through STIDP so that
//! Linux's counter tables (selected by machine type and CFVN/CSVN) line up, and can be changed
//! by module parameters or the `hcpumf set` console command ([`MachineModel::apply_settings`]).
//! The model in force is kept by the host (`host::model::current`); everything here is pure.

pub use hcpumf_formats::counter_sets::{CounterSet, CounterSets};
use thiserror::Error;

/// The model-dependent values of the CPU-measurement facilities.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MachineModel {
    /// CPU-ID machine type (STIDP) the model was derived from.
    pub machine_type: u16,
    /// Counter first version number (basic and problem-state sets).
    pub cfvn: u16,
    /// Counter second version number (crypto, extended, MT-diagnostic, coprocessor sets).
    pub csvn: u16,
    /// Number of extended counters installed (numbers 128 .. 128+n-1); at most the CSVN maximum.
    pub extended_counters: u16,
    /// CPU speed in cycles per microsecond (QSI bytes 44-47).
    pub cpu_speed: u32,
    /// Maximum CPU address at the basic machine level (QCTRI bytes 8-9).
    pub max_cpu_address: u16,
    /// Number of coprocessor groups installed (0: peripheral counter sets not installed).
    pub coprocessor_groups: u16,
    /// Counter sets authorized by external means on every CPU (including `COPROCESSOR_GROUP`).
    pub counter_authorization: CounterSets,
    /// Basic-sampling authorization (A_s).
    pub basic_sampling_authorized: bool,
    /// Diagnostic-sampling authorization (A_d).
    pub diagnostic_sampling_authorized: bool,
    /// Minimum sampling interval in CPU cycles (QSI bytes 8-15).
    pub min_sampling_interval: u64,
    /// Maximum sampling interval in CPU cycles (QSI bytes 16-23).
    pub max_sampling_interval: u64,
    /// Basic-sampling data-entry size (always 32 for format 0001).
    pub bsdes: u16,
    /// Diagnostic-sampling data-entry size of the emulator's format-8001 entry.
    pub dsdes: u16,
    /// Let S/370 and ESA/390 guests use the instructions too (off by default).
    pub all_architectures: bool,
    /// The trailer timestamp format `timestamp=` chose; by default the model's own
    /// ([`MachineModel::stcke_timestamps`]).
    pub trailer_timestamp: TrailerTimestamp,
    /// The CPUs are dedicated to the partition (`dedicated=yes`): their sampling timers run
    /// on while they wait, and the entries stored then have W = 1 (SA23-2260, BSDE
    /// programming note 5). Off by default: shared CPUs, whose wait is not sampling time.
    pub dedicated: bool,
}

/// The format of the sample-data-block trailer's timestamp (T bit, SA23-2260 "Trailer
/// Entries"): the configured machine's (the default), or the one `timestamp=` names.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TrailerTimestamp {
    /// What the configured machine stores: STCK on the z10, STCKE from the z196 on
    /// ([`MachineModel::stcke_timestamps`]).
    #[default]
    Model,
    /// STORE CLOCK format, T = 0.
    Stck,
    /// STORE CLOCK EXTENDED format, T = 1.
    Stcke,
}

/// Highest sampling rate per CPU the plugin sustains (samples per second of CPU time);
/// QSI's minimum interval is derived from it. Measured with scripts/bench.sh and the demo
/// workload: at 20,000/s the effective rate is within 1-2% of the requested one; above
/// ~30,000/s the scheduler's wake-ups can no longer keep every interval on a 2-core host.
pub const MAX_SAMPLING_RATE: u64 = 20_000;
/// Lowest sampling rate offered (samples per second); QSI's maximum interval.
pub const MIN_SAMPLING_RATE: u64 = 1;

impl MachineModel {
    /// The model for a CPU-ID machine type: version numbers and speed of that IBM machine,
    /// or a z10-compatible (1.1) model for types Linux has no tables for (Hercules' default
    /// 0586 among them).
    ///
    /// CSVN per machine: "CPU MF Formulas" (seed 003), SMF113_2_CTRVN2: 1 z10, 2 z196/z114,
    /// 3 zEC12/zBC12, 4 z13/z13s, 5 z14, 6 z15; 7 z16 (Linux 5.17, "s390/cpumf: Support for
    /// CPU Measurement Facility CSVN 7", Jan. 2022) and 8 z17 (Linux 6.15, "s390/cpumf:
    /// Update CPU Measurement facility extended counter set support": CSVN 6..8 have 160
    /// extended counters). CFVN 3 from z15 on (SA23-2260-07, sixth edition; Linux and
    /// s390-tools' lscpumf select the problem-state set of 2 counters by it).
    pub fn for_machine_type(machine_type: u16) -> MachineModel {
        // (CFVN, CSVN, cycles per microsecond)
        let (cfvn, csvn, speed) = match machine_type {
            0x2097 | 0x2098 => (1, 1, 4404), // z10
            0x2817 | 0x2818 => (1, 2, 5208), // z196 / z114
            0x2827 | 0x2828 => (1, 3, 5504), // zEC12 / zBC12
            0x2964 | 0x2965 => (1, 4, 5000), // z13 / z13s
            0x3906 | 0x3907 => (1, 5, 5208), // z14
            0x8561 | 0x8562 => (3, 6, 5200), // z15
            0x3931 | 0x3932 => (3, 7, 5200), // z16
            0x9175 | 0x9176 => (3, 8, 5500), // z17
            _ => (1, 1, 4404),
        };
        let mut m = MachineModel {
            machine_type,
            cfvn,
            csvn,
            extended_counters: 0,
            cpu_speed: speed,
            max_cpu_address: 7,
            coprocessor_groups: 1,
            counter_authorization: CounterSets::CPU_SETS | CounterSets::COPROCESSOR_GROUP,
            basic_sampling_authorized: true,
            diagnostic_sampling_authorized: true,
            min_sampling_interval: 0,
            max_sampling_interval: 0,
            bsdes: 32,
            dsdes: 64,
            all_architectures: false,
            trailer_timestamp: TrailerTimestamp::Model,
            dedicated: false,
        };
        m.extended_counters = m.installed_extended_counters();
        m.set_cpu_speed(speed);
        m
    }

    /// Change the CPU speed; the sampling-interval limits follow it.
    pub fn set_cpu_speed(&mut self, speed: u32) {
        let speed = speed.max(1);
        self.cpu_speed = speed;
        self.min_sampling_interval = (u64::from(speed) * 1_000_000 / MAX_SAMPLING_RATE).max(1);
        self.max_sampling_interval = u64::from(speed) * 1_000_000 / MIN_SAMPLING_RATE;
    }

    /// Extended counters a machine of this CSVN installs: the CSVN's maximum, but for the
    /// z10 (CSVN 1), whose HIS files have 24 (counters 128-151): Redbook SG24-7857 Figure
    /// 3-7 (a z10's .CNT, rows 128-131 to 148-151), Example 3-1 (its SMF 113 record: the
    /// extended set's section `04000018`, 24 counters) and Appendix A (z10: counters 128 to
    /// 151). SA23-2260 gives only the maximum (32 for CSVN 1).
    pub fn installed_extended_counters(&self) -> u16 {
        match self.csvn {
            1 => 24,
            _ => self.max_extended_counters(),
        }
    }

    /// Maximum number of extended counters for the CSVN (SA23-2260, Extended Counter Set).
    pub fn max_extended_counters(&self) -> u16 {
        match self.csvn {
            0 => 0,
            1 => 32,
            2 => 48,
            3..=5 => 128,
            _ => 160,
        }
    }

    /// The configuration level (CL, bits 32-33) this model's basic-sampling entries carry:
    /// 1 (logical-partition level) from the z15 on, 0 before. SA23-2260's sixth edition
    /// added the CL and host-indicator (H, bit 34) fields with CFVN 3 (Summary of Changes);
    /// the models before store zeros there ("The reserved code point of zero for the CL ...
    /// provides compatibility between ... machine models available before and after the
    /// introduction of the configuration level", programming note 6 of the BSDE), which
    /// Linux's cpum_sf reads as an "old machine" (its heuristics then tell guest samples).
    pub fn configuration_level(&self) -> u8 {
        if self.cfvn >= 3 {
            1
        } else {
            0
        }
    }

    /// Whether trailer timestamps are stored in the STORE CLOCK EXTENDED format (T = 1) rather
    /// than STCK (T = 0): as `timestamp=` says, by default as the machine did. SA23-2260
    /// names no models; it defined the T bit in its third edition, the one that also added
    /// CSVN 2 (the z196's; Summary of Changes in Third Edition, items 1 and 5). Before it a
    /// trailer had no format bit and the timestamp was a STCK value, and the z10's z/OS
    /// files show T = 0: "a 64-byte record with a DEFC of x'8000' or x'C000'" (Redbook
    /// SG24-7857, 4.2.1; its files are from a 2097, `I MACH00002097`). So CSVN 1 (the z10
    /// and the z10-compatible default) stores STCK, CSVN 2 and later STCKE, the format the
    /// bit was added for. See docs/decisions.md, "Trailer timestamps".
    pub fn stcke_timestamps(&self) -> bool {
        match self.trailer_timestamp {
            TrailerTimestamp::Stck => false,
            TrailerTimestamp::Stcke => true,
            TrailerTimestamp::Model => self.csvn >= 2,
        }
    }

    /// Number of counters installed in a CPU counter set.
    pub fn set_size(&self, set: CounterSet) -> u16 {
        match set {
            CounterSet::Basic => {
                if self.cfvn >= 1 {
                    6
                } else {
                    0
                }
            }
            CounterSet::ProblemState => match self.cfvn {
                1 => 6,
                3.. => 2,
                _ => 0,
            },
            CounterSet::CryptoActivity => match self.csvn {
                1..=5 => 16,
                6.. => 20,
                _ => 0,
            },
            CounterSet::Extended => self.extended_counters.min(self.max_extended_counters()),
            // No multithreading in Hercules: the MT-diagnostic set is not installed.
            CounterSet::MtDiagnostic => 0,
        }
    }

    /// The CPU counter sets installed in this model.
    pub fn installed_sets(&self) -> CounterSets {
        let mut s = CounterSets::empty();
        for set in CounterSet::ALL {
            if self.set_size(set) > 0 {
                s |= set.bit();
            }
        }
        if self.coprocessor_groups > 0 {
            s |= CounterSets::COPROCESSOR_GROUP;
        }
        s
    }

    /// Sampling rate in samples per second for an interval (QSI programming note 2).
    pub fn rate_for_interval(&self, interval: u64) -> u64 {
        u64::from(self.cpu_speed) * 1_000_000 / interval.max(1)
    }
}

impl MachineModel {
    /// One line describing the model (the load banner, `hcpumf set` and `hcpumf status`).
    pub fn summary(&self) -> String {
        let m = self;
        format!(
            "machine type {:04X}, CFVN {} CSVN {}, CPU speed {} cycles/us, facilities 40 67 68 142, \
             counter sets {} (authorized {}), sampling {}{} interval {}..{} cycles, {}{}",
            m.machine_type,
            m.cfvn,
            m.csvn,
            m.cpu_speed,
            sets_text(m.installed_sets()),
            sets_text(m.counter_authorization),
            if m.basic_sampling_authorized {
                "basic"
            } else {
                "-"
            },
            if m.diagnostic_sampling_authorized {
                "+diagnostic"
            } else {
                ""
            },
            m.min_sampling_interval,
            m.max_sampling_interval,
            if m.all_architectures {
                "all architectures"
            } else {
                "z/Architecture only"
            },
            if m.dedicated {
                ", dedicated CPUs (sampled in the wait state)"
            } else {
                ""
            }
        )
    }

    /// Apply operator settings (`hcpumf set`, `HCPUMF_OPTIONS`: `model=`, `speed=`, `cfvn=`,
    /// `csvn=`, `extended=`, `cgroups=`, `archs=`, `timestamp=`, `dedicated=`); nothing
    /// changes on error.
    pub fn apply_settings(&mut self, words: &[String]) -> Result<(), SettingError> {
        let mut n = self.clone();
        for w in words {
            let Some((k, v)) = w.split_once('=') else {
                return Err(SettingError::NotKeyValue(w.clone()));
            };
            let k = k.to_ascii_lowercase();
            match k.as_str() {
                "model" | "type" => {
                    let t = u16::from_str_radix(v.trim_start_matches("0x"), 16)
                        .map_err(|_| SettingError::NotAMachineType(v.to_string()))?;
                    let keep = (n.cpu_speed, n.all_architectures, n.dedicated);
                    n = MachineModel::for_machine_type(t);
                    n.all_architectures = keep.1;
                    n.dedicated = keep.2;
                }
                "speed" => {
                    let s = parse_num(v)?;
                    if !(1..=1_000_000).contains(&s) {
                        return Err(SettingError::NotAllowed {
                            key: "speed",
                            allowed: "1..1000000 cycles per microsecond",
                        });
                    }
                    n.set_cpu_speed(s as u32);
                }
                "cfvn" => {
                    let c = parse_num(v)?;
                    if c != 1 && c != 3 {
                        return Err(SettingError::NotAllowed {
                            key: "cfvn",
                            allowed: "1 or 3 (the defined counter first versions)",
                        });
                    }
                    n.cfvn = c as u16;
                }
                "csvn" => {
                    let c = parse_num(v)?;
                    if !(1..=8).contains(&c) {
                        return Err(SettingError::NotAllowed {
                            key: "csvn",
                            allowed: "1..8",
                        });
                    }
                    n.csvn = c as u16;
                    n.extended_counters = n.installed_extended_counters();
                }
                "extended" => {
                    let c = parse_num(v)?;
                    if c > u64::from(n.max_extended_counters()) {
                        return Err(SettingError::TooManyExtended {
                            max: n.max_extended_counters(),
                            csvn: n.csvn,
                        });
                    }
                    n.extended_counters = c as u16;
                }
                "cgroups" => {
                    let c = parse_num(v)?;
                    if c > 1 {
                        return Err(SettingError::NotAllowed {
                            key: "cgroups",
                            allowed: "0 (not installed) or 1",
                        });
                    }
                    n.coprocessor_groups = c as u16;
                }
                "archs" => match v.to_ascii_lowercase().as_str() {
                    "z" => n.all_architectures = false,
                    "all" => n.all_architectures = true,
                    _ => {
                        return Err(SettingError::NotAllowed {
                            key: "archs",
                            allowed: "z or all",
                        })
                    }
                },
                "dedicated" => match v.to_ascii_lowercase().as_str() {
                    "yes" => n.dedicated = true,
                    "no" => n.dedicated = false,
                    _ => {
                        return Err(SettingError::NotAllowed {
                            key: "dedicated",
                            allowed: "yes or no",
                        })
                    }
                },
                "timestamp" => match v.to_ascii_lowercase().as_str() {
                    "stck" => n.trailer_timestamp = TrailerTimestamp::Stck,
                    "stcke" => n.trailer_timestamp = TrailerTimestamp::Stcke,
                    "model" => n.trailer_timestamp = TrailerTimestamp::Model,
                    _ => {
                        return Err(SettingError::NotAllowed {
                            key: "timestamp",
                            allowed: "stck, stcke or model",
                        })
                    }
                },
                _ => return Err(SettingError::UnknownKeyword(k)),
            }
        }
        *self = n;
        Ok(())
    }
}

/// Why a setting of [`MachineModel::apply_settings`] does not apply. The texts are what the
/// operator reads after `HHCMF013E hcpumf set:` and `HHCMF011E HCPUMF_OPTIONS:`.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SettingError {
    #[error("'{0}' is not KEY=VALUE")]
    NotKeyValue(String),
    #[error("unknown keyword '{0}'")]
    UnknownKeyword(String),
    #[error("model '{0}' is not a 4-digit hex machine type")]
    NotAMachineType(String),
    #[error(transparent)]
    NotANumber(#[from] NotANumber),
    /// A value outside what the keyword allows (`allowed` says what it does).
    #[error("{key} must be {allowed}")]
    NotAllowed {
        key: &'static str,
        allowed: &'static str,
    },
    /// More extended counters than the counter second version defines.
    #[error("extended must be 0..{max} for CSVN {csvn}")]
    TooManyExtended { max: u16, csvn: u16 },
}

/// A word that [`parse_num`] cannot read as a number (the word as given).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("'{0}' is not a number")]
pub struct NotANumber(pub String);

/// A decimal or 0x-prefixed hexadecimal number.
pub fn parse_num(v: &str) -> Result<u64, NotANumber> {
    let r = if let Some(h) = v.strip_prefix("0x").or_else(|| v.strip_prefix("0X")) {
        u64::from_str_radix(h, 16)
    } else {
        v.parse::<u64>()
    };
    r.map_err(|_| NotANumber(v.to_string()))
}

/// Counter sets as the console and the HIS messages show them (B,P,C,E,MT,CG).
pub fn sets_text(s: CounterSets) -> String {
    let mut v = Vec::new();
    for (bit, name) in [
        (CounterSets::BASIC, "B"),
        (CounterSets::PROBLEM_STATE, "P"),
        (CounterSets::CRYPTO, "C"),
        (CounterSets::EXTENDED, "E"),
        (CounterSets::MT_DIAG, "MT"),
        (CounterSets::COPROCESSOR_GROUP, "CG"),
    ] {
        if s.contains(bit) {
            v.push(name);
        }
    }
    if v.is_empty() {
        "none".into()
    } else {
        v.join(",")
    }
}

impl Default for MachineModel {
    fn default() -> Self {
        MachineModel::for_machine_type(0x2097)
    }
}

#[cfg(test)]
mod tests;
