//! Reading the text files of HIS (.CNT, .MAP): lines with their numbers and byte offsets,
//! and how a damaged line is reported.

/// A damaged part of a text file (.CNT, .MAP): where it is and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineProblem {
    /// Line number (from 1).
    pub line: usize,
    /// Byte offset of the start of the line in the file (or of the damage itself).
    pub offset: u64,
    pub what: String,
}

impl std::fmt::Display for LineProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "offset {} (line {}): {}",
            self.offset, self.line, self.what
        )
    }
}

/// The lines of a text file with their numbers and byte offsets; a line that is not UTF-8
/// comes as Err with its raw length. The flag says whether the line ended with a newline.
pub fn lines(bytes: &[u8]) -> impl Iterator<Item = (usize, u64, Result<&str, usize>, bool)> {
    let mut off = 0usize;
    let mut no = 0usize;
    std::iter::from_fn(move || {
        if off >= bytes.len() {
            return None;
        }
        let rest = &bytes[off..];
        let (len, nl) = match rest.iter().position(|&b| b == b'\n') {
            Some(i) => (i, true),
            None => (rest.len(), false),
        };
        let mut raw = &rest[..len];
        if raw.last() == Some(&b'\r') {
            raw = &raw[..raw.len() - 1];
        }
        let start = off as u64;
        off += len + usize::from(nl);
        no += 1;
        Some((
            no,
            start,
            std::str::from_utf8(raw).map_err(|_| raw.len()),
            nl,
        ))
    })
}

/// A file of nothing but the blanks hcpumf reserves at BEGIN: the run never ended.
pub fn only_reserved_blanks(bytes: &[u8]) -> Option<LineProblem> {
    (!bytes.is_empty() && bytes.iter().all(|&b| b == b' ' || b == b'\n')).then(|| LineProblem {
        line: 1,
        offset: 0,
        what: "only the blanks reserved when the run began: it never ended (Hercules killed?)"
            .into(),
    })
}

/// Short, printable excerpt of a damaged line for messages.
pub fn excerpt(line: &str) -> String {
    let t: String = line.chars().take(60).collect();
    if line.chars().count() > 60 {
        format!("'{t}...'")
    } else {
        format!("'{t}'")
    }
}
