//! `units.*` and the unit handle. A handle (`UnitRef`) holds only the unit's id and is
//! resolved against the current state on every call, so it never goes stale silently.

use super::seal::rule_place;
use super::vars::{name, read};
use super::{from_lua, to_lua, world};
use crate::hex::HexId;
use crate::names::resolve_unit;
use crate::state::{Location, Unit};
use mlua::{AnyUserData, Lua, MetaMethod, Table, UserData, UserDataFields, UserDataMethods, Value};
use std::collections::BTreeMap;

#[derive(Clone, Debug)]
pub struct UnitRef(pub String);

fn with_unit<R>(lua: &Lua, id: &str, f: impl FnOnce(&Unit, &super::World) -> mlua::Result<R>) -> mlua::Result<R> {
    let w = world(lua);
    let w = w.borrow();
    let u = w.state.units.get(id).ok_or_else(|| mlua::Error::runtime(format!("unit {id} no longer exists")))?;
    f(u, &w)
}

fn with_unit_mut<R>(lua: &Lua, id: &str, f: impl FnOnce(&mut super::World) -> mlua::Result<R>) -> mlua::Result<R> {
    let w = world(lua);
    let mut w = w.borrow_mut();
    if !w.state.units.contains_key(id) {
        return Err(mlua::Error::runtime(format!("unit {id} no longer exists")));
    }
    f(&mut w)
}

fn unit_mut<'a>(w: &'a mut super::World, id: &str) -> &'a mut Unit {
    w.state.units.get_mut(id).expect("checked")
}

impl UserData for UnitRef {
    fn add_fields<F: UserDataFields<Self>>(f: &mut F) {
        f.add_field_method_get("id", |_, this| Ok(this.0.clone()));
        f.add_field_method_get("name", |lua, this| with_unit(lua, &this.0, |u, _| Ok(u.name.clone())));
        f.add_field_method_get("side", |lua, this| with_unit(lua, &this.0, |u, _| Ok(u.side.clone())));
        f.add_field_method_get("kind", |lua, this| with_unit(lua, &this.0, |u, _| Ok(u.kind.clone())));
        f.add_field_method_get("hex", |lua, this| with_unit(lua, &this.0, |u, w| Ok(u.hex().map(|h| w.fmt_hex(h)))));
        f.add_field_method_get("box", |lua, this| {
            with_unit(lua, &this.0, |u, _| {
                Ok(match &u.loc {
                    Location::Box(b) => Some(b.clone()),
                    Location::Hex(_) => None,
                })
            })
        });
        // 1-based current step, number of steps, steps left
        f.add_field_method_get("step", |lua, this| with_unit(lua, &this.0, |u, _| Ok(u.step + 1)));
        f.add_field_method_get("steps", |lua, this| with_unit(lua, &this.0, |u, _| Ok(u.steps.len())));
        f.add_field_method_get("steps_left", |lua, this| with_unit(lua, &this.0, |u, _| Ok(u.steps.len() - u.step)));
        f.add_field_method_get("exists", |lua, this| Ok(world(lua).borrow().state.units.contains_key(&this.0)));
        // fog of war: the side to act may not examine it (the predicate of every view)
        f.add_field_method_get("hidden", |lua, this| with_unit(lua, &this.0, |u, w| Ok(w.hidden(u))));
    }

    fn add_methods<M: UserDataMethods<Self>>(m: &mut M) {
        m.add_meta_method(MetaMethod::ToString, |_, this, ()| Ok(this.0.clone()));
        m.add_meta_method(MetaMethod::Eq, |_, this, other: mlua::UserDataRef<UnitRef>| Ok(this.0 == other.0));
        add_attribute_methods(m);
        add_marker_methods(m);
        add_position_methods(m);
        add_step_methods(m);
    }
}

