//! Checks on an error's `source()` chain, for the library crates' tests
//! that every error says what failed at its own level and leaves the rest
//! to its source.

use std::error::Error;

/// The text of each level of `e`'s chain, outermost first.
pub fn levels(e: &(dyn Error + 'static)) -> Vec<String> {
    let mut out = vec![e.to_string()];
    let mut source = e.source();
    while let Some(cause) = source {
        out.push(cause.to_string());
        source = cause.source();
    }
    out
}

/// Panics, naming `name`, when a level of `e`'s chain is empty or repeats
/// the text of a later one (a message that also prints its source).
pub fn assert_each_level_says_its_own(name: &str, e: &(dyn Error + 'static)) {
    let levels = levels(e);
    for (i, level) in levels.iter().enumerate() {
        assert!(
            !level.is_empty(),
            "{name}: level {i} of {levels:?} says nothing"
        );
        for later in &levels[i + 1..] {
            assert!(
                !level.contains(later.as_str()),
                "{name}: {level:?} repeats its cause {later:?}"
            );
        }
    }
}
