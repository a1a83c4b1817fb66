//! The files of a run: their names (`SYSHISyyyymmdd.hhmmss.xxx`, as HIS names them) and the
//! .CNT and .MAP created at BEGIN with their space reserved, rewritten in place at the end.

use hcpumf_formats::time::{civil, unix_secs};
use std::fs::File;
use std::io::Write;
use std::path::Path;

/// A file created with its space written (not sparse), rewritten in place at the end.
pub struct Reserved {
    pub name: String,
    file: File,
    reserved: u64,
}

impl Reserved {
    /// Create `name` in `dir` with `len` bytes of blanks written.
    pub fn create(dir: &Path, name: String, len: u64) -> Result<Reserved, String> {
        let path = dir.join(&name);
        let mut file = File::create(&path).map_err(|e| format!("cannot create {name}: {e}"))?;
        // Blanks with a newline per 64 bytes: a run that never ends (Hercules killed) leaves a
        // text file a reader reports as empty, not binary zeros.
        let mut line = [b' '; 64];
        line[63] = b'\n';
        let chunk: Vec<u8> = line.iter().copied().cycle().take(64 * 1024).collect();
        let mut left = len;
        while left > 0 {
            let n = left.min(chunk.len() as u64) as usize;
            if let Err(e) = file.write_all(&chunk[..n]) {
                drop(file);
                let _ = std::fs::remove_file(&path);
                return Err(format!("cannot reserve {len} bytes for {name}: {e}"));
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
    pub fn finish(mut self, dir: &Path, text: &[u8]) -> Result<String, String> {
        use std::io::{Seek, SeekFrom};
        let r = self
            .file
            .seek(SeekFrom::Start(0))
            .and_then(|_| self.file.write_all(text))
            .and_then(|_| self.file.set_len(text.len() as u64))
            .and_then(|_| self.file.sync_all());
        match r {
            Ok(()) => Ok(self.name),
            Err(e) => {
                drop(self.file);
                let _ = std::fs::remove_file(dir.join(&self.name));
                Err(format!(
                    "cannot write {} ({} bytes, {} reserved): {e}; it was removed",
                    self.name,
                    text.len(),
                    self.reserved
                ))
            }
        }
    }
}

/// SYSHISyyyymmdd.hhmmss.xxx: xxx is the first sequence number no file in `dir` has yet, so
/// that runs started within one second do not overwrite each other's files.
pub fn run_id(now: std::time::SystemTime, dir: &Path) -> Result<String, String> {
    let (y, mo, d, h, mi, s) = civil(unix_secs(now));
    let base = format!("SYSHIS{y:04}{mo:02}{d:02}.{h:02}{mi:02}{s:02}");
    let names: Vec<String> = std::fs::read_dir(dir)
        .map_err(|e| format!("cannot read PATH '{}': {e}", dir.display()))?
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(&base))
        .collect();
    (0..1000)
        .map(|seq| format!("{base}.{seq:03}"))
        .find(|id| !names.iter().any(|n| n.starts_with(&format!("{id}."))))
        .ok_or_else(|| format!("1000 runs in {base} already"))
}

/// Space reserved for the .MAP at BEGIN (an MVS 3.8J map is a few hundred records).
pub const MAP_RESERVATION: u64 = 256 * 1024;
