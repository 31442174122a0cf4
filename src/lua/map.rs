//! `map.*`: hex geometry, terrain, hexsides, places, areas, hex and hexside markers, and the
//! searches (`map.reach`, `map.route`, `map.path_cost`) run in Rust on a profile table.

use super::fast::{self, Val};
use super::seal::{seen_through, string_list};
use super::world;
use crate::hex::{HexId, Hexside};
use crate::map::Map;
use crate::search::{self, Cost, Profile, UNIT, to_units};
use mlua::{Lua, Table, Value};
use std::collections::{BTreeMap, BTreeSet};

fn hex_arg(map: &Map, s: &str, what: &str) -> mlua::Result<HexId> {
    match map.grid.parse(s) {
        Some(h) if map.contains(h) => Ok(h),
        Some(_) => Err(mlua::Error::runtime(format!("{what}: hex {s} is not on the map"))),
        None => Err(mlua::Error::runtime(format!("{what}: '{s}' is not a hex id"))),
    }
}

/// [`hex_arg`] of a key's bytes as Lua holds them.
fn hex_bytes(map: &Map, s: &[u8], what: &str) -> mlua::Result<HexId> {
    match std::str::from_utf8(s) {
        Ok(s) => hex_arg(map, s, what),
        Err(_) => hex_arg(map, &String::from_utf8_lossy(s), what),
    }
}

/// A cost as the rules give it; `what` names it in a refusal (made only then: profiles are read
/// for every unit a list moves).
fn cost_of(v: &Value, what: impl Fn() -> String) -> mlua::Result<Cost> {
    let units = |n: f64| {
        to_units(n).ok_or_else(|| mlua::Error::runtime(format!("{}: cost {n} is not a multiple of 1/60", what())))
    };
    match v {
        Value::Integer(i) => Ok(Cost::Mp(*i * UNIT)),
        Value::Number(n) => Ok(Cost::Mp(units(*n)?)),
        Value::Boolean(false) => Ok(Cost::No),
        Value::String(s) if &*s.as_bytes() == b"no" => Ok(Cost::No),
        Value::String(s) if &*s.as_bytes() == b"stop" => Ok(Cost::Stop(0)),
        Value::Table(t) => {
            let c: f64 = t.get::<Option<f64>>("cost")?.unwrap_or(0.0);
            if t.get::<Option<bool>>("stop")?.unwrap_or(false) {
                Ok(Cost::Stop(units(c)?))
            } else {
                Ok(Cost::Mp(units(c)?))
            }
        }
        other => Err(mlua::Error::runtime(format!(
            "{}: a cost is a number, \"no\", \"stop\" or {{cost=n, stop=true}}, not {}",
            what(),
            other.type_name()
        ))),
    }
}

fn cost_table(t: Option<Table>, what: &str) -> mlua::Result<BTreeMap<String, Cost>> {
    let mut out = BTreeMap::new();
    if let Some(t) = t {
        for p in seen_through(t).pairs::<String, Value>() {
            let (k, v) = p?;
            let c = cost_of(&v, || format!("{what}.{k}"))?;
            out.insert(k, c);
        }
    }
    Ok(out)
}

/// `map.hexset(set)`: a set of hexes read once and kept in Rust, never changed. Lua reads it
/// like a set table (`s[hex]`, `#s`, `pairs` in the order of the printed ids); every function
/// that takes a set of hexes takes it without reading it again: a profile's `blocked` and
/// `stop` made once and handed to the searches of many units.
pub struct HexSet {
    /// The printed ids, sorted as `pairs` walks them, with their hexes.
    sorted: Vec<(String, HexId)>,
    set: crate::hex::FastSet<HexId>,
}

impl HexSet {
    fn new(map: &Map, hexes: BTreeSet<HexId>) -> HexSet {
        let mut sorted: Vec<(String, HexId)> = hexes.into_iter().map(|h| (map.fmt(h), h)).collect();
        sorted.sort();
        let set = sorted.iter().map(|(_, h)| *h).collect();
        HexSet { sorted, set }
    }

    fn find(&self, id: &[u8]) -> Result<usize, usize> {
        self.sorted.binary_search_by(|(s, _)| s.as_bytes().cmp(id))
    }
}

impl mlua::UserData for HexSet {
    fn add_methods<M: mlua::UserDataMethods<Self>>(m: &mut M) {
        m.add_meta_method(mlua::MetaMethod::Index, |_, this, k: Value| {
            Ok(match k {
                Value::String(s) => this.find(&s.as_bytes()).is_ok().then_some(true),
                _ => None,
            })
        });
        m.add_meta_method(mlua::MetaMethod::NewIndex, |_, _, (k, _): (Value, Value)| -> mlua::Result<()> {
            Err(mlua::Error::runtime(format!(
                "a map.hexset is never changed (setting {}): copy it into a table with pairs",
                k.to_string().unwrap_or_default()
            )))
        });
        m.add_meta_method(mlua::MetaMethod::Len, |_, this, ()| Ok(this.sorted.len()));
        m.add_meta_method(mlua::MetaMethod::ToString, |_, this, ()| {
            let n = this.sorted.len();
            Ok(format!("hexset of {n} {}", if n == 1 { "hex" } else { "hexes" }))
        });
    }
}

