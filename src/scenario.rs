//! Scenario files: the map (defaults plus exceptions), boxes, cups, tracks and the order of
//! battle, in TOML under `scenarios/<game>/`. See `docs/scenario-format.md`.
//!
//! Loading reports every problem it finds, each located as `file:line:column`.

use crate::datafile::{Part, Reader as Ctx};
use crate::dice::Dice;
use crate::error::{Error, Located, Result};
use crate::hex::{Grid, HexFormat, HexId, Hexside, Shift};
use crate::map::{HexInfo, HexTable, Layout, Map};
use crate::state::{Clock, GameState, Location, Unit};
use serde::Deserialize;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use toml::Spanned;

type S<T> = Spanned<T>;

/// The largest map a scenario may describe.
const MAX_HEXES: i64 = 100_000;

/// A scenario file as read: each part on its own, so that a part of the wrong shape is
/// reported and left out while the others are still checked.
struct RawFile {
    scenario: RawHeader,
    map: RawMap,
    cups: BTreeMap<String, Vec<S<String>>>,
    tracks: BTreeMap<String, i64>,
    sides: BTreeMap<S<String>, BTreeMap<String, toml::Value>>,
    vars: BTreeMap<String, toml::Value>,
    types: BTreeMap<String, RawType>,
    units: Vec<RawUnit>,
    markers: BTreeMap<String, BTreeMap<S<String>, i64>>,
}

/// The parts of a scenario file.
const SECTIONS: &[&str] = &["scenario", "map", "cups", "tracks", "sides", "vars", "types", "units", "markers"];
const MAP_KEYS: &[&str] = &[
    "format", "shift", "cols", "rows", "terrain", "off", "terrains", "features", "hexsides", "paths", "places",
    "areas", "values", "colors", "legend", "rows_up", "layout",
];

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawHeader {
    name: String,
    ruleset: String,
    sides: Vec<String>,
    #[serde(default)]
    description: String,
    #[serde(default)]
    boxes: Vec<String>,
    #[serde(default)]
    options: BTreeMap<String, String>,
}

/// `[scenario]` of a scenario that extends another (see `read_extension`).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawExtHeader {
    extends: S<String>,
    name: String,
    #[serde(default)]
    ruleset: Option<S<String>>,
    #[serde(default)]
    sides: Option<S<Vec<String>>>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    boxes: Vec<String>,
    #[serde(default)]
    options: BTreeMap<String, String>,
    /// Units of the scenario extended that this one leaves out.
    #[serde(default)]
    remove: Vec<S<String>>,
}

/// How many scenarios a chain of `extends` may hold.
const MAX_EXTENDS: usize = 8;

