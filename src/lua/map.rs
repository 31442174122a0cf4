//! `map.*`: hex geometry, terrain, hexsides, places, areas, hex and hexside markers, and the
//! searches (`map.reach`, `map.route`, `map.path_cost`) run in Rust on a profile table.

use super::costs::*;
use super::fast::{self, Val};
use super::hexset::*;
use super::seal::{seen_through, string_list};
use super::searches::*;
use super::world;
use crate::hex::{HexId, Hexside};
use mlua::{FromLua, Lua, Table, Value};
use std::collections::{BTreeMap, BTreeSet};

pub fn register(lua: &Lua) -> mlua::Result<()> {
    let t = lua.create_table()?;
    super::charged::set(lua, &t, "map", "hex", hex)?;
    super::charged::set(lua, &t, "map", "is_hex", is_hex)?;
    super::charged::set(lua, &t, "map", "terrain", terrain)?;
    super::charged::set(lua, &t, "map", "has", has)?;
    super::charged::set(lua, &t, "map", "having", having)?;
    super::charged::set(lua, &t, "map", "hexsides_having", hexsides_having)?;
    super::charged::set(lua, &t, "map", "neighbours", neighbours)?;
    super::charged::set(lua, &t, "map", "distance", distance)?;
    super::charged::set(lua, &t, "map", "nearest", nearest)?;
    super::charged::set(lua, &t, "map", "beyond_edge", beyond_edge)?;
    super::charged::set(lua, &t, "map", "direction", direction)?;
    super::charged::set(lua, &t, "map", "within", within)?;
    super::charged::set(lua, &t, "map", "hexes", hexes)?;
    super::charged::set(lua, &t, "map", "hexside", hexside)?;
    super::charged::set(lua, &t, "map", "place", place)?;
    super::charged::set(lua, &t, "map", "area", area)?;
    super::charged::set(lua, &t, "map", "in_area", in_area)?;
    super::charged::set(lua, &t, "map", "marker", marker)?;
    super::charged::set(lua, &t, "map", "set_marker", set_marker)?;
    super::charged::set(lua, &t, "map", "set_markers", set_markers)?;
    super::charged::set(lua, &t, "map", "clear_markers", clear_markers)?;
    super::charged::set(lua, &t, "map", "valued", valued)?;
    super::charged::set(lua, &t, "map", "marked", marked)?;
    super::charged::set(lua, &t, "map", "set_side_marker", set_side_marker)?;
    super::charged::set(lua, &t, "map", "adjacent", adjacent)?;
    super::charged::set(lua, &t, "map", "distances", distances)?;
    super::charged::set(lua, &t, "map", "hexset", hexset)?;
    super::charged::set(lua, &t, "map", "reach", reach)?;
    super::charged::set(lua, &t, "map", "moves", moves)?;
    super::charged::set(lua, &t, "map", "side_marker", side_marker)?;
    super::charged::set(lua, &t, "map", "route", route)?;
    super::charged::set(lua, &t, "map", "path_cost", path_cost)?;
    super::charged::set(lua, &t, "map", "step_costs", step_costs)?;
    super::charged::set(lua, &t, "map", "fmt_cost", fmt_cost)?;
    lua.globals().set("map", t)?;
    Ok(())
}

/// `map.hex(hex) -> table | nil, msg`: the hex's id, terrain, features, name, values and markers.
fn hex(lua: &Lua, s: String) -> mlua::Result<(Value, Option<String>)> {
    let w = world(lua);
    let w = w.borrow();
    let Some(h) = w.map.grid.parse(&s).filter(|h| w.map.contains(*h)) else {
        return Ok((Value::Nil, Some(format!("'{s}' is not a hex of the map"))));
    };
    let info = &w.map.hexes[&h];
    let r = lua.create_table()?;
    r.set("id", w.fmt_hex(h))?;
    r.set("terrain", info.terrain.as_str())?;
    r.set("features", info.features.iter().cloned().collect::<Vec<_>>())?;
    r.set("name", info.name.clone())?;
    r.set("values", info.values.clone())?;
    r.set("markers", w.state.hex_markers.get(&h).map(|m| (**m).clone()).unwrap_or_default())?;
    Ok((Value::Table(r), None))
}