/// The step of `pairs` over a [`HexSet`] (the prelude's `pairs` calls it for a hexset): the
/// hex after `k` in the order of the printed ids, and `true`.
pub(super) fn hexset_next(lua: &Lua, (u, k): (mlua::AnyUserData, Value)) -> mlua::Result<(Value, Value)> {
    let this = u
        .borrow::<HexSet>()
        .map_err(|_| mlua::Error::runtime("pairs: a userdata that is not a table or a map.hexset"))?;
    let i = match &k {
        Value::Nil => 0,
        Value::String(s) => match this.find(&s.as_bytes()) {
            Ok(i) => i + 1,
            Err(_) => return Err(mlua::Error::runtime("next: invalid key to 'next'")),
        },
        _ => return Err(mlua::Error::runtime("next: invalid key to 'next'")),
    };
    match this.sorted.get(i) {
        Some((id, _)) => Ok((Value::String(lua.create_string(id)?), Value::Boolean(true))),
        None => Ok((Value::Nil, Value::Nil)),
    }
}

/// `map.hexset(set) -> hexset`: see [`HexSet`].
fn hexset(lua: &Lua, v: Value) -> mlua::Result<HexSet> {
    let w = world(lua);
    let w = w.borrow();
    if let Value::UserData(u) = &v
        && let Ok(h) = u.borrow::<HexSet>()
    {
        return Ok(HexSet { sorted: h.sorted.clone(), set: h.set.clone() });
    }
    if !matches!(v, Value::Table(_) | Value::Nil) {
        return Err(mlua::Error::runtime(format!("map.hexset: a set or list of hexes, not {}", v.type_name())));
    }
    Ok(HexSet::new(&w.map, hex_set(lua, &w.map, v, "map.hexset")?))
}

/// A set of hexes given as a list or as a set table (`{["0418"]=true}`) or a [`HexSet`]; a list
/// may also hold such tables and hexsets, which are merged (`blocked = { enemy_hexes, ezoc_hexes }`).
fn hex_set(lua: &Lua, map: &Map, v: Value, what: &str) -> mlua::Result<BTreeSet<HexId>> {
    let mut out = BTreeSet::new();
    match v {
        Value::Nil => {}
        Value::Table(t) => add_hexes(lua, map, &t, what, &mut out, 0)?,
        Value::UserData(u) => out.extend(hexset_of(&u, what)?.set.iter().copied()),
        other => {
            return Err(mlua::Error::runtime(format!("{what}: a set or list of hexes, not {}", other.type_name())));
        }
    }
    Ok(out)
}

/// A set of hexes for a search (see [`hex_set`]): a [`HexSet`] is copied, not read again.
fn search_set(lua: &Lua, map: &Map, v: Value, what: &str) -> mlua::Result<crate::hex::FastSet<HexId>> {
    match v {
        Value::UserData(u) => Ok(hexset_of(&u, what)?.set.clone()),
        v => Ok(hex_set(lua, map, v, what)?.into_iter().collect()),
    }
}

fn hexset_of(u: &mlua::AnyUserData, what: &str) -> mlua::Result<mlua::UserDataRef<HexSet>> {
    u.borrow::<HexSet>().map_err(|_| mlua::Error::runtime(format!("{what}: a set or list of hexes, not a userdata")))
}

fn add_hexes(lua: &Lua, map: &Map, t: &Table, what: &str, out: &mut BTreeSet<HexId>, depth: usize) -> mlua::Result<()> {
    let real = seen_through(t.clone());
    // one pass in Lua's C API for a plain set or list; a list of sets the slow way
    let mut failed = None;
    let plain = !super::fast::hex_keys(lua, &real, |k| {
        if failed.is_none() {
            match hex_bytes(map, k, what) {
                Ok(h) => {
                    out.insert(h);
                }
                Err(e) => failed = Some(e),
            }
        }
    })?;
    if plain {
        return failed.map_or(Ok(()), Err);
    }
    // (what the pass found is found again below, in the same order, and any bad hex named
    // there; inserting into a set twice changes nothing)
    for p in real.pairs::<Value, Value>() {
        let (k, v) = p?;
        let s = match (&k, &v) {
            (Value::Integer(_), Value::String(s)) => s,
            (Value::Integer(_), Value::Table(inner)) if depth == 0 => {
                add_hexes(lua, map, inner, what, out, 1)?;
                continue;
            }
            (Value::Integer(_), Value::UserData(u)) if depth == 0 => {
                out.extend(hexset_of(u, what)?.set.iter().copied());
                continue;
            }
            (Value::String(s), v) if !matches!(v, Value::Boolean(false) | Value::Nil) => s,
            _ => continue,
        };
        out.insert(hex_arg(map, &s.to_str()?, what)?);
    }
    Ok(())
}