/// `[map]`, read key by key (see [`raw_map`]).
struct RawMap {
    format: S<String>,
    shift: S<String>,
    cols: [i32; 2],
    rows: [i32; 2],
    terrain: String,
    /// Hexes inside the rectangle that are not part of the map.
    off: Vec<S<String>>,
    terrains: BTreeMap<String, Vec<S<String>>>,
    features: BTreeMap<String, Vec<S<String>>>,
    hexsides: BTreeMap<String, Vec<S<String>>>,
    paths: BTreeMap<String, Vec<Vec<S<String>>>>,
    places: BTreeMap<String, S<String>>,
    areas: BTreeMap<String, Vec<S<String>>>,
    values: BTreeMap<String, BTreeMap<S<String>, f64>>,
    colors: BTreeMap<String, String>,
    /// What pictures mark: areas and hex values.
    legend: RawLegend,
    /// Row numbers grow towards the top of the printed map.
    rows_up: bool,
    /// `columns` (flat-topped hexes, ids column then row) or `rows` (pointy-topped hexes,
    /// ids printed row then position).
    layout: S<String>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawLegend {
    #[serde(default)]
    areas: BTreeMap<S<String>, RawMark>,
    #[serde(default)]
    values: BTreeMap<S<String>, RawMark>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMark {
    label: String,
    #[serde(default)]
    color: Option<String>,
    #[serde(default)]
    text: String,
}

#[derive(Deserialize, Default, Clone, Debug)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawType {
    #[serde(default)]
    kind: Option<String>,
    /// The symbol pictures draw on the counter (`map::UNIT_SYMBOLS`).
    #[serde(default)]
    symbol: Option<S<String>>,
    #[serde(default)]
    steps: Option<Vec<BTreeMap<String, toml::Value>>>,
    #[serde(default)]
    attrs: BTreeMap<String, toml::Value>,
    #[serde(default)]
    approx: Option<toml::Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawUnit {
    id: S<String>,
    side: S<String>,
    #[serde(default)]
    name: Option<String>,
    #[serde(rename = "type", default)]
    ty: Option<S<String>>,
    #[serde(default)]
    kind: Option<String>,
    #[serde(default)]
    symbol: Option<S<String>>,
    #[serde(default)]
    steps: Option<Vec<BTreeMap<String, toml::Value>>>,
    /// Starting step, 1 = full strength.
    #[serde(default)]
    step: Option<S<usize>>,
    /// A hex, or the name of a box.
    at: S<String>,
    #[serde(default)]
    attrs: BTreeMap<String, toml::Value>,
    #[serde(default)]
    markers: BTreeMap<String, i64>,
    #[serde(default)]
    approx: Option<toml::Value>,
}

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

/// A scenario that extends another (`[scenario] extends = "name"`, a file beside it): the
/// other's map, order of battle and data, with this file's changes: `[scenario]` renames it,
/// adds boxes and options and `remove`s units; `[tracks]`, `[vars]`, `[sides.X]` values,
/// `[cups]`, `[types.X]` and `[markers.X]` hexes are set over the other's; a `[[units]]` entry
/// adds a unit, or replaces the unit of the same id. See docs/scenario-format.md.
fn read_extension(path: &Path, id: &str, shown: &str, src: &str, chain: &mut Vec<PathBuf>) -> Result<Scenario> {
    let mut cx = Ctx::new(shown, src);
    let mut header = None;
    let Some(doc) = cx.document() else { return Err(errors(cx)) };
    let Some(mut raw) = raw_parts(&mut cx, &doc, Some(&mut header)) else { return Err(errors(cx)) };
    let Some(h) = header else { return Err(errors(cx)) };
    // the scenario extended: a file beside this one
    let name = h.extends.get_ref().trim().to_string();
    let parent_path = path.with_file_name(format!("{name}.toml"));
    let real = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    chain.push(real(path));
    if chain.contains(&real(&parent_path)) {
        cx.err::<()>(
            h.extends.span(),
            format!("extends '{name}': a scenario cannot extend itself (through {})", chain.len()),
        );
        return Err(errors(cx));
    }
    if chain.len() >= MAX_EXTENDS {
        cx.err::<()>(
            h.extends.span(),
            format!("extends '{name}': more than {MAX_EXTENDS} scenarios in a chain of extends"),
        );
        return Err(errors(cx));
    }
    if !extended_exists(&mut cx, path, &h.extends, &parent_path) {
        return Err(errors(cx));
    }
    let parent_id = match id.rsplit_once('/') {
        Some((game, _)) => format!("{game}/{name}"),
        None => name.clone(),
    };
    let parent = load_in(&parent_path, &parent_id, chain)?;
    chain.pop();
    let pstate = &parent.initial;
    for (given, what, theirs) in [
        (h.ruleset.as_ref().map(|r| (r.span(), r.get_ref().clone())), "ruleset", parent.ruleset.clone()),
        (h.sides.as_ref().map(|x| (x.span(), x.get_ref().join(", "))), "sides", pstate.sides.join(", ")),
    ] {
        if let Some((span, mine)) = given
            && mine != theirs
        {
            cx.err::<()>(span, format!("{what} '{mine}' differs from the scenario it extends ({name}: '{theirs}')"));
        }
    }
    let mut boxes: Vec<String> = pstate.boxes.iter().cloned().collect();
    boxes.extend(h.boxes.iter().filter(|b| !pstate.boxes.contains(*b)).cloned());
    let mut types = (*parent.types).clone();
    types.extend(std::mem::take(&mut raw.types));
    raw.types = types;
    raw.scenario = RawHeader {
        name: h.name.clone(),
        ruleset: parent.ruleset.clone(),
        sides: pstate.sides.clone(),
        description: h.description.clone().unwrap_or_else(|| parent.description.clone()),
        boxes: boxes.clone(),
        options: parent.options.clone().into_iter().chain(h.options.clone()).collect(),
    };
    // the other's state, with this file's data set over it
    let mut state = pstate.clone();
    state.scenario = id.to_string();
    state.boxes = boxes.iter().cloned().collect();
    let mine = initial_state(&mut cx, &raw, &parent.map, id);
    set_over(&mut state, mine);
    let mut symbols = parent.symbols.clone();
    change_units(&mut cx, &raw, &h.remove, &parent, &mut state, &mut symbols);
    if !cx.errors.is_empty() {
        return Err(errors(cx));
    }
    Ok(Scenario {
        id: id.to_string(),
        name: h.name,
        description: raw.scenario.description.clone(),
        ruleset: parent.ruleset.clone(),
        path: path.to_path_buf(),
        options: raw.scenario.options.clone(),
        map: parent.map.clone(),
        initial: state,
        symbols,
        types: Arc::new(raw.types),
    })
}

/// Whether the scenario an extension names is a file beside it; else the error lists the
/// scenarios that are there.
fn extended_exists(cx: &mut Ctx, path: &Path, extends: &S<String>, parent_path: &Path) -> bool {
    let name = extends.get_ref().trim();
    let real = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    let plain = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if plain && parent_path.is_file() {
        return true;
    }
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut here: Vec<String> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.strip_suffix(".toml").map(String::from))
        .filter(|n| real(&dir.join(format!("{n}.toml"))) != real(path))
        .collect();
    here.sort();
    cx.err::<()>(
        extends.span(),
        match here.is_empty() {
            true => format!("extends '{name}': no scenario {name}.toml beside this one (no other scenario here)"),
            false => format!(
                "extends '{name}': no scenario {name}.toml beside this one (scenarios here: {})",
                here.join(", ")
            ),
        },
    );
    false
}

/// An extension's own data set over the data of the scenario it extends: tracks, vars, cups,
/// each side's values, hex markers.
fn set_over(state: &mut GameState, mine: GameState) {
    state.tracks.extend(mine.tracks);
    state.vars.extend(mine.vars);
    state.cups.extend(mine.cups);
    for (side, values) in mine.side_values {
        let mut all = state.side_values.get(&side).map(|v| (**v).clone()).unwrap_or_default();
        all.extend((*values).clone());
        state.side_values.insert(side, Arc::new(all));
    }
    for (hex, marks) in mine.hex_markers {
        for (name, v) in marks.iter() {
            crate::state::set_marker(&mut state.hex_markers, hex, name.clone(), Some(*v));
        }
    }
}

/// An extension's units: those it removes, and its own (a unit of an id the extended scenario
/// has replaces that one), each with its symbol.
fn change_units(
    cx: &mut Ctx,
    raw: &RawFile,
    remove: &[S<String>],
    parent: &Scenario,
    state: &mut GameState,
    symbols: &mut BTreeMap<String, String>,
) {
    // the extended scenario as the extension names it
    let name = parent.id.rsplit('/').next().unwrap_or(&parent.id);
    for r in remove {
        let uid = r.get_ref().trim();
        if state.units.remove(uid).is_none() {
            cx.err::<()>(r.span(), format!("remove: '{uid}' is not a unit of {name}"));
        }
        symbols.remove(uid);
    }
    for ru in &raw.units {
        let uid = ru.id.get_ref().trim().to_string();
        // a unit of the same id replaces the other's (it is not "used twice")
        let replaced = state.units.remove(&uid);
        let symbol = ru.symbol.as_ref().or_else(|| raw.types.get(ru.ty.as_ref()?.get_ref())?.symbol.as_ref());
        match unit_of(cx, raw, ru, &parent.map, &state.units) {
            Some(mut unit) => {
                state.next_stack_seq += 1;
                unit.stack_seq = state.next_stack_seq;
                state.units.insert(unit);
                match symbol {
                    Some(sym) if crate::map::UNIT_SYMBOLS.contains(&sym.get_ref().as_str()) => {
                        symbols.insert(uid, sym.get_ref().clone());
                    }
                    Some(sym) => {
                        cx.err::<()>(sym.span(), format!("unknown unit symbol '{}'", sym.get_ref()));
                    }
                    None => {
                        symbols.remove(&uid);
                    }
                }
            }
            None => {
                if let Some(u) = replaced {
                    state.units.insert(u);
                }
            }
        }
    }
}

/// The problems found, as one error.
fn errors(mut cx: Ctx) -> Error {
    // in the order of the file (a problem of the whole file first)
    cx.errors.sort_by_key(|l| (l.line, l.col));
    if cx.errors.len() == 1 { Error::Data(cx.errors.remove(0)) } else { Error::DataMany(cx.errors) }
}

/// The parts of a scenario file, each read on its own; None when `[scenario]` or `[map]` is
/// missing or unreadable (nothing can be checked without them).
fn raw_file<'a>(cx: &mut Ctx<'a>, doc: &toml::Spanned<toml::de::DeTable<'a>>) -> Option<RawFile> {
    raw_parts(cx, doc, None)
}

