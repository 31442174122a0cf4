//! A scenario that extends another beside it (`extends = "historical"`): the other's map, units
//! and data, with this file's changes set over them; each file's mistakes reported in that file.

use super::*;
use crate::datafile::Reader as Ctx;
use crate::error::Result;
use crate::state::GameState;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// How many scenarios a chain of `extends` may hold.
pub(super) const MAX_EXTENDS: usize = 8;

/// A scenario that extends another (`[scenario] extends = "name"`, a file beside it): the
/// other's map, order of battle and data, with this file's changes: `[scenario]` renames it,
/// adds boxes and options and `remove`s units; `[tracks]`, `[vars]`, `[sides.X]` values,
/// `[cups]`, `[types.X]` and `[markers.X]` hexes are set over the other's; a `[[units]]` entry
/// adds a unit, or replaces the unit of the same id. See docs/scenario-format.md.
pub(super) fn read_extension(
    path: &Path,
    id: &str,
    shown: &str,
    src: &str,
    chain: &mut Vec<PathBuf>,
) -> Result<Scenario> {
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
pub(super) fn extended_exists(cx: &mut Ctx, path: &Path, extends: &S<String>, parent_path: &Path) -> bool {
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
pub(super) fn set_over(state: &mut GameState, mine: GameState) {
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
pub(super) fn change_units(
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
