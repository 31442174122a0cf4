//! Scenario files: the map (defaults plus exceptions), boxes, cups, tracks and the order of
//! battle, in TOML under `scenarios/<game>/`. See `docs/scenario-format.md`.
//!
//! Loading reports every problem it finds, each located as `file:line:column`.

mod build;
mod extend;
mod order;
mod raw;

use crate::datafile::Reader as Ctx;
use crate::error::{Error, Result};
use crate::map::Map;
use crate::state::GameState;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use toml::Spanned;
type S<T> = Spanned<T>;

use build::*;
use extend::*;
use order::*;
use raw::*;

/// A loaded scenario: its static map and the state the game starts from.
#[derive(Clone, Debug)]
pub struct Scenario {
    /// `game/name`.
    pub id: String,
    pub name: String,
    pub description: String,
    pub ruleset: String,
    pub path: PathBuf,
    pub options: BTreeMap<String, String>,
    pub map: std::sync::Arc<Map>,
    pub initial: GameState,
    /// The symbol pictures draw for a unit, by unit id (from `symbol` of its type or itself).
    pub symbols: BTreeMap<String, String>,
    /// The unit types as read (a scenario that extends this one adds units of these types).
    pub(crate) types: Arc<BTreeMap<String, RawType>>,
}

pub fn toml_to_json(v: &toml::Value) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}

/// Loads a scenario file. `id` is the name it is known by (`game/scenario`).
/// The options a scenario file declares (`[scenario.options]`), with their descriptions, read
/// without building the scenario (for completion and `help new`). Empty if unreadable.
pub fn declared_options(path: &Path) -> Vec<(String, String)> {
    let mut all = BTreeMap::new();
    let mut file = path.to_path_buf();
    // the options of the scenarios it extends too (the nearest description wins)
    for _ in 0..MAX_EXTENDS {
        let Ok(text) = std::fs::read_to_string(&file) else { break };
        let Ok(table) = text.parse::<toml::Table>() else { break };
        let header = table.get("scenario");
        if let Some(o) = header.and_then(|s| s.get("options")).and_then(|o| o.as_table()) {
            for (k, v) in o {
                all.entry(k.clone()).or_insert_with(|| v.as_str().unwrap_or_default().to_string());
            }
        }
        match header.and_then(|s| s.get("extends")).and_then(|e| e.as_str()) {
            Some(parent) => file = file.with_file_name(format!("{parent}.toml")),
            None => break,
        }
    }
    all.into_iter().collect()
}

pub fn load(path: &Path, id: &str) -> Result<Scenario> {
    load_in(path, id, &mut Vec::new())
}

/// Loads a scenario file; `chain` holds the files that extend it, being loaded.
fn load_in(path: &Path, id: &str, chain: &mut Vec<PathBuf>) -> Result<Scenario> {
    let shown = shown_path(path);
    let src = std::fs::read_to_string(path).map_err(|e| Error::io(&shown, e))?;
    if extends_of(&src).is_some() {
        // (not kept: the file it extends may have changed; that one is kept)
        return read_extension(path, id, &shown, &src, chain);
    }
    // (a file read before with the same text is not parsed again)
    static READ: crate::datafile::Memo<Scenario> = crate::datafile::Memo::new();
    READ.read(&[&path.to_string_lossy(), &shown, id], &src, || read(path, id, &shown, &src))
}

/// The scenario a file extends (`[scenario] extends`), if it says so.
fn extends_of(src: &str) -> Option<String> {
    if !src.contains("extends") {
        return None;
    }
    let table = src.parse::<toml::Table>().ok()?;
    table.get("scenario")?.get("extends")?.as_str().map(String::from)
}

fn read(path: &Path, id: &str, shown: &str, src: &str) -> Result<Scenario> {
    let mut cx = Ctx::new(shown, src);
    let Some(raw) = cx.document().and_then(|doc| raw_file(&mut cx, &doc)) else { return Err(errors(cx)) };
    let map = match build_map(&mut cx, &raw.map) {
        Ok(map) => map,
        Err(e) => {
            // a map that cannot be built ends the loading: its problem, and those found before
            let Error::Data(l) = e else { return Err(e) };
            cx.errors.push(l);
            return Err(errors(cx));
        }
    };
    let mut state = initial_state(&mut cx, &raw, &map, id);
    let header = &raw.scenario;
    let mut symbols = BTreeMap::new();
    let known_symbol = |cx: &mut Ctx, sym: &S<String>| {
        let ok = crate::map::UNIT_SYMBOLS.contains(&sym.get_ref().as_str());
        if !ok {
            let msg = format!(
                "unknown unit symbol '{}' (symbols are {})",
                sym.get_ref(),
                crate::map::UNIT_SYMBOLS.join(", ")
            );
            cx.err::<()>(sym.span(), msg);
        }
        ok
    };
    let type_symbols: BTreeMap<&str, &S<String>> = raw
        .types
        .iter()
        .filter_map(|(name, t)| Some((name.as_str(), t.symbol.as_ref()?)))
        .filter(|(_, sym)| known_symbol(&mut cx, sym))
        .collect();
    for ru in &raw.units {
        let of_type = ru.ty.as_ref().and_then(|t| type_symbols.get(t.get_ref().as_str()).copied());
        let sym = match &ru.symbol {
            Some(sym) => Some(sym).filter(|sym| known_symbol(&mut cx, sym)),
            None => of_type,
        };
        if let Some(sym) = sym {
            symbols.insert(ru.id.get_ref().trim().to_string(), sym.get_ref().clone());
        }
        if let Some(mut unit) = unit_of(&mut cx, &raw, ru, &map, &state.units) {
            state.next_stack_seq += 1;
            unit.stack_seq = state.next_stack_seq;
            state.units.insert(unit);
        }
    }

    if !cx.errors.is_empty() {
        return Err(errors(cx));
    }
    Ok(Scenario {
        id: id.to_string(),
        name: header.name.clone(),
        description: header.description.clone(),
        ruleset: header.ruleset.clone(),
        path: path.to_path_buf(),
        options: header.options.clone(),
        map: std::sync::Arc::new(map),
        initial: state,
        symbols,
        types: Arc::new(raw.types.clone()),
    })
}

/// The problems found, as one error.
fn errors(mut cx: Ctx) -> Error {
    // in the order of the file (a problem of the whole file first)
    cx.errors.sort_by_key(|l| (l.line, l.col));
    if cx.errors.len() == 1 { Error::Data(cx.errors.remove(0)) } else { Error::DataMany(cx.errors) }
}

/// How a scenario file is named in messages: relative, from its `scenarios/` folder when it
/// is inside a library (so transcripts do not depend on where the project is checked out).
fn shown_path(path: &Path) -> String {
    let text = path.display().to_string();
    if path.is_absolute()
        && let Some(i) = text.rfind("/scenarios/")
    {
        return text[i + 1..].to_string();
    }
    text
}