/// The parts of a file; with `ext`, of a scenario that extends another: its `[scenario]` is read
/// into `ext` and it may not have a `[map]`.
fn raw_parts<'a>(
    cx: &mut Ctx<'a>,
    doc: &toml::Spanned<toml::de::DeTable<'a>>,
    mut ext: Option<&mut Option<RawExtHeader>>,
) -> Option<RawFile> {
    let mut header = None;
    let mut map = None;
    let mut raw = RawFile {
        scenario: RawHeader::default(),
        map: RawMap::default(),
        cups: BTreeMap::new(),
        tracks: BTreeMap::new(),
        sides: BTreeMap::new(),
        vars: BTreeMap::new(),
        types: BTreeMap::new(),
        units: Vec::new(),
        markers: BTreeMap::new(),
    };
    for (key, v) in doc.get_ref().iter() {
        match key.get_ref().as_ref() {
            "scenario" => match ext.as_deref_mut() {
                Some(e) => *e = cx.part::<RawExtHeader>(v),
                None => header = cx.part::<RawHeader>(v),
            },
            "map" if ext.is_some() => {
                cx.err::<()>(
                    key.span(),
                    "a scenario that extends another has its map: [map] is not allowed here (change the scenario it extends)",
                );
            }
            "map" => map = raw_map(cx, v),
            "cups" => raw.cups = named(cx.each(v, "cups", |cx, x| cx.part(x))),
            "tracks" => raw.tracks = named(cx.each(v, "tracks", |cx, x| cx.part(x))),
            "sides" => raw.sides = cx.each(v, "sides", |cx, x| cx.part(x)).into_iter().collect(),
            "vars" => raw.vars = cx.part(v).unwrap_or_default(),
            "types" => raw.types = named(cx.each(v, "types", |cx, x| cx.part_of(x, "type"))),
            "units" => {
                raw.units = cx
                    .items(v, "units")
                    .iter()
                    .filter_map(|u| {
                        let id = u.get_ref().as_table().and_then(|t| t.get("id")).and_then(|i| i.get_ref().as_str());
                        cx.part_of(u, &format!("unit {}", id.unwrap_or("(no id)")))
                    })
                    .collect()
            }
            "markers" => {
                raw.markers = named(cx.each(v, "markers", |cx, per| {
                    Some(cx.each(per, "markers", |cx, x| cx.part(x)).into_iter().collect())
                }))
            }
            other => {
                cx.err::<()>(key.span(), format!("unknown section '{other}' (sections are {})", SECTIONS.join(", ")));
            }
        }
    }
    if !doc.get_ref().iter().any(|(k, _)| k.get_ref() == "scenario") {
        cx.err::<()>(0..0, "missing [scenario] (name, ruleset, sides)");
    }
    if ext.is_some() {
        return Some(raw);
    }
    if !doc.get_ref().iter().any(|(k, _)| k.get_ref() == "map") {
        cx.err::<()>(0..0, "missing [map] (cols, rows)");
    }
    raw.scenario = header?;
    raw.map = map?;
    Some(raw)
}