/// `map.is_hex(text) -> hex | nil`: the hex of the map the text names, as the map prints it.
fn is_hex(lua: &Lua, s: String) -> mlua::Result<Option<String>> {
    let w = world(lua);
    let w = w.borrow();
    Ok(w.map.grid.parse(&s).filter(|h| w.map.contains(*h)).map(|h| w.fmt_hex(h)))
}

/// `map.terrain(hex) -> string`: the hex's terrain.
fn terrain(lua: &Lua, s: String) -> mlua::Result<String> {
    let w = world(lua);
    let w = w.borrow();
    let h = hex_arg(&w.map, &s, "map.terrain")?;
    Ok(w.map.hexes[&h].terrain.clone())
}

/// `map.has(hex, name) -> boolean`: whether the hex's terrain or one of its features is `name`.
fn has(lua: &Lua, (s, f): (String, String)) -> mlua::Result<bool> {
    let w = world(lua);
    let w = w.borrow();
    let h = hex_arg(&w.map, &s, "map.has")?;
    let i = &w.map.hexes[&h];
    Ok(i.terrain == f || i.features.contains(&f))
}

/// `map.having(name) -> list`: every hex whose terrain or one of whose features is `name`, by
/// column then row (one call instead of `map.has` on every hex).
fn having(lua: &Lua, f: String) -> mlua::Result<Vec<String>> {
    let w = world(lua);
    let w = w.borrow();
    Ok(w.map
        .hexes
        .iter()
        .filter(|(_, i)| i.terrain == f || i.features.contains(&f))
        .map(|(h, _)| w.fmt_hex(*h))
        .collect::<Vec<_>>())
}

/// `map.hexsides_having(name) -> { {a, b}, ... }`: every hexside of the map with the feature
/// `name`, each as its two hexes (the lower id first), in order.
fn hexsides_having(lua: &Lua, f: String) -> mlua::Result<Vec<Vec<String>>> {
    let w = world(lua);
    let w = w.borrow();
    let mut sides: Vec<&crate::hex::Hexside> =
        w.map.sides.iter().filter(|(_, fs)| fs.contains(&f)).map(|(s, _)| s).collect();
    sides.sort();
    Ok(sides.into_iter().map(|s| vec![w.fmt_hex(s.0), w.fmt_hex(s.1)]).collect())
}

/// `map.neighbours(hex) -> list`: the hexes of the map next to the hex.
fn neighbours(lua: &Lua, s: String) -> mlua::Result<Vec<String>> {
    let w = world(lua);
    let w = w.borrow();
    let h = hex_arg(&w.map, &s, "map.neighbours")?;
    Ok(w.map.neighbours(h).map(|(_, n)| w.fmt_hex(n)).collect::<Vec<_>>())
}

/// `map.distance(a, b) -> integer`: the distance in hexes.
fn distance(lua: &Lua, (a, b): (String, String)) -> mlua::Result<i32> {
    let w = world(lua);
    let w = w.borrow();
    let (a, b) = (hex_arg(&w.map, &a, "map.distance")?, hex_arg(&w.map, &b, "map.distance")?);
    Ok(w.map.grid.distance(a, b))
}

/// `map.nearest(hex, hexes) -> hex, distance`: the hex of the set or list nearest to `hex`
/// (of two as near, the one whose id sorts first as text), or nil if there is none.
fn nearest(lua: &Lua, (s, hexes): (String, Value)) -> mlua::Result<(Option<String>, Option<i32>)> {
    let w = world(lua);
    let w = w.borrow();
    let from = hex_arg(&w.map, &s, "map.nearest")?;
    // (a hexset is walked as it is, in id order; anything else made one first)
    let made;
    let given = match &hexes {
        Value::UserData(u) if u.is::<HexSet>() => Some(hexset_of(u, "map.nearest")?),
        _ => None,
    };
    let set = match &given {
        Some(hs) => &**hs,
        None => {
            made = HexSet::new(&w.map, hex_set(lua, &w.map, hexes, "map.nearest")?);
            &made
        }
    };
    // (the set is in the order of the printed ids: the first of the nearest is the least id)
    let best = set
        .sorted
        .iter()
        .map(|h| (w.map.grid.distance(from, *h), *h))
        .min_by_key(|&(d, _)| d)
        .map(|(d, h)| (printed(&w.map, h).into_owned(), d));
    Ok(match best {
        Some((h, d)) => (Some(h), Some(d)),
        None => (None, None),
    })
}