fn hex_amounts(lua: &Lua, map: &Map, v: Option<Table>, what: &str) -> mlua::Result<BTreeMap<HexId, i64>> {
    let mut out = BTreeMap::new();
    if let Some(t) = v {
        let t = seen_through(t);
        // one pass in Lua's C API for the common table of numbers; anything else the slow way
        let mut failed = None;
        let plain = super::fast::hex_numbers(lua, &t, |k, n| {
            if failed.is_some() {
                return;
            }
            let amount = to_units(n)
                .ok_or_else(|| mlua::Error::runtime(format!("{what}: {n} is not a multiple of 1/60")))
                .and_then(|c| Ok((hex_bytes(map, k, what)?, c)));
            match amount {
                Ok((h, c)) => *out.entry(h).or_insert(0) += c,
                Err(e) => failed = Some(e),
            }
        })?;
        if plain {
            return failed.map_or(Ok(out), Err);
        }
        // (read again the slow way, which names what is not a number)
        out.clear();
        for p in t.pairs::<String, f64>() {
            let (k, n) = p?;
            let c =
                to_units(n).ok_or_else(|| mlua::Error::runtime(format!("{what}: {n} is not a multiple of 1/60")))?;
            *out.entry(hex_arg(map, &k, what)?).or_insert(0) += c;
        }
    }
    Ok(out)
}

fn profile_from(lua: &Lua, w: &super::World, t: &Table) -> mlua::Result<(Profile, Vec<(HexId, i64)>)> {
    let map = &w.map;
    let mut p = Profile {
        terrain: cost_table(t.get("terrain")?, "terrain")?,
        features: cost_table(t.get("features")?, "features")?,
        add_features: t.get::<Option<String>>("combine")?.as_deref() == Some("add"),
        hexsides: cost_table(t.get("hexsides")?, "hexsides")?,
        paths: cost_table(t.get("paths")?, "paths")?,
        paths_only: t.get::<Option<bool>>("paths_only")?.unwrap_or(false),
        default: match t.get::<Value>("default")? {
            Value::Nil => None,
            v => Some(cost_of(&v, || "default".to_string())?),
        },
        enter_extra: hex_amounts(lua, map, t.get("enter_extra")?, "enter_extra")?.into_iter().collect(),
        leave_extra: hex_amounts(lua, map, t.get("leave_extra")?, "leave_extra")?.into_iter().collect(),
        blocked: {
            // `unblocked` takes hexes out again (friendly units negating an EZOC for supply)
            let mut blocked = search_set(lua, map, t.get("blocked")?, "blocked")?;
            for h in hex_set(lua, map, t.get("unblocked")?, "unblocked")? {
                blocked.remove(&h);
            }
            blocked
        },
        hex_cost: hex_costs(lua, map, t)?,
        cancels: cancels(t)?,
        stop: search_set(lua, map, t.get("stop")?, "stop")?,
        max: match t.get::<Option<f64>>("mp")? {
            Some(m) => Some(to_units(m).ok_or_else(|| mlua::Error::runtime("mp is not a multiple of 1/60"))?),
            None => None,
        },
        always_one: t.get::<Option<bool>>("always_one")?.unwrap_or(false),
        hexside_markers: w.state.side_markers.iter().map(|(s, m)| (*s, m.keys().cloned().collect())).collect(),
        side_cost: side_costs(map, t)?,
        directions: directions(map, t)?,
    };
    if p.terrain.is_empty() && p.default.is_none() {
        p.default = Some(Cost::Mp(UNIT)); // plain tracing: one per hex
    }
    Ok((p, sources(map, t)?))
}

/// A profile's `directions`: the directions (as `map.direction` names them) every step must go in.
fn directions(map: &Map, t: &Table) -> mlua::Result<Option<[bool; 6]>> {
    let v: Value = t.get("directions")?;
    if v.is_nil() {
        return Ok(None);
    }
    let mut dirs = [false; 6];
    for name in string_list(v, "directions")? {
        let d = crate::hex::Dir::ALL.into_iter().find(|&d| map.dir_name(d).eq_ignore_ascii_case(name.trim()));
        let Some(d) = d else {
            let names: Vec<&str> = map.dir_order().into_iter().map(|d| map.dir_name(d)).collect();
            return Err(mlua::Error::runtime(format!(
                "directions: unknown direction '{name}' (directions are {})",
                names.join(", ")
            )));
        };
        dirs[d as usize] = true;
    }
    Ok(Some(dirs))
}

