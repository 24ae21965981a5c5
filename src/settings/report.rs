//! A resolved cascade in the shape of a live CLI's `get_settings` reply,
//! so what reads one ([`filter_escalating_default_mode`], a comparison with
//! [`Client::get_settings`](crate::Client::get_settings)) reads the other.
//!
//! [`filter_escalating_default_mode`]: crate::options::filter_escalating_default_mode

use crate::protocol::{SettingsReport, SettingsSource};

use super::types::ResolvedSettings;

impl ResolvedSettings {
    /// `effective` and `sources` as a `get_settings` reply carries them,
    /// with the CLI's source names (`userSettings`, ..., `policySettings`).
    pub fn to_report(&self) -> SettingsReport {
        let mut report = SettingsReport::default();
        report.effective = Some(self.effective.clone());
        let sources = self.sources.iter().map(|s| {
            let mut source = SettingsSource::default();
            source.source = Some(s.source.cli_name().to_owned());
            source.settings = Some(s.settings.clone());
            source.path = s.path.as_ref().map(|p| p.display().to_string());
            source
        });
        report.sources = Some(sources.collect());
        report
    }
}
