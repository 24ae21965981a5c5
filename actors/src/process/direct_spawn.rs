//! Spawning without copying the environment: `posix_spawn` with an
//! environment block that points into ours.
//!
//! std's `Command` copies the whole inherited environment into a map (two
//! allocations per variable, then a third for the block it hands to
//! `exec`) as soon as one variable is set or removed, which every CLI spawn
//! does. With a few dozen variables that was the largest single part of a
//! session's connect CPU. Here the block is the parent's own entries, minus
//! the ones the spec sets or removes, plus the spec's: pointers, no copies.
//!
//! Used where `posix_spawn` can do all the spawn needs: a program path with
//! a `/` (no `PATH` search), no `pre_exec` hook (no user switch, no
//! parent-death hook) and, with a working directory, a C library that has
//! `posix_spawn_file_actions_addchdir_np`. Anything else goes to std. The
//! child is set up as std sets it up: its own process group, an empty
//! signal mask, `SIGPIPE` back to its default, stdio piped.

use std::ffi::{CStr, CString, c_char, c_int};
use std::io;
use std::mem::MaybeUninit;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::sync::OnceLock;

use super::ProcessSpec;
use super::threads::Spawned;

unsafe extern "C" {
    /// The C library's environment block, as `execve` takes it.
    static environ: *const *const c_char;
}

/// `posix_spawn_file_actions_addchdir_np`, where the C library has it
/// (glibc 2.29+). Looked up at run time, as std does, so that a program
/// built here still starts on an older C library (it then spawns through
/// std whenever a working directory is set).
type AddChdir = unsafe extern "C" fn(*mut libc::posix_spawn_file_actions_t, *const c_char) -> c_int;

fn addchdir() -> Option<AddChdir> {
    static FOUND: OnceLock<Option<AddChdir>> = OnceLock::new();
    *FOUND.get_or_init(|| {
        // SAFETY: dlsym with a NUL-terminated name; a non-null result is the
        // C library's function of that name, whose signature is `AddChdir`.
        let f = unsafe {
            libc::dlsym(
                libc::RTLD_DEFAULT,
                c"posix_spawn_file_actions_addchdir_np".as_ptr(),
            )
        };
        // SAFETY: as above: the symbol is that function.
        (!f.is_null()).then(|| unsafe { std::mem::transmute::<*mut libc::c_void, AddChdir>(f) })
    })
}

/// A spawn prepared for `posix_spawn`: every string already in C form, so
/// the spawner thread only assembles pointers.
#[derive(Debug)]
pub(super) struct DirectSpawn {
    program: CString,
    /// `argv`, the program first.
    argv: Vec<CString>,
    /// `KEY=VALUE` for each variable the spec sets, the last value per key.
    set: Vec<CString>,
    /// Keys whose inherited entries are left out: the set and removed ones.
    hidden: Vec<Vec<u8>>,
    cwd: Option<CString>,
}

fn c_string(bytes: &[u8]) -> io::Result<CString> {
    CString::new(bytes).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            "nul byte found in a program, argument, variable or directory",
        )
    })
}

impl DirectSpawn {
    /// The spawn of `spec` through `posix_spawn`, or `None` where it needs
    /// std (see the module docs). `kept`: the keeper guards the group, so no
    /// parent-death hook is needed.
    pub(super) fn prepare(spec: &ProcessSpec, kept: bool) -> Option<io::Result<Self>> {
        let program = spec.program.as_os_str().as_bytes();
        let needs_hook = spec.user.is_some() || (spec.parent_death_signal && !kept);
        if needs_hook || !program.contains(&b'/') || (spec.cwd.is_some() && addchdir().is_none()) {
            return None;
        }
        Some(Self::build(spec))
    }

