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
    /// The field and message with control characters escaped (`printable`): both may quote
    /// the user's own text (a node name, an unknown key), which must not reach a terminal raw.
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self { field: printable(&field.into()), message: printable(&message.into()) }
    }
}

/// `text` safe to print on one terminal line: C0 and C1 control characters, DEL, the line and
/// paragraph separators and the bidirectional marks and overrides shown as escapes (`\n`,
/// `\x1b`, `\u202e`), everything else unchanged. The same rule as the Python package's
/// `errors.printable`, so a name reads the same whichever side reports it.
pub fn printable(text: &str) -> String {
    if !text.chars().any(is_control) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if is_control(c) && (c as u32) < 0x100 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if is_control(c) => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

fn is_control(c: char) -> bool {
    matches!(c as u32, 0x00..=0x1f | 0x7f..=0x9f | 0x061c | 0x200e | 0x200f | 0x2028 | 0x2029 | 0x202a..=0x202e | 0x2066..=0x2069)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_with_control_characters_are_escaped_in_messages() {
        let e = ScenarioError::new("nodes[1]", "node 'a\nerror: forged' is listed twice");
        assert_eq!(e.message, "node 'a\\nerror: forged' is listed twice");
        assert_eq!(printable("\x1b[2J\u{202e}x\u{7f}\u{85}é"), "\\x1b[2J\\u202ex\\x7f\\x85é");
        assert_eq!(printable("plain text, été"), "plain text, été");
        assert!(!ScenarioError::new("f\r", "\t").to_string().chars().any(is_control));
    }
}