/// What the counter prints (`value`, `values`, `is_approx`) and what the rules note on a unit
/// (`attr`, `set_attr`).
fn add_attribute_methods<M: UserDataMethods<UnitRef>>(m: &mut M) {
    // printed value of the current step (nil if the counter has none)
    m.add_method("value", |lua, this, key: String| {
        with_unit(lua, &this.0, |u, _| match u.values().get(&key) {
            Some(v) => to_lua(lua, v),
            None => Ok(Value::Nil),
        })
    });
    m.add_method("values", |lua, this, ()| {
        with_unit(lua, &this.0, |u, _| to_lua(lua, &serde_json::to_value(u.values()).unwrap()))
    });
    m.add_method("is_approx", |lua, this, key: String| with_unit(lua, &this.0, |u, _| Ok(u.approx.contains(&key))));
    m.add_method("attr", |lua, this, key: String| with_unit(lua, &this.0, |u, _| read(lua, u.attrs.get(&key))));
    m.add_method("set_attr", |lua, this, (key, v): (String, Value)| {
        let what = format!("{}:set_attr('{}')", this.0, key.chars().take(64).collect::<String>());
        let key = name(lua, &what, key)?;
        let j = from_lua(lua, &v, &what)?;
        with_unit_mut(lua, &this.0, |w| {
            let now = w.state.units.get(&this.0).and_then(|u| u.attrs.get(&key));
            if now == Some(&j) || (now.is_none() && j.is_null()) {
                return Ok(());
            }
            let u = unit_mut(w, &this.0);
            let attrs = std::sync::Arc::make_mut(&mut u.attrs);
            if j.is_null() {
                attrs.remove(&key);
            } else {
                attrs.insert(key, j);
            }
            Ok(())
        })
    });
}

/// The unit's markers: `marker`, `markers`, `set_marker`.
fn add_marker_methods<M: UserDataMethods<UnitRef>>(m: &mut M) {
    m.add_method("marker", |lua, this, name: String| with_unit(lua, &this.0, |u, _| Ok(u.markers.get(&name).copied())));
    m.add_method("markers", |lua, this, ()| with_unit(lua, &this.0, |u, _| Ok(u.markers.clone())));
    m.add_method("set_marker", |lua, this, (marker, v): (String, Option<Value>)| {
        let v = set_marker_value(v)?;
        let name = name(lua, "set_marker", marker)?;
        with_unit_mut(lua, &this.0, |w| {
            // an unchanged marker changes nothing (the unit stays shared with the snapshots)
            if w.state.units.get(&this.0).is_some_and(|u| u.markers.get(&name).copied() == v) {
                return Ok(());
            }
            let u = unit_mut(w, &this.0);
            match v {
                Some(v) => u.markers.insert(name, v),
                None => u.markers.remove(&name),
            };
            Ok(())
        })
    });
}

/// The value `u:set_marker(name, v)` stores: an integer, `true` (1), or `nil`/`false` (none,
/// so the marker is removed). Its message is the one `set_marker` has always given.
fn set_marker_value(v: Option<Value>) -> mlua::Result<Option<i64>> {
    Ok(match v {
        None | Some(Value::Nil) | Some(Value::Boolean(false)) => None,
        Some(Value::Boolean(true)) => Some(1),
        Some(Value::Integer(i)) => Some(i),
        Some(Value::Number(n)) if n.fract() == 0.0 => Some(n as i64),
        Some(other) => {
            return Err(mlua::Error::runtime(format!(
                "set_marker: value must be an integer, true or nil, not {}",
                other.type_name()
            )));
        }
    })
}

