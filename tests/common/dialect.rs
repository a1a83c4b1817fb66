//! The two Hercules the tests run, and everything in which their consoles differ: how each
//! is started, the message ids the harness and the tests look for, and the parsers of what
//! they print. Nothing outside this file knows a Hercules message id but the plugin's own
//! (HHCMF...).
//!
//! The environment chooses (`scripts/test.sh` runs the tests once with each):
//!
//! * `HCPUMF_HERCULES=313` (the default): Debian's Hercules 3.13, `hercules` on PATH, or
//!   `HCPUMF_HERCULES_BIN`; the plugin built against `vendor/hercules`.
//! * `HCPUMF_HERCULES=hyperion`: SDL Hyperion 4.x, `HCPUMF_HERCULES_BIN` (its
//!   `prefix/bin/hercules`, required), with `HCPUMF_SO` the plugin built against that tree.

use std::collections::BTreeMap;
use std::path::PathBuf;

/// Which Hercules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hercules {
    /// Debian's Hercules 3.13.
    V313,
    /// SDL Hyperion 4.x (4.9.0 tested).
    Hyperion,
}

/// One Hercules' console, as the harness and the tests need it.
#[derive(Debug)]
pub struct Dialect {
    pub which: Hercules,
    /// For messages: "Hercules 3.13", "SDL Hyperion".
    pub name: &'static str,
    /// The executable when `HCPUMF_HERCULES_BIN` does not name one.
    pub default_bin: Option<&'static str>,
    /// The option for a run without a panel (3.13: daemon mode; Hyperion deprecates `-d`).
    pub no_panel: &'static str,
    /// Hyperion reads commands from stdin after the rc file and quits at its end once the
    /// CPUs have stopped: its stdin is a pipe the harness keeps open until Hercules ends.
    /// 3.13 never reads it.
    pub reads_stdin: bool,
    /// The configuration statements every run gets first (Hyperion: no time stamps before
    /// the messages, so that lines read the same as 3.13's).
    pub config_prelude: &'static [&'static str],
    /// CPU 0's disabled wait, as the automatic operator's target (a regular expression) and
    /// as the log says it. 3.13 leaves the CPU in the wait; Hyperion stops it (HHC00826W).
    pub hao_cpu0_wait: &'static str,
    pub cpu0_wait: &'static str,
    /// The automatic operator fired a command.
    pub hao_fired: &'static str,
    /// `ldmod` succeeded (followed by the module's name), and the messages of a failed one.
    pub module_loaded: &'static str,
    pub module_failed: &'static [&'static str],
    /// A configuration statement Hercules refused (3.13 ends on one by itself; Hyperion goes
    /// on with exit status 0).
    pub config_error: &'static [&'static str],
    /// The doublewords of Hercules' facility list, which STFLE reports (3.13: 3, bits up to
    /// 191; Hyperion 4.9.0: 4, its stfl.h `STFL_IBM_LAST_BIT` being 200).
    pub stfle_doublewords: u64,
}

/// Debian's Hercules 3.13.
pub static V313: Dialect = Dialect {
    which: Hercules::V313,
    name: "Hercules 3.13",
    default_bin: Some("hercules"),
    no_panel: "-d",
    reads_stdin: false,
    config_prelude: &[],
    hao_cpu0_wait: "HHCCP011I CPU0000",
    cpu0_wait: "HHCCP011I CPU0000: Disabled wait",
    hao_fired: "HHCAO003I",
    module_loaded: "HHCHD101I",
    module_failed: &["HHCHD011I", "HHCHD014E"],
    config_error: &[],
    stfle_doublewords: 3,
};

/// SDL Hyperion 4.x.
pub static HYPERION: Dialect = Dialect {
    which: Hercules::Hyperion,
    name: "SDL Hyperion",
    default_bin: None,
    no_panel: "-n",
    reads_stdin: true,
    config_prelude: &["LOGOPT NOTIMESTAMP"],
    hao_cpu0_wait: "HHC00809I Processor CP00: disabled wait",
    cpu0_wait: "HHC00809I Processor CP00: disabled wait state",
    hao_fired: "HHC00081I",
    module_loaded: "HHC01527I",
    module_failed: &["HHC01509I", "HHC01510I", "HHC01516E", "HHC01518E"],
    config_error: &["HHC01441E"],
    stfle_doublewords: 4,
};

