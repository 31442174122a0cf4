//! `umpire.*`: verbs and overlays (registered only while the rule files load), refusals, the
//! clock, options; and the host's internal table `__umpire` the prelude builds on.

use super::{from_lua, refuse, to_lua, while_loading, world};
use crate::contract::{VerbSpec, parse_usage};
use mlua::{FromLua, Function, Lua, Table, Value};

pub fn register(lua: &Lua) -> mlua::Result<()> {
    let internal = lua.create_table()?;
    internal.set("verbs", lua.create_table()?)?;
    internal.set("overlays", lua.create_table()?)?;
    internal.set("describe", lua.create_table()?)?;
    internal.set("is_loading", lua.create_function(|lua, ()| Ok(world(lua).borrow().loading))?)?;
    internal.set("sorted_keys", lua.create_function(sorted_keys)?)?;
    internal.set("first_key", lua.create_function(first_key)?)?;
    internal.set("pairs_step", super::fast::pairs_stepper(lua)?)?;
    internal.set("hexset_next", lua.create_function(super::hexset::hexset_next)?)?;
    internal.set("decided", lua.create_function(super::dice::decided)?)?;
    internal.set("outcome_table", lua.create_function(super::dice::outcome_table)?)?;
    internal.set("outcome_seen", lua.create_function(super::dice::outcome_seen)?)?;
    lua.globals().set("__umpire", internal.clone())?;

    let um = lua.create_table()?;
    um.set(
        "refuse",
        lua.create_function(|_, (rule, msg): (String, String)| -> mlua::Result<()> { Err(refuse(rule, msg)) })?,
    )?;
    register_registrations(lua, &um, &internal)?;
    register_clock(lua, &um)?;
    um.set("option", lua.create_function(|lua, name: String| Ok(world(lua).borrow().state.options.contains(&name)))?)?;
    um.set("is_probe", lua.create_function(|lua, ()| Ok(world(lua).borrow().probe))?)?;
    um.set("scenario", lua.create_function(scenario)?)?;
    lua.globals().set("umpire", um)
}

/// What `umpire.describe` registers: lines for `show <unit>` and `show <hex>`, how one marker
/// or attribute is printed, how `status` prints a track, a unit's strength in words, and why a
/// unit has no move listed (`moves`).
const DESCRIBE_KEYS: [&str; 7] = ["unit", "hex", "marker", "attr", "track", "strength", "cannot_move"];

/// `umpire.command`, `overlay`, `describe`, `fog_of_war`: only while the rule files load.
fn register_registrations(lua: &Lua, um: &Table, internal: &Table) -> mlua::Result<()> {
    let verbs: Table = internal.get("verbs")?;
    um.set("command", lua.create_function(move |lua, spec: Table| command(lua, &verbs, spec))?)?;
    let overlays: Table = internal.get("overlays")?;
    um.set("overlay", lua.create_function(move |lua, spec: Table| overlay(lua, &overlays, spec))?)?;
    // umpire.describe{ unit = function(u) return {lines} end, hex = function(hex) return {lines} end,
    //   marker = function(kind, name, value, owner) return text | false | nil end, attr = ... }
    // (`marker`, `attr`, `track`, `strength` and `cannot_move` are also kept as
    // `__umpire.describe_marker`, `describe_attr`, `describe_track`, `describe_strength`,
    // `describe_cannot_move`, which `show` calls once per marker or attribute, `status` per
    // track, `show`, `units` and the SVG map per unit, and `moves` for a unit with no move)
    let describe: Table = internal.get("describe")?;
    let internal = internal.clone();
    um.set(
        "describe",
        lua.create_function(move |lua, spec: Table| {
            while_loading(lua, "umpire.describe")?;
            for key in DESCRIBE_KEYS {
                match spec.get::<Value>(key)? {
                    Value::Function(f) => {
                        if key != "unit" && key != "hex" {
                            internal.set(format!("describe_{key}"), f.clone())?;
                        }
                        describe.set(key, f)?
                    }
                    Value::Nil => {}
                    v => {
                        return Err(mlua::Error::runtime(format!(
                            "umpire.describe: `{key}` must be a function, not {}",
                            v.type_name()
                        )));
                    }
                }
            }
            Ok(())
        })?,
    )?;
    um.set(
        "fog_of_war",
        lua.create_function(|lua, on: bool| {
            while_loading(lua, "umpire.fog_of_war")?;
            world(lua).borrow_mut().fog = on;
            Ok(())
        })?,
    )
}