/// `map.distances(hexes, targets) -> { distance... }`: for each hex of the list (or hexset)
/// `hexes`, in its order, the distance to the nearest hex of `targets` (a set, list or hexset); an empty list
/// when `targets` is empty. What a loop of `map.nearest` would find, in one call.
fn distances(lua: &Lua, (hexes, targets): (Value, Value)) -> mlua::Result<Vec<i32>> {
    let w = world(lua);
    let w = w.borrow();
    let targets = hex_list(lua, &w.map, targets, "map.distances")?;
    if targets.is_empty() {
        return Ok(Vec::new());
    }
    // (a hexset's hexes in the order of their printed ids; a list's in its own, each as often
    // as it is there)
    let from: Vec<HexId> = match hexes {
        Value::UserData(u) => hexset_of(&u, "map.distances")?.sorted.clone(),
        v => Vec::<String>::from_lua(v, lua)?
            .iter()
            .map(|s| hex_arg(&w.map, s, "map.distances"))
            .collect::<mlua::Result<_>>()?,
    };
    Ok(from.into_iter().map(|h| targets.iter().map(|t| w.map.grid.distance(h, *t)).min().unwrap_or(0)).collect())
}

/// `map.beyond_edge(hex, from) -> { distance... }`: the off-map neighbours' distances from `from`, clockwise from N
/// (from W in rows layout).
fn beyond_edge(lua: &Lua, (s, from): (String, String)) -> mlua::Result<Vec<i32>> {
    let w = world(lua);
    let w = w.borrow();
    let h = hex_arg(&w.map, &s, "map.beyond_edge")?;
    let f = hex_arg(&w.map, &from, "map.beyond_edge")?;
    Ok(w.map
        .dir_order()
        .into_iter()
        .map(|d| w.map.grid.neighbour(h, d))
        .filter(|n| !w.map.contains(*n))
        .map(|n| w.map.grid.distance(f, n))
        .collect::<Vec<_>>())
}

/// `map.direction(a, b) -> "N"|"NE"|"SE"|"S"|"SW"|"NW" | nil`: the direction from a to b (in rows layout
/// as drawn: "W"|"NW"|"NE"|"E"|"SE"|"SW").
fn direction(lua: &Lua, (a, b): (String, String)) -> mlua::Result<Option<&'static str>> {
    let w = world(lua);
    let w = w.borrow();
    let (a, b) = (hex_arg(&w.map, &a, "map.direction")?, hex_arg(&w.map, &b, "map.direction")?);
    Ok(w.map.grid.direction(a, b).map(|d| w.map.dir_name(d)))
}

/// `map.within(hex, r, among?) -> list`: the hexes of the map at most r hexes away (of `among` only,
/// a set or hexset, when given).
fn within(lua: &Lua, (s, r, among): (String, i32, Value)) -> mlua::Result<Vec<String>> {
    if !(0..=MAX_RADIUS).contains(&r) {
        return Err(mlua::Error::runtime(format!("map.within: radius {r} is not in 0..{MAX_RADIUS}")));
    }
    let w = world(lua);
    let w = w.borrow();
    let h = hex_arg(&w.map, &s, "map.within")?;
    // (`among`: only the hexes of a set; a hexset is read where it is, not copied)
    let among = match among {
        Value::Nil => None,
        v => Some(any_of(lua, &w.map, v, "map.within")?),
    };
    Ok(w.map
        .grid
        .within(h, r)
        .into_iter()
        .filter(|x| w.map.contains(*x) && among.as_ref().is_none_or(|s| s.contains(x)))
        .map(|x| w.fmt_hex(x))
        .collect::<Vec<_>>())
}

/// `map.hexes() -> list`: every hex of the map.
fn hexes(lua: &Lua, (): ()) -> mlua::Result<Vec<String>> {
    let w = world(lua);
    let w = w.borrow();
    Ok(w.map.hexes.keys().map(|h| w.fmt_hex(*h)).collect::<Vec<_>>())
}

