//! Where a deserialization error happened, recorded on the side.
//!
//! serde errors are strings; to turn them into a typed
//! [`ParseError`](super::ParseError) naming the message type and the field,
//! the field readers note the path here as the error unwinds (innermost
//! first). Only the error path touches this.

use std::cell::RefCell;

/// What went wrong at the innermost point.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum NoteKind {
    /// A required field was absent.
    Missing,
    /// A field had the wrong type or an invalid value.
    Invalid,
    /// Malformed JSON inside a value replayed from a buffered slice.
    Syntax(String),
}

/// The recorded path of one error.
#[derive(Debug, Default)]
pub(crate) struct Notes {
    pub(crate) kind: Option<NoteKind>,
    /// Field names, innermost first.
    pub(crate) path: Vec<String>,
    /// The label of the outermost type noted so far.
    pub(crate) label: &'static str,
}

/// Bounds the path so a pathological input cannot grow it without limit.
const MAX_DEPTH: usize = 64;

thread_local! {
    static NOTES: RefCell<Notes> = RefCell::new(Notes::default());
}

/// Forgets any earlier error (called at the start of every top-level parse).
pub(crate) fn reset() {
    NOTES.with(|n| {
        let mut n = n.borrow_mut();
        n.kind = None;
        n.path.clear();
        n.label = "";
    });
}

/// A required `field` of `label` is missing (the innermost point).
pub(crate) fn missing(label: &'static str, field: &str) {
    NOTES.with(|n| {
        let mut n = n.borrow_mut();
        n.kind = Some(NoteKind::Missing);
        n.path.clear();
        n.path.push(field.to_owned());
        n.label = label;
    });
}

/// Malformed JSON found while replaying a buffered value.
pub(crate) fn syntax(reason: String) {
    NOTES.with(|n| {
        let mut n = n.borrow_mut();
        n.kind = Some(NoteKind::Syntax(reason));
        n.path.clear();
    });
}

/// Reading `field` of `label` failed; called by each enclosing field reader
/// as the error unwinds.
pub(crate) fn field(label: &'static str, field: &str) {
    NOTES.with(|n| {
        let mut n = n.borrow_mut();
        if n.kind.is_none() {
            n.kind = Some(NoteKind::Invalid);
            n.path.clear();
        }
        if n.path.len() < MAX_DEPTH {
            n.path.push(field.to_owned());
        }
        n.label = label;
    });
}

/// Takes the recorded error, leaving nothing behind.
pub(crate) fn take() -> Notes {
    NOTES.with(|n| std::mem::take(&mut *n.borrow_mut()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_accumulates_innermost_first_and_resets() {
        reset();
        field("inner", "text");
        field("outer", "content");
        let n = take();
        assert_eq!(n.kind, Some(NoteKind::Invalid));
        assert_eq!(n.path, ["text", "content"]);
        assert_eq!(n.label, "outer");
        assert_eq!(take().kind, None, "take leaves nothing behind");
        missing("x", "a");
        field("y", "b");
        let n = take();
        assert_eq!(
            (n.kind, n.path.len(), n.label),
            (Some(NoteKind::Missing), 2, "y")
        );
    }

    #[test]
    fn path_is_bounded() {
        reset();
        for _ in 0..1000 {
            field("t", "f");
        }
        assert_eq!(take().path.len(), MAX_DEPTH);
    }
}