/// A profile's cost by hex: `open` (hexes entered for 1 MP whatever their terrain), then `hex_cost`.
fn hex_costs(lua: &Lua, map: &Map, t: &Table) -> mlua::Result<crate::hex::FastMap<HexId, Cost>> {
    let mut m = crate::hex::FastMap::default();
    for h in hex_set(lua, map, t.get("open")?, "open")? {
        m.insert(h, Cost::Mp(UNIT));
    }
    if let Some(hc) = t.get::<Option<Table>>("hex_cost")? {
        for p in seen_through(hc).pairs::<String, Value>() {
            let (k, v) = p?;
            m.insert(hex_arg(map, &k, "hex_cost")?, cost_of(&v, || format!("hex_cost.{k}"))?);
        }
    }
    Ok(m)
}

/// A profile's `side_cost`: per-search prices of single hexside crossings, `["A>B"]` for the
/// step from A into B only, `["A/B"]` for both ways; they replace the hexside's feature costs.
fn side_costs(map: &Map, t: &Table) -> mlua::Result<crate::hex::FastMap<(HexId, HexId), Cost>> {
    let mut m = crate::hex::FastMap::default();
    let Some(sc) = t.get::<Option<Table>>("side_cost")? else { return Ok(m) };
    for p in seen_through(sc).pairs::<String, Value>() {
        let (k, v) = p?;
        let (a, b, both) = match (k.split_once('>'), k.split_once('/')) {
            (Some((a, b)), None) => (a, b, false),
            (None, Some((a, b))) => (a, b, true),
            _ => {
                return Err(mlua::Error::runtime(format!(
                    "side_cost: '{k}' is not a hexside crossing (write \"A>B\" for one way, \"A/B\" for both)"
                )));
            }
        };
        // (the refusal's name made only for a refusal: a profile's crossings are read per unit)
        let what = || format!("side_cost[\"{k}\"]");
        let hex = |x: &str| hex_arg(map, x.trim(), "side_cost").or_else(|_| hex_arg(map, x.trim(), &what()));
        let (ha, hb) = (hex(a)?, hex(b)?);
        if map.grid.direction(ha, hb).is_none() {
            return Err(mlua::Error::runtime(format!("{}: {a} and {b} are not adjacent", what())));
        }
        let c = cost_of(&v, what)?;
        m.insert((ha, hb), c);
        if both {
            m.insert((hb, ha), c);
        }
    }
    Ok(m)
}

/// A profile's `cancels`: by hexside feature, the features it cancels.
fn cancels(t: &Table) -> mlua::Result<BTreeMap<String, BTreeSet<String>>> {
    let mut m: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    if let Some(c) = t.get::<Option<Table>>("cancels")? {
        for p in seen_through(c).pairs::<String, Value>() {
            let (k, v) = p?;
            let what = format!("cancels.{k}");
            m.insert(k, string_list(v, &what)?.into_iter().collect());
        }
    }
    Ok(m)
}

/// A profile's `from`: a hex, a list or set of hexes (each a source at cost 0), or a table of start
/// counts `{ ["1501"] = 1, ["4401"] = 7 }` (a source whose line already has that length; a
/// list part and a counted part may be mixed). A hex given twice starts at its lowest count.
fn sources(map: &Map, t: &Table) -> mlua::Result<Vec<(HexId, i64)>> {
    let mut sources = Vec::new();
    match t.get::<Value>("from")? {
        Value::String(s) => sources.push((hex_arg(map, s.to_str()?.as_ref(), "from")?, 0)),
        Value::Table(list) => {
            for p in seen_through(list).pairs::<Value, Value>() {
                let (k, v) = p?;
                match (k, v) {
                    (Value::Integer(_), Value::String(h)) | (Value::String(h), Value::Boolean(true)) => {
                        sources.push((hex_arg(map, &h.to_str()?, "from")?, 0))
                    }
                    (Value::String(_), Value::Boolean(false)) => {}
                    (Value::String(h), Value::Integer(n)) => {
                        sources.push((hex_arg(map, &h.to_str()?, "from")?, n * UNIT));
                    }
                    (Value::String(h), Value::Number(n)) => {
                        let c = to_units(n).ok_or_else(|| {
                            mlua::Error::runtime(format!("from: start count {n} is not a multiple of 1/60"))
                        })?;
                        sources.push((hex_arg(map, &h.to_str()?, "from")?, c));
                    }
                    (k, v) => {
                        return Err(mlua::Error::runtime(format!(
                            "from: a list of hexes, a set {{ [hex] = true }} or {{ [hex] = start count }}, not {} = {}",
                            k.type_name(),
                            v.type_name()
                        )));
                    }
                }
            }
            if let Some(&(h, c)) = sources.iter().find(|s| s.1 < 0) {
                return Err(mlua::Error::runtime(format!(
                    "from: the start count of {} is negative ({})",
                    map.fmt(h),
                    mp(c)
                )));
            }
            sources.sort();
        }
        Value::Nil => {}
        other => {
            return Err(mlua::Error::runtime(format!("from: a hex or a list of hexes, not {}", other.type_name())));
        }
    }
    Ok(sources)
}

