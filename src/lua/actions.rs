//! `umpire.actions(fn)`: the ruleset's list of what may be done now.
//!
//! The function, registered once while the rule files load, is called look-only with the side to
//! act and a filter (`{ unit = id }` or `{ hex = id }`, or nothing: a hint, what it returns is
//! filtered here too) and returns the commands that are legal now: each a command line, or a
//! table `{ cmd = "...", group = "move", unit =, units = {...}, hex =, note =, side = }` that
//! says what it is for the `actions` and `moves` views (and, with `side`, who does it). The contract
//! (docs/lua-api.md §2.6): every command it lists, executed now, is accepted. The kernel adds
//! the answers of a pending question itself and never calls the function then.

use super::{Host, convert_error, seal, while_loading};
use crate::contract::{Action, ActionFilter as Filter, Evaluation, Figure};
use crate::error::Error;
use mlua::{Function, Lua, Table, Value};

/// Many moves of one unit as one entry of a list of actions (`map.moves`).
pub struct Moves(pub Vec<Action>);

impl mlua::UserData for Moves {
    fn add_methods<M: mlua::UserDataMethods<Self>>(m: &mut M) {
        m.add_meta_method(mlua::MetaMethod::Len, |_, this, ()| Ok(this.0.len()));
        m.add_meta_method(mlua::MetaMethod::ToString, |_, this, ()| Ok(format!("{} moves", this.0.len())));
    }
}

/// The moves of the `map.moves` entries of a list as it is read: taken out of each userdata at
/// its last place in the list (copied where it stands more than once). A `Moves` holds thousands
/// of actions that Lua's collector does not count: left in it, they would stay until a full
/// collection happened to free the userdata, and a game's lists would pile up in memory.
struct TakeMoves(crate::hex::FastMap<usize, usize>);

impl TakeMoves {
    fn new<'a>(entries: impl Iterator<Item = &'a mlua::AnyUserData>) -> TakeMoves {
        let mut left = crate::hex::FastMap::default();
        for v in entries {
            *left.entry(v.to_pointer() as usize).or_insert(0) += 1;
        }
        TakeMoves(left)
    }

    fn take(&mut self, v: &mlua::AnyUserData, what: &str) -> Result<Vec<Action>, Error> {
        let mut m = v.borrow_mut::<Moves>().map_err(|_| {
            Error::Lua(format!("{what}: a command line, a table with `cmd` or what map.moves returns, not a userdata"))
        })?;
        let left = self.0.entry(v.to_pointer() as usize).or_insert(1);
        *left = left.saturating_sub(1);
        Ok(if *left == 0 { std::mem::take(&mut m.0) } else { m.0.clone() })
    }
}

pub fn register(lua: &Lua) -> mlua::Result<()> {
    one_function(lua, "actions", "a ruleset registers one list of actions")?;
    one_function(lua, "evaluate", "a ruleset registers one evaluation")?;
    one_function(lua, "focus", "a ruleset registers one focus")
}

/// `umpire.<name>(fn)`: a function the ruleset registers once while its files load, kept in
/// `__umpire.<name>`; `twice`, the error of a second.
fn one_function(lua: &Lua, name: &'static str, twice: &'static str) -> mlua::Result<()> {
    let slot: Table = lua.globals().get("__umpire")?;
    let um: Table = lua.globals().get("umpire")?;
    let what = format!("umpire.{name}");
    um.set(
        name,
        lua.create_function(move |lua, f: Value| {
            while_loading(lua, &what)?;
            let Value::Function(f) = f else {
                return Err(mlua::Error::runtime(format!("{what}: expects a function, not {}", f.type_name())));
            };
            if slot.get::<Option<Function>>(name)?.is_some() {
                return Err(mlua::Error::runtime(format!("{what}: {twice}")));
            }
            slot.set(name, f)
        })?,
    )
}