/// `map.hexside(a, b) -> list of strings`: the hexside's features, with the markers placed in play.
fn hexside(lua: &Lua, (a, b): (String, String)) -> mlua::Result<Vec<String>> {
    let w = world(lua);
    let w = w.borrow();
    let (Some(ha), Some(hb)) = (w.map.grid.parse(&a), w.map.grid.parse(&b)) else {
        return Err(mlua::Error::runtime(format!("map.hexside: '{a}'/'{b}' are not hexes")));
    };
    if w.map.grid.direction(ha, hb).is_none() {
        return Err(mlua::Error::runtime(format!("map.hexside: {a} and {b} are not adjacent")));
    }
    let side = Hexside::new(ha, hb);
    let mut f: BTreeSet<String> = w.map.sides.get(&side).cloned().unwrap_or_default();
    f.extend(w.state.side_markers.get(&side).map(|m| m.keys().cloned().collect::<Vec<_>>()).unwrap_or_default());
    Ok(f.into_iter().collect::<Vec<_>>())
}

/// `map.place(name) -> list | nil, msg`: the hexes of a named place.
fn place(lua: &Lua, name: String) -> mlua::Result<(Option<Vec<String>>, Option<String>)> {
    let w = world(lua);
    let w = w.borrow();
    match w.map.place(&name) {
        Ok((_, hexes)) => Ok((Some(hexes.iter().map(|h| w.fmt_hex(*h)).collect::<Vec<_>>()), None)),
        Err(c) if c.is_empty() => Ok((None, Some(format!("no place named '{name}'")))),
        Err(c) => Ok((None, Some(format!("'{name}' could be {}", c.join(", "))))),
    }
}

/// `map.area(name) -> list | nil, msg`: the hexes of a named area.
fn area(lua: &Lua, name: String) -> mlua::Result<(Option<Vec<String>>, Option<String>)> {
    let w = world(lua);
    let w = w.borrow();
    match w.map.areas.get(&name) {
        Some(s) => Ok((Some(s.iter().map(|h| w.fmt_hex(*h)).collect::<Vec<_>>()), None)),
        None => Ok((
            None,
            Some(format!("no area '{name}' (areas: {})", w.map.areas.keys().cloned().collect::<Vec<_>>().join(", "))),
        )),
    }
}

/// `map.in_area(name, hex) -> boolean`: whether the hex is in the named area.
fn in_area(lua: &Lua, (name, s): (String, String)) -> mlua::Result<bool> {
    let w = world(lua);
    let w = w.borrow();
    let h = hex_arg(&w.map, &s, "map.in_area")?;
    Ok(w.map.areas.get(&name).is_some_and(|a| a.contains(&h)))
}

/// `map.marker(hex, name) -> integer | nil`: the value of a marker on the hex.
fn marker(lua: &Lua, (s, name): (String, String)) -> mlua::Result<Option<i64>> {
    let w = world(lua);
    let w = w.borrow();
    let h = hex_arg(&w.map, &s, "map.marker")?;
    Ok(w.state.hex_markers.get(&h).and_then(|m| m.get(&name)).copied())
}

/// `map.set_marker(hex, name, v?)`: sets a marker on the hex, or removes it (nil or false).
fn set_marker(lua: &Lua, (s, name, v): (String, String, Value)) -> mlua::Result<()> {
    let v = super::units::marker_value(v, "map.set_marker")?;
    let name = super::vars::name(lua, "map.set_marker", name)?;
    let w = world(lua);
    let mut w = w.borrow_mut();
    let h = hex_arg(&w.map, &s, "map.set_marker")?;
    crate::state::set_marker(&mut w.state.hex_markers, h, name, v);
    Ok(())
}

/// `map.set_markers(name, { [hex] = v })`: sets (or, for false, removes) one marker on many
/// hexes at once; every hex is checked before any is written.
fn set_markers(lua: &Lua, (name, values): (String, Table)) -> mlua::Result<()> {
    let name = super::vars::name(lua, "map.set_markers", name)?;
    let w = world(lua);
    let mut w = w.borrow_mut();
    let mut todo = Vec::new();
    for p in seen_through(values).pairs::<String, Value>() {
        let (k, v) = p?;
        let h = hex_arg(&w.map, &k, "map.set_markers")?;
        todo.push((h, super::units::marker_value(v, "map.set_markers")?));
    }
    todo.sort();
    for (h, v) in todo {
        crate::state::set_marker(&mut w.state.hex_markers, h, name.clone(), v);
    }
    Ok(())
}

