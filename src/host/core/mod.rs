//! The host's decisions as plain data: one function, [`Core::on`], from an
//! [`Input`] to the [`Effect`]s it causes.
//!
//! The core owns the session table (each session queued, live, hibernated
//! or waiting to be revived: one state, so never live and hibernated at
//! once), fair admission under the global and per-tenant caps, the warm
//! spares' slots, drain, restart counting and the counters. It does no I/O
//! and keeps no clock (time comes in as a value). The supervisor actor
//! (`supervisor.rs`) feeds it its messages and applies the effects: it
//! starts sessions' tasks, answers callers, publishes events.
//!
//! What a session *is* (its start kit, its handle, a spare CLI, a reply
//! channel, an outcome) is opaque here: a [`Plumbing`] names those types,
//! so the actor runs the core over real clients and the property tests over
//! unit values.
//!
//! Files: `effects.rs` (inputs, effects, the opaque types), `state.rs` (the
//! core and its transition), `admission.rs` (the fair queue),
//! `restarts.rs` (the restart window), `properties.rs` (the property tests).

mod admission;
mod effects;
#[cfg(test)]
mod properties;
mod restarts;
mod state;

pub(crate) use effects::{Effect, End, Input, Plumbing};
pub(crate) use state::{Core, Limits};
