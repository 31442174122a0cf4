//! `vars.*`: the ruleset's own persistent data (JSON values in the game state); and what every
//! API function that keeps something of the rules in the state uses: a value
//! ([`super::from_lua`]), a name ([`name`]), a value read back ([`read`]).

use super::seal::rule_place;
use super::{charge, from_lua, to_lua, world};
use mlua::{Lua, Value};

/// Most bytes of a name the rules hand over to be kept in the state: a key of `vars`, of
/// `sides.set` or of a unit attribute, a track, a marker, a chit, the purpose of a roll, a
/// phase, a game's result.
pub const MAX_NAME: usize = 4 << 10;

/// What keeping a name is charged to the budget, besides one per byte.
const NAME_CHARGE: u64 = 64;

/// What reading a stored value back into Lua is charged, per value or table entry.
pub(super) const READ_CHARGE_PER_NODE: u64 = 16;

/// A name to keep in the state, within [`MAX_NAME`] and charged to the budget; `what` names the
/// API function in the error, which names the rule's line.
pub(super) fn name(lua: &Lua, what: &str, s: String) -> mlua::Result<String> {
    if s.len() > MAX_NAME {
        return Err(mlua::Error::runtime(format!(
            "{}{what}: a name of {} bytes is over the limit of {} KiB",
            rule_place(lua),
            s.len(),
            MAX_NAME >> 10
        )));
    }
    charge(lua, NAME_CHARGE + s.len() as u64, "names kept in the state")?;
    Ok(s)
}

/// A stored value handed back to the rules, charged to the budget by its size.
pub(super) fn read(lua: &Lua, v: Option<&serde_json::Value>) -> mlua::Result<Value> {
    fn nodes(v: &serde_json::Value) -> u64 {
        match v {
            serde_json::Value::Array(a) => 1 + a.iter().map(nodes).sum::<u64>(),
            serde_json::Value::Object(m) => 1 + m.values().map(nodes).sum::<u64>(),
            _ => 1,
        }
    }
    match v {
        Some(v) => {
            charge(lua, nodes(v) * READ_CHARGE_PER_NODE, "stored values read back")?;
            to_lua(lua, v)
        }
        None => Ok(Value::Nil),
    }
}

pub fn register(lua: &Lua) -> mlua::Result<()> {
    let vars = lua.create_table()?;
    vars.set(
        "get",
        lua.create_function(|lua, key: String| {
            let w = world(lua);
            let w = w.borrow();
            read(lua, w.state.vars.get(&key).map(|v| &**v))
        })?,
    )?;
    vars.set(
        "set",
        lua.create_function(|lua, (key, v): (String, Value)| {
            let what = format!("vars.set('{}')", key.chars().take(64).collect::<String>());
            let key = name(lua, &what, key)?;
            let j = from_lua(lua, &v, &what)?;
            let w = world(lua);
            let mut w = w.borrow_mut();
            if j.is_null() {
                w.state.vars.remove(&key);
            } else {
                w.state.vars.insert(key, std::sync::Arc::new(j));
            }
            Ok(())
        })?,
    )?;
    lua.globals().set("vars", vars)
}