/// Entries by their names (the places of the keys dropped).
fn named<T>(v: Vec<(S<String>, T)>) -> BTreeMap<String, T> {
    v.into_iter().map(|(k, x)| (k.into_inner(), x)).collect()
}

/// `[map]`, key by key: a key of the wrong shape is reported and the others still read; None
/// without `cols` and `rows`.
fn raw_map<'a>(cx: &mut Ctx<'a>, v: &Part<'a>) -> Option<RawMap> {
    let mut m = RawMap::default();
    let (mut cols, mut rows) = (None, None);
    for (key, x) in cx.entries(v, "map") {
        match key.get_ref().as_str() {
            "format" => m.format = cx.part(x).unwrap_or(m.format),
            "shift" => m.shift = cx.part(x).unwrap_or(m.shift),
            "cols" => cols = cx.part(x),
            "rows" => rows = cx.part(x),
            "terrain" => m.terrain = cx.part(x).unwrap_or(m.terrain),
            "off" => m.off = cx.part(x).unwrap_or_default(),
            "terrains" => m.terrains = named(cx.each(x, "map.terrains", |cx, l| cx.part(l))),
            "features" => m.features = named(cx.each(x, "map.features", |cx, l| cx.part(l))),
            "hexsides" => m.hexsides = named(cx.each(x, "map.hexsides", |cx, l| cx.part(l))),
            "paths" => m.paths = named(cx.each(x, "map.paths", |cx, l| cx.part(l))),
            "places" => m.places = named(cx.each(x, "map.places", |cx, l| cx.part(l))),
            "areas" => m.areas = named(cx.each(x, "map.areas", |cx, l| cx.part(l))),
            "values" => {
                m.values = named(cx.each(x, "map.values", |cx, per| {
                    Some(cx.each(per, "map.values", |cx, n| cx.part(n)).into_iter().collect())
                }))
            }
            "colors" => m.colors = named(cx.each(x, "map.colors", |cx, c| cx.part(c))),
            "rows_up" => m.rows_up = cx.part(x).unwrap_or_default(),
            "layout" => m.layout = cx.part(x).unwrap_or(m.layout),
            "legend" => m.legend = cx.part(x).unwrap_or_default(),
            other => {
                cx.err::<()>(key.span(), format!("unknown key '{other}' in [map] (keys are {})", MAP_KEYS.join(", ")));
            }
        }
    }
    let given = |k: &str| matches!(v.get_ref(), toml::de::DeValue::Table(t) if t.iter().any(|(x, _)| x.get_ref() == k));
    for (key, value) in [("cols", &cols), ("rows", &rows)] {
        // (one of the wrong shape is reported already)
        if value.is_none() && !given(key) {
            cx.err::<()>(v.span(), format!("[map] has no {key} (e.g. {key} = [1, 8])"));
        }
    }
    m.cols = cols?;
    m.rows = rows?;
    Some(m)
}