/// Where the unit is put: `move_to` a hex of the map, `put_in` a box.
fn add_position_methods<M: UserDataMethods<UnitRef>>(m: &mut M) {
    m.add_method("move_to", |lua, this, (hex, how): (String, Option<String>)| {
        with_unit_mut(lua, &this.0, |w| {
            let h = w.map.grid.parse(&hex).filter(|h| w.map.contains(*h));
            let Some(h) = h else {
                return Err(mlua::Error::runtime(format!("move_to: '{hex}' is not a hex of the map")));
            };
            match how.as_deref() {
                None | Some("top") => w.state.place(&this.0, Location::Hex(h)),
                Some("under") => w.state.place_under(&this.0, Location::Hex(h)),
                Some(other) => {
                    return Err(mlua::Error::runtime(format!(
                        "move_to: '{other}' is not where in the stack (\"top\", the default, or \"under\")"
                    )));
                }
            }
            Ok(())
        })
    });
    m.add_method("put_in", |lua, this, name: String| {
        with_unit_mut(lua, &this.0, |w| {
            known_box(lua, w, &name, &format!("{}:put_in('{name}')", this.0))?;
            w.state.place(&this.0, Location::Box(name));
            Ok(())
        })
    });
}

/// Refuses a box the scenario does not declare (`[scenario] boxes`), naming the rule's line and
/// the boxes there are.
fn known_box(lua: &Lua, w: &super::World, name: &str, what: &str) -> mlua::Result<()> {
    if w.state.boxes.contains(name) {
        return Ok(());
    }
    let known = if w.state.boxes.is_empty() {
        "the scenario declares no boxes ([scenario] boxes)".to_string()
    } else {
        format!("the scenario's boxes are {}", w.state.boxes.iter().cloned().collect::<Vec<_>>().join(", "))
    };
    Err(mlua::Error::runtime(format!(
        "{}{what}: no box '{name}'{}; {known}",
        rule_place(lua),
        crate::text::did_you_mean(name, w.state.boxes.iter())
    )))
}

/// The unit's strength: `lose_steps`, `restore_steps`, `set_step`.
fn add_step_methods<M: UserDataMethods<UnitRef>>(m: &mut M) {
    // loses n steps (default 1); returns true if the unit has no step left (it stays where
    // it is: the rules decide where eliminated units go)
    m.add_method("lose_steps", |lua, this, n: Option<usize>| {
        with_unit_mut(lua, &this.0, |w| {
            let u = unit_mut(w, &this.0);
            let n = n.unwrap_or(1);
            let left = u.steps.len() - u.step;
            if n >= left {
                u.step = u.steps.len() - 1;
                Ok((true, left))
            } else {
                u.step += n;
                Ok((false, n))
            }
        })
    });
    m.add_method("restore_steps", |lua, this, n: Option<usize>| {
        with_unit_mut(lua, &this.0, |w| {
            let u = unit_mut(w, &this.0);
            let n = n.unwrap_or(1).min(u.step);
            u.step -= n;
            Ok(n)
        })
    });
    m.add_method("set_step", |lua, this, s: usize| {
        with_unit_mut(lua, &this.0, |w| {
            let u = unit_mut(w, &this.0);
            if s == 0 || s > u.steps.len() {
                return Err(mlua::Error::runtime(format!("set_step: {} has steps 1..{}", u.id, u.steps.len())));
            }
            u.step = s - 1;
            Ok(())
        })
    });
}

/// A marker's value: an integer, `true` (1), or `nil`/`false` to remove it.
pub fn marker_value(v: Value, what: &str) -> mlua::Result<Option<i64>> {
    Ok(match v {
        Value::Nil | Value::Boolean(false) => None,
        Value::Boolean(true) => Some(1),
        Value::Integer(i) => Some(i),
        Value::Number(n) if n.fract() == 0.0 && n.is_finite() => Some(n as i64),
        other => {
            return Err(mlua::Error::runtime(format!(
                "{what}: value must be an integer, true, false or nil, not {}",
                other.type_name()
            )));
        }
    })
}

/// The handles made so far, by unit id (a table in the Lua state's app data), and their ids.
struct Handles(Table, std::cell::RefCell<std::collections::BTreeSet<String>>);

fn handles(lua: &Lua) -> mlua::Result<Table> {
    if let Some(h) = lua.app_data_ref::<Handles>() {
        return Ok(h.0.clone());
    }
    let t = lua.create_table()?;
    lua.set_app_data(Handles(t.clone(), Default::default()));
    // the first handle makes the handles' metatable: its hot reads go to handle.rs
    super::handle::install(lua, &lua.create_userdata(UnitRef(String::new()))?)?;
    Ok(t)
}

