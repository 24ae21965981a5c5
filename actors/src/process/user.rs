//! Running the CLI as another OS user: looking the user up, and checking
//! that this process may switch to it.
//!
//! The switch itself happens in the child between `fork` and `exec`
//! (`setgroups`, `setgid`, `setuid`, see `sys.rs`): `posix_spawn` cannot
//! change credentials, so a spawn with a user set forks. Lookups go through
//! the C library (`getpwnam_r`, `getgrouplist`), which may ask NSS (LDAP,
//! sssd...) and block: call [`resolve_user`] off the async runtime.

#[cfg(target_os = "linux")]
use std::ffi::{CStr, CString};
use std::path::PathBuf;

/// An OS user the CLI runs as: its ids, supplementary groups and home.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct UserAccount {
    /// The login name (`USER` and `LOGNAME` in the child).
    pub name: String,
    /// The user id.
    pub uid: u32,
    /// The primary group id.
    pub gid: u32,
    /// Every group the user belongs to, the primary one included.
    pub groups: Vec<u32>,
    /// The home directory (`HOME` in the child).
    pub home: PathBuf,
}

impl UserAccount {
    /// An account from known values, without looking anything up.
    pub fn new(
        name: impl Into<String>,
        uid: u32,
        gid: u32,
        groups: Vec<u32>,
        home: impl Into<PathBuf>,
    ) -> Self {
        Self {
            name: name.into(),
            uid,
            gid,
            groups,
            home: home.into(),
        }
    }
}

/// Why the CLI cannot run as the requested user.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum UserError {
    /// No such user name or uid.
    #[error("no user '{user}' on this system")]
    NotFound {
        /// The requested user, as given.
        user: String,
    },
    /// The user database could not be read.
    #[error("looking up user '{user}' failed")]
    Lookup {
        /// The requested user, as given.
        user: String,
        /// The C library's error.
        #[source]
        source: std::io::Error,
    },
    /// This process is neither root nor holds `CAP_SETUID`, `CAP_SETGID`
    /// and `CAP_KILL` (without which it could not stop the CLI it started).
    #[error(
        "this process may not run programs as user '{user}' (uid {uid}): \
         that needs root, or CAP_SETUID, CAP_SETGID and CAP_KILL"
    )]
    NotPermitted {
        /// The requested user, as given.
        user: String,
        /// Its uid.
        uid: u32,
    },
    /// Switching users is implemented on Linux only.
    #[error("running the CLI as user '{user}' is supported on Linux only")]
    Unsupported {
        /// The requested user, as given.
        user: String,
    },
}

/// Looks `user` up (a login name, or a numeric uid) and checks that this
/// process may run programs as it. Blocking: run it on a blocking thread.
///
/// ```no_run
/// let account = claude_agent_actors::process::resolve_user("nobody")?;
/// assert_eq!(account.name, "nobody");
/// # Ok::<(), claude_agent_actors::process::UserError>(())
/// ```
pub fn resolve_user(user: &str) -> Result<UserAccount, UserError> {
    let account = lookup(user)?;
    if !may_switch_to(&account) {
        return Err(UserError::NotPermitted {
            user: user.to_owned(),
            uid: account.uid,
        });
    }
    Ok(account)
}

/// Root may switch; so may a process holding the capabilities; anyone
/// "switches" to themselves (the child then changes nothing).
fn may_switch_to(account: &UserAccount) -> bool {
    let (uid, gid) = (
        rustix::process::getuid().as_raw(),
        rustix::process::getgid().as_raw(),
    );
    if rustix::process::geteuid().is_root() || (account.uid == uid && account.gid == gid) {
        return true;
    }
    has_setid_capabilities()
}

/// `CAP_KILL` (5), `CAP_SETGID` (6) and `CAP_SETUID` (7) in the effective
/// set, from `/proc/self/status`: signalling another user's process group
/// needs `CAP_KILL`, and the session must be able to stop its CLI.
fn has_setid_capabilities() -> bool {
    const NEEDED: u64 = (1 << 5) | (1 << 6) | (1 << 7);
    let Ok(status) = std::fs::read_to_string("/proc/self/status") else {
        return false;
    };
    status
        .lines()
        .find_map(|l| l.strip_prefix("CapEff:"))
        .and_then(|hex| u64::from_str_radix(hex.trim(), 16).ok())
        .is_some_and(|caps| caps & NEEDED == NEEDED)
}

#[cfg(not(target_os = "linux"))]
fn lookup(user: &str) -> Result<UserAccount, UserError> {
    Err(UserError::Unsupported {
        user: user.to_owned(),
    })
}