/// `umpire.command{usage=, run=, ...}`: registers a verb.
fn command(lua: &Lua, verbs: &Table, spec: Table) -> mlua::Result<()> {
    while_loading(lua, "umpire.command")?;
    let usage: String =
        spec.get("usage").map_err(|_| mlua::Error::runtime("umpire.command: `usage` (string) is required"))?;
    let (name, args) = parse_usage(&usage).map_err(mlua::Error::runtime)?;
    if let Some(n) = spec.get::<Option<String>>("name")?
        && n != name
    {
        return Err(mlua::Error::runtime(format!("umpire.command: name '{n}' differs from usage '{usage}'")));
    }
    let run: Function = spec
        .get("run")
        .map_err(|_| mlua::Error::runtime(format!("umpire.command '{name}': `run` (function) is required")))?;
    if lua.app_data_ref::<super::Reserved>().is_some_and(|r| (r.0)(&name)) {
        return Err(mlua::Error::runtime(format!("umpire.command: '{name}' is a built-in command")));
    }
    let phases: Vec<String> = match spec.get::<Value>("phases")? {
        Value::Nil => vec![],
        Value::String(s) => vec![s.to_str()?.to_string()],
        v => Vec::<String>::from_lua(v, lua)?,
    };
    let vs = VerbSpec {
        name: name.clone(),
        usage,
        help: spec.get::<Option<String>>("help")?.unwrap_or_default(),
        rule: spec.get::<Option<String>>("rule")?.unwrap_or_default(),
        phases,
        args,
        odds: spec.get::<Option<bool>>("odds")?.unwrap_or(false),
        example: spec.get::<Option<String>>("example")?.unwrap_or_default(),
    };
    verbs.set(name.as_str(), spec.clone())?;
    spec.set("run", run)?;
    world(lua).borrow_mut().verbs.insert(name, vs);
    Ok(())
}

/// `umpire.overlay{ usage = "zoc <side>", help =, run = function(...) return {[hex] = label} end }`.
fn overlay(lua: &Lua, overlays: &Table, spec: Table) -> mlua::Result<()> {
    while_loading(lua, "umpire.overlay")?;
    let usage: String =
        spec.get("usage").map_err(|_| mlua::Error::runtime("umpire.overlay: `usage` (string) is required"))?;
    let (name, args) = parse_usage(&usage).map_err(mlua::Error::runtime)?;
    let run: Function = spec
        .get("run")
        .map_err(|_| mlua::Error::runtime(format!("umpire.overlay '{name}': `run` (function) is required")))?;
    overlays.set(name.as_str(), run)?;
    let vs = VerbSpec {
        name: name.clone(),
        usage: format!("map {usage}"),
        help: spec.get::<Option<String>>("help")?.unwrap_or_default(),
        rule: spec.get::<Option<String>>("rule")?.unwrap_or_default(),
        phases: vec![],
        args,
        odds: false,
        example: spec.get::<Option<String>>("example")?.map(|e| format!("map {e}")).unwrap_or_default(),
    };
    world(lua).borrow_mut().overlays.insert(name, vs);
    Ok(())
}

/// `umpire.clock`, `set_clock`, `set_side`, `game_over`.
fn register_clock(lua: &Lua, um: &Table) -> mlua::Result<()> {
    // `position` (the walker's record, a nested table) is made only when it is read: rules
    // read the turn or the step thousands of times a game, the walker alone its position
    let lazy = lua.create_table()?;
    // (shared by every clock table: protected, so no rule can change it for the others)
    lazy.set("__metatable", "umpire.clock")?;
    lazy.set(
        "__index",
        lua.create_function(|lua, (_, k): (Value, Value)| match k {
            Value::String(s) if &*s.as_bytes() == b"position" => {
                let w = world(lua);
                let w = w.borrow();
                to_lua(lua, &w.state.clock.position)
            }
            _ => Ok(Value::Nil),
        })?,
    )?;
    um.set(
        "clock",
        lua.create_function(move |lua, ()| {
            let w = world(lua);
            let w = w.borrow();
            let c = &w.state.clock;
            let t = lua.create_table_with_capacity(0, 5)?;
            t.set("turn", c.turn)?;
            t.set("phase", c.phase.as_str())?;
            t.set("step", c.step.as_str())?;
            t.set("side", c.side.clone())?;
            t.set("over", c.over.clone())?;
            t.set_metatable(Some(lazy.clone()))?;
            Ok(t)
        })?,
    )?;
    um.set("set_clock", lua.create_function(set_clock)?)?;
    um.set(
        "set_side",
        lua.create_function(|lua, side: Option<String>| {
            let w = world(lua);
            let mut w = w.borrow_mut();
            if let Some(s) = &side
                && !w.state.sides.contains(s)
            {
                return Err(mlua::Error::runtime(format!("umpire.set_side: unknown side '{s}'")));
            }
            w.state.clock.side = side;
            Ok(())
        })?,
    )?;
    um.set(
        "game_over",
        lua.create_function(|lua, result: String| {
            let result = super::vars::name(lua, "umpire.game_over", result)?;
            world(lua).borrow_mut().state.clock.over = Some(result.clone());
            super::log::entry(lua, "umpire.game_over", None, format!("Game over: {result}").as_bytes())
        })?,
    )
}

