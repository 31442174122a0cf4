//! `vars.*`: the ruleset's own persistent data (JSON values in the game state).

use super::{from_lua, to_lua, world};
use mlua::{Lua, Value};

pub fn register(lua: &Lua) -> mlua::Result<()> {
    let vars = lua.create_table()?;
    vars.set(
        "get",
        lua.create_function(|lua, key: String| {
            let w = world(lua);
            let w = w.borrow();
            match w.state.vars.get(&key) {
                Some(v) => to_lua(lua, v),
                None => Ok(Value::Nil),
            }
        })?,
    )?;
    vars.set(
        "set",
        lua.create_function(|lua, (key, v): (String, Value)| {
            let j = from_lua(&v).map_err(|e| {
                let msg = match &e {
                    mlua::Error::RuntimeError(m) => m.clone(),
                    other => other.to_string(),
                };
                mlua::Error::runtime(format!("vars.set('{key}'): {msg}"))
            })?;
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
