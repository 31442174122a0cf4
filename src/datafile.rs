//! Reading the library's TOML data files (scenarios, `ruleset.toml`) with `file:line:column`
//! on every syntax or shape error.

use crate::error::{Error, Located, Result};
use std::path::Path;

/// Reads and parses a TOML file; `shown` is the name errors give it.
pub fn parse_toml<T: serde::de::DeserializeOwned>(path: &Path, shown: &str) -> Result<(T, String)> {
    let src = std::fs::read_to_string(path).map_err(|e| Error::io(shown, e))?;
    let t = toml::from_str::<T>(&src)
        .map_err(|e| Error::Data(Located::at(shown, &src, e.span(), e.message().trim().to_string())))?;
    Ok((t, src))
}