/// Largest buffer offered to `getpwnam_r`; a passwd entry is far smaller.
#[cfg(target_os = "linux")]
const MAX_PASSWD_BUF: usize = 1 << 20;

#[cfg(target_os = "linux")]
fn lookup(user: &str) -> Result<UserAccount, UserError> {
    let not_found = || UserError::NotFound {
        user: user.to_owned(),
    };
    let lookup_err = |source| UserError::Lookup {
        user: user.to_owned(),
        source,
    };
    let by_uid = user.parse::<u32>().ok();
    let name = CString::new(user).map_err(|_| not_found())?;
    let mut buf = vec![0u8; 1024];
    loop {
        // SAFETY: an all-zero `passwd` is valid (null pointers, zero ids);
        // it is only read after the call filled it in.
        let mut pwd: libc::passwd = unsafe { std::mem::zeroed() };
        let mut found: *mut libc::passwd = std::ptr::null_mut();
        let buf_ptr = buf.as_mut_ptr().cast::<libc::c_char>();
        // SAFETY: every pointer is valid for the call and `buf.len()` is
        // the buffer's true size; the results point into `pwd` and `buf`,
        // which outlive their use below.
        let rc = unsafe {
            match by_uid {
                Some(uid) => libc::getpwuid_r(uid, &mut pwd, buf_ptr, buf.len(), &mut found),
                None => libc::getpwnam_r(name.as_ptr(), &mut pwd, buf_ptr, buf.len(), &mut found),
            }
        };
        if rc == libc::ERANGE && buf.len() < MAX_PASSWD_BUF {
            buf.resize(buf.len() * 2, 0);
            continue;
        }
        if rc != 0 {
            return Err(lookup_err(std::io::Error::from_raw_os_error(rc)));
        }
        if found.is_null() || pwd.pw_name.is_null() {
            return Err(not_found());
        }
        // SAFETY: on success the strings are NUL-terminated inside `buf`.
        let (login, home) = unsafe { (CStr::from_ptr(pwd.pw_name), pw_dir(&pwd)) };
        let login = login.to_string_lossy().into_owned();
        let groups = group_list(&login, pwd.pw_gid).map_err(lookup_err)?;
        return Ok(UserAccount::new(
            login, pwd.pw_uid, pwd.pw_gid, groups, home,
        ));
    }
}

/// The entry's home directory; `/` when it has none.
///
/// # Safety
/// `pwd` must have been filled in by a successful `getpw*_r` call whose
/// buffer is still alive.
#[cfg(target_os = "linux")]
unsafe fn pw_dir(pwd: &libc::passwd) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    if pwd.pw_dir.is_null() {
        return PathBuf::from("/");
    }
    // SAFETY: the caller's contract: a NUL-terminated string in a live buffer.
    let dir = unsafe { CStr::from_ptr(pwd.pw_dir) };
    PathBuf::from(std::ffi::OsStr::from_bytes(dir.to_bytes()))
}

/// The user's groups (`getgrouplist`), the primary one included.
#[cfg(target_os = "linux")]
fn group_list(login: &str, gid: u32) -> std::io::Result<Vec<u32>> {
    let name = CString::new(login).map_err(std::io::Error::other)?;
    let mut groups: Vec<libc::gid_t> = vec![0; 32];
    // NGROUPS_MAX is 65536 on Linux: never loop further than that.
    while groups.len() <= 65536 {
        let mut n = groups.len() as libc::c_int;
        // SAFETY: `groups` holds `n` elements; `getgrouplist` writes at most
        // `n` and stores the count it needs in `n`.
        let rc = unsafe { libc::getgrouplist(name.as_ptr(), gid, groups.as_mut_ptr(), &mut n) };
        let needed = usize::try_from(n).unwrap_or(0);
        if rc >= 0 {
            groups.truncate(needed);
            return Ok(groups);
        }
        groups.resize(needed.max(groups.len() * 2), 0);
    }
    Err(std::io::Error::other("the user belongs to too many groups"))
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn root_resolves_by_name_and_by_uid() {
        let by_name = lookup("root").unwrap();
        assert_eq!((by_name.uid, by_name.gid), (0, 0));
        assert!(by_name.groups.contains(&0));
        assert_eq!(lookup("0").unwrap().name, "root");
    }

    #[test]
    fn unknown_user_is_not_found() {
        let err = lookup("no-such-user-claude-agent-test").unwrap_err();
        assert!(matches!(err, UserError::NotFound { .. }), "{err}");
    }

    #[test]
    fn name_with_nul_is_not_found() {
        assert!(matches!(lookup("ro\0ot"), Err(UserError::NotFound { .. })));
    }
}
