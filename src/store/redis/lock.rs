//! A Redis store's per-session write lock: a key set only if absent, with
//! a lease so a writer that dies cannot hold it for ever.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use ::redis::aio::ConnectionManager;
use ::redis::{AsyncCommands, ExistenceCheck, Script, SetExpiry, SetOptions};

use crate::store::StoreError;

/// Released only by its holder: a lock whose lease ran out and was taken
/// by another writer is not deleted.
const RELEASE_LUA: &str = r"
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
";

/// Held while a session is locked; released by [`release`](Self::release),
/// or in the background when dropped (an append cancelled mid-way).
pub(super) struct RedisLock {
    conn: ConnectionManager,
    key: String,
    token: String,
    held: bool,
}

impl RedisLock {
    /// Take the lock `key`, polling until `timeout`; the lease is `lease`.
    pub(super) async fn acquire(
        conn: &ConnectionManager,
        key: String,
        lease: Duration,
        timeout: Duration,
    ) -> Result<Self, StoreError> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let token = format!(
            "{}-{}-{}",
            std::process::id(),
            crate::store::entry::now_ms(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        );
        let options = SetOptions::default()
            .conditional_set(ExistenceCheck::NX)
            .with_expiration(SetExpiry::PX(
                u64::try_from(lease.as_millis()).unwrap_or(u64::MAX),
            ));
        let mut conn = conn.clone();
        let start = Instant::now();
        let mut pause = Duration::from_millis(1);
        loop {
            let set: Option<String> = conn
                .set_options(&key, &token, options.clone())
                .await
                .map_err(|e| StoreError::backend(format!("take the lock {key}"), e))?;
            if set.is_some() {
                return Ok(Self {
                    conn,
                    key,
                    token,
                    held: true,
                });
            }
            let waited = start.elapsed();
            if waited >= timeout {
                return Err(StoreError::LockTimeout {
                    lock: key,
                    waited_ms: u64::try_from(waited.as_millis()).unwrap_or(u64::MAX),
                });
            }
            // Spread the retries of many waiting writers.
            let jitter = Duration::from_micros(
                u64::from(std::process::id() ^ (start.elapsed().subsec_nanos())) % 1000,
            );
            tokio::time::sleep(pause + jitter).await;
            pause = (pause * 2).min(Duration::from_millis(25));
        }
    }

    /// Release the lock now.
    pub(super) async fn release(mut self) -> Result<(), StoreError> {
        self.held = false;
        Script::new(RELEASE_LUA)
            .key(&self.key)
            .arg(&self.token)
            .invoke_async::<i64>(&mut self.conn)
            .await
            .map(drop)
            .map_err(|e| StoreError::backend(format!("release the lock {}", self.key), e))
    }
}

impl Drop for RedisLock {
    fn drop(&mut self) {
        if !self.held {
            return;
        }
        // Cancelled while holding the lock: release it in the background
        // rather than make every other writer wait out the lease.
        if tokio::runtime::Handle::try_current().is_ok() {
            let (mut conn, key, token) = (
                self.conn.clone(),
                std::mem::take(&mut self.key),
                std::mem::take(&mut self.token),
            );
            crate::task::spawn(async move {
                let _ = Script::new(RELEASE_LUA)
                    .key(&key)
                    .arg(&token)
                    .invoke_async::<i64>(&mut conn)
                    .await;
            });
        }
    }
}
