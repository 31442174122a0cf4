//! The map of a scenario built from its raw `[map]`: the grid, hexes and places, terrain and
//! features, hexsides and paths, areas and values, the legend; and the hexes a value names.

use super::*;
use crate::datafile::Reader as Ctx;
use crate::error::{Error, Located, Result};
use crate::hex::{Grid, HexFormat, HexId, Hexside, Shift};
use crate::map::{HexInfo, HexTable, Layout, Map};
use std::collections::{BTreeMap, BTreeSet};

/// The largest map a scenario may describe.
pub(super) const MAX_HEXES: i64 = 100_000;

/// The map of a scenario file: grid, hexes, terrain, features, hexsides, paths, areas.
pub(super) fn build_map(cx: &mut Ctx, m: &RawMap) -> Result<Map> {
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
pub(super) fn grid_of(cx: &mut Ctx, m: &RawMap) -> Result<Grid> {
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
pub(super) fn add_hexes_and_places(cx: &mut Ctx, m: &RawMap, map: &mut Map) {
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
pub(super) fn add_terrain_and_features(cx: &mut Ctx, m: &RawMap, map: &mut Map) {
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
pub(super) fn add_hexsides_and_paths(cx: &mut Ctx, m: &RawMap, map: &mut Map) {
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
pub(super) fn add_path(cx: &mut Ctx, map: &mut Map, feature: &str, path: &[S<String>]) {
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
pub(super) fn add_areas_and_values(cx: &mut Ctx, m: &RawMap, map: &mut Map) {
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
pub(super) fn add_legend(cx: &mut Ctx, m: &RawMap, map: &mut Map) {
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

pub(super) fn hex_of(cx: &mut Ctx, map: &Map, h: &S<String>) -> Option<HexId> {
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
pub(super) fn hexes_of(cx: &mut Ctx, map: &Map, h: &S<String>) -> Vec<HexId> {
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
pub(super) fn hexside_of(cx: &mut Ctx, map: &Map, s: &S<String>) -> Option<Hexside> {
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
