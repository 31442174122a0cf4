//! The initial state of a scenario: tracks, vars, cups and sides' values, and the order of
//! battle (each unit from its type and its entry, placed on the map or in a box).

use super::*;
use crate::datafile::Reader as Ctx;
use crate::dice::Dice;
use crate::map::Map;
use crate::state::{Clock, GameState, Location, Unit};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// The state at the start of a scenario, before its units: sides, boxes, cups, tracks, markers.
pub(super) fn initial_state(cx: &mut Ctx, raw: &RawFile, map: &Map, id: &str) -> GameState {
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
pub(super) fn unit_of(
    cx: &mut Ctx,
    raw: &RawFile,
    ru: &RawUnit,
    map: &Map,
    units: &crate::state::Units,
) -> Option<Unit> {
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

/// Where a unit of the order of battle starts: a hex, a place of one hex, or a box.
pub(super) fn location_of(cx: &mut Ctx, ru: &RawUnit, map: &Map, boxes: &[String], id: &str) -> Option<Location> {
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
