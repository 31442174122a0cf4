//! The profile of a search (`map.reach`, `map.route`, `map.moves`...) read from the rules' table:
//! terrain and hexside costs, directions, cancellations, sources; and what a search charges.

use super::hexset::*;
use super::seal::{seen_through, string_list};
use crate::hex::HexId;
use crate::map::Map;
use crate::search::{Cost, Profile, UNIT, to_units};
use mlua::{Lua, Table, Value};
use std::collections::{BTreeMap, BTreeSet};

/// A cost as the rules give it; `what` names it in a refusal (made only then: profiles are read
/// for every unit a list moves).
pub(super) fn cost_of(v: &Value, what: impl Fn() -> String) -> mlua::Result<Cost> {
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

pub(super) fn cost_table(t: Option<Table>, what: &str) -> mlua::Result<BTreeMap<String, Cost>> {
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

pub(super) fn profile_from(lua: &Lua, w: &super::World, t: &Table) -> mlua::Result<(Profile, Vec<(HexId, i64)>)> {
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
        enter_extra: hex_amounts(lua, map, t.get("enter_extra")?, "enter_extra")?,
        leave_extra: hex_amounts(lua, map, t.get("leave_extra")?, "leave_extra")?,
        blocked: {
            // `unblocked` takes hexes out again (friendly units negating an EZOC for supply)
            let mut blocked = search_set(lua, map, t.get("blocked")?, "blocked")?;
            for h in hex_set(lua, map, t.get("unblocked")?, "unblocked")? {
                blocked.remove(&h);
            }
            blocked
        },
        // `only`: the hexes that may be entered, if not blocked (a rail net of the side's own hexes)
        only: match t.get::<Value>("only")? {
            Value::Nil => None,
            v => Some(search_set(lua, map, v, "only")?),
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
pub(super) fn directions(map: &Map, t: &Table) -> mlua::Result<Option<[bool; 6]>> {
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
pub(super) fn hex_costs(lua: &Lua, map: &Map, t: &Table) -> mlua::Result<crate::hex::FastMap<HexId, Cost>> {
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
pub(super) fn side_costs(map: &Map, t: &Table) -> mlua::Result<crate::hex::FastMap<(HexId, HexId), Cost>> {
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
pub(super) fn cancels(t: &Table) -> mlua::Result<BTreeMap<String, BTreeSet<String>>> {
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

/// A profile's `from`: a hex, a list or set of hexes (each a source at cost 0), a
/// [`HexSet`](super::hexset::HexSet), or a table of start counts `{ ["1501"] = 1, ["4401"] = 7 }`
/// (a source whose line already has that length; a list part and a counted part may be mixed);
/// a list may also hold such tables and hexsets, which are merged (`from = { edges, rail_net }`).
/// A hex given twice starts at its lowest count.
pub(super) fn sources(map: &Map, t: &Table) -> mlua::Result<Vec<(HexId, i64)>> {
    let mut sources = Vec::new();
    match t.get::<Value>("from")? {
        Value::String(s) => sources.push((hex_arg(map, s.to_str()?.as_ref(), "from")?, 0)),
        Value::UserData(u) => sources.extend(hexset_of(&u, "from")?.sorted.iter().map(|&h| (h, 0))),
        Value::Table(list) => {
            source_table(map, list, &mut sources, 0)?;
            if let Some(&(h, c)) = sources.iter().find(|s| s.1 < 0) {
                return Err(mlua::Error::runtime(format!(
                    "from: the start count of {} is negative ({})",
                    map.fmt(h),
                    mp(c)
                )));
            }
        }
        Value::Nil => {}
        other => {
            return Err(mlua::Error::runtime(format!("from: a hex or a list of hexes, not {}", other.type_name())));
        }
    }
    sources.sort();
    Ok(sources)
}

/// The sources of a `from` table (see [`sources`]) added to `sources`; at `depth` 0 its list
/// items may be tables and hexsets.
fn source_table(map: &Map, t: Table, sources: &mut Vec<(HexId, i64)>, depth: usize) -> mlua::Result<()> {
    for p in seen_through(t).pairs::<Value, Value>() {
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
                let c = to_units(n)
                    .ok_or_else(|| mlua::Error::runtime(format!("from: start count {n} is not a multiple of 1/60")))?;
                sources.push((hex_arg(map, &h.to_str()?, "from")?, c));
            }
            (Value::Integer(_), Value::Table(inner)) if depth == 0 => source_table(map, inner, sources, 1)?,
            (Value::Integer(_), Value::UserData(u)) if depth == 0 => {
                sources.extend(hexset_of(&u, "from")?.sorted.iter().map(|&h| (h, 0)))
            }
            (k, v) => {
                return Err(mlua::Error::runtime(format!(
                    "from: a list of hexes, a set {{ [hex] = true }} or {{ [hex] = start count }}, or a list of such sets, not {} = {}",
                    k.type_name(),
                    v.type_name()
                )));
            }
        }
    }
    Ok(())
}

/// Sets (Some) or removes (None) a marker of a hex or hexside; empty entries are dropped so the
/// state stays canonical.
/// What a search is charged to the instruction budget: about what the same time would buy in
/// Lua instructions (building the profile and the answer, then each hex reached), so that the
/// budget, the same on every machine, bounds searches as it bounds Lua code (a runaway loop of
/// searches stops at the budget, not at the wall-clock backstop).
pub(super) const SEARCH_CHARGE: u64 = 2_000;

pub(super) const SEARCH_CHARGE_PER_HEX: u64 = 500;

/// Charges a search against the command's instruction budget, by the hexes it settles.
pub(super) fn charge(lua: &Lua, hexes: usize) -> mlua::Result<()> {
    // the error names the rule's line that searched, as the hook's does
    super::charge(lua, SEARCH_CHARGE + hexes as u64 * SEARCH_CHARGE_PER_HEX, "map searches")
}

/// The largest radius `map.within` takes (a map is a few dozen hexes across).
pub(super) const MAX_RADIUS: i32 = 200;

pub(super) fn mp(c: i64) -> f64 {
    c as f64 / UNIT as f64
}
