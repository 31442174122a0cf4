//! The library built into the program: the games' rulesets and scenarios as they were when the
//! program was built. An installed `umpire` run outside any library plays them (the lookup
//! order is `find_root`'s, in ruleset.rs), unpacked once into the user's data folder;
//! `umpire library export DIR` writes a copy to edit.

use crate::error::{Error, Result};
use include_dir::{Dir, include_dir};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

static RULESETS: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/rulesets");
static SCENARIOS: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/scenarios");

/// The file that marks an unpacked built-in library (it holds the digest of its contents).
const MARK: &str = ".umpire-built-in";

/// The user's data folder for umpire: `$XDG_DATA_HOME/umpire`, else `~/.local/share/umpire`.
pub fn data_dir() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_DATA_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")))?;
    Some(base.join("umpire"))
}

/// A digest of the built-in library's files (paths and contents), 16 hex digits.
fn digest() -> String {
    let mut h = Sha256::new();
    for (name, dir) in [("rulesets", &RULESETS), ("scenarios", &SCENARIOS)] {
        let mut files = Vec::new();
        collect(dir, &mut files);
        files.sort_by_key(|f| f.path());
        for f in files {
            h.update(name.as_bytes());
            h.update(f.path().to_string_lossy().as_bytes());
            h.update([0]);
            h.update(f.contents());
            h.update([0]);
        }
    }
    h.finalize().iter().take(8).map(|b| format!("{b:02x}")).collect()
}

fn collect<'a>(dir: &'a Dir<'a>, out: &mut Vec<&'a include_dir::File<'a>>) {
    out.extend(dir.files());
    for d in dir.dirs() {
        collect(d, out);
    }
}

/// Whether `root` is the built-in library as unpacked (to be played, not edited).
pub fn is_built_in(root: &Path) -> bool {
    root.join(MARK).is_file()
}

/// The built-in library, unpacked into the data folder (or the temporary folder when there
/// is none) the first time it is needed: one folder per version of its contents, written
/// whole under another name and then renamed, so that a folder found there is complete.
pub fn unpacked() -> Result<PathBuf> {
    let base = data_dir().unwrap_or_else(|| std::env::temp_dir().join("umpire"));
    let digest = digest();
    let dir = base.join(format!("library-{}-{digest}", env!("CARGO_PKG_VERSION")));
    if std::fs::read_to_string(dir.join(MARK)).is_ok_and(|d| d.trim() == digest) {
        return Ok(dir);
    }
    std::fs::create_dir_all(&base).map_err(|e| Error::io(&base, e))?;
    let tmp = tempfile::Builder::new().prefix(".library-").tempdir_in(&base).map_err(|e| Error::io(&base, e))?;
    write(tmp.path())?;
    std::fs::write(tmp.path().join(MARK), format!("{digest}\n")).map_err(|e| Error::io(tmp.path(), e))?;
    let tmp = tmp.keep();
    if dir.exists() {
        // an incomplete or stale folder of the same name: replaced
        let _ = std::fs::remove_dir_all(&dir);
    }
    match std::fs::rename(&tmp, &dir) {
        Ok(()) => Ok(dir),
        // another umpire unpacked it meanwhile
        Err(_) if std::fs::read_to_string(dir.join(MARK)).is_ok_and(|d| d.trim() == digest) => {
            let _ = std::fs::remove_dir_all(&tmp);
            Ok(dir)
        }
        Err(e) => Err(Error::io(&dir, e)),
    }
}

/// Writes the built-in library's `rulesets/` and `scenarios/` into `to`.
fn write(to: &Path) -> Result<()> {
    for (name, dir) in [("rulesets", &RULESETS), ("scenarios", &SCENARIOS)] {
        let at = to.join(name);
        std::fs::create_dir_all(&at).map_err(|e| Error::io(&at, e))?;
        dir.extract(&at).map_err(|e| Error::io(&at, e))?;
    }
    Ok(())
}

/// `umpire library export DIR`: a copy of the built-in library to edit, in a folder that does
/// not exist yet or is empty.
pub fn export(to: &Path) -> Result<()> {
    if to.exists() && std::fs::read_dir(to).map_err(|e| Error::io(to, e))?.next().is_some() {
        return Err(Error::Usage(format!("{}: the folder is not empty; give a new folder for the copy", to.display())));
    }
    write(to)
}

/// The names of the games built in.
pub fn games() -> Vec<String> {
    let mut g: Vec<String> = SCENARIOS.dirs().map(|d| d.path().display().to_string()).collect();
    g.sort();
    g
}
