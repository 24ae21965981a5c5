//! What a session id looks like: the option checks need it in every build,
//! `store::is_session_id` (feature `store`) is this.

/// Whether `id` can name a session file: a UUID (what the CLI uses), so it
/// is safe as a path component.
pub(crate) fn is_session_id(id: &str) -> bool {
    let groups: Vec<&str> = id.split('-').collect();
    groups.len() == 5
        && groups
            .iter()
            .zip([8, 4, 4, 4, 12])
            .all(|(g, n)| g.len() == n && g.bytes().all(|b| b.is_ascii_hexdigit()))
}
