//! The files of a run: their names (`SYSHISyyyymmdd.hhmmss.xxx`, as HIS names them) and the
//! .CNT and .MAP created at BEGIN with their space reserved, rewritten in place at the end.

use hcpumf_formats::time::Civil;
use std::borrow::Cow;
use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Why a file of a run could not be made or written. The texts are what the operator reads
/// (after HHCMF041E at BEGIN, HHCMF045W at END): they name the file as the run's messages
/// do, by its name in PATH; the variants keep the whole path and the system's error.
#[derive(Debug, Error)]
pub enum FileError {
    #[error("cannot create {}: {source}", file_name(.path))]
    Create {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    /// BEGIN: the space of a .CNT or .MAP could not be written (the file was removed).
    #[error("cannot reserve {len} bytes for {}: {source}", file_name(.path))]
    Reserve {
        path: PathBuf,
        len: u64,
        #[source]
        source: io::Error,
    },
    /// END: a reserved file could not be rewritten with its `len` bytes (it was removed).
    #[error(
        "cannot write {} ({len} bytes, {reserved} reserved): {source}; it was removed",
        file_name(.path)
    )]
    Rewrite {
        path: PathBuf,
        len: usize,
        reserved: u64,
        #[source]
        source: io::Error,
    },
    /// BEGIN: a header could not be written (the file was removed).
    #[error("cannot write {}: {source}", file_name(.path))]
    Header {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    /// During the run: an append failed; the file ends after `written` records.
    #[error(
        "writing {}: {source}; interval counters stopped after {written} intervals",
        file_name(.path)
    )]
    Append {
        path: PathBuf,
        written: u64,
        #[source]
        source: io::Error,
    },
    /// END: what was written could not be flushed to the disk.
    #[error("writing {}: {source}", file_name(.path))]
    Sync {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("cannot read PATH '{}': {source}", .path.display())]
    ReadDir {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    /// Every sequence number of this second is taken (`base`: SYSHISyyyymmdd.hhmmss).
    #[error("1000 runs in {base} already")]
    RunIdsExhausted { base: String },
}

/// The file's name as the messages show it (the directory is the run's PATH, said once in
/// HHCMF042I).
fn file_name(path: &Path) -> Cow<'_, str> {
    path.file_name()
        .unwrap_or(path.as_os_str())
        .to_string_lossy()
}

/// A file created with its space written (not sparse), rewritten in place at the end.
pub struct Reserved {
    pub name: String,
    file: File,
    reserved: u64,
}

impl Reserved {
    /// Create `name` in `dir` with `len` bytes of blanks written.
    pub fn create(dir: &Path, name: String, len: u64) -> Result<Reserved, FileError> {
        let path = dir.join(&name);
        let mut file = match File::create(&path) {
            Ok(f) => f,
            Err(source) => return Err(FileError::Create { path, source }),
        };
        // Blanks with a newline per 64 bytes: a run that never ends (Hercules killed) leaves a
        // text file a reader reports as empty, not binary zeros.
        let mut line = [b' '; 64];
        line[63] = b'\n';
        let chunk: Vec<u8> = line.iter().copied().cycle().take(64 * 1024).collect();
        let mut left = len;
        while left > 0 {
            let n = left.min(chunk.len() as u64) as usize;
            if let Err(source) = file.write_all(&chunk[..n]) {
                drop(file);
                let _ = std::fs::remove_file(&path);
                return Err(FileError::Reserve { path, len, source });
            }
            left -= n as u64;
        }
        Ok(Reserved {
            name,
            file,
            reserved: len,
        })
    }

    /// Replace the reserved blanks by `text` (written in place; only what exceeds the
    /// reservation needs new space). On failure the file is removed: no half file is left.
    pub fn finish(mut self, dir: &Path, text: &[u8]) -> Result<String, FileError> {
        use std::io::{Seek, SeekFrom};
        let r = self
            .file
            .seek(SeekFrom::Start(0))
            .and_then(|_| self.file.write_all(text))
            .and_then(|_| self.file.set_len(text.len() as u64))
            .and_then(|_| self.file.sync_all());
        match r {
            Ok(()) => Ok(self.name),
            Err(source) => {
                drop(self.file);
                let path = dir.join(&self.name);
                let _ = std::fs::remove_file(&path);
                Err(FileError::Rewrite {
                    path,
                    len: text.len(),
                    reserved: self.reserved,
                    source,
                })
            }
        }
    }
}

/// SYSHISyyyymmdd.hhmmss.xxx of the run's start `now` (local time, as z/OS names the files:
/// Redbook Example 2-6): xxx is the first sequence number no file in `dir` has yet, so that
/// runs started within one second do not overwrite each other's files.
pub fn run_id(now: Civil, dir: &Path) -> Result<String, FileError> {
    let base = format!("SYSHIS{}", now.file_stamp());
    let names: Vec<String> = std::fs::read_dir(dir)
        .map_err(|source| FileError::ReadDir {
            path: dir.to_path_buf(),
            source,
        })?
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(&base))
        .collect();
    let free = (0..1000)
        .map(|seq| format!("{base}.{seq:03}"))
        .find(|id| !names.iter().any(|n| n.starts_with(&format!("{id}."))));
    free.ok_or(FileError::RunIdsExhausted { base })
}

/// Space reserved for the .MAP at BEGIN (an MVS 3.8J map is a few hundred records).
pub const MAP_RESERVATION: u64 = 128 * 1024;

/// Space reserved for the .MAPX at BEGIN: an `A` record per address space (47 bytes) and the
/// notes.
pub const MAPX_RESERVATION: u64 = 64 * 1024;

#[cfg(test)]
mod tests {
    use super::*;
    use std::error::Error;

    /// A fresh directory of its own under the system's temporary directory.
    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("hcpumf-files-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).expect("scratch directory");
        d
    }

    #[test]
    fn a_file_that_cannot_be_created_is_named_with_its_cause() {
        let dir = Path::new("/nonexistent/hcpumf");
        let e = match Reserved::create(dir, "SYSHIS20250101.000000.000.CNT".into(), 64) {
            Ok(_) => panic!("created in {}", dir.display()),
            Err(e) => e,
        };
        assert!(
            matches!(&e, FileError::Create { path, source }
                if path == &dir.join("SYSHIS20250101.000000.000.CNT")
                    && source.kind() == io::ErrorKind::NotFound),
            "{e:?}"
        );
        let io = e.source().map(ToString::to_string).unwrap_or_default();
        assert_eq!(
            e.to_string(),
            format!("cannot create SYSHIS20250101.000000.000.CNT: {io}")
        );
        let e = run_id(Civil::default(), dir).unwrap_err();
        assert!(matches!(e, FileError::ReadDir { .. }), "{e:?}");
        assert!(
            e.to_string()
                .starts_with("cannot read PATH '/nonexistent/hcpumf': "),
            "{e}"
        );
    }

    #[test]
    fn a_reserved_file_is_rewritten_in_place() {
        let dir = scratch("reserve");
        let r = Reserved::create(&dir, "X.CNT".into(), 200).expect("reserved");
        assert_eq!(
            std::fs::metadata(dir.join("X.CNT")).map(|m| m.len()).ok(),
            Some(200)
        );
        assert_eq!(r.finish(&dir, b"text\n").ok().as_deref(), Some("X.CNT"));
        assert_eq!(
            std::fs::read(dir.join("X.CNT")).ok().as_deref(),
            Some(&b"text\n"[..])
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
