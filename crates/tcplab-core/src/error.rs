//! Errors: a user's mistake in a scenario, or a broken invariant inside the simulator.

use thiserror::Error;

/// A problem with the user's scenario, naming the field at fault (e.g. `link[2].rate`).
#[derive(Debug, Clone, Error, PartialEq)]
#[error("{field}: {message}")]
pub struct ScenarioError {
    pub field: String,
    pub message: String,
}

impl ScenarioError {
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self { field: field.into(), message: message.into() }
    }
}

#[derive(Debug, Error)]
pub enum Error {
    /// The user's input is wrong; the CLI exits with status 2.
    #[error("invalid scenario: {0}")]
    Scenario(#[from] ScenarioError),
    /// Writing results failed.
    #[error("i/o error: {0}")]
    Io(#[from] std::io::Error),
    /// A simulator invariant broke (conservation, in-order delivery): a bug, never a warning.
    #[error("internal invariant violated: {0}")]
    Invariant(String),
    /// The caller's interrupt check (Ctrl-C) stopped the run; nothing was written.
    #[error("interrupted")]
    Interrupted,
}