/// `map.clear_markers(name) -> integer`: removes the marker from every hex; says how many had it.
fn clear_markers(lua: &Lua, name: String) -> mlua::Result<usize> {
    let w = world(lua);
    let mut w = w.borrow_mut();
    let had: Vec<HexId> = w.state.hex_markers.iter().filter(|(_, m)| m.contains_key(&name)).map(|(h, _)| *h).collect();
    for h in &had {
        crate::state::set_marker(&mut w.state.hex_markers, *h, name.clone(), None);
    }
    Ok(had.len())
}

/// `map.valued(key) -> { [hex] = value }`: every hex with that scenario value.
fn valued(lua: &Lua, key: String) -> mlua::Result<BTreeMap<String, f64>> {
    let w = world(lua);
    let w = w.borrow();
    let out: BTreeMap<String, f64> =
        w.map.hexes.iter().filter_map(|(h, i)| i.values.get(&key).map(|v| (w.fmt_hex(*h), *v))).collect();
    Ok(out)
}

/// `map.marked(name, only?) -> { [hex] = integer }`: every hex carrying the marker, with its value
/// (`only.value`: those with that value; `only.except`: those with any other; `only.as_set`: a
/// [`HexSet`] of the hexes instead).
fn marked(lua: &Lua, (name, only): (String, Option<Table>)) -> mlua::Result<Value> {
    let (value, except, as_set) = match &only {
        Some(o) => (
            o.get::<Option<i64>>("value")?,
            o.get::<Option<i64>>("except")?,
            o.get::<Option<bool>>("as_set")?.unwrap_or(false),
        ),
        None => (None, None, false),
    };
    let w = world(lua);
    let w = w.borrow();
    if as_set {
        return Ok(Value::UserData(lua.create_userdata(marked_set(&w, &name, value, except))?));
    }
    Ok(Value::Table(hex_ints(lua, &w, marked_hexes(&w, &name, value, except))?))
}

/// The hexes with the marker `name` and their values, of `value` only or but `except`.
fn marked_hexes<'w>(
    w: &'w crate::contract::World,
    name: &'w str,
    value: Option<i64>,
    except: Option<i64>,
) -> impl Iterator<Item = (HexId, i64)> + 'w {
    w.state
        .hex_markers
        .iter()
        .filter_map(move |(h, m)| m.get(name).map(|v| (*h, *v)))
        .filter(move |(_, v)| value.is_none_or(|x| *v == x) && except.is_none_or(|x| *v != x))
}

/// A `map.marked` query answered as a set: the markers it was read from (a persistent map: the
/// same root is the same markers), the map, the marker's name, `value` and `except`.
type MarkedQuery = (crate::state::Markers<HexId>, std::sync::Arc<crate::map::Map>, String, Option<i64>, Option<i64>);

thread_local! {
    /// The last sets `map.marked` answered (a side's hexes, asked at every supply trace and after
    /// every command): while no hex marker changes, the same set is handed out again.
    static MARKED: std::cell::RefCell<std::collections::VecDeque<(MarkedQuery, HexSet)>> = Default::default();
}

/// `map.marked(name, { as_set = true, ... })`: the hexes with the marker (of the value asked), a
/// set kept while the markers stay the same.
fn marked_set(w: &crate::contract::World, name: &str, value: Option<i64>, except: Option<i64>) -> HexSet {
    const KEPT: usize = 8;
    let same = |(m, map, n, v, e): &MarkedQuery| {
        m.ptr_eq(&w.state.hex_markers)
            && std::sync::Arc::ptr_eq(map, &w.map)
            && n == name
            && *v == value
            && *e == except
    };
    if let Some(set) = MARKED.with_borrow(|kept| kept.iter().find(|(q, _)| same(q)).map(|(_, s)| s.clone())) {
        return set;
    }
    let set = HexSet::new(&w.map, marked_hexes(w, name, value, except).map(|(h, _)| h));
    MARKED.with_borrow_mut(|kept| {
        kept.truncate(KEPT - 1);
        kept.push_front(((w.state.hex_markers.clone(), w.map.clone(), name.to_string(), value, except), set.clone()));
    });
    set
}