impl Default for RawMap {
    fn default() -> RawMap {
        RawMap {
            format: Spanned::new(0..0, "CCRR".to_string()),
            shift: Spanned::new(0..0, "odd".to_string()),
            cols: [0, 0],
            rows: [0, 0],
            terrain: "clear".to_string(),
            off: vec![],
            terrains: BTreeMap::new(),
            features: BTreeMap::new(),
            hexsides: BTreeMap::new(),
            paths: BTreeMap::new(),
            places: BTreeMap::new(),
            areas: BTreeMap::new(),
            values: BTreeMap::new(),
            colors: BTreeMap::new(),
            legend: RawLegend::default(),
            rows_up: false,
            layout: Spanned::new(0..0, "columns".to_string()),
        }
    }
}

/// The map of a scenario file: grid, hexes, terrain, features, hexsides, paths, areas.
fn build_map(cx: &mut Ctx, m: &RawMap) -> Result<Map> {
    let mut map = Map::default();
    map.grid = grid_of(cx, m)?;
    map.hexes = HexTable::with_box(m.cols, m.rows);
    add_hexes_and_places(cx, m, &mut map);
    add_terrain_and_features(cx, m, &mut map);
    add_hexsides_and_paths(cx, m, &mut map);
    add_areas_and_values(cx, m, &mut map);
    map.colors = m.colors.clone();
    map.rows_up = m.rows_up;
    map.layout = match m.layout.get_ref().as_str() {
        "columns" => Layout::Columns,
        "rows" => Layout::Rows,
        other => {
            cx.err::<()>(m.layout.span(), format!("bad layout '{other}' (expected \"columns\" or \"rows\")"));
            Layout::Columns
        }
    };
    map.compute_edges();
    add_legend(cx, m, &mut map);
    map.finish();
    Ok(map)
}

/// How the map's hexes are numbered and shifted; an error (that ends the loading) if its
/// rectangle holds no hex or more than a map may hold.
fn grid_of(cx: &mut Ctx, m: &RawMap) -> Result<Grid> {
    let format = HexFormat::from_pattern(m.format.get_ref()).or_else(|| {
        cx.err(m.format.span(), format!("bad hex format '{}' (expected e.g. CCRR or CC.RR)", m.format.get_ref()))
    });
    let shift = match m.shift.get_ref().as_str() {
        "odd" => Shift::Odd,
        "even" => Shift::Even,
        other => {
            cx.err::<()>(m.shift.span(), format!("bad shift '{other}' (expected \"odd\" or \"even\")"));
            Shift::Odd
        }
    };
    let grid = Grid { shift, format: format.unwrap_or_default() };
    let size = (m.cols[1] - m.cols[0] + 1).max(0) as i64 * (m.rows[1] - m.rows[0] + 1).max(0) as i64;
    if size > MAX_HEXES || m.cols[1] < m.cols[0] || m.rows[1] < m.rows[0] {
        return Err(Error::Data(Located::at(
            &cx.file,
            cx.src,
            None,
            format!("[map] cols {:?} and rows {:?} give {size} hexes; a map holds 1 to {MAX_HEXES}", m.cols, m.rows),
        )));
    }
    Ok(grid)
}

/// Every hex of the rectangle in the default terrain, less those `off` the map; then the named
/// places, first, so that the tables read after them may name hexes by place.
fn add_hexes_and_places(cx: &mut Ctx, m: &RawMap, map: &mut Map) {
    for c in m.cols[0]..=m.cols[1] {
        for r in m.rows[0]..=m.rows[1] {
            map.hexes.insert(HexId::new(c, r), HexInfo { terrain: m.terrain.clone(), ..Default::default() });
        }
    }
    for h in &m.off {
        for hex in hexes_of(cx, map, h) {
            map.hexes.remove(&hex);
        }
    }
    for (name, h) in &m.places {
        let hexes = hexes_of(cx, map, h);
        for hex in &hexes {
            map.hexes.get_mut(hex).unwrap().name = Some(name.clone());
        }
        map.places.insert(name.to_lowercase(), (name.clone(), hexes));
    }
}

