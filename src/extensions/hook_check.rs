//! The fail-closed hook check: as the official SDKs do, a hook whose
//! failure must block its action does not run on a CLI that would let the
//! action through when the hook fails.

use super::{Extension, Started};
use crate::callbacks::Hooks;
use crate::{Error, Result};

/// Checks the `initialize` reply against the session's hooks.
pub(crate) struct HookCheckExtension {
    hooks: Hooks,
}

impl HookCheckExtension {
    pub(crate) fn new(hooks: Hooks) -> Self {
        Self { hooks }
    }
}

impl Extension for HookCheckExtension {
    fn name(&self) -> &str {
        "hook_check"
    }

    async fn post_start(&self, started: &Started<'_>) -> Result<()> {
        self.hooks
            .check_initialize_reply(started.server_info_raw())
            .map_err(Error::Capability)
    }
}