fn handle_in(lua: &Lua, cache: &Table, id: String) -> mlua::Result<AnyUserData> {
    if let Some(u) = cache.raw_get::<Option<AnyUserData>>(id.as_str())? {
        return Ok(u);
    }
    let u = lua.create_userdata(UnitRef(id.clone()))?;
    super::handle::set_id(lua, &u, &id)?;
    if let Some(h) = lua.app_data_ref::<Handles>() {
        h.1.borrow_mut().insert(id.clone());
    }
    cache.raw_set(id, &u)?;
    Ok(u)
}

/// The handle of a unit: one userdata per id for the life of the Lua state, so handles are
/// cheap to hand out and the same unit is the same key in a table.
pub fn handle(lua: &Lua, id: String) -> mlua::Result<AnyUserData> {
    handle_in(lua, &handles(lua)?, id)
}

fn refs(lua: &Lua, ids: Vec<String>) -> mlua::Result<Table> {
    let cache = made(lua, &ids)?;
    super::fast::lists_from(lua, &cache, None, &[ids])
}

/// The handle cache, with a handle made for each of `ids` that has none yet.
fn made(lua: &Lua, ids: &[String]) -> mlua::Result<Table> {
    let cache = handles(lua)?;
    let missing: Vec<&String> = {
        let have = lua.app_data_ref::<Handles>().expect("made by handles()");
        let have = have.1.borrow();
        ids.iter().filter(|id| !have.contains(id.as_str())).collect()
    };
    for id in missing {
        handle_in(lua, &cache, id.clone())?;
    }
    Ok(cache)
}

pub fn register(lua: &Lua) -> mlua::Result<()> {
    let t = lua.create_table()?;
    super::charged::set(lua, &t, "units", "get", get)?;
    super::charged::set(lua, &t, "units", "find", find)?;
    super::charged::set(lua, &t, "units", "at", at)?;
    super::charged::set(lua, &t, "units", "in_box", in_box)?;
    super::charged::set(lua, &t, "units", "stacks", stacks)?;
    super::charged::set(lua, &t, "units", "all", all)?;
    super::charged::set(lua, &t, "units", "hexes", hexes)?;
    super::charged::set(lua, &t, "units", "hexset", hexset)?;
    super::charged::set(lua, &t, "units", "count", count)?;
    // `units["212/80"]` is a unit looked up as a field: say how a unit is found
    let mt = lua.create_table()?;
    mt.set(
        "__index",
        lua.create_function(|lua, (_, k): (Value, Value)| -> mlua::Result<Value> {
            let k = match &k {
                Value::String(s) => s.to_string_lossy(),
                other => other.type_name().to_string(),
            };
            Err(mlua::Error::runtime(format!(
                "{}units has no field '{k}' (a unit by its id: units.get('{k}'); the API: get, find, at, in_box, stacks, all, hexes, hexset, count)",
                rule_place(lua)
            )))
        })?,
    )?;
    t.set_metatable(Some(mt))?;
    lua.globals().set("units", t)?;
    Ok(())
}

/// `units.get(id)`: the unit with exactly that id, or nil and why not.
fn get(lua: &Lua, id: String) -> mlua::Result<(Option<AnyUserData>, Option<String>)> {
    let w = world(lua);
    let w = w.borrow();
    if w.state.units.contains_key(&id) {
        Ok((Some(handle(lua, id)?), None))
    } else {
        Ok((None, Some(format!("no unit {id}"))))
    }
}

/// `units.find(text)`: resolves what a player typed (exact id, unique case-insensitive prefix),
/// or nil and why not.
fn find(lua: &Lua, text: String) -> mlua::Result<(Option<AnyUserData>, Option<String>)> {
    let w = world(lua);
    let w = w.borrow();
    match resolve_unit(&w.state, &text) {
        Ok(id) => Ok((Some(handle(lua, id)?), None)),
        Err(e) => Ok((None, Some(e))),
    }
}

