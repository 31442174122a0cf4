//! Rulesets and the library of rules and scenarios on disk.
//!
//! A ruleset is a folder `rulesets/<id>/` with `ruleset.toml` and its Lua files;
//! `rulesets/lib/` holds Lua shared by rulesets. Scenarios live in `scenarios/<game>/`.

use crate::datafile::parse_toml;
use crate::error::{Error, Result};
use serde::Deserialize;
use sha2::{Digest, Sha256};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRuleset {
    ruleset: RawInfo,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawInfo {
    name: String,
    version: String,
    #[serde(default = "default_entry")]
    entry: String,
    /// Name of the default scenario in `scenarios/<id>/`.
    scenario: String,
    #[serde(default)]
    description: String,
}

fn default_entry() -> String {
    "main.lua".into()
}

#[derive(Clone, Debug)]
pub struct Ruleset {
    pub id: String,
    pub name: String,
    pub version: String,
    pub entry: String,
    pub default_scenario: String,
    pub description: String,
    /// The ruleset's folder.
    pub dir: PathBuf,
    /// The library root (the folder holding `rulesets/` and `scenarios/`).
    pub root: PathBuf,
    /// SHA-256 over the ruleset's Lua files, its ruleset.toml and rulesets/lib, in path order.
    pub content_hash: String,
}

impl Ruleset {
    pub fn load(root: &Path, id: &str) -> Result<Ruleset> {
        let mut r = Ruleset::load_meta(root, id)?;
        r.rehash();
        Ok(r)
    }

    /// Ruleset `id` from another rules folder `other` (a designer's copy, to compare or replay
    /// under): a ruleset folder (holding `ruleset.toml`), or a library holding
    /// `rulesets/<id>/`. A ruleset folder beside a `lib/` folder uses that shared Lua; otherwise
    /// the shared Lua of `library`.
    pub fn load_other(other: &Path, library: &Path, id: &str) -> Result<Ruleset> {
        if other.join("rulesets").join(id).is_dir() {
            return Ruleset::load(other, id);
        }
        if !other.join("ruleset.toml").is_file() {
            return Err(Error::NotFound(format!(
                "--rules {}: neither a ruleset folder (with ruleset.toml) nor a library holding rulesets/{id}/",
                other.display()
            )));
        }
        // the rules of another game would fail in confusing ways (unknown verbs, hexes not on
        // the map): said at once
        if let Some(game) = Ruleset::game_of(other, library).filter(|g| g != id) {
            return Err(Error::Usage(format!(
                "--rules {}: these are the rules of {game}, not of {id} (the game of the scenario or save)",
                other.display()
            )));
        }
        let beside = other.parent().filter(|p| p.join("lib").is_dir()).and_then(Path::parent);
        let root = beside.unwrap_or(library);
        let mut r = Ruleset::load_meta_at(root, other, id)?;
        r.rehash();
        Ok(r)
    }

    /// The game of the library whose rules the folder `dir` holds (a copy being edited): the
    /// game of its folder's name, else the game whose `ruleset.toml` has the same name; `None`
    /// when neither tells.
    pub fn game_of(dir: &Path, library: &Path) -> Option<String> {
        let games = games(library);
        let folder = dir.canonicalize().ok()?.file_name()?.to_str()?.to_string();
        if games.contains(&folder) {
            return Some(folder);
        }
        let name = Ruleset::load_meta_at(library, dir, &folder).ok()?.name;
        games.into_iter().find(|g| Ruleset::load_meta(library, g).is_ok_and(|r| r.name == name))
    }

    /// `ruleset.toml` only, without the content hash (to find a default scenario).
    pub fn load_meta(root: &Path, id: &str) -> Result<Ruleset> {
        if !valid_id(id) {
            return Err(Error::NotFound(format!("'{id}' is not a valid ruleset id")));
        }
        Ruleset::load_meta_at(root, &root.join("rulesets").join(id), id)
    }

    /// `ruleset.toml` of the folder `dir`, for ruleset `id` of the library `root`.
    fn load_meta_at(root: &Path, dir: &Path, id: &str) -> Result<Ruleset> {
        let dir = dir.to_path_buf();
        let file = dir.join("ruleset.toml");
        if !file.is_file() {
            // the games: folders with a ruleset.toml (not the shared `lib/`)
            let known = games(root);
            return Err(Error::NotFound(if known.is_empty() {
                format!(
                    "no ruleset '{id}': the library {} has no rulesets/ folder (name the library with --library)",
                    shown(root)
                )
            } else {
                format!(
                    "no ruleset '{id}': rulesets/{id}/ruleset.toml does not exist (rulesets are {})",
                    known.join(", ")
                )
            }));
        }
        let shown = format!("rulesets/{id}/ruleset.toml");
        let (raw, _): (RawRuleset, _) = parse_toml(&file, &shown)?;
        let entry = dir.join(&raw.ruleset.entry);
        if !entry.is_file() {
            return Err(Error::NotFound(format!("{shown}: entry script {} does not exist", raw.ruleset.entry)));
        }
        Ok(Ruleset {
            id: id.to_string(),
            name: raw.ruleset.name,
            version: raw.ruleset.version,
            entry: raw.ruleset.entry,
            default_scenario: raw.ruleset.scenario,
            description: raw.ruleset.description,
            dir,
            root: root.to_path_buf(),
            content_hash: String::new(),
        })
    }

    /// Recomputes the content hash (after the designer edited files).
    pub fn rehash(&mut self) {
        self.content_hash = hash_files(&[self.dir.clone(), self.root.join("rulesets").join("lib")]);
    }
}

pub fn valid_id(id: &str) -> bool {
    !id.is_empty() && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// The games of the library `root`: its rulesets/ folders that hold a ruleset.toml (not the
/// shared `lib/`), in name order.
pub fn games(root: &Path) -> Vec<String> {
    list_dirs(&root.join("rulesets"))
        .into_iter()
        .filter(|d| root.join("rulesets").join(d).join("ruleset.toml").is_file())
        .collect()
}

pub fn list_dirs(p: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(p)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .filter(|e| e.path().is_dir())
                .filter_map(|e| e.file_name().to_str().map(String::from))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// Every regular file under `dir` (recursively) that `keep` accepts, sorted. Links are
/// followed only where they stay inside `dir` (as `require` does), and each folder is read
/// once, so a link loop or a link to a device or to a tree elsewhere is never read.
fn files_under(dir: &Path, keep: &dyn Fn(&Path) -> bool) -> Vec<PathBuf> {
    fn walk(
        dir: &Path,
        base: &Path,
        seen: &mut BTreeSet<PathBuf>,
        keep: &dyn Fn(&Path) -> bool,
        out: &mut Vec<PathBuf>,
    ) {
        let Ok(real) = dir.canonicalize() else { return };
        if !real.starts_with(base) || !seen.insert(real) {
            return;
        }
        if let Ok(rd) = std::fs::read_dir(dir) {
            for e in rd.flatten() {
                let p = e.path();
                if p.is_dir() {
                    walk(&p, base, seen, keep, out);
                } else if p.is_file() && keep(&p) && p.canonicalize().is_ok_and(|r| r.starts_with(base)) {
                    out.push(p);
                }
            }
        }
    }
    let mut out = Vec::new();
    if let Ok(base) = dir.canonicalize() {
        walk(dir, &base, &mut BTreeSet::new(), keep, &mut out);
    }
    out.sort();
    out
}

/// The Lua files of a ruleset folder (recursively), sorted.
pub fn lua_files(dir: &Path) -> Vec<PathBuf> {
    files_under(dir, &|p| p.extension().is_some_and(|x| x == "lua"))
}

fn hash_files(dirs: &[PathBuf]) -> String {
    let rule_file =
        |p: &Path| p.extension().is_some_and(|x| x == "lua") || p.file_name().is_some_and(|n| n == "ruleset.toml");
    let mut files: Vec<PathBuf> = dirs.iter().flat_map(|d| files_under(d, &rule_file)).collect();
    files.sort();
    let mut h = Sha256::new();
    for f in files {
        h.update(f.to_string_lossy().rsplit("rulesets").next().unwrap_or_default().as_bytes());
        h.update([0]);
        h.update(std::fs::read(&f).unwrap_or_default());
        h.update([0]);
    }
    h.finalize().iter().take(8).map(|b| format!("{b:02x}")).collect()
}

/// Whether `p` is a library: a folder holding `rulesets/` and `scenarios/`.
pub fn is_library(p: &Path) -> bool {
    p.join("rulesets").is_dir() && p.join("scenarios").is_dir()
}

/// The library a path belongs to: the nearest folder at or above it that is a library.
pub fn library_of(path: &Path) -> Option<PathBuf> {
    let abs = path.canonicalize().ok()?;
    abs.ancestors().find(|a| is_library(a)).map(Path::to_path_buf)
}

/// A library folder as messages show it: relative to the current folder when inside it (so
/// that transcripts do not depend on where the checkout is), else absolute.
pub fn shown(root: &Path) -> String {
    let abs = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    match std::env::current_dir().ok().and_then(|cwd| cwd.canonicalize().ok()) {
        Some(cwd) if abs == cwd => ".".into(),
        Some(cwd) => match abs.strip_prefix(&cwd) {
            Ok(rel) => rel.display().to_string(),
            Err(_) => abs.display().to_string(),
        },
        None => abs.display().to_string(),
    }
}

/// The library for a path: the one named (`--library`), else the one the path belongs to,
/// else [`find_root`].
pub fn library_for(named: Option<&Path>, path: &Path) -> PathBuf {
    named.map(Path::to_path_buf).or_else(|| library_of(path)).unwrap_or_else(find_root)
}

/// The environment variable naming the library (like `--library DIR`).
pub const LIBRARY_VAR: &str = "UMPIRE_LIBRARY";

/// The library to play from when none is named (`--library DIR`): `$UMPIRE_LIBRARY`, else the
/// nearest library at or above the current folder, else the games built into the program
/// ([`crate::library`], unpacked into the user's data folder).
pub fn find_root() -> PathBuf {
    if let Some(h) = std::env::var_os(LIBRARY_VAR).filter(|v| !v.is_empty()) {
        return PathBuf::from(h);
    }
    if let Some(lib) = std::env::current_dir().ok().and_then(|cwd| library_of(&cwd)) {
        return lib;
    }
    match crate::library::unpacked() {
        Ok(dir) => dir,
        Err(e) => {
            tracing::warn!("the built-in games could not be unpacked: {e}");
            std::env::temp_dir().join("umpire-no-library")
        }
    }
}

pub fn resolve_scenario(root: &Path, name: &str) -> Result<(PathBuf, PathBuf, String)> {
    let p = Path::new(name);
    if name.ends_with(".toml") || p.is_file() {
        if !p.is_file() {
            return Err(Error::NotFound(format!("scenario file {name} does not exist")));
        }
        let abs = p.canonicalize().map_err(|e| Error::io(p, e))?;
        // usually <library>/scenarios/<game>/<file>.toml; a file elsewhere takes its rules from
        // the nearest folder above it that holds rulesets/, else from the session's library
        let game_dir = abs.parent().unwrap_or(Path::new("."));
        let game = game_dir.file_name().and_then(|s| s.to_str()).unwrap_or("local").to_string();
        let lib = abs
            .ancestors()
            .skip(1)
            .find(|d| d.join("rulesets").is_dir())
            .map(Path::to_path_buf)
            .unwrap_or_else(|| root.to_path_buf());
        let stem = abs.file_stem().and_then(|s| s.to_str()).unwrap_or("scenario");
        return Ok((p.to_path_buf(), lib, format!("{game}/{stem}")));
    }
    let (game, scen) = match name.split_once('/') {
        Some((g, s)) => (g.to_string(), Some(s.to_string())),
        None => (name.to_string(), None),
    };
    if !valid_id(&game) {
        return Err(Error::NotFound(format!("'{name}' is not a scenario name")));
    }
    let games = list_dirs(&root.join("scenarios"));
    let game = match crate::text::pick(&game, games.iter().map(String::as_str)) {
        crate::text::Pick::One(g) => g.to_string(),
        _ => return Err(Error::NotFound(format!("no game '{game}' (games are {})", games.join(", ")))),
    };
    let scen = match scen {
        Some(s) => s,
        None => Ruleset::load_meta(root, &game).map(|r| r.default_scenario).unwrap_or_else(|_| game.clone()),
    };
    let file = root.join("scenarios").join(&game).join(format!("{scen}.toml"));
    if !file.is_file() {
        let mut names: Vec<String> = std::fs::read_dir(root.join("scenarios").join(&game))
            .map(|rd| {
                rd.flatten().filter_map(|e| e.path().file_stem().and_then(|s| s.to_str()).map(String::from)).collect()
            })
            .unwrap_or_default();
        names.sort();
        return Err(Error::NotFound(format!(
            "no scenario '{game}/{scen}' (scenarios of {game}: {})",
            names.join(", ")
        )));
    }
    Ok((file, root.to_path_buf(), format!("{game}/{scen}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_content_hash_covers_the_rules_not_the_notes() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("rulesets").join("g");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::create_dir_all(root.path().join("rulesets").join("lib")).unwrap();
        std::fs::write(dir.join("ruleset.toml"), "[ruleset]\nname = \"G\"\nversion = \"1\"\nscenario = \"s\"\n")
            .unwrap();
        std::fs::write(dir.join("main.lua"), "-- rules\n").unwrap();
        std::fs::write(dir.join("coverage.toml"), "[\"1.1\"]\nstatus = \"done\"\n").unwrap();
        let h0 = Ruleset::load(root.path(), "g").unwrap().content_hash;
        assert_eq!(h0.len(), 16);
        std::fs::write(dir.join("coverage.toml"), "[\"1.1\"]\nstatus = \"partial\"\n").unwrap();
        assert_eq!(Ruleset::load(root.path(), "g").unwrap().content_hash, h0);
        std::fs::write(dir.join("main.lua"), "-- rules, changed\n").unwrap();
        let h1 = Ruleset::load(root.path(), "g").unwrap().content_hash;
        assert_ne!(h1, h0);
        std::fs::write(root.path().join("rulesets").join("lib").join("util.lua"), "return {}\n").unwrap();
        assert_ne!(Ruleset::load(root.path(), "g").unwrap().content_hash, h1);
        // the default scenario is read without hashing
        let meta = Ruleset::load_meta(root.path(), "g").unwrap();
        assert_eq!((meta.default_scenario.as_str(), meta.content_hash.as_str()), ("s", ""));
    }
}
