//! Typed errors of the library. `anyhow` is used only in `main.rs`.

use std::path::PathBuf;

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

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{0}")]
    Data(Located),
    #[error("{}", .0.iter().map(|l| l.to_string()).collect::<Vec<_>>().join("\n"))]
    DataMany(Vec<Located>),
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{0}")]
    NotFound(String),
    /// A rule refused the command; `rule` is the rulebook case that forbids it.
    #[error("refused ({rule}): {msg}")]
    Refused { rule: String, msg: String },
    /// Bad command line: wrong verb, wrong arguments, unknown unit or hex.
    #[error("{0}")]
    Usage(String),
    /// An error raised in rule code (a bug in the ruleset), with file:line and traceback.
    #[error("rule error: {0}")]
    Lua(String),
    #[error("{0}")]
    Save(String),
    #[error("{0}")]
    State(String),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Error {
        Error::Io { path: path.into(), source }
    }
}
