//! A test-only way to break a run on purpose, so that tests can see an invariant check fire
//! end to end (through the CLI and a sweep's result store), which a correct simulator never
//! does by itself.
//!
//! A scenario asks with `_test_corrupt = "conservation"` (an empty string means no corruption,
//! so a sweep can vary it). The field is refused unless the environment variable
//! `TCPLAB_TEST_HOOKS` is `1`, so no user scenario breaks a run by accident.

use crate::error::{Error, ScenarioError};

/// The environment variable that enables the hook.
pub const ENABLE_VAR: &str = "TCPLAB_TEST_HOOKS";

/// With the hooks enabled, `TCPLAB_TEST_ONE_EVENT_CHANNELS=1` turns `[sim] one_event_channels`
/// on in every run and `=0` off (two events per crossing), so that the identity tool can
/// compare whole outputs both ways.
pub const ONE_EVENT_VAR: &str = "TCPLAB_TEST_ONE_EVENT_CHANNELS";

/// What the environment forces `[sim] one_event_channels` to, if anything (`ONE_EVENT_VAR`).
pub fn forced_one_event_channels() -> Option<bool> {
    if std::env::var(ENABLE_VAR).as_deref() != Ok("1") {
        return None;
    }
    match std::env::var(ONE_EVENT_VAR).as_deref() {
        Ok("1") => Some(true),
        Ok("0") => Some(false),
        _ => None,
    }
}

/// What to break.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Corruption {
    /// Count one packet injected that never was: the packet conservation check must fail.
    Conservation,
}

/// The corruption a scenario's `_test_corrupt` asks for, if any (errors name that field).
pub fn corruption(test_corrupt: Option<&str>) -> Result<Option<Corruption>, Error> {
    let Some(what) = test_corrupt else { return Ok(None) };
    let field = "_test_corrupt";
    if std::env::var(ENABLE_VAR).as_deref() != Ok("1") {
        let msg = format!("a test-only field; it is refused unless {ENABLE_VAR}=1");
        return Err(ScenarioError::new(field, msg).into());
    }
    match what {
        "" => Ok(None),
        "conservation" => Ok(Some(Corruption::Conservation)),
        other => Err(ScenarioError::new(field, format!("unknown corruption '{other}' (known: conservation)")).into()),
    }
}