/// The terrain of the hexes that are not in the default one (a hex may have only one), and
/// the features in hexes.
fn add_terrain_and_features(cx: &mut Ctx, m: &RawMap, map: &mut Map) {
    let mut terrain_of: BTreeMap<HexId, &str> = BTreeMap::new();
    for (terrain, list) in &m.terrains {
        for h in list {
            for hex in hexes_of(cx, map, h) {
                if let Some(other) = terrain_of.insert(hex, terrain)
                    && other != terrain
                {
                    cx.err::<()>(h.span(), format!("hex {} is listed as both {other} and {terrain}", map.fmt(hex)));
                }
                map.hexes.get_mut(&hex).unwrap().terrain = terrain.clone();
            }
        }
    }
    for (feature, list) in &m.features {
        for h in list {
            for hex in hexes_of(cx, map, h) {
                map.hexes.get_mut(&hex).unwrap().features.insert(feature.clone());
            }
        }
    }
}

/// The features on hexsides: those listed one by one, and those along each path.
fn add_hexsides_and_paths(cx: &mut Ctx, m: &RawMap, map: &mut Map) {
    for (feature, list) in &m.hexsides {
        for s in list {
            if let Some(side) = hexside_of(cx, map, s) {
                map.sides.entry(side).or_default().insert(feature.clone());
            }
        }
    }
    for (feature, paths) in &m.paths {
        for path in paths {
            add_path(cx, map, feature, path);
        }
    }
}

/// A path of hexes puts its feature on every hexside it crosses; each step must go to an
/// adjacent hex.
fn add_path(cx: &mut Ctx, map: &mut Map, feature: &str, path: &[S<String>]) {
    let hexes: Vec<Option<HexId>> = path.iter().map(|h| hex_of(cx, map, h)).collect();
    for (i, w) in hexes.windows(2).enumerate() {
        if let [Some(a), Some(b)] = w {
            if map.grid.direction(*a, *b).is_none() {
                let span = path[i + 1].span();
                cx.err::<()>(
                    span,
                    format!("{} is not adjacent to {} in {feature} path", path[i + 1].get_ref(), path[i].get_ref()),
                );
            } else {
                map.sides.entry(Hexside::new(*a, *b)).or_default().insert(feature.to_string());
            }
        }
    }
}

/// The named areas (sets of hexes) and the numbers the rules read per hex.
fn add_areas_and_values(cx: &mut Ctx, m: &RawMap, map: &mut Map) {
    for (area, list) in &m.areas {
        let set: BTreeSet<HexId> = list.iter().flat_map(|h| hexes_of(cx, map, h)).collect();
        map.areas.insert(area.clone(), set);
    }
    for (key, per_hex) in &m.values {
        for (h, v) in per_hex {
            if let Some(hex) = hex_of(cx, map, h) {
                map.hexes.get_mut(&hex).unwrap().values.insert(key.clone(), *v);
            }
        }
    }
}

/// What pictures mark (`[map.legend]`): each area and value named must be the map's.
fn add_legend(cx: &mut Ctx, m: &RawMap, map: &mut Map) {
    const PALETTE: [&str; 6] = ["#c0392b", "#2e6fb7", "#7d3c98", "#1e8449", "#b9770e", "#566573"];
    let mark = |i: usize, r: &RawMark| crate::map::Mark {
        label: r.label.clone(),
        color: r.color.clone().unwrap_or_else(|| PALETTE[i % PALETTE.len()].to_string()),
        text: r.text.clone(),
    };
    for (i, (name, r)) in m.legend.areas.iter().enumerate() {
        if map.areas.contains_key(name.get_ref()) {
            map.legend.areas.push((name.get_ref().clone(), mark(i, r)));
        } else {
            let known: Vec<&str> = map.areas.keys().map(String::as_str).collect();
            cx.err::<()>(name.span(), format!("legend: no area '{}' (areas are {})", name.get_ref(), known.join(", ")));
        }
    }
    for (i, (name, r)) in m.legend.values.iter().enumerate() {
        if m.values.contains_key(name.get_ref()) {
            map.legend.values.push((name.get_ref().clone(), mark(i, r)));
        } else {
            let known: Vec<&str> = m.values.keys().map(String::as_str).collect();
            cx.err::<()>(
                name.span(),
                format!("legend: no hex value '{}' (values are {})", name.get_ref(), known.join(", ")),
            );
        }
    }
}