/// `umpire.set_clock{turn=, phase=, step=, side=, position=}`: nil fields stay unchanged.
fn set_clock(lua: &Lua, t: Table) -> mlua::Result<()> {
    let position = match t.get::<Value>("position")? {
        Value::Nil => None,
        v => Some(from_lua(lua, &v, "umpire.set_clock{position}")?),
    };
    let phase = t.get::<Option<String>>("phase")?.map(|p| super::vars::name(lua, "umpire.set_clock{phase}", p));
    let step = t.get::<Option<String>>("step")?.map(|p| super::vars::name(lua, "umpire.set_clock{step}", p));
    let (phase, step) = (phase.transpose()?, step.transpose()?);
    let w = world(lua);
    let mut w = w.borrow_mut();
    // `side = false` clears the active side (nil would mean "unchanged")
    let side = match t.get::<Value>("side")? {
        Value::Nil => None,
        Value::Boolean(false) => Some(None),
        Value::String(s) => {
            let s = s.to_str()?.to_string();
            if !w.state.sides.contains(&s) {
                return Err(mlua::Error::runtime(format!("umpire.set_clock: unknown side '{s}'")));
            }
            Some(Some(s))
        }
        other => {
            return Err(mlua::Error::runtime(format!(
                "umpire.set_clock: side must be a side's name or false, not {}",
                other.type_name()
            )));
        }
    };
    let turn = t.get::<Option<i64>>("turn")?;
    let c = &mut w.state.clock;
    if let Some(v) = turn {
        c.turn = v;
    }
    if let Some(v) = phase {
        c.phase = v;
    }
    if let Some(v) = step {
        c.step = v;
    }
    if let Some(s) = side {
        c.side = s;
    }
    if let Some(p) = position {
        c.position = p;
    }
    Ok(())
}

fn scenario(lua: &Lua, (): ()) -> mlua::Result<Table> {
    let w = world(lua);
    let w = w.borrow();
    let t = lua.create_table()?;
    t.set("id", w.scenario.id.as_str())?;
    t.set("name", w.scenario.name.as_str())?;
    t.set("options", w.state.options.iter().cloned().collect::<Vec<_>>())?;
    Ok(t)
}

use super::fast::{Rank, cmp_rank};

/// The ranked keys of a table and the buffer of their bytes.
type Ranked = (Vec<(Rank, Value)>, Vec<u8>);

/// Ranks the keys of a table; `Err(type)` names the first key that has no fixed order.
fn rank_keys(t: Table) -> mlua::Result<Result<Ranked, String>> {
    let mut keys = Vec::new();
    let mut buf: Vec<u8> = Vec::new();
    for p in super::seal::seen_through(t).pairs::<Value, Value>() {
        let (k, _) = p?;
        let start = buf.len();
        let (class, num) = match &k {
            Value::Integer(i) => (1, *i as f64),
            Value::Number(n) => (1, *n),
            Value::String(s) => {
                buf.extend_from_slice(&s.as_bytes());
                (2, 0.0)
            }
            Value::Boolean(b) => (3, if *b { 1.0 } else { 0.0 }),
            Value::UserData(_) => {
                buf.extend_from_slice(k.to_string()?.as_bytes());
                (4, 0.0)
            }
            other => return Ok(Err(other.type_name().to_string())),
        };
        keys.push((Rank::new(class, num, &buf, start..buf.len()), k));
    }
    Ok(Ok((keys, buf)))
}

/// The keys of a table in the fixed order of the prelude's `pairs`: numbers, then strings
/// (byte order), then booleans (false first), then handles by their name. Returns nil and the
/// type of the first key that has no fixed order (the prelude raises the error at the caller).
fn sorted_keys(lua: &Lua, t: Table) -> mlua::Result<(Value, Option<String>)> {
    // numbers and strings, the common case, in one pass of Lua's C API each way
    if let Some(keys) = super::fast::sorted_keys(lua, &super::seal::seen_through(t.clone()))? {
        return Ok((Value::Table(keys), None));
    }
    let (mut keys, buf) = match rank_keys(t)? {
        Ok(k) => k,
        Err(bad) => return Ok((Value::Nil, Some(bad))),
    };
    keys.sort_by(|a, b| cmp_rank(&a.0, &b.0, &buf));
    let out = lua.create_table_with_capacity(keys.len(), 0)?;
    for (i, k) in keys.into_iter().enumerate() {
        out.raw_set(i + 1, k.1)?;
    }
    Ok((Value::Table(out), None))
}

/// The first key of a table in that order (nil for an empty table), found in one pass: what
/// the prelude's `next(t)` returns without sorting every key (`if next(t) then` is how rule
/// code asks whether a set is empty). Returns nil and the type of a key with no fixed order.
fn first_key(_: &Lua, t: Table) -> mlua::Result<(Value, Option<String>)> {
    let (keys, buf) = match rank_keys(t)? {
        Ok(k) => k,
        Err(bad) => return Ok((Value::Nil, Some(bad))),
    };
    Ok((keys.into_iter().min_by(|a, b| cmp_rank(&a.0, &b.0, &buf)).map_or(Value::Nil, |k| k.1), None))
}
