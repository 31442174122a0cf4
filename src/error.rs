//! Typed errors of the library. `anyhow` is used only in `main.rs`.

use std::path::PathBuf;
use std::sync::Arc;

/// A problem found in a data file, located as `file:line:column`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    pub file: String,
    pub line: usize,
    pub col: usize,
    pub msg: String,
}

impl std::fmt::Display for Located {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.line > 0 {
            write!(f, "{}:{}:{}: {}", self.file, self.line, self.col, self.msg)
        } else {
            write!(f, "{}: {}", self.file, self.msg)
        }
    }
}

impl Located {
    /// Locates a byte span of `src` as line and column (1-based).
    pub fn at(file: &str, src: &str, span: Option<std::ops::Range<usize>>, msg: impl Into<String>) -> Located {
        let (line, col) = match span {
            Some(s) => line_col(src, s.start),
            None => (0, 0),
        };
        Located { file: file.to_string(), line, col, msg: msg.into() }
    }
}

pub fn line_col(src: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(src.len());
    let before = &src[..offset];
    let line = before.matches('\n').count() + 1;
    let col = before.rfind('\n').map(|i| offset - i).unwrap_or(offset + 1);
    (line, col)
}

/// Why a command or a load failed. Every failure the library reports is one of these; the
/// session carries it out of `Session::execute` as `Status::Error`, so that scripts, tests and
/// the REPL can ask what kind of failure it was (and a refusal's rule) instead of matching text.
#[derive(Debug, Clone, thiserror::Error)]
pub enum Error {
    /// A data file (scenario, `ruleset.toml`) has a problem at `file:line:column`.
    #[error("{0}")]
    Data(Located),
    #[error("{}", .0.iter().map(|l| l.to_string()).collect::<Vec<_>>().join("\n"))]
    DataMany(Vec<Located>),
    /// (the reason is part of the message, not a separate source: a chain printed whole, as
    /// `umpire: {e:#}` does, would say it twice)
    #[error("{path}: {reason}")]
    Io { path: PathBuf, reason: Arc<std::io::Error> },
    /// A unit, hex, scenario, ruleset or file that does not exist.
    #[error("{0}")]
    NotFound(String),
    /// A rule refused the command; `rule` is the rulebook case that forbids it.
    #[error("refused ({rule}): {msg}")]
    Refused { rule: String, msg: String },
    /// Bad command line: wrong verb, wrong or missing arguments.
    #[error("{0}")]
    Usage(String),
    /// The command must wait: a decision is pending (answer it, or cancel the command).
    #[error("{0}")]
    Pending(String),
    /// An error raised in rule code (a bug in the ruleset), with file:line and traceback.
    #[error("rule error: {0}")]
    Lua(String),
    /// A save file that cannot be read, replayed or written.
    #[error("{0}")]
    Save(String),
    /// Problems found by `check` (one per line).
    #[error("{0}")]
    State(String),
}

/// Failures compare by kind and message (an I/O error by its path and text).
impl PartialEq for Error {
    fn eq(&self, other: &Error) -> bool {
        self.kind() == other.kind() && self.to_string() == other.to_string()
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Error {
        Error::Io { path: path.into(), reason: Arc::new(source) }
    }

    /// The kind of failure, as scripts name it (`expect-error --kind refused ...`).
    pub fn kind(&self) -> &'static str {
        match self {
            Error::Data(_) | Error::DataMany(_) => "data",
            Error::Io { .. } => "io",
            Error::NotFound(_) => "not-found",
            Error::Refused { .. } => "refused",
            Error::Usage(_) => "usage",
            Error::Pending(_) => "pending",
            Error::Lua(_) => "rule-error",
            Error::Save(_) => "save",
            Error::State(_) => "check",
        }
    }

    /// Every kind, for messages that list them.
    pub const KINDS: &[&str] =
        &["data", "io", "not-found", "refused", "usage", "pending", "rule-error", "save", "check"];

    /// The rule of a refusal.
    pub fn rule(&self) -> Option<&str> {
        match self {
            Error::Refused { rule, .. } => Some(rule),
            _ => None,
        }
    }

    /// Where rule code failed (`rulesets/x/combat.lua`, 12), when the message says.
    pub fn location(&self) -> Option<(&str, u32)> {
        let Error::Lua(m) = self else { return None };
        let mut parts = m.splitn(3, ':');
        let (file, line) = (parts.next()?, parts.next()?);
        let line = line.trim().parse().ok()?;
        (!file.is_empty() && !file.contains(' ')).then_some((file, line))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_errors_know_where_they_happened() {
        let e = Error::Lua("rulesets/x/combat.lua:12: attempt to index a nil value".into());
        assert_eq!(e.location(), Some(("rulesets/x/combat.lua", 12)));
        assert_eq!(Error::Lua("instruction limit exceeded".into()).location(), None);
        let r = Error::Refused { rule: "5.1".into(), msg: "no".into() };
        assert_eq!((r.kind(), r.rule()), ("refused", Some("5.1")));
    }
}