/// The state at the start of a scenario, before its units: sides, boxes, cups, tracks, markers.
fn initial_state(cx: &mut Ctx, raw: &RawFile, map: &Map, id: &str) -> GameState {
    let header = &raw.scenario;
    let mut state = GameState {
        scenario: id.to_string(),
        options: BTreeSet::new(),
        sides: header.sides.clone(),
        clock: Clock::default(),
        units: Default::default(),
        hex_markers: Default::default(),
        side_markers: Default::default(),
        boxes: header.boxes.iter().cloned().collect(),
        cups: BTreeMap::new(),
        tracks: raw.tracks.clone(),
        side_values: BTreeMap::new(),
        vars: raw.vars.iter().map(|(k, v)| (k.clone(), Arc::new(toml_to_json(v)))).collect(),
        dice: Dice::new(0),
        log: Default::default(),
        next_stack_seq: 0,
        commands: 0,
    };
    for (cup, chits) in &raw.cups {
        state.cups.insert(cup.clone(), chits.iter().map(|c| c.get_ref().clone()).collect());
    }
    for (side, values) in &raw.sides {
        if !header.sides.contains(side.get_ref()) {
            cx.err::<()>(
                side.span(),
                format!("unknown side '{}' (sides are {})", side.get_ref(), header.sides.join(", ")),
            );
        }
        state.side_values.insert(
            side.get_ref().clone(),
            Arc::new(values.iter().map(|(k, v)| (k.clone(), toml_to_json(v))).collect()),
        );
    }
    for (marker, per_hex) in &raw.markers {
        for (h, v) in per_hex {
            if let Some(hex) = hex_of(cx, map, h) {
                crate::state::set_marker(&mut state.hex_markers, hex, marker.clone(), Some(*v));
            }
        }
    }
    state
}

