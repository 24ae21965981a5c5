//! A one-line progress bar on a terminal's stderr.

use std::io::{IsTerminal, Write};

pub(crate) struct Progress {
    on: bool,
    total: usize,
}

impl Progress {
    /// Drawn only when stderr is a terminal and the output is not JSON.
    pub(crate) fn new(total: usize, json: bool) -> Self {
        Self {
            on: !json && std::io::stderr().is_terminal(),
            total,
        }
    }

    pub(crate) fn draw(&self, done: usize, failed: usize, running: usize) {
        if !self.on {
            return;
        }
        const WIDTH: usize = 30;
        let filled = (done * WIDTH).checked_div(self.total).unwrap_or(WIDTH);
        let bar: String = "#".repeat(filled) + &".".repeat(WIDTH - filled.min(WIDTH));
        let mut err = std::io::stderr().lock();
        let _ = write!(
            err,
            "\r[{bar}] {done}/{} done, {running} running, {failed} failed ",
            self.total
        );
        let _ = err.flush();
    }

    pub(crate) fn finish(&self) {
        if self.on {
            let _ = writeln!(std::io::stderr());
        }
    }
}