/// An entry of the list given as a table (`{ cmd = "...", group =, unit =, units =, hex =,
/// note =, side = }`).
fn action_of(t: &Table, what: &str) -> Result<Action, Error> {
    let cmd =
        text(t, "cmd", what)?.ok_or_else(|| Error::Lua(format!("{what}: `cmd` (the command line) is required")))?;
    let mut units = Vec::new();
    match t.get::<Value>("units").map_err(convert_error)? {
        Value::Nil => {}
        Value::Table(list) => {
            for id in seal::seen_through(list).sequence_values::<String>() {
                units.push(id.map_err(|_| Error::Lua(format!("{what}: `units` must be a list of unit ids")))?);
            }
        }
        other => {
            return Err(Error::Lua(format!("{what}: `units` must be a list of unit ids, not {}", other.type_name())));
        }
    }
    Ok(Action {
        group: text(t, "group", what)?.unwrap_or_else(|| verb_of(&cmd)),
        unit: text(t, "unit", what)?.or_else(|| units.first().cloned()),
        units,
        hex: text(t, "hex", what)?,
        note: text(t, "note", what)?,
        side: text(t, "side", what)?,
        weight: weight(t, what)?,
        sweep: flag(t, "sweep", what)?,
        cmd,
    })
}

/// An entry's true-or-false field (`sweep`), if given.
fn flag(t: &Table, key: &str, what: &str) -> Result<Option<bool>, Error> {
    match t.get::<Value>(key).map_err(convert_error)? {
        Value::Nil => Ok(None),
        Value::Boolean(b) => Ok(Some(b)),
        other => Err(Error::Lua(format!("{what}: `{key}` must be true or false, not {}", other.type_name()))),
    }
}

/// An entry's `weight` for bots: a number of 0 or more.
fn weight(t: &Table, what: &str) -> Result<Option<f64>, Error> {
    match t.get::<Value>("weight").map_err(convert_error)? {
        Value::Nil => Ok(None),
        Value::Integer(i) if i >= 0 => Ok(Some(i as f64)),
        Value::Number(n) if Action::valid_weight(n) => Ok(Some(n)),
        other => Err(Error::Lua(format!(
            "{what}: `weight` must be a number of 0 or more, not {}",
            match other {
                Value::Integer(i) => i.to_string(),
                Value::Number(n) => n.to_string(),
                _ => other.type_name().to_string(),
            }
        ))),
    }
}

fn text(t: &Table, key: &str, what: &str) -> Result<Option<String>, Error> {
    match t.get::<Value>(key).map_err(convert_error)? {
        Value::Nil => Ok(None),
        Value::String(s) => Ok(Some(s.to_str().map_err(convert_error)?.to_string())),
        other => Err(Error::Lua(format!("{what}: `{key}` must be a string, not {}", other.type_name()))),
    }
}

impl Host {
    /// Whether the ruleset lists its actions (`umpire.actions`).
    pub fn has_actions(&self) -> Result<bool, Error> {
        let internal: Table = self.lua.globals().get("__umpire").map_err(convert_error)?;
        Ok(internal.get::<Option<Function>>("actions").map_err(convert_error)?.is_some())
    }