/// Sets (Some) or removes (None) a marker of a hex or hexside; empty entries are dropped so the
/// state stays canonical.
/// What a search is charged to the instruction budget: about what the same time would buy in
/// Lua instructions (building the profile and the answer, then each hex reached), so that the
/// budget, the same on every machine, bounds searches as it bounds Lua code (a runaway loop of
/// searches stops at the budget, not at the wall-clock backstop).
const SEARCH_CHARGE: u64 = 2_000;
const SEARCH_CHARGE_PER_HEX: u64 = 500;

/// Charges a search against the command's instruction budget, by the hexes it settles.
fn charge(lua: &Lua, hexes: usize) -> mlua::Result<()> {
    // the error names the rule's line that searched, as the hook's does
    super::charge(lua, SEARCH_CHARGE + hexes as u64 * SEARCH_CHARGE_PER_HEX, "map searches")
}

/// The largest radius `map.within` takes (a map is a few dozen hexes across).
const MAX_RADIUS: i32 = 200;

fn mp(c: i64) -> f64 {
    c as f64 / UNIT as f64
}

pub fn register(lua: &Lua) -> mlua::Result<()> {
    let t = lua.create_table()?;
    t.set("hex", lua.create_function(hex)?)?;
    t.set("is_hex", lua.create_function(is_hex)?)?;
    t.set("terrain", lua.create_function(terrain)?)?;
    t.set("has", lua.create_function(has)?)?;
    t.set("having", lua.create_function(having)?)?;
    t.set("hexsides_having", lua.create_function(hexsides_having)?)?;
    t.set("neighbours", lua.create_function(neighbours)?)?;
    t.set("distance", lua.create_function(distance)?)?;
    t.set("nearest", lua.create_function(nearest)?)?;
    t.set("beyond_edge", lua.create_function(beyond_edge)?)?;
    t.set("direction", lua.create_function(direction)?)?;
    t.set("within", lua.create_function(within)?)?;
    t.set("hexes", lua.create_function(hexes)?)?;
    t.set("hexside", lua.create_function(hexside)?)?;
    t.set("place", lua.create_function(place)?)?;
    t.set("area", lua.create_function(area)?)?;
    t.set("in_area", lua.create_function(in_area)?)?;
    t.set("marker", lua.create_function(marker)?)?;
    t.set("set_marker", lua.create_function(set_marker)?)?;
    t.set("set_markers", lua.create_function(set_markers)?)?;
    t.set("clear_markers", lua.create_function(clear_markers)?)?;
    t.set("valued", lua.create_function(valued)?)?;
    t.set("marked", lua.create_function(marked)?)?;
    t.set("set_side_marker", lua.create_function(set_side_marker)?)?;
    t.set("adjacent", lua.create_function(adjacent)?)?;
    t.set("hexset", lua.create_function(hexset)?)?;
    t.set("reach", lua.create_function(reach)?)?;
    t.set("moves", lua.create_function(moves)?)?;
    t.set("side_marker", lua.create_function(side_marker)?)?;
    t.set("route", lua.create_function(route)?)?;
    t.set("path_cost", lua.create_function(path_cost)?)?;
    t.set("step_costs", lua.create_function(step_costs)?)?;
    t.set("fmt_cost", lua.create_function(fmt_cost)?)?;
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
    let best =
        set.sorted.iter().map(|(id, h)| (w.map.grid.distance(from, *h), id)).min().map(|(d, id)| (id.clone(), d));
    Ok(match best {
        Some((h, d)) => (Some(h), Some(d)),
        None => (None, None),
    })
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

/// `map.within(hex, r) -> list`: the hexes of the map at most r hexes away.
fn within(lua: &Lua, (s, r): (String, i32)) -> mlua::Result<Vec<String>> {
    if !(0..=MAX_RADIUS).contains(&r) {
        return Err(mlua::Error::runtime(format!("map.within: radius {r} is not in 0..{MAX_RADIUS}")));
    }
    let w = world(lua);
    let w = w.borrow();
    let h = hex_arg(&w.map, &s, "map.within")?;
    Ok(w.map.grid.within(h, r).into_iter().filter(|x| w.map.contains(*x)).map(|x| w.fmt_hex(x)).collect::<Vec<_>>())
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
/// (`only.value`: those with that value; `only.except`: those with any other).
fn marked(lua: &Lua, (name, only): (String, Option<Table>)) -> mlua::Result<Table> {
    let (value, except) = match &only {
        Some(o) => (o.get::<Option<i64>>("value")?, o.get::<Option<i64>>("except")?),
        None => (None, None),
    };
    let w = world(lua);
    let w = w.borrow();
    let mut found: Vec<(String, i64)> = w
        .state
        .hex_markers
        .iter()
        .filter_map(|(h, m)| m.get(&name).map(|v| (*h, *v)))
        .filter(|(_, v)| value.is_none_or(|x| *v == x) && except.is_none_or(|x| *v != x))
        .map(|(h, v)| (w.fmt_hex(h), v))
        .collect();
    found.sort();
    let entries: Vec<(&str, Val)> = found.iter().map(|(h, v)| (h.as_str(), Val::Int(*v))).collect();
    fast::keyed(lua, &entries)
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

/// `map.adjacent{ from, not_across?, not_into? } -> { [hex] = true }`: the hexes next to a set (zones of control).
fn adjacent(lua: &Lua, spec: Table) -> mlua::Result<Table> {
    let w = world(lua);
    let w = w.borrow();
    let from = hex_set(lua, &w.map, spec.get("from")?, "map.adjacent")?;
    let across: BTreeSet<String> = string_list(spec.get("not_across")?, "not_across")?.into_iter().collect();
    let into: BTreeSet<String> = string_list(spec.get("not_into")?, "not_into")?.into_iter().collect();
    let mut hexes = crate::hex::FastSet::default();
    for &h in &from {
        for (_, n) in w.map.neighbours(h) {
            if hexes.contains(&n) {
                continue;
            }
            let side = Hexside::new(h, n);
            let blocked = w.map.side(&side).is_some_and(|f| f.iter().any(|x| across.contains(x)))
                || w.state.side_markers.get(&side).is_some_and(|m| m.keys().any(|x| across.contains(x)));
            // `not_into` names terrains and hex features alike
            let barred =
                |i: &crate::map::HexInfo| into.contains(&i.terrain) || i.features.iter().any(|f| into.contains(f));
            if !blocked && w.map.info(n).is_some_and(|i| !barred(i)) {
                hexes.insert(n);
            }
        }
    }
    let mut hexes: Vec<HexId> = hexes.into_iter().collect();
    hexes.sort();
    let names: Vec<String> = hexes.into_iter().map(|n| w.fmt_hex(n)).collect();
    let entries: Vec<(&str, Val)> = names.iter().map(|n| (n.as_str(), Val::Bool(true))).collect();
    fast::keyed(lua, &entries)
}

/// `map.reach(profile) -> costs, from`: each hex reached from the profile's `from`, its cost and where from.
fn reach(lua: &Lua, spec: Table) -> mlua::Result<(Table, Table)> {
    let w = world(lua);
    let w = w.borrow();
    let (p, sources) = profile_from(lua, &w, &spec)?;
    if sources.is_empty() {
        return Err(mlua::Error::runtime("map.reach: `from` is required"));
    }
    let r = p.reach(&w.map, &sources).map_err(|e| mlua::Error::runtime(format!("map.reach: {e}")))?;
    charge(lua, r.len())?;
    let routes = spec.get::<Option<bool>>("routes")?.unwrap_or(true);
    // `targets`: only these hexes are wanted in the answer (a supply check of units)
    let targets = match spec.get::<Option<Table>>("targets")? {
        Some(t) => Some(hex_set(lua, &w.map, Value::Table(t), "map.reach targets")?),
        None => None,
    };
    // (both tables built in one protected call each: a search hands back thousands of hexes)
    let mut costs: Vec<(&str, Val)> = Vec::new();
    let mut from: Vec<(&str, Val)> = Vec::new();
    let mut answer = |h: HexId, x: &crate::search::Reached| {
        let id = w.map.printed_id(h).unwrap_or_default();
        costs.push((id, Val::Num(mp(x.cost))));
        if let (true, Some(f)) = (routes, x.from) {
            from.push((id, Val::Str(w.map.printed_id(f).unwrap_or_default())));
        }
    };
    match targets {
        // only these hexes are wanted: look them up, in hex order
        Some(t) => {
            for h in t {
                if let Some(x) = r.get(&h) {
                    answer(h, x);
                }
            }
        }
        None => {
            for (h, x) in r.iter() {
                answer(h, x);
            }
        }
    }
    Ok((fast::keyed(lua, &costs)?, fast::keyed(lua, &from)?))
}

/// `map.moves(profile, spec) -> moves`: the moves of units for a list of actions
/// (`umpire.actions`), made from the searches here: every hex the profile reaches but its `from`
/// hexes and those of `exclude` (a set, or a list of sets), each an action whose `cmd` and
/// `note` are the templates of `spec` with `{unit}`, `{hex}` and `{cost}` filled in; `dear`
/// (`{ [hex] = mp }`) leaves a hex out when the search reaches it for that much or more. One unit
/// (`spec.unit`, the profile's own `from` and `mp`), or several sharing the profile
/// (`spec.units = { { unit =, from =, mp =, exclude = }, ... }`: the profile is read once, each
/// searched from its hex with its allowance and its own `exclude` added). The entry stands in
/// the list for all of them: unit by unit, in hex order (as `pairs` walks a search's answer).
fn moves(lua: &Lua, (spec, m): (Table, Table)) -> mlua::Result<mlua::AnyUserData> {
    let w = world(lua);
    let w = w.borrow();
    let (mut p, sources) = profile_from(lua, &w, &spec)?;
    let field = |t: &Table, k: &str| -> mlua::Result<Option<String>> {
        match t.get::<Value>(k)? {
            Value::Nil => Ok(None),
            Value::String(s) => Ok(Some(s.to_str()?.to_string())),
            other => Err(mlua::Error::runtime(format!("map.moves: `{k}` must be a string, not {}", other.type_name()))),
        }
    };
    let cmd = field(&m, "cmd")?
        .ok_or_else(|| mlua::Error::runtime("map.moves: `cmd` (the command's template) is required"))?;
    let group = field(&m, "group")?.unwrap_or_else(|| cmd.split_whitespace().next().unwrap_or("").to_string());
    let note = field(&m, "note")?;
    let common = hex_set(lua, &w.map, m.get("exclude")?, "map.moves exclude")?;
    let (cmd_t, note_t) = (template(&cmd), note.as_deref().map(template));
    // (a set handed for several units is read once)
    let mut sets: BTreeMap<usize, BTreeSet<HexId>> = BTreeMap::new();
    let mut out: Vec<crate::lua::Action> = Vec::new();
    let mut costs: BTreeMap<i64, String> = BTreeMap::new();
    let mut one = |p: &Profile,
                   sources: &[(HexId, i64)],
                   unit: Option<String>,
                   own: Option<&BTreeSet<HexId>>,
                   dear: &BTreeMap<HexId, i64>|
     -> mlua::Result<()> {
        if sources.is_empty() {
            return Err(mlua::Error::runtime("map.moves: a unit's `from` (or the profile's) is required"));
        }
        let r = p.reach(&w.map, sources).map_err(|e| mlua::Error::runtime(format!("map.moves: {e}")))?;
        charge(lua, r.len())?;
        let unit_text = unit.clone().unwrap_or_default();
        let mut found: Vec<(&str, crate::lua::Action)> = Vec::new();
        for (h, x) in r.iter() {
            if sources.iter().any(|(s, _)| *s == h)
                || common.contains(&h)
                || own.is_some_and(|o| o.contains(&h))
                || dear.get(&h).is_some_and(|&c| x.cost >= c)
            {
                continue;
            }
            let id = w.map.printed_id(h).unwrap_or_default();
            let cost = costs.entry(x.cost).or_insert_with(|| search::fmt_cost(x.cost));
            let fill = |t: &[Part]| {
                let mut out = String::with_capacity(32);
                for p in t {
                    out.push_str(match p {
                        Part::Text(x) => x,
                        Part::Unit => &unit_text,
                        Part::Hex => id,
                        Part::Cost => cost,
                    });
                }
                out
            };
            found.push((
                id,
                crate::lua::Action {
                    cmd: fill(&cmd_t),
                    group: group.clone(),
                    unit: unit.clone(),
                    units: vec![],
                    hex: Some(id.to_string()),
                    note: note_t.as_deref().map(fill),
                    side: None,
                },
            ));
        }
        // (the search answers in slot order, which is the ids' order on most maps)
        if !found.is_sorted_by(|a, b| a.0 <= b.0) {
            found.sort_by(|a, b| a.0.cmp(b.0));
        }
        out.extend(found.into_iter().map(|(_, a)| a));
        Ok(())
    };
    match m.get::<Option<Table>>("units")? {
        None => {
            let dear = hex_amounts(lua, &w.map, m.get("dear")?, "map.moves dear")?;
            one(&p, &sources, field(&m, "unit")?, None, &dear)?
        }
        Some(list) => {
            // (each unit's own crossings are added to the profile's, its `always_one` replaces it)
            let (base_sides, base_one) = (std::mem::take(&mut p.side_cost), p.always_one);
            for entry in list.sequence_values::<Table>() {
                let e = entry.map_err(|_| {
                    mlua::Error::runtime("map.moves: `units` is a list of { unit =, from =, mp = } tables")
                })?;
                let from = field(&e, "from")?
                    .ok_or_else(|| mlua::Error::runtime("map.moves: each of `units` needs its `from`"))?;
                let from = hex_arg(&w.map, &from, "map.moves from")?;
                p.max = match e.get::<Option<f64>>("mp")? {
                    Some(x) => Some(
                        to_units(x).ok_or_else(|| mlua::Error::runtime("map.moves: mp is not a multiple of 1/60"))?,
                    ),
                    None => None,
                };
                let own = match e.get::<Option<Table>>("exclude")? {
                    None => None,
                    Some(t) => {
                        let key = t.to_pointer() as usize;
                        if let std::collections::btree_map::Entry::Vacant(e) = sets.entry(key) {
                            e.insert(hex_set(lua, &w.map, Value::Table(t), "map.moves exclude")?);
                        }
                        sets.get(&key)
                    }
                };
                let dear = hex_amounts(lua, &w.map, e.get("dear")?, "map.moves dear")?;
                p.side_cost = base_sides.clone();
                p.side_cost.extend(side_costs(&w.map, &e)?);
                p.always_one = e.get::<Option<bool>>("always_one")?.unwrap_or(base_one);
                one(&p, &[(from, 0)], field(&e, "unit")?, own, &dear)?;
            }
        }
    }
    lua.create_userdata(super::actions::Moves(out))
}

/// A piece of a `map.moves` template.
enum Part {
    Text(String),
    Unit,
    Hex,
    Cost,
}

/// A template (`move {unit} {hex}`) in pieces, filled without searching it again.
fn template(t: &str) -> Vec<Part> {
    let mut out = Vec::new();
    let mut rest = t;
    while let Some(i) = rest.find('{') {
        let (before, from) = rest.split_at(i);
        let hole = [("{unit}", Part::Unit), ("{hex}", Part::Hex), ("{cost}", Part::Cost)]
            .into_iter()
            .find(|(k, _)| from.starts_with(k));
        match hole {
            Some((k, part)) => {
                out.push(Part::Text(before.to_string()));
                out.push(part);
                rest = &from[k.len()..];
            }
            None => {
                out.push(Part::Text(rest[..i + 1].to_string()));
                rest = &rest[i + 1..];
            }
        }
    }
    out.push(Part::Text(rest.to_string()));
    out
}

/// `map.route(profile, to) -> cost, path | nil, msg`: the cheapest route from the profile's `from` to a hex.
fn route(lua: &Lua, (spec, to): (Table, String)) -> mlua::Result<(Option<f64>, Value)> {
    let w = world(lua);
    let w = w.borrow();
    let (p, sources) = profile_from(lua, &w, &spec)?;
    if sources.is_empty() {
        return Err(mlua::Error::runtime("map.route: `from` is required"));
    }
    let to = hex_arg(&w.map, &to, "map.route")?;
    let r = p.reach(&w.map, &sources).map_err(|e| mlua::Error::runtime(format!("map.route: {e}")))?;
    charge(lua, r.len())?;
    match r.get(&to) {
        Some(x) => {
            let path: Vec<String> = search::route(&r, to).into_iter().map(|h| w.fmt_hex(h)).collect();
            Ok((Some(mp(x.cost)), Value::Table(lua.create_sequence_from(path)?)))
        }
        None => Ok((None, Value::String(lua.create_string(format!("{} cannot be reached", w.fmt_hex(to)))?))),
    }
}

/// `map.path_cost(profile, path) -> cost | nil, why, index`: what moving along the path costs, or where not.
fn path_cost(lua: &Lua, (spec, path): (Table, Value)) -> mlua::Result<(Option<f64>, Option<String>, Option<usize>)> {
    let path = string_list(path, "map.path_cost")?;
    let w = world(lua);
    let w = w.borrow();
    let (p, _) = profile_from(lua, &w, &spec)?;
    let hexes: Vec<HexId> = path.iter().map(|s| hex_arg(&w.map, s, "map.path_cost")).collect::<mlua::Result<_>>()?;
    match p.path_cost(&w.map, &hexes).map_err(|e| mlua::Error::runtime(format!("map.path_cost: {e}")))? {
        Ok(c) => Ok((Some(mp(c)), None, None)),
        Err((i, why)) => Ok((None, Some(why), Some(i + 1))),
    }
}

/// `map.step_costs(profile) -> { [hex] = mp }`: what one step from the profile's `from` into each
/// neighbour costs (the profile's own `mp` aside), as `map.path_cost` of the two hexes would; the
/// neighbours it cannot enter are left out. One reading of the profile for the six steps.
fn step_costs(lua: &Lua, spec: Table) -> mlua::Result<Table> {
    let w = world(lua);
    let w = w.borrow();
    let (p, sources) = profile_from(lua, &w, &spec)?;
    let [(from, _)] = sources.as_slice() else {
        return Err(mlua::Error::runtime("map.step_costs: the profile's `from` is one hex"));
    };
    let mut out: Vec<(&str, Val)> = Vec::new();
    for (_, n) in w.map.neighbours(*from) {
        if let Some((c, _)) =
            p.step(&w.map, *from, n).map_err(|e| mlua::Error::runtime(format!("map.step_costs: {e}")))?
        {
            out.push((w.map.printed_id(n).unwrap_or_default(), Val::Num(mp(c))));
        }
    }
    fast::keyed(lua, &out)
}

/// `map.fmt_cost(mp) -> string`: an MP amount as printed (`2`, `1.5`, `2 1/3`; not a multiple of 1/60: as is).
fn fmt_cost(_: &Lua, c: f64) -> mlua::Result<String> {
    Ok(to_units(c).map(search::fmt_cost).unwrap_or_else(|| c.to_string()))
}
