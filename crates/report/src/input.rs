//! What a report is asked for: the options and the files of a run, found by name, and why a
//! report could not be made at all.

use std::path::{Path, PathBuf};
use thiserror::Error;

/// Why a report could not be made at all.
#[derive(Debug, Error)]
pub enum ReportError {
    #[error("cannot read {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("no HIS files (.SMP.xx, .CNT, .MAP, .INT) found in {0}")]
    NoFiles(String),
    #[error(
        "{0} is not a HIS file (a name ending in .SMP.xx with xx the CPU in hexadecimal, .CNT, .MAP or .INT)"
    )]
    NotHis(String),
}

/// Report options.
#[derive(Clone, Debug)]
pub struct Options {
    pub top: usize,
    pub asid: Option<u16>,
    /// Some(true): problem state only; Some(false): supervisor state only.
    pub problem: Option<bool>,
    pub cpu: Option<u16>,
    pub range: Option<(u64, u64)>,
    /// Address bucket size for samples outside any module of the map.
    pub bucket: u64,
    /// Hottest instruction addresses listed under each row.
    pub hot: usize,
    pub svg: Option<PathBuf>,
    /// The HTML page.
    pub html: Option<PathBuf>,
    /// The stacks in the folded format.
    pub folded: Option<PathBuf>,
    /// The JSON summary.
    pub json: Option<PathBuf>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            top: 20,
            asid: None,
            problem: None,
            cpu: None,
            range: None,
            bucket: 4096,
            hot: 3,
            svg: None,
            html: None,
            folded: None,
            json: None,
        }
    }
}

/// The files of a run.
#[derive(Clone, Debug, Default)]
pub struct RunFiles {
    pub smp: Vec<(u16, PathBuf)>,
    pub cnt: Vec<PathBuf>,
    pub map: Vec<PathBuf>,
    /// Interval counters.
    pub int: Vec<PathBuf>,
}

/// Classify paths: files by suffix; a directory contributes every SYSHIS* file in it.
pub fn find_files(paths: &[PathBuf]) -> Result<RunFiles, ReportError> {
    let mut r = RunFiles::default();
    // Whether the name was one of a HIS file.
    let mut add = |p: &Path| -> bool {
        let name = p
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        // z/OS names are capitals, but a copy may not be (Redbook Figure 3-3:
        // SYSHIS20100302.220948.cnt).
        let name = name.to_ascii_uppercase();
        if let Some(i) = name.rfind(".SMP.") {
            // .SMP.xx: the CPU in hexadecimal, two digits as z/OS names them (Redbook 4.2);
            // hcpumf's earlier files have one (.SMP.0).
            match u16::from_str_radix(&name[i + 5..], 16) {
                Ok(cpu) => r.smp.push((cpu, p.to_path_buf())),
                Err(_) => return false,
            }
        } else if name.ends_with(".CNT") {
            r.cnt.push(p.to_path_buf());
        } else if name.ends_with(".MAP") || name.ends_with(".MAPX") {
            r.map.push(p.to_path_buf());
        } else if name.ends_with(".INT") {
            r.int.push(p.to_path_buf());
        } else {
            return false;
        }
        true
    };
    for p in paths {
        if p.is_dir() {
            let rd = std::fs::read_dir(p).map_err(|e| ReportError::Io {
                path: p.display().to_string(),
                source: e,
            })?;
            let mut names: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
            names.sort();
            for n in names {
                if n.file_name()
                    .map(|x| {
                        x.to_string_lossy()
                            .to_ascii_uppercase()
                            .starts_with("SYSHIS")
                    })
                    .unwrap_or(false)
                {
                    add(&n);
                }
            }
        } else if !add(p) {
            return Err(ReportError::NotHis(p.display().to_string()));
        }
    }
    r.smp.sort();
    if r.smp.is_empty() && r.cnt.is_empty() && r.map.is_empty() && r.int.is_empty() {
        return Err(ReportError::NoFiles(
            paths
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(" "),
        ));
    }
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// z/OS's names (Redbook SG24-7857 Figure 4-2: .SMP.08, .SMP.09, .SMP.0A; Figure 3-3:
    /// a .cnt copied in small letters) and hcpumf's earlier one-digit .SMP.0.
    #[test]
    fn ibm_and_earlier_names() {
        let names = [
            "SYSHIS20100312.152236.SMP.08",
            "SYSHIS20100312.152236.SMP.0A",
            "SYSHIS20261123.114536.000.SMP.1",
            "SYSHIS20100302.220948.cnt",
            "SYSHIS20100222.233735.MAP",
            "SYSHIS20261123.114536.000.MAPX",
        ];
        let paths: Vec<PathBuf> = names.iter().map(PathBuf::from).collect();
        let r = find_files(&paths).expect("HIS files");
        let cpus: Vec<u16> = r.smp.iter().map(|(c, _)| *c).collect();
        assert_eq!(cpus, vec![1, 8, 10]);
        // hcpumf's .MAPX is read with the .MAP.
        assert_eq!((r.cnt.len(), r.map.len()), (1, 2));
        assert!(find_files(&[PathBuf::from("SYSHIS20100312.152236.SMP.XY")]).is_err());
    }
}
