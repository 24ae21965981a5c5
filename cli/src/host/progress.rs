//! The progress bar on a terminal's stderr (indicatif), of `host` and of
//! `submit --wait`.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

pub(crate) struct Progress {
    bar: ProgressBar,
}

impl Progress {
    /// Drawn only when stderr is a terminal and the output is not JSON;
    /// otherwise every call is a no-op.
    pub(crate) fn new(total: usize, json: bool) -> Self {
        let target = if !json && std::io::stderr().is_terminal() {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        };
        // The template is a constant; the fallback only guards a typo.
        let style = ProgressStyle::with_template(
            "[{bar:30}] {pos}/{len} done, {msg}, {elapsed} elapsed, ETA {eta}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("#>.");
        let bar = ProgressBar::with_draw_target(Some(total as u64), target).with_style(style);
        Self { bar }
    }

    /// `done` jobs of the total, and what else to say (`3 running, 1 failed`).
    pub(crate) fn draw(&self, done: usize, message: String) {
        self.bar.set_message(message);
        self.bar.set_position(done as u64);
    }

    /// One line on stderr, above the bar when it is drawn.
    pub(crate) fn println(&self, line: &str) {
        if self.bar.is_hidden() {
            eprintln!("{line}");
        } else {
            self.bar.println(line);
        }
    }

    /// Leaves the bar as last drawn; called on a drain and at the end, so
    /// only the first call does anything.
    pub(crate) fn finish(&self) {
        if !self.bar.is_finished() {
            self.bar.abandon();
            // indicatif leaves the cursor after the bar; what follows
            // (the summary, the drain notice) starts on a line of its own.
            if !self.bar.is_hidden() {
                eprintln!();
            }
        }
    }
}
