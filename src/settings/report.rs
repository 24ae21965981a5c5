//! A resolved cascade in the shape of a live CLI's `get_settings` reply,
//! so what reads one ([`filter_escalating_default_mode`], a comparison with
//! [`Client::get_settings`](crate::client::Client::get_settings)) reads the other.
//!
//! [`filter_escalating_default_mode`]: crate::options::filter_escalating_default_mode

use crate::protocol::{SettingsReport, SettingsSource};

use super::types::ResolvedSettings;

impl ResolvedSettings {
    /// `effective` and `sources` as a `get_settings` reply carries them,
    /// with the CLI's source names (`userSettings`, ..., `policySettings`).
    pub fn to_report(&self) -> SettingsReport {
        let sources = self.sources.iter().map(|s| SettingsSource {
            source: Some(s.source.cli_name().to_owned()),
            settings: Some(s.settings.clone()),
            path: s.path.as_ref().map(|p| p.display().to_string()),
            ..SettingsSource::default()
        });
        SettingsReport {
            effective: Some(self.effective.clone()),
            sources: Some(sources.collect()),
            ..SettingsReport::default()
        }
    }
}