/// The Hercules of this test run (`HCPUMF_HERCULES`).
pub fn hercules() -> &'static Dialect {
    match std::env::var("HCPUMF_HERCULES").as_deref() {
        Ok("hyperion") => &HYPERION,
        Ok("313") | Ok("") | Err(_) => &V313,
        Ok(other) => panic!("HCPUMF_HERCULES={other}: say 313 or hyperion"),
    }
}

impl Dialect {
    /// The executable: `HCPUMF_HERCULES_BIN`, else 3.13's `hercules` on PATH.
    pub fn bin(&self) -> PathBuf {
        match (std::env::var_os("HCPUMF_HERCULES_BIN"), self.default_bin) {
            (Some(p), _) => PathBuf::from(p),
            (None, Some(b)) => PathBuf::from(b),
            (None, None) => panic!(
                "HCPUMF_HERCULES=hyperion needs HCPUMF_HERCULES_BIN, the path of Hyperion's \
                 hercules (scripts/test.sh sets it from scripts/hyperion.sh)"
            ),
        }
    }

    pub fn is_313(&self) -> bool {
        self.which == Hercules::V313
    }

    pub fn is_hyperion(&self) -> bool {
        self.which == Hercules::Hyperion
    }

    /// Did `ldmod` of the module file `so` succeed, with no failure message? (3.13 names the
    /// module by its path, Hyperion by its file name.)
    pub fn module_load_ok(&self, log: &str, so: &std::path::Path) -> bool {
        let name = so.file_name().map(|n| n.to_string_lossy().into_owned());
        let name = name.unwrap_or_default();
        log.lines()
            .any(|l| l.contains(self.module_loaded) && l.contains(&name))
            && !self.module_failed.iter().any(|m| log.contains(m))
    }

    /// Hercules' message that CPU `cpu`'s thread started (3.13) / was started (Hyperion).
    pub fn cpu_thread_started(&self, cpu: u32) -> String {
        match self.which {
            Hercules::V313 => format!("HHCCP002I CPU{cpu:04X} thread started"),
            Hercules::Hyperion => format!("name 'Processor CP{cpu:02X}' started"),
        }
    }

    /// Hercules' message that CPU `cpu`'s thread ended.
    pub fn cpu_thread_ended(&self, cpu: u32) -> String {
        match self.which {
            Hercules::V313 => format!("HHCCP008I CPU{cpu:04X} thread ended"),
            Hercules::Hyperion => format!("name 'Processor CP{cpu:02X}' ended"),
        }
    }

    /// Did Hercules log a SIGNAL PROCESSOR stop order (05) in this text? 3.13: `SIGP Stop
    /// (05)`; Hyperion pads the order's name to 32 columns: `SIGP Stop      ...  (05)`.
    pub fn said_sigp_stop(&self, text: &str) -> bool {
        text.lines().any(|l| {
            l.split_once("SIGP Stop")
                .is_some_and(|(_, rest)| rest.trim_start().starts_with("(05)"))
        })
    }

    /// Did a guest that powered off after `text` began stop every CPU (`poweroff -f`: the
    /// kernel stops its CPUs with SIGP stop)? `text` is the end of the output of
    /// scripts/linux-guest/run.sh. 3.13 logs the SIGP Stop order. Hyperion logs no order up
    /// to Restart (esa390.h `LOG_SIGPORDER`), but with its stdin at its end it shuts down by
    /// itself once every CPU has stopped (impl.c), and only then: Hercules ended with exit
    /// status 0, no automatic-operator command fired (a disabled wait's `quit`) and run.sh
    /// did not stop it. (Its own shutdown message, HHC01420I, is often lost at that point.)
    pub fn said_every_cpu_stopped(&self, text: &str) -> bool {
        match self.which {
            Hercules::V313 => self.said_sigp_stop(text),
            Hercules::Hyperion => {
                !text.contains(self.hao_fired)
                    && text.trim_end().ends_with("run.sh: Hercules exit status 0")
            }
        }
    }