/// `units.at(hex)`: the stack in a hex, top unit first.
fn at(lua: &Lua, hex: String) -> mlua::Result<Table> {
    let w = world(lua);
    let ids: Vec<String> = {
        let w = w.borrow();
        let Some(h) = w.map.grid.parse(&hex) else {
            return Err(mlua::Error::runtime(format!("units.at: '{hex}' is not a hex")));
        };
        w.stack_ids(h).iter().map(|id| id.to_string()).collect()
    };
    refs(lua, ids)
}

/// `units.in_box(name)`: the units in a box.
fn in_box(lua: &Lua, name: String) -> mlua::Result<Table> {
    let w = world(lua);
    let ids: Vec<String> = {
        let w = w.borrow();
        known_box(lua, &w, &name, &format!("units.in_box('{name}')"))?;
        w.state.in_box(&name).into_iter().map(|u| u.id.clone()).collect()
    };
    refs(lua, ids)
}

/// `units.stacks()`: every stack on the map in one pass, `{ [hex] = { top unit, next, ... } }`,
/// so rules that look at the whole map need not ask hex by hex.
fn stacks(lua: &Lua, (): ()) -> mlua::Result<Table> {
    let w = world(lua);
    let (hexes, groups): (Vec<String>, Vec<Vec<String>>) = {
        let w = w.borrow();
        let stacks = w.state.stacks();
        stacks.into_iter().map(|(h, v)| (w.fmt_hex(h), v.into_iter().map(|u| u.id.clone()).collect())).unzip()
    };
    let all: Vec<String> = groups.iter().flatten().cloned().collect();
    let cache = made(lua, &all)?;
    super::fast::lists_from(lua, &cache, Some(&hexes), &groups)
}

/// `units.all(filter)`: all units, by id, that pass the filter `{ side=, kind = "k" | {"k", ...},
/// on_map=true, box=, attr = {k = v}, marked = "m" | {"m", ...}, unmarked = "m" | {"m", ...},
/// at_least = {k = n} }`.
fn all(lua: &Lua, filter: Option<Table>) -> mlua::Result<Table> {
    let w = world(lua);
    let filter = UnitFilter::of(lua, filter.as_ref(), "units.all")?;
    let ids: Vec<String> = {
        let w = w.borrow();
        if let Some(b) = &filter.bx {
            known_box(lua, &w, b, "units.all{box}")?;
        }
        w.state.units.values().filter(|u| filter.passes(u)).map(|u| u.id.clone()).collect()
    };
    refs(lua, ids)
}

/// `units.hexes(filter, what?)`: the hexes where units that pass the filter (as `units.all`'s)
/// stand, with how many there are (`what` "units", the default) or the steps they have left
/// (`"steps"`), `{ [hex] = n }`: no handle is made (a zone of control, the hexes a side's units
/// negate or block, a side's steps, read in one call).
fn hexes(lua: &Lua, (filter, what): (Option<Table>, Option<String>)) -> mlua::Result<Table> {
    let mut count: BTreeMap<HexId, i64> = BTreeMap::new();
    let w = counted(lua, filter, what, "units.hexes", |u, n| {
        if let Some(h) = u.hex() {
            *count.entry(h).or_insert(0) += n;
        }
    })?;
    super::hexset::hex_ints(lua, &w.borrow(), count.into_iter())
}

/// `units.hexset(filter?) -> hexset`: the hexes the units passing `filter` stand in, as a
/// `map.hexset` (a search's `blocked`, a `within`, without a table made and read again).
fn hexset(lua: &Lua, filter: Option<Table>) -> mlua::Result<super::hexset::HexSet> {
    let mut hexes = Vec::new();
    let w = counted(lua, filter, None, "units.hexset", |u, _| hexes.extend(u.hex()))?;
    let w = w.borrow();
    Ok(super::hexset::HexSet::new(&w.map, hexes))
}