    /// The ruleset's evaluation of the state for `side` (run it look-only: `Game::read_only`);
    /// `None` if the ruleset registers none. `want`: whether the caller reads the figures
    /// (the function's second argument, `figures`: a bot asks only the score, and a ruleset may then skip
    /// them; any it returns are not read).
    pub fn evaluate(&self, side: &str, want: bool) -> Result<Option<Evaluation>, Error> {
        let internal: Table = self.lua.globals().get("__umpire").map_err(convert_error)?;
        let Some(f) = internal.get::<Option<Function>>("evaluate").map_err(convert_error)? else {
            return Ok(None);
        };
        let (score, figures): (Value, Value) = self.call_rule(&f, (side, want))?;
        let figures = if want { figures } else { Value::Nil };
        let score = match score {
            Value::Integer(i) => i as f64,
            Value::Number(n) if n.is_finite() => n,
            other => {
                return Err(Error::Lua(format!(
                    "umpire.evaluate: the function must return a finite number (the score for {side}), not {}",
                    if matches!(other, Value::Number(_)) { "an infinite or NaN number" } else { other.type_name() }
                )));
            }
        };
        let mut out = Evaluation { score, ..Evaluation::default() };
        match figures {
            Value::Nil => {}
            Value::Table(t) => {
                let t = seal::seen_through(t);
                for pair in t.pairs::<Value, Value>() {
                    let (k, v) = pair.map_err(convert_error)?;
                    let Value::String(k) = k else {
                        return Err(Error::Lua(format!(
                            "umpire.evaluate: the figures are named by strings, not {}",
                            k.type_name()
                        )));
                    };
                    let k = k.to_str().map_err(convert_error)?.to_string();
                    let f = match v {
                        Value::Integer(i) => Figure::Number(i as f64),
                        Value::Number(n) if n.is_finite() => Figure::Number(n),
                        Value::String(s) => Figure::Text(s.to_str().map_err(convert_error)?.to_string()),
                        Value::Boolean(b) => Figure::Text(b.to_string()),
                        other => {
                            return Err(Error::Lua(format!(
                                "umpire.evaluate: figure `{k}` must be a finite number, a string or a boolean, not {}",
                                other.type_name()
                            )));
                        }
                    };
                    out.figures.insert(k, f);
                }
            }
            other => {
                return Err(Error::Lua(format!(
                    "umpire.evaluate: the second value must be a table of figures, not {}",
                    other.type_name()
                )));
            }
        }
        Ok(Some(out))
    }

    /// Where the ruleset says `side`'s commands matter most now (`umpire.focus`, run it
    /// look-only: `Game::read_only`): hex ids as the map prints them (a set). `None` if
    /// the ruleset registers no focus.
    pub fn focus(&self, side: &str) -> Result<Option<Vec<String>>, Error> {
        let internal: Table = self.lua.globals().get("__umpire").map_err(convert_error)?;
        let Some(f) = internal.get::<Option<Function>>("focus").map_err(convert_error)? else {
            return Ok(None);
        };
        let hexes: Value = self.call_rule(&f, side)?;
        if hexes.is_nil() {
            return Ok(Some(Vec::new()));
        }
        let w = super::world(&self.lua);
        let w = w.borrow();
        let set = super::hexset::hex_set(&self.lua, &w.map, hexes, "umpire.focus: the function's hexes")
            .map_err(convert_error)?;
        Ok(Some(set.into_iter().map(|h| super::hexset::printed(&w.map, h).into_owned()).collect()))
    }

    /// The ruleset's actions for `side` now (run it look-only: `Game::read_only`); `None` if the
    /// ruleset lists none.
    pub fn actions(&self, side: &str, filter: &Filter) -> Result<Option<Vec<Action>>, Error> {
        let internal: Table = self.lua.globals().get("__umpire").map_err(convert_error)?;
        let Some(f) = internal.get::<Option<Function>>("actions").map_err(convert_error)? else {
            return Ok(None);
        };
        let opts = self.lua.create_table().map_err(convert_error)?;
        if let Some(u) = &filter.unit {
            opts.set("unit", u.as_str()).map_err(convert_error)?;
        }
        if let Some(h) = &filter.hex {
            opts.set("hex", h.as_str()).map_err(convert_error)?;
        }
        let list: Value = self.call_rule(&f, (side, opts))?;
        let list = match list {
            Value::Nil => return Ok(Some(Vec::new())),
            Value::Table(t) => seal::seen_through(t),
            other => {
                return Err(Error::Lua(format!(
                    "umpire.actions: the function must return a list of actions, not {}",
                    other.type_name()
                )));
            }
        };
        let keep = |a: &Action| {
            // (the filter is a hint to the rules: what they list is filtered here too)
            let unit_ok = filter.unit.as_ref().is_none_or(|u| a.unit.as_ref() == Some(u) || a.units.contains(u));
            let hex_ok = filter.hex.as_ref().is_none_or(|h| a.hex.as_ref() == Some(h));
            unit_ok && hex_ok
        };
        let all = match self.listed_fast(&list)? {
            Some(all) => all,
            None => self.listed_one_by_one(&list)?,
        };
        Ok(Some(all.into_iter().filter(|a| keep(a)).collect()))
    }