    /// The console commands that take the plugin out and load it again while the guest's
    /// CPUs run. 3.13 unloads a module at any time; Hyperion only while every CPU is stopped
    /// (HHC02253E otherwise), so there the CPUs stop around it and start again.
    pub fn reload_while_running(&self, so: &std::path::Path) -> Vec<String> {
        let (rm, ld) = (
            format!("rmmod {}", so.display()),
            format!("ldmod {}", so.display()),
        );
        match self.which {
            Hercules::V313 => vec![rm, ld],
            // stopall takes effect at each CPU's next interruption check: a rmmod right
            // after it finds a CPU still stopping and is refused (HHCMF085E).
            Hercules::Hyperion => vec![
                "stopall".into(),
                "pause 1".into(),
                rm,
                ld,
                "startall".into(),
            ],
        }
    }

    /// The disabled-wait PSW address of CPU 0 (0 = the test's DONE, 0xbad = FAIL): the
    /// PSW's address field, from a 16-byte (z/Architecture) or an 8-byte PSW (its low 31
    /// bits). 3.13: `HHCCP011I CPU0000: Disabled wait state` and on the next line
    /// `PSW=00020001 80000000 0000000000000000`; Hyperion: `HHC00809I Processor CP00:
    /// disabled wait state 0002000180000000 0000000000000000`.
    pub fn wait_code(&self, log: &str) -> Option<u64> {
        let i = log.find(self.cpu0_wait)?;
        let rest = &log[i + self.cpu0_wait.len()..];
        let psw = match self.which {
            Hercules::V313 => &rest[rest.find("PSW=")? + 4..],
            Hercules::Hyperion => rest,
        };
        let mut hex = String::new();
        for w in psw.split_whitespace() {
            if hex.len() >= 32 || !w.chars().all(|c| c.is_ascii_hexdigit()) {
                break;
            }
            hex.push_str(w);
        }
        match hex.len() {
            32 => u64::from_str_radix(&hex[16..], 16).ok(),
            16 => u64::from_str_radix(&hex[8..], 16)
                .ok()
                .map(|a| a & 0x7fff_ffff),
            _ => None,
        }
    }

    /// The bytes of every storage display (`r`) in the log; the first display of an address
    /// wins. 3.13: `R:0000000000003000:K:06=00000000 00000000 00000000 00000000  ....`;
    /// Hyperion: `HHC02290I R:0000000000003000  00000000 00000000 00000000 00000000  ....`
    /// (and a line `HHC02290I A:... K:06` before them).
    pub fn parse_displays(&self, log: &str) -> BTreeMap<u64, u8> {
        let mut m = BTreeMap::new();
        for line in log.lines() {
            let line = line.trim_start();
            let line = line.strip_prefix("HHC02290I ").unwrap_or(line);
            let Some(rest) = line.strip_prefix("R:") else {
                continue;
            };
            let (addr, data) = match self.which {
                Hercules::V313 => {
                    let Some((addr, data)) = rest.split_once(":K:") else {
                        continue;
                    };
                    let Some((_, data)) = data.split_once('=') else {
                        continue;
                    };
                    (addr, data)
                }
                Hercules::Hyperion => {
                    let Some((addr, data)) = rest.split_once(char::is_whitespace) else {
                        continue;
                    };
                    (addr, data)
                }
            };
            let Ok(addr) = u64::from_str_radix(addr, 16) else {
                continue;
            };
            let mut a = addr;
            for word in data.split_whitespace().take(4) {
                if word.len() != 8 || !word.chars().all(|c| c.is_ascii_hexdigit()) {
                    break;
                }
                for k in 0..4 {
                    let b = u8::from_str_radix(&word[2 * k..2 * k + 2], 16).unwrap_or(0);
                    m.entry(a).or_insert(b);
                    a += 1;
                }
            }
        }
        m
    }
}