/// `units.count(filter, what?)`: how many units pass the filter (as `units.all`'s), on the map or
/// not (`what` "units", the default), or the steps they have left (`"steps"`): a side's steps,
/// or its units out of supply, in one call.
fn count(lua: &Lua, (filter, what): (Option<Table>, Option<String>)) -> mlua::Result<i64> {
    let mut total = 0;
    counted(lua, filter, what, "units.count", |_, n| total += n)?;
    Ok(total)
}

/// Hands `each` every unit that passes `filter` with what it counts for (`what`: 1 a unit, or
/// its steps left), in no order a caller may rely on (a side's units on the map come from the
/// world's index of them by kind); `fname` names the caller in errors. Returns the world, for
/// the answer.
fn counted(
    lua: &Lua,
    filter: Option<Table>,
    what: Option<String>,
    fname: &str,
    mut each: impl FnMut(&Unit, i64),
) -> mlua::Result<super::Shared> {
    let steps = match what.as_deref() {
        None | Some("units") => false,
        Some("steps") => true,
        Some(other) => {
            return Err(mlua::Error::runtime(format!("{fname}: counts \"units\" or \"steps\", not \"{other}\"")));
        }
    };
    let w = world(lua);
    let filter = UnitFilter::of(lua, filter.as_ref(), fname)?;
    {
        let w = w.borrow();
        if let Some(b) = &filter.bx {
            known_box(lua, &w, b, &format!("{fname}{{box}}"))?;
        }
        let mut count = |u: &Unit| {
            if filter.passes(u) {
                each(u, if steps { (u.steps.len() - u.step) as i64 } else { 1 });
            }
        };
        // (a side's units on the map, of some kinds or all, read from the index of them: not
        // every unit of the game, those set aside and eliminated included, asked again)
        match (&filter.side, filter.on_map) {
            (Some(side), Some(true)) => {
                let by = w.on_map_by_kind();
                for (s, k, us) in by.iter() {
                    if s == side && filter.kind.as_ref().is_none_or(|ks| ks.contains(k)) {
                        us.iter().for_each(|u| count(u));
                    }
                }
            }
            _ => w.state.units.values().for_each(count),
        }
    }
    Ok(w)
}

/// A filter's field holding a name or a list of names (`kind`, `marked`, `unmarked`).
fn names(filter: Option<&Table>, fname: &str, field: &str, what: &str) -> mlua::Result<Option<Vec<String>>> {
    match filter.map(|f| f.get::<Value>(field)).transpose()?.unwrap_or(Value::Nil) {
        Value::Nil => Ok(None),
        Value::String(m) => Ok(Some(vec![m.to_str()?.to_string()])),
        v @ Value::Table(_) => Ok(Some(super::seal::string_list(v, &format!("{fname}{{{field}}}"))?)),
        other => Err(mlua::Error::runtime(format!(
            "{fname}{{{field}}}: expected {what} or a list of them, not {}",
            other.type_name()
        ))),
    }
}

/// The filter of `units.all`: every field given must match (none given: every unit passes).
struct UnitFilter {
    side: Option<String>,
    /// `kind`: one kind or a list of them
    kind: Option<Vec<String>>,
    /// `not_kind`: the unit is of none of these kinds
    not_kind: Vec<String>,
    bx: Option<String>,
    on_map: Option<bool>,
    attrs: Vec<(String, serde_json::Value)>,
    /// `marked`: the unit carries at least one of these markers (none given: no condition)
    marked: Option<Vec<String>>,
    /// `unmarked`: the unit carries none of these markers
    unmarked: Vec<String>,
    /// `at_least`: the unit's value (of its step now) for each key is a number at least this
    at_least: Vec<(String, f64)>,
    /// `within`: the unit stands in one of these hexes
    within: Option<super::hexset::AnyOf>,
    /// `outside`: the unit stands in none of these hexes (a unit off the map does)
    outside: Option<super::hexset::AnyOf>,
}

