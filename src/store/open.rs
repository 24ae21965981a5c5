//! [`open_store`]: a session store from a URL.

use std::path::PathBuf;
use std::sync::Arc;

use super::{FileStore, MemoryStore, SessionStore, StoreError};

/// Open the store a URL names:
///
/// - `memory:` a new [`MemoryStore`];
/// - `file:///absolute/folder` a [`FileStore`] there (`%XX` escapes are
///   decoded);
/// - `postgres://...` or `postgresql://...` a `PostgresStore` (feature
///   `postgres`) in the schema `claude_agent`, created if missing;
/// - `redis://...` or `rediss://...` a `RedisStore` (feature `redis`) with
///   the key prefix `claude-agent`.
///
/// A malformed URL, an unknown scheme or a scheme whose feature is not
/// compiled in is [`StoreError::BadUrl`]; a server that cannot be reached
/// is [`StoreError::Backend`]. Errors never repeat the URL's password.
pub async fn open_store(url: &str) -> Result<Arc<dyn SessionStore>, StoreError> {
    let bad = |reason: &str| StoreError::BadUrl {
        url: redact(url),
        reason: reason.to_owned(),
    };
    let Some((scheme, rest)) = url.split_once(':') else {
        return Err(bad(
            "no scheme: use memory:, file:///path, postgres://... or redis://...",
        ));
    };
    match scheme.to_ascii_lowercase().as_str() {
        "memory" if rest.is_empty() => Ok(Arc::new(MemoryStore::new())),
        "memory" => Err(bad("memory: takes nothing after the colon")),
        "file" => {
            let path = rest
                .strip_prefix("//")
                .and_then(|p| p.strip_prefix("localhost").or(Some(p)))
                .filter(|p| p.starts_with('/'))
                .ok_or_else(|| bad("a file URL must name an absolute folder: file:///path"))?;
            let path = percent_decode(path).ok_or_else(|| bad("a bad %-escape in the path"))?;
            Ok(Arc::new(FileStore::new(path)))
        }
        "postgres" | "postgresql" => open_postgres(url).await,
        "redis" | "rediss" => open_redis(url).await,
        _ => Err(bad(
            "unknown scheme: use memory:, file:///path, postgres://... or redis://...",
        )),
    }
}

#[cfg(feature = "postgres")]
async fn open_postgres(url: &str) -> Result<Arc<dyn SessionStore>, StoreError> {
    let store = super::PostgresStore::connect(url, super::PostgresOptions::default()).await?;
    Ok(Arc::new(store))
}

#[cfg(not(feature = "postgres"))]
async fn open_postgres(url: &str) -> Result<Arc<dyn SessionStore>, StoreError> {
    Err(StoreError::BadUrl {
        url: redact(url),
        reason: "PostgreSQL stores need claude-agent's `postgres` feature, which this build lacks"
            .into(),
    })
}

#[cfg(feature = "redis")]
async fn open_redis(url: &str) -> Result<Arc<dyn SessionStore>, StoreError> {
    let store = super::RedisStore::connect(url, super::RedisOptions::default()).await?;
    Ok(Arc::new(store))
}

#[cfg(not(feature = "redis"))]
async fn open_redis(url: &str) -> Result<Arc<dyn SessionStore>, StoreError> {
    Err(StoreError::BadUrl {
        url: redact(url),
        reason: "Redis stores need claude-agent's `redis` feature, which this build lacks".into(),
    })
}

/// `url` with any `user:password@` reduced to `user:***@`.
pub(crate) fn redact(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(authority_end);
    match authority.rsplit_once('@') {
        Some((userinfo, host)) => {
            let user = userinfo.split(':').next().unwrap_or_default();
            let masked = if userinfo.contains(':') {
                format!("{user}:***")
            } else {
                user.to_owned()
            };
            format!("{scheme}://{masked}@{host}{tail}")
        }
        None => url.to_owned(),
    }
}

fn percent_decode(path: &str) -> Option<PathBuf> {
    let bytes = path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    use std::os::unix::ffi::OsStringExt;
    Some(PathBuf::from(std::ffi::OsString::from_vec(out)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redact_hides_passwords_only() {
        assert_eq!(
            redact("postgres://u:secret@h:5432/db"),
            "postgres://u:***@h:5432/db"
        );
        assert_eq!(redact("redis://h:6379"), "redis://h:6379");
        assert_eq!(redact("redis://:pw@h"), "redis://:***@h");
    }

    async fn open_err(url: &str) -> String {
        match open_store(url).await {
            Ok(_) => panic!("{url} opened"),
            Err(StoreError::BadUrl { url, reason }) => format!("{url}: {reason}"),
            Err(other) => panic!("{url}: not BadUrl: {other}"),
        }
    }

    #[tokio::test]
    async fn bad_urls_say_what_is_wrong() {
        assert!(open_err("no-scheme").await.contains("no scheme"));
        assert!(open_err("ftp://x").await.contains("unknown scheme"));
        assert!(open_err("file://relative/path").await.contains("absolute"));
        assert!(open_err("memory:extra").await.contains("nothing after"));
    }

    #[cfg(not(feature = "postgres"))]
    #[tokio::test]
    async fn a_postgres_url_without_the_feature_names_the_feature() {
        let message = open_err("postgres://u:pw@localhost/db").await;
        assert!(message.contains("`postgres` feature"), "{message}");
        assert!(!message.contains("pw"), "the password leaked: {message}");
    }

    #[cfg(not(feature = "redis"))]
    #[tokio::test]
    async fn a_redis_url_without_the_feature_names_the_feature() {
        assert!(
            open_err("redis://localhost")
                .await
                .contains("`redis` feature")
        );
    }

    #[test]
    fn percent_escapes_decode() {
        assert_eq!(percent_decode("/a%20b"), Some(PathBuf::from("/a b")));
        assert_eq!(percent_decode("/a%2"), None);
    }
}