    fn build(spec: &ProcessSpec) -> io::Result<Self> {
        let program = c_string(spec.program.as_os_str().as_bytes())?;
        let mut argv = Vec::with_capacity(spec.args.len() + 1);
        argv.push(program.clone());
        for arg in &spec.args {
            argv.push(c_string(arg.as_bytes())?);
        }
        let mut set: Vec<CString> = Vec::with_capacity(spec.env.len());
        let mut hidden: Vec<Vec<u8>> = spec
            .env_remove
            .iter()
            .map(|k| k.as_bytes().to_vec())
            .collect();
        for (i, (key, value)) in spec.env.iter().enumerate() {
            // A later entry for the same key wins, as with `Command::env`.
            if spec.env[i + 1..].iter().any(|(k, _)| k == key) {
                continue;
            }
            let mut entry = Vec::with_capacity(key.len() + value.len() + 1);
            entry.extend_from_slice(key.as_bytes());
            entry.push(b'=');
            entry.extend_from_slice(value.as_bytes());
            set.push(c_string(&entry)?);
            hidden.push(key.as_bytes().to_vec());
        }
        let cwd = match &spec.cwd {
            Some(dir) => Some(c_string(dir.as_os_str().as_bytes())?),
            None => None,
        };
        Ok(Self {
            program,
            argv,
            set,
            hidden,
            cwd,
        })
    }

    /// Whether an inherited `KEY=VALUE` entry is replaced or removed.
    fn hides(&self, entry: &[u8]) -> bool {
        let key = entry.split(|b| *b == b'=').next().unwrap_or(entry);
        self.hidden.iter().any(|k| k.as_slice() == key)
    }

    /// The environment block: the inherited entries this spawn keeps, then
    /// its own, then the terminating null.
    fn environment(&self) -> Vec<*const c_char> {
        let mut block = Vec::with_capacity(64 + self.set.len());
        // SAFETY: `environ` is the C library's NULL-terminated array of
        // NUL-terminated strings. It is read on the spawner thread while
        // other threads may run; Rust's `std::env::set_var` is `unsafe` for
        // exactly this reason, and its contract rules out changing the
        // environment in a multi-threaded program such as any that runs this
        // library (tokio's workers, the spawner thread). The pointers are
        // used before this spawn returns.
        unsafe {
            let mut entry = environ;
            while !entry.is_null() && !(*entry).is_null() {
                if !self.hides(CStr::from_ptr(*entry).to_bytes()) {
                    block.push(*entry);
                }
                entry = entry.add(1);
            }
        }
        block.extend(self.set.iter().map(|s| s.as_ptr()));
        block.push(std::ptr::null());
        block
    }

    /// Spawns the child; runs on the spawner thread.
    pub(super) fn spawn(&self) -> io::Result<Spawned> {
        let (child_stdin, stdin) = pipe()?;
        let (stdout, child_stdout) = pipe()?;
        let (stderr, child_stderr) = pipe()?;
        let mut actions = FileActions::new()?;
        actions.dup2(&child_stdin, 0)?;
        actions.dup2(&child_stdout, 1)?;
        actions.dup2(&child_stderr, 2)?;
        if let Some(dir) = &self.cwd {
            actions.chdir(dir)?;
        }
        let attrs = Attrs::new()?;
        let mut argv: Vec<*const c_char> = self.argv.iter().map(|a| a.as_ptr()).collect();
        argv.push(std::ptr::null());
        let envp = self.environment();
        let mut pid: libc::pid_t = 0;
        // SAFETY: every pointer is valid for the call: the program, argv and
        // envp are NULL-terminated arrays of NUL-terminated strings that live
        // until it returns, and the actions and attributes are initialized.
        let rc = unsafe {
            libc::posix_spawn(
                &mut pid,
                self.program.as_ptr(),
                &actions.0,
                &attrs.0,
                argv.as_ptr().cast(),
                envp.as_ptr().cast(),
            )
        };
        if rc != 0 {
            return Err(io::Error::from_raw_os_error(rc));
        }
        // The child's ends close here, in the parent, as the spawn returns.
        Ok(Spawned {
            pid: pid as u32,
            stdin,
            stdout,
            stderr,
        })
    }
}

/// A close-on-exec pipe, `(read, write)`, both above the stdio numbers so
/// that `dup2` onto 0, 1 and 2 never meets one of them (a process started
/// with a closed stdio hands those numbers out first).
fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds: [c_int; 2] = [-1; 2];
    // SAFETY: pipe2 writes two descriptors into the array on success.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: both are fresh descriptors that nothing else owns.
    let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    Ok((above_stdio(read)?, above_stdio(write)?))
}