impl UnitFilter {
    /// The filter the rules handed over (read through a seal), or none.
    fn of(lua: &Lua, filter: Option<&Table>, fname: &str) -> mlua::Result<UnitFilter> {
        let side: Option<String> = filter.map(|f| f.get("side")).transpose()?.flatten();
        let kind = names(filter, fname, "kind", "a kind")?;
        let not_kind = names(filter, fname, "not_kind", "a kind")?.unwrap_or_default();
        let bx: Option<String> = filter.map(|f| f.get("box")).transpose()?.flatten();
        let on_map: Option<bool> = filter.map(|f| f.get("on_map")).transpose()?.flatten();
        let mut attrs: Vec<(String, serde_json::Value)> = Vec::new();
        if let Some(t) = filter.map(|f| f.get::<Option<Table>>("attr")).transpose()?.flatten() {
            for p in super::seal::seen_through(t).pairs::<String, Value>() {
                let (k, v) = p?;
                let j = from_lua(lua, &v, &format!("{fname}{{attr}}"))?;
                attrs.push((k, j));
            }
        }
        let marked = names(filter, fname, "marked", "a marker name")?;
        let unmarked = names(filter, fname, "unmarked", "a marker name")?.unwrap_or_default();
        let mut at_least: Vec<(String, f64)> = Vec::new();
        if let Some(t) = filter.map(|f| f.get::<Option<Table>>("at_least")).transpose()?.flatten() {
            for p in super::seal::seen_through(t).pairs::<String, Value>() {
                let (k, v) = p?;
                let n = match v {
                    Value::Integer(n) => n as f64,
                    Value::Number(n) => n,
                    other => {
                        return Err(mlua::Error::runtime(format!(
                            "{fname}{{at_least}}: {k} must be a number, not {}",
                            other.type_name()
                        )));
                    }
                };
                at_least.push((k, n));
            }
        }
        // (a hexset is read where it is: the Soviet hexes of most of a map)
        let hexes = |field: &str| -> mlua::Result<Option<super::hexset::AnyOf>> {
            match filter.map(|f| f.get::<Value>(field)).transpose()?.unwrap_or(Value::Nil) {
                Value::Nil => Ok(None),
                v => {
                    let map = world(lua).borrow().map.clone();
                    Ok(Some(super::hexset::any_of(lua, &map, v, &format!("{fname}{{{field}}}"))?))
                }
            }
        };
        let (within, outside) = (hexes("within")?, hexes("outside")?);
        Ok(UnitFilter { side, kind, not_kind, bx, on_map, attrs, marked, unmarked, at_least, within, outside })
    }

    /// Whether the unit matches every field of the filter.
    /// (The cheapest tests first: where the unit is, then the texts.)
    fn passes(&self, u: &Unit) -> bool {
        self.on_map.is_none_or(|m| u.hex().is_some() == m)
            && self.side.as_ref().is_none_or(|s| &u.side == s)
            && self.kind.as_ref().is_none_or(|ks| ks.contains(&u.kind))
            && !self.not_kind.contains(&u.kind)
            && self.bx.as_ref().is_none_or(|b| matches!(&u.loc, Location::Box(x) if x == b))
            && self.attrs.iter().all(|(k, v)| u.attrs.get(k) == Some(v))
            && self.marked.as_ref().is_none_or(|ms| ms.iter().any(|m| u.markers.contains_key(m)))
            && !self.unmarked.iter().any(|m| u.markers.contains_key(m))
            && self.at_least.iter().all(|(k, n)| u.values().get(k).and_then(|v| v.as_f64()).is_some_and(|v| v >= *n))
            && self.within.as_ref().is_none_or(|s| u.hex().is_some_and(|h| s.contains(&h)))
            && self.outside.as_ref().is_none_or(|s| !u.hex().is_some_and(|h| s.contains(&h)))
    }
}
