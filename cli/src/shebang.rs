//! A CLI path that is a script whose `#!` interpreter is missing: the OS
//! reports that as the script itself not being found (ENOENT), so the
//! tool looks at the script's first line to say what is really missing.

use std::io::Read;
use std::path::{Path, PathBuf};

/// How much of the script's first line is read.
const FIRST_LINE: usize = 512;

/// The interpreter `path`'s `#!` line names, when `path` is a readable
/// file starting with `#!` and that interpreter does not exist.
pub(crate) fn missing_interpreter(path: &Path) -> Option<PathBuf> {
    let mut head = Vec::with_capacity(FIRST_LINE);
    std::fs::File::open(path)
        .ok()?
        .take(FIRST_LINE as u64)
        .read_to_end(&mut head)
        .ok()?;
    let line = head.strip_prefix(b"#!")?;
    let line = line.split(|b| *b == b'\n').next()?;
    let line = std::str::from_utf8(line).ok()?;
    let interpreter = PathBuf::from(line.split_whitespace().next()?);
    (!interpreter.exists()).then_some(interpreter)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_missing_interpreter_is_reported() {
        let dir = tempfile::tempdir().unwrap();
        let script = |name: &str, text: &str| {
            let p = dir.path().join(name);
            std::fs::write(&p, text).unwrap();
            p
        };
        assert_eq!(
            missing_interpreter(&script("a", "#! /no/such/python -u\nx\n")),
            Some(PathBuf::from("/no/such/python"))
        );
        assert_eq!(missing_interpreter(&script("b", "#!/bin/sh\n")), None);
        assert_eq!(missing_interpreter(&script("c", "\x7fELF")), None);
        assert_eq!(missing_interpreter(&dir.path().join("none")), None);
    }
}