fn above_stdio(fd: OwnedFd) -> io::Result<OwnedFd> {
    raise_to(fd, 3)
}

/// `fd` if its number is at least `lowest`, else a close-on-exec copy that
/// is (the original closes).
fn raise_to(fd: OwnedFd, lowest: c_int) -> io::Result<OwnedFd> {
    if fd.as_raw_fd() >= lowest {
        return Ok(fd);
    }
    // SAFETY: F_DUPFD_CLOEXEC on an open descriptor returns a new one.
    let raised = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_DUPFD_CLOEXEC, lowest) };
    if raised < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: a fresh descriptor that nothing else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(raised) })
}

/// Turns a `posix_spawn*` return value (an errno, not -1) into a result.
fn check(rc: c_int) -> io::Result<()> {
    match rc {
        0 => Ok(()),
        errno => Err(io::Error::from_raw_os_error(errno)),
    }
}

struct FileActions(libc::posix_spawn_file_actions_t);

impl FileActions {
    fn new() -> io::Result<Self> {
        let mut raw = MaybeUninit::uninit();
        // SAFETY: init writes the structure; it is only used once that
        // succeeded, and destroyed by `Drop`.
        check(unsafe { libc::posix_spawn_file_actions_init(raw.as_mut_ptr()) })?;
        // SAFETY: initialized just above.
        Ok(Self(unsafe { raw.assume_init() }))
    }

    fn dup2(&mut self, fd: &OwnedFd, target: c_int) -> io::Result<()> {
        // SAFETY: an initialized action list and an open descriptor.
        check(unsafe {
            libc::posix_spawn_file_actions_adddup2(&mut self.0, fd.as_raw_fd(), target)
        })
    }

    fn chdir(&mut self, dir: &CStr) -> io::Result<()> {
        let add = addchdir().ok_or_else(|| io::Error::from(io::ErrorKind::Unsupported))?;
        // SAFETY: an initialized action list and a NUL-terminated path; the
        // C library copies the path.
        check(unsafe { add(&mut self.0, dir.as_ptr()) })
    }
}

impl Drop for FileActions {
    fn drop(&mut self) {
        // SAFETY: initialized in `new`, destroyed once.
        unsafe { libc::posix_spawn_file_actions_destroy(&mut self.0) };
    }
}

/// Own process group, empty signal mask, `SIGPIPE` to its default (Rust
/// programs ignore it, and an ignored signal stays ignored across `exec`).
struct Attrs(libc::posix_spawnattr_t);

impl Attrs {
    fn new() -> io::Result<Self> {
        let mut raw = MaybeUninit::uninit();
        // SAFETY: init writes the structure; used only once that succeeded.
        check(unsafe { libc::posix_spawnattr_init(raw.as_mut_ptr()) })?;
        // SAFETY: initialized just above; destroyed by `Drop` from here on.
        let mut this = Self(unsafe { raw.assume_init() });
        let mut set = MaybeUninit::<libc::sigset_t>::uninit();
        // SAFETY: sigemptyset initializes the set; the calls below take an
        // initialized attribute object and set.
        unsafe {
            libc::sigemptyset(set.as_mut_ptr());
            check(libc::posix_spawnattr_setsigmask(&mut this.0, set.as_ptr()))?;
            libc::sigaddset(set.as_mut_ptr(), libc::SIGPIPE);
            check(libc::posix_spawnattr_setsigdefault(
                &mut this.0,
                set.as_ptr(),
            ))?;
            check(libc::posix_spawnattr_setpgroup(&mut this.0, 0))?;
            let flags = libc::POSIX_SPAWN_SETPGROUP
                | libc::POSIX_SPAWN_SETSIGMASK
                | libc::POSIX_SPAWN_SETSIGDEF;
            check(libc::posix_spawnattr_setflags(
                &mut this.0,
                flags as libc::c_short,
            ))?;
        }
        Ok(this)
    }
}

impl Drop for Attrs {
    fn drop(&mut self) {
        // SAFETY: initialized in `new`, destroyed once.
        unsafe { libc::posix_spawnattr_destroy(&mut self.0) };
    }
}

#[cfg(test)]
#[path = "direct_spawn_tests.rs"]
mod tests;