/// One unit of the order of battle (None, with the problem noted, when it cannot be placed).
fn unit_of(cx: &mut Ctx, raw: &RawFile, ru: &RawUnit, map: &Map, units: &crate::state::Units) -> Option<Unit> {
    let header = &raw.scenario;
    let id = ru.id.get_ref().trim().to_string();
    // every problem of the unit is reported (not only the first); a unit with one is left out
    let mut sound = true;
    if id.is_empty() || id.contains(char::is_whitespace) || id.contains(',') {
        cx.err::<()>(ru.id.span(), format!("unit id '{id}' must be one word without commas"));
        sound = false;
    } else if units.contains_key(&id) {
        cx.err::<()>(ru.id.span(), format!("unit id '{id}' is used twice"));
        sound = false;
    }
    if !header.sides.contains(ru.side.get_ref()) {
        cx.err::<()>(
            ru.side.span(),
            format!("unit {id}: unknown side '{}' (sides are {})", ru.side.get_ref(), header.sides.join(", ")),
        );
        sound = false;
    }
    let mut known_type = true;
    let ty = match &ru.ty {
        Some(t) => match raw.types.get(t.get_ref()) {
            Some(t) => t.clone(),
            None => {
                known_type = false;
                let known: Vec<_> = raw.types.keys().cloned().collect();
                cx.err::<()>(
                    t.span(),
                    format!("unit {id}: unknown type '{}' (types are {})", t.get_ref(), known.join(", ")),
                );
                RawType::default()
            }
        },
        None => RawType::default(),
    };
    let steps_raw = ru.steps.clone().or(ty.steps.clone()).unwrap_or_default();
    if steps_raw.is_empty() {
        // (an unknown type is reported already)
        if known_type {
            cx.err::<()>(ru.id.span(), format!("unit {id} has no steps (give `steps` or a `type` with steps)"));
        }
        sound = false;
    }
    let steps: Vec<BTreeMap<String, Value>> =
        steps_raw.iter().map(|s| s.iter().map(|(k, v)| (k.clone(), toml_to_json(v))).collect()).collect();
    let step = match &ru.step {
        Some(s) if *s.get_ref() >= 1 && *s.get_ref() <= steps.len() => s.get_ref() - 1,
        Some(s) if !steps.is_empty() => {
            cx.err::<()>(s.span(), format!("unit {id}: step {} out of 1..{}", s.get_ref(), steps.len()));
            0
        }
        _ => 0,
    };
    let loc = location_of(cx, ru, map, &header.boxes, &id);
    if !sound {
        return None;
    }
    let loc = loc?;
    let mut attrs: BTreeMap<String, Value> = ty.attrs.iter().map(|(k, v)| (k.clone(), toml_to_json(v))).collect();
    attrs.extend(ru.attrs.iter().map(|(k, v)| (k.clone(), toml_to_json(v))));
    let mut approx = BTreeSet::new();
    for a in [&ty.approx, &ru.approx].into_iter().flatten() {
        match a {
            toml::Value::Boolean(true) => approx.extend(steps.iter().flat_map(|s| s.keys().cloned())),
            toml::Value::Array(xs) => approx.extend(xs.iter().filter_map(|x| x.as_str().map(String::from))),
            _ => {}
        }
    }
    let unit = Unit {
        id: id.clone(),
        name: ru.name.clone().unwrap_or_else(|| id.clone()),
        side: ru.side.get_ref().clone(),
        kind: ru.kind.clone().or(ty.kind.clone()).unwrap_or_default(),
        steps: std::sync::Arc::new(steps),
        step,
        loc,
        stack_seq: 0,
        markers: ru.markers.clone(),
        attrs: std::sync::Arc::new(attrs),
        approx: std::sync::Arc::new(approx),
    };
    Some(unit)
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

fn hex_of(cx: &mut Ctx, map: &Map, h: &S<String>) -> Option<HexId> {
    let text = h.get_ref();
    match map.grid.parse(text) {
        Some(hex) if map.contains(hex) => Some(hex),
        Some(_) => cx.err(h.span(), format!("hex {text} is not on the map")),
        None => match map.place(text) {
            Ok((_, hexes)) if hexes.len() == 1 => Some(hexes[0]),
            _ => cx.err(h.span(), format!("'{text}' is not a hex id (format {})", map.grid.format.pattern())),
        },
    }
}

/// A hex, or a rectangle `A..B` (every column from A's to B's, every row from A's to B's).
fn hexes_of(cx: &mut Ctx, map: &Map, h: &S<String>) -> Vec<HexId> {
    let text = h.get_ref();
    if let Some((a, b)) = text.split_once("..") {
        let (Some(a), Some(b)) = (map.grid.parse(a), map.grid.parse(b)) else {
            cx.err::<()>(h.span(), format!("bad hex range '{text}' (expected e.g. 0101..0305)"));
            return vec![];
        };
        let mut out = Vec::new();
        for c in a.col.min(b.col)..=a.col.max(b.col) {
            for r in a.row.min(b.row)..=a.row.max(b.row) {
                let x = HexId::new(c, r);
                if map.contains(x) {
                    out.push(x);
                }
            }
        }
        if out.is_empty() {
            cx.err::<()>(h.span(), format!("hex range '{text}' holds no hex of the map"));
        }
        return out;
    }
    hex_of(cx, map, h).into_iter().collect()
}

/// A hexside written `A/B` (two adjacent hexes, either may be just off the map).
fn hexside_of(cx: &mut Ctx, map: &Map, s: &S<String>) -> Option<Hexside> {
    let text = s.get_ref();
    let Some((a, b)) = text.split_once('/') else {
        return cx.err(s.span(), format!("bad hexside '{text}' (expected two adjacent hexes, e.g. 0203/0204)"));
    };
    let (Some(a), Some(b)) = (map.grid.parse(a), map.grid.parse(b)) else {
        return cx.err(s.span(), format!("bad hexside '{text}' (expected two adjacent hexes, e.g. 0203/0204)"));
    };
    if map.grid.direction(a, b).is_none() {
        return cx.err(s.span(), format!("hexside {text}: the two hexes are not adjacent"));
    }
    if !map.contains(a) && !map.contains(b) {
        return cx.err(s.span(), format!("hexside {text} is not on the map"));
    }
    Some(Hexside::new(a, b))
}

/// Where a unit of the order of battle starts: a hex, a place of one hex, or a box.
fn location_of(cx: &mut Ctx, ru: &RawUnit, map: &Map, boxes: &[String], id: &str) -> Option<Location> {
    let at = ru.at.get_ref();
    if let Some(h) = map.grid.parse(at) {
        if !map.contains(h) {
            cx.err::<()>(ru.at.span(), format!("unit {id}: hex {at} is not on the map"));
            return None;
        }
        Some(Location::Hex(h))
    } else if boxes.iter().any(|b| b == at) {
        Some(Location::Box(at.clone()))
    } else if let Ok((name, hexes)) = map.place(at) {
        if hexes.len() != 1 {
            let list: Vec<String> = hexes.iter().map(|h| map.fmt(*h)).collect();
            cx.err::<()>(
                ru.at.span(),
                format!("unit {id}: {name} covers several hexes ({}); give one", list.join(", ")),
            );
            return None;
        }
        Some(Location::Hex(hexes[0]))
    } else {
        cx.err::<()>(
            ru.at.span(),
            format!("unit {id}: '{at}' is neither a hex, a place nor a box (boxes are {})", boxes.join(", ")),
        );
        None
    }
}