/// `map.set_side_marker(a, b, name, v?)`: sets or removes (nil, false) a marker on the hexside of two hexes.
fn set_side_marker(lua: &Lua, (a, b, name, v): (String, String, String, Value)) -> mlua::Result<()> {
    let v = super::units::marker_value(v, "map.set_side_marker")?;
    let name = super::vars::name(lua, "map.set_side_marker", name)?;
    let w = world(lua);
    let mut w = w.borrow_mut();
    let (ha, hb) = (hex_arg(&w.map, &a, "map.set_side_marker")?, hex_arg(&w.map, &b, "map.set_side_marker")?);
    if w.map.grid.direction(ha, hb).is_none() {
        return Err(mlua::Error::runtime(format!("map.set_side_marker: {a} and {b} are not adjacent")));
    }
    crate::state::set_marker(&mut w.state.side_markers, Hexside::new(ha, hb), name, v);
    Ok(())
}

/// `map.side_marker(a, b, name) -> integer | nil`: the value of a marker on a hexside.
fn side_marker(lua: &Lua, (a, b, name): (String, String, String)) -> mlua::Result<Option<i64>> {
    let w = world(lua);
    let w = w.borrow();
    let (ha, hb) = (hex_arg(&w.map, &a, "map.side_marker")?, hex_arg(&w.map, &b, "map.side_marker")?);
    Ok(w.state.side_markers.get(&Hexside::new(ha, hb)).and_then(|m| m.get(&name)).copied())
}

/// `map.adjacent{ from, not_across?, not_into?, as_set? } -> { [hex] = true }`: the hexes next to a
/// set (zones of control); with `as_set`, a [`HexSet`] of them. (Over the map's links, each
/// kind of hexside and each hex judged once.)
fn adjacent(lua: &Lua, spec: Table) -> mlua::Result<Value> {
    let w = world(lua);
    let w = w.borrow();
    let map = &w.map;
    let from = hex_list(lua, map, spec.get("from")?, "map.adjacent")?;
    let across: BTreeSet<String> = string_list(spec.get("not_across")?, "not_across")?.into_iter().collect();
    let into: BTreeSet<String> = string_list(spec.get("not_into")?, "not_into")?.into_iter().collect();
    // (whether each kind of hexside the links number, from 1, is one not crossed)
    let closed: Vec<bool> =
        std::iter::once(false).chain(map.side_kinds().iter().map(|f| f.iter().any(|x| across.contains(x)))).collect();
    let markers = &w.state.side_markers;
    let marked_closed = |h: HexId, n: HexId| {
        !across.is_empty()
            && !markers.is_empty()
            && markers.get(&Hexside::new(h, n)).is_some_and(|m| m.keys().any(|x| across.contains(x)))
    };
    // `not_into` names terrains and hex features alike: asked once of each look of the map
    let barred_look: Vec<bool> =
        map.looks().iter().map(|l| into.contains(&l.terrain) || l.features.iter().any(|f| into.contains(f))).collect();
    let look_of = map.look_of();
    const UNSEEN: u8 = 0;
    const IN: u8 = 1;
    const BARRED: u8 = 2;
    let links = map.links();
    let mut status = vec![UNSEEN; links.len()];
    let mut hexes: Vec<HexId> = Vec::new();
    for h in from {
        let Some(slot) = map.hexes.slot(h) else { continue };
        for link in &links[slot] {
            let n = link.slot as usize;
            if link.slot == crate::map::OFF
                || status[n] == IN
                || closed[link.kind as usize]
                || marked_closed(h, link.to)
            {
                continue;
            }
            if status[n] == UNSEEN {
                let into_ok = map.hexes.at_slot(n).is_some() && !barred_look[look_of[n] as usize];
                status[n] = if into_ok { IN } else { BARRED };
                if into_ok {
                    hexes.push(link.to);
                }
            }
        }
    }
    if spec.get::<Option<bool>>("as_set")?.unwrap_or(false) {
        return Ok(Value::UserData(lua.create_userdata(HexSet::new(&w.map, hexes))?));
    }
    hexes.sort();
    let names: Vec<std::borrow::Cow<str>> = hexes.into_iter().map(|n| printed(&w.map, n)).collect();
    let entries: Vec<(&str, Val)> = names.iter().map(|n| (n.as_ref(), Val::Bool(true))).collect();
    fast::keyed(lua, &entries).map(Value::Table)
}
