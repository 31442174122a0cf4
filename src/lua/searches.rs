//! The searches the rules call, run in Rust on a profile: `map.reach`, `map.moves` (the moves of
//! a unit as one entry of the list of actions), `map.route`, `map.path_cost`, `map.step_costs`.

use super::costs::*;
use super::fast::{self, Val};
use super::hexset::*;
use super::seal::string_list;
use super::world;
use crate::hex::HexId;
use crate::search::{self, Profile, ReachMemo, to_units};
use mlua::{Lua, Table, Value};
use std::collections::{BTreeMap, BTreeSet};

/// `map.reach(profile) -> costs, from`: each hex reached from the profile's `from`, its cost and
/// where from; with `as_set`, a [`HexSet`] of the hexes reached (and nil).
pub(super) fn reach(lua: &Lua, spec: Table) -> mlua::Result<(Value, Value)> {
    let w = world(lua);
    let w = w.borrow();
    let (p, sources) = profile_from(lua, &w, &spec)?;
    if sources.is_empty() {
        return Err(mlua::Error::runtime("map.reach: `from` is required"));
    }
    // (the same search is often asked again: the memo answers it, charged as if made)
    if lua.app_data_ref::<ReachMemo>().is_none() {
        lua.set_app_data(ReachMemo::default());
    }
    let mut memo = lua.app_data_mut::<ReachMemo>().expect("set above");
    let r = memo.reach(&w.map, p, &sources).map_err(|e| mlua::Error::runtime(format!("map.reach: {e}")))?;
    drop(memo);
    charge(lua, r.len())?;
    let routes = spec.get::<Option<bool>>("routes")?.unwrap_or(true);
    // `targets`: only these hexes are wanted in the answer (a supply check of units)
    let targets = match spec.get::<Value>("targets")? {
        Value::Nil => None,
        t => Some(hex_set(lua, &w.map, t, "map.reach targets")?),
    };
    if spec.get::<Option<bool>>("as_set")?.unwrap_or(false) {
        let hexes: std::collections::BTreeSet<HexId> = match targets {
            Some(t) => t.into_iter().filter(|h| r.get(h).is_some()).collect(),
            None => r.iter().map(|(h, _)| h).collect(),
        };
        return Ok((Value::UserData(lua.create_userdata(HexSet::new(&w.map, hexes))?), Value::Nil));
    }
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
    Ok((Value::Table(fast::keyed(lua, &costs)?), Value::Table(fast::keyed(lua, &from)?)))
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
pub(super) fn moves(lua: &Lua, (spec, m): (Table, Table)) -> mlua::Result<mlua::AnyUserData> {
    let w = world(lua);
    let w = w.borrow();
    let (mut p, sources) = profile_from(lua, &w, &spec)?;
    let cmd = moves_field(&m, "cmd")?
        .ok_or_else(|| mlua::Error::runtime("map.moves: `cmd` (the command's template) is required"))?;
    let note = moves_field(&m, "note")?;
    let mut lister = MoveLister {
        group: moves_field(&m, "group")?.unwrap_or_else(|| cmd.split_whitespace().next().unwrap_or("").to_string()),
        common: hex_set(lua, &w.map, m.get("exclude")?, "map.moves exclude")?,
        cmd: template(&cmd),
        note: note.as_deref().map(template),
        costs: BTreeMap::new(),
        out: Vec::new(),
        weight: match m.get::<Option<f64>>("weight")? {
            Some(w) if !crate::contract::Action::valid_weight(w) => {
                return Err(mlua::Error::runtime(format!(
                    "map.moves: `weight` must be a number of 0 or more, not {w}"
                )));
            }
            w => w,
        },
    };
    match m.get::<Option<Table>>("units")? {
        None => {
            let dear: BTreeMap<HexId, i64> = hex_amounts(lua, &w.map, m.get("dear")?, "map.moves dear")?;
            lister.list(lua, &w.map, &p, &sources, moves_field(&m, "unit")?, None, &dear)?
        }
        Some(list) => {
            // (each unit's own crossings are added to the profile's, its `always_one` replaces it;
            // a set handed for several units is read once)
            let (base_sides, base_one) = (std::mem::take(&mut p.side_cost), p.always_one);
            let mut sets: BTreeMap<usize, BTreeSet<HexId>> = BTreeMap::new();
            for entry in list.sequence_values::<Table>() {
                let e = entry.map_err(|_| {
                    mlua::Error::runtime("map.moves: `units` is a list of { unit =, from =, mp = } tables")
                })?;
                let from = moves_field(&e, "from")?
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
                let dear: BTreeMap<HexId, i64> = hex_amounts(lua, &w.map, e.get("dear")?, "map.moves dear")?;
                p.side_cost = base_sides.clone();
                p.side_cost.extend(side_costs(&w.map, &e)?);
                p.always_one = e.get::<Option<bool>>("always_one")?.unwrap_or(base_one);
                lister.list(lua, &w.map, &p, &[(from, 0)], moves_field(&e, "unit")?, own, &dear)?;
            }
        }
    }
    lua.create_userdata(super::actions::Moves(lister.out))
}

/// A text field of a `map.moves` table.
fn moves_field(t: &Table, k: &str) -> mlua::Result<Option<String>> {
    match t.get::<Value>(k)? {
        Value::Nil => Ok(None),
        Value::String(s) => Ok(Some(s.to_str()?.to_string())),
        other => Err(mlua::Error::runtime(format!("map.moves: `{k}` must be a string, not {}", other.type_name()))),
    }
}

/// The moves of `map.moves` being listed: the templates of their command and note, the hexes
/// left out for every unit, the costs printed so far.
struct MoveLister {
    group: String,
    common: BTreeSet<HexId>,
    cmd: Vec<Part>,
    note: Option<Vec<Part>>,
    costs: BTreeMap<i64, String>,
    out: Vec<crate::contract::Action>,
    /// The bots' weight of every move listed (`spec.weight`).
    weight: Option<f64>,
}

impl MoveLister {
    /// Lists the moves of one unit (`unit`, from `sources`): every hex its search reaches except
    /// its sources, the hexes left out, and those it reaches at a cost its `dear` forbids.
    #[allow(clippy::too_many_arguments)]
    fn list(
        &mut self,
        lua: &Lua,
        map: &crate::map::Map,
        p: &Profile,
        sources: &[(HexId, i64)],
        unit: Option<String>,
        own: Option<&BTreeSet<HexId>>,
        dear: &BTreeMap<HexId, i64>,
    ) -> mlua::Result<()> {
        if sources.is_empty() {
            return Err(mlua::Error::runtime("map.moves: a unit's `from` (or the profile's) is required"));
        }
        let r = p.reach(map, sources).map_err(|e| mlua::Error::runtime(format!("map.moves: {e}")))?;
        charge(lua, r.len())?;
        let unit_text = unit.clone().unwrap_or_default();
        let mut found: Vec<(&str, crate::contract::Action)> = Vec::new();
        for (h, x) in r.iter() {
            if sources.iter().any(|(s, _)| *s == h)
                || self.common.contains(&h)
                || own.is_some_and(|o| o.contains(&h))
                || dear.get(&h).is_some_and(|&c| x.cost >= c)
            {
                continue;
            }
            let id = map.printed_id(h).unwrap_or_default();
            let cost = self.costs.entry(x.cost).or_insert_with(|| search::fmt_cost(x.cost));
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
                crate::contract::Action {
                    cmd: fill(&self.cmd),
                    group: self.group.clone(),
                    unit: unit.clone(),
                    units: vec![],
                    hex: Some(id.to_string()),
                    note: self.note.as_deref().map(fill),
                    side: None,
                    weight: self.weight,
                    sweep: None,
                },
            ));
        }
        // (the search answers in slot order, which is the ids' order on most maps)
        if !found.is_sorted_by(|a, b| a.0 <= b.0) {
            found.sort_by(|a, b| a.0.cmp(b.0));
        }
        self.out.extend(found.into_iter().map(|(_, a)| a));
        Ok(())
    }
}

/// A piece of a `map.moves` template.
pub(super) enum Part {
    Text(String),
    Unit,
    Hex,
    Cost,
}

/// A template (`move {unit} {hex}`) in pieces, filled without searching it again.
pub(super) fn template(t: &str) -> Vec<Part> {
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
pub(super) fn route(lua: &Lua, (spec, to): (Table, String)) -> mlua::Result<(Option<f64>, Value)> {
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
pub(super) fn path_cost(
    lua: &Lua,
    (spec, path): (Table, Value),
) -> mlua::Result<(Option<f64>, Option<String>, Option<usize>)> {
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
pub(super) fn step_costs(lua: &Lua, spec: Table) -> mlua::Result<Table> {
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
pub(super) fn fmt_cost(_: &Lua, c: f64) -> mlua::Result<String> {
    Ok(to_units(c).map(search::fmt_cost).unwrap_or_else(|| c.to_string()))
}
