//! Typed replies of the two listing requests: `get_hooks_listing` (what
//! the `/hooks` menu shows) and `list_permission_rules` (what
//! `/permissions` shows). Strings are display-ready but may carry control
//! characters the CLI revealed; escape them when rendering.

wire_struct! {
    /// The reply to `get_hooks_listing`.
    #[derive(Default)]
    pub struct HooksListing = "control_response/get_hooks_listing", builder HooksListingBuilder {
        /// Events with at least one hook, in lifecycle order.
        events: opt Vec<HookEventSummary> = "events",
        /// One row per hook.
        hooks: opt Vec<HookListingRow> = "hooks",
        /// Every hook event the CLI knows, in lifecycle order.
        event_catalog: opt Vec<HookEventSummary> = "eventCatalog",
        /// Managed-policy state of hooks.
        policy: opt HooksPolicy = "policy",
        /// Present under `--safe-mode`.
        safe_mode: opt serde_json::Value = "safeMode",
        /// Present under `--bare`.
        bare_mode: opt serde_json::Value = "bareMode",
    }
}

wire_struct! {
    /// A hook event as the `/hooks` menu lists it.
    #[derive(Default)]
    pub struct HookEventSummary = "hook event summary", builder HookEventSummaryBuilder {
        /// The event (`PreToolUse`, ...).
        name: opt String = "name",
        /// One-line summary.
        summary: opt String = "summary",
        /// Whether its hooks take a matcher.
        supports_matcher: opt bool = "supportsMatcher",
        /// Hooks listed for it (`events` only).
        hook_count: opt u64 = "hookCount",
    }
}

wire_struct! {
    /// One configured hook.
    #[derive(Default)]
    pub struct HookListingRow = "hook listing row", builder HookListingRowBuilder {
        /// Its event.
        event: opt String = "event",
        /// Its matcher (`""` when none).
        matcher: opt String = "matcher",
        /// Where it is configured (`userSettings`, `sessionHook`, ...).
        source: opt String = "source",
        /// The source, for people.
        source_label: opt String = "sourceLabel",
        /// The plugin it comes from.
        plugin_name: opt String = "pluginName",
        /// `command`, `prompt`, `agent`, `http`, `mcp_tool`, ...
        hook_type: opt String = "type",
        /// The row's label.
        display_text: opt String = "displayText",
        /// The command, prompt or URL that runs.
        command_text: opt String = "commandText",
        /// Timeout in seconds.
        timeout: opt f64 = "timeout",
        /// True when mode or policy keeps it from running.
        disabled: opt bool = "disabled",
    }
}

wire_struct! {
    /// Managed-policy state of hooks.
    #[derive(Default)]
    pub struct HooksPolicy = "hooks policy", builder HooksPolicyBuilder {
        /// Managed `disableAllHooks`: nothing runs.
        disabled_by_policy: opt bool = "disabledByPolicy",
        /// Only managed hooks run.
        managed_only: opt bool = "managedOnly",
        /// Plugin-only customisation locks the hooks.
        plugin_only: opt bool = "pluginOnly",
        /// `disableAllHooks` in effect, from any source.
        all_disabled: opt bool = "allDisabled",
        /// Hooks in managed settings.
        policy_hook_count: opt u64 = "policyHookCount",
        /// A managed source exists but could not be read.
        policy_unreadable: opt bool = "policyUnreadable",
    }
}

wire_struct! {
    /// The reply to `list_permission_rules`.
    #[derive(Default)]
    pub struct PermissionRulesReply = "control_response/list_permission_rules", builder PermissionRulesReplyBuilder {
        /// The session's rules.
        state: opt PermissionRulesState = "state",
    }
}

wire_struct! {
    /// The session's live permission rules and workspace directories.
    #[derive(Default)]
    pub struct PermissionRulesState = "permission rules state", builder PermissionRulesStateBuilder {
        /// Every rule, with its provenance.
        rules: opt Vec<PermissionRuleEntry> = "rules",
        /// Extra directories in the permission scope.
        workspace_directories: opt Vec<WorkspaceDirectory> = "workspaceDirectories",
        /// The session's original working directory.
        original_cwd: opt String = "originalCwd",
        /// Only managed (policy) rules apply.
        managed_only: opt bool = "managedOnly",
        /// Settings files skipped because they failed to parse; their rules
        /// are not in effect.
        errors: opt Vec<SettingsParseError> = "errors",
        /// The answer was cut (a connection that stores its answers).
        withheld: opt bool = "withheld",
    }
}

wire_struct! {
    /// One permission rule.
    #[derive(Default)]
    pub struct PermissionRuleEntry = "permission rule entry", builder PermissionRuleEntryBuilder {
        /// `allow`, `deny` or `ask`.
        behavior: opt String = "behavior",
        /// Where it comes from (`userSettings`, `cliArg`, `session`, ...).
        source: opt String = "source",
        /// The rule verbatim (`Bash(git:*)`); escape it for display.
        rule: opt String = "rule",
        /// Plain-language reading.
        description: opt serde_json::Value = "description",
        /// `persistent`, `session` or `readonly`.
        editability: opt String = "editability",
        /// Ignored because only managed rules apply.
        not_in_effect: opt bool = "notInEffect",
    }
}

wire_struct! {
    /// An extra working directory in the permission scope.
    #[derive(Default)]
    pub struct WorkspaceDirectory = "workspace directory", builder WorkspaceDirectoryBuilder {
        /// The directory.
        path: opt String = "path",
        /// Where the grant came from (`cliArg`, `session`, a settings source).
        source: opt String = "source",
    }
}

wire_struct! {
    /// A settings file that failed to parse or validate.
    #[derive(Default)]
    pub struct SettingsParseError = "settings parse error", builder SettingsParseErrorBuilder {
        /// The file.
        file: opt String = "file",
        /// Dotted path to the bad field (`""` for the whole file).
        path: opt String = "path",
        /// What is wrong.
        message: opt String = "message",
    }
}
