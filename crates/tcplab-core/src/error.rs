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

/// An i/o error on a path the core wrote or read: the message names the path (escaped) and
/// the errno (`ENOSPC`), the source keeps the raw error.
#[derive(Debug, Error)]
#[error("{path}: {source}{errno}")]
pub struct PathError {
    path: String,
    errno: String,
    source: std::io::Error,
}

impl PathError {
    /// `e` on `path`, as an `io::Error` of the same kind.
    pub fn wrap(e: std::io::Error, path: &std::path::Path) -> std::io::Error {
        let errno = e.raw_os_error().and_then(errno_name).map(|n| format!(" [{n}]")).unwrap_or_default();
        let path = printable(&path.display().to_string());
        std::io::Error::new(e.kind(), PathError { path, errno, source: e })
    }
}

/// The raw errno of an i/o error, looking through `PathError`.
pub fn os_error_code(e: &std::io::Error) -> Option<i32> {
    e.raw_os_error().or_else(|| e.get_ref()?.downcast_ref::<PathError>()?.source.raw_os_error())
}

/// The symbolic name of the errnos a run's writes can meet.
pub fn errno_name(code: i32) -> Option<&'static str> {
    Some(match code {
        libc::EPERM => "EPERM",
        libc::ENOENT => "ENOENT",
        libc::EIO => "EIO",
        libc::EACCES => "EACCES",
        libc::EBUSY => "EBUSY",
        libc::EEXIST => "EEXIST",
        libc::EXDEV => "EXDEV",
        libc::ENOTDIR => "ENOTDIR",
        libc::EISDIR => "EISDIR",
        libc::EINVAL => "EINVAL",
        libc::ENFILE => "ENFILE",
        libc::EMFILE => "EMFILE",
        libc::EFBIG => "EFBIG",
        libc::ENOSPC => "ENOSPC",
        libc::EROFS => "EROFS",
        libc::ENAMETOOLONG => "ENAMETOOLONG",
        libc::ELOOP => "ELOOP",
        libc::EDQUOT => "EDQUOT",
        _ => return None,
    })
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
    fn path_errors_name_the_path_and_the_errno_and_keep_it() {
        let e = PathError::wrap(std::io::Error::from_raw_os_error(libc::ENOSPC), std::path::Path::new("out/a\nb"));
        let text = e.to_string();
        assert!(text.starts_with("out/a\\nb: ") && text.ends_with(" [ENOSPC]"), "{text}");
        assert_eq!(os_error_code(&e), Some(libc::ENOSPC));
        assert_eq!(e.kind(), std::io::ErrorKind::StorageFull);
    }

    #[test]
    fn names_with_control_characters_are_escaped_in_messages() {
        let e = ScenarioError::new("nodes[1]", "node 'a\nerror: forged' is listed twice");
        assert_eq!(e.message, "node 'a\\nerror: forged' is listed twice");
        assert_eq!(printable("\x1b[2J\u{202e}x\u{7f}\u{85}é"), "\\x1b[2J\\u202ex\\x7f\\x85é");
        assert_eq!(printable("plain text, été"), "plain text, été");
        assert!(!ScenarioError::new("f\r", "\t").to_string().chars().any(is_control));
    }
}
