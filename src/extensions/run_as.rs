//! The run-as user: [`Options::user`](crate::options::Options::user) -> the
//! OS account the CLI runs as.

use claude_agent_actors::process::{UserAccount, UserError, resolve_user};

use super::{Extension, PreStart};
use crate::Result;
use crate::options::OptionsError;

/// Resolves the account the options name; a user that does not exist fails
/// the connect before anything is spawned.
pub(crate) struct RunAsExtension;

impl Extension for RunAsExtension {
    fn name(&self) -> &str {
        "run_as"
    }

    async fn pre_start(&self, start: &mut PreStart<'_>) -> Result<()> {
        start.user = account_for(start.options().user.as_deref()).await?;
        Ok(())
    }
}

/// Looks the user up on a blocking thread: the C library may ask a slow
/// directory service, which must not stall a runtime worker.
async fn account_for(user: Option<&str>) -> Result<Option<UserAccount>, OptionsError> {
    let Some(user) = user else { return Ok(None) };
    let name = user.to_owned();
    let looked_up = tokio::task::spawn_blocking(move || resolve_user(&name)).await;
    match looked_up {
        Ok(resolved) => resolved.map(Some).map_err(OptionsError::User),
        // Only a panic in the lookup (or a runtime shutting down) gets here.
        Err(e) => Err(OptionsError::User(UserError::Lookup {
            user: user.to_owned(),
            source: std::io::Error::other(e),
        })),
    }
}