    /// The common case of a list read in one call of the C API (thousands of moves): `None`
    /// when the list holds anything unusual, which [`Host::listed_one_by_one`] reads and names.
    fn listed_fast(&self, list: &Table) -> Result<Option<Vec<Action>>, Error> {
        let Some(raw) = super::fast::action_entries(&self.lua, list).map_err(convert_error)? else { return Ok(None) };
        if !raw.iter().all(|r| r.userdata || !r.cmd.trim().is_empty()) {
            return Ok(None);
        }
        let mut uds: Vec<Option<mlua::AnyUserData>> = Vec::with_capacity(raw.len());
        for (i, r) in raw.iter().enumerate() {
            uds.push(if r.userdata { Some(list.raw_get(i + 1).map_err(convert_error)?) } else { None });
        }
        let mut taker = TakeMoves::new(uds.iter().flatten());
        let mut all: Vec<Action> = Vec::with_capacity(raw.len());
        for (i, r) in raw.into_iter().enumerate() {
            if let Some(v) = &uds[i] {
                all.extend(taker.take(v, &format!("umpire.actions: entry {}", i + 1))?);
                continue;
            }
            all.push(Action {
                group: r.group.unwrap_or_else(|| verb_of(&r.cmd)),
                unit: r.unit.or_else(|| r.units.first().cloned()),
                cmd: r.cmd,
                units: r.units,
                hex: r.hex,
                note: r.note,
                side: r.side,
                weight: r.weight,
                sweep: r.sweep,
            });
        }
        self.known_sides(&all)?;
        Ok(Some(all))
    }

    /// A list read entry by entry, each checked and named in its error.
    fn listed_one_by_one(&self, list: &Table) -> Result<Vec<Action>, Error> {
        let entries: Vec<Value> =
            list.sequence_values::<Value>().collect::<mlua::Result<_>>().map_err(convert_error)?;
        let mut taker = TakeMoves::new(entries.iter().filter_map(|v| v.as_userdata()));
        let mut out = Vec::new();
        for (i, v) in entries.into_iter().enumerate() {
            let what = format!("umpire.actions: entry {}", i + 1);
            let a = match v {
                Value::String(s) => {
                    let cmd = s.to_str().map_err(convert_error)?.to_string();
                    Action { group: verb_of(&cmd), cmd, ..Action::default() }
                }
                Value::UserData(v) => {
                    out.extend(taker.take(&v, &what)?);
                    continue;
                }
                Value::Table(t) => action_of(&seal::seen_through(t), &what)?,
                other => {
                    return Err(Error::Lua(format!(
                        "{what}: a command line or a table with `cmd`, not {}",
                        other.type_name()
                    )));
                }
            };
            if a.cmd.trim().is_empty() {
                return Err(Error::Lua(format!("{what}: an empty command line")));
            }
            self.known_sides(std::slice::from_ref(&a)).map_err(|e| Error::Lua(format!("{what}: {e}")))?;
            out.push(a);
        }
        Ok(out)
    }

    /// Every `side` an action names is a side of the game.
    fn known_sides(&self, list: &[Action]) -> Result<(), Error> {
        let w = self.shared.borrow();
        let sides = &w.state.sides;
        match list.iter().filter_map(|a| a.side.as_ref()).find(|s| !sides.contains(s)) {
            None => Ok(()),
            Some(s) => Err(Error::Lua(format!(
                "umpire.actions: `side = \"{s}\"` is not a side of the game ({})",
                sides.join(", ")
            ))),
        }
    }
}

/// The first word of a command line.
fn verb_of(cmd: &str) -> String {
    cmd.split_whitespace().next().unwrap_or("").to_string()
}
