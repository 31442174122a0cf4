//! Resolving what a player typed: unit ids, hexes (printed ids or place names) and sides, each
//! by exact name, case-insensitive name or unique prefix, with a did-you-mean when nothing
//! matches.

use crate::hex::HexId;
use crate::map::Map;
use crate::state::GameState;
use crate::text::{Pick, did_you_mean, list_some, pick};

/// Resolves a unit as typed: exact id, case-insensitive id, or unique case-insensitive prefix.
pub fn resolve_unit(state: &GameState, text: &str) -> Result<String, String> {
    let ids: Vec<&str> = state.units.keys().collect();
    match pick(text, ids.iter().copied()) {
        Pick::One(id) => Ok(id.to_string()),
        Pick::None(dym) => Err(format!("no unit '{text}'{dym}")),
        Pick::Many(ids) => Err(format!("'{text}' could be {} units: {}", ids.len(), list_some(&ids, 8))),
    }
}

/// Resolves a hex as typed: a printed id (`0418`, `04.18`) or a place name (unique prefix).
pub fn resolve_hex(map: &Map, text: &str) -> Result<HexId, String> {
    if let Some(h) = map.grid.parse(text) {
        return if map.contains(h) { Ok(h) } else { Err(format!("hex {text} is not on the map")) };
    }
    match map.place(text) {
        Ok((_, hexes)) if hexes.len() == 1 => Ok(hexes[0]),
        Ok((name, hexes)) => Err(format!(
            "{name} covers {} hexes: {}",
            hexes.len(),
            hexes.iter().map(|h| map.fmt(*h)).collect::<Vec<_>>().join(", ")
        )),
        Err(c) if !c.is_empty() => Err(format!("'{text}' could be {}", c.join(", "))),
        Err(_) => Err(format!(
            "'{text}' is not a hex id (like {}) nor a place{}",
            map.fmt(*map.hexes.keys().next().unwrap_or(&HexId::new(1, 1))),
            did_you_mean(text, map.places.values().map(|(n, _)| n))
        )),
    }
}

/// Resolves a side by name or unique prefix (ignoring case).
pub fn resolve_side(state: &GameState, text: &str) -> Result<String, String> {
    match pick(text, state.sides.iter().map(String::as_str)) {
        Pick::One(s) => Ok(s.to_string()),
        _ => Err(format!("'{text}' is not a side (sides: {})", state.sides.join(", "))),
    }
}
