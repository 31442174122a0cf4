//! `sides.*`: the sides, the active side and per-side values.

use super::vars::{name, read};
use super::{from_lua, world};
use mlua::{Lua, Value};

pub fn register(lua: &Lua) -> mlua::Result<()> {
    let sides = lua.create_table()?;
    sides.set("list", lua.create_function(|lua, ()| Ok(world(lua).borrow().state.sides.clone()))?)?;
    sides.set(
        "other",
        lua.create_function(|lua, side: String| {
            let w = world(lua);
            let w = w.borrow();
            let others: Vec<&String> = w.state.sides.iter().filter(|s| **s != side).collect();
            match others.as_slice() {
                [one] if w.state.sides.contains(&side) => Ok((*one).clone()),
                _ => Err(mlua::Error::runtime(format!("sides.other('{side}'): not one of two sides"))),
            }
        })?,
    )?;
    sides.set("active", lua.create_function(|lua, ()| Ok(world(lua).borrow().state.clock.side.clone()))?)?;
    sides.set(
        "get",
        lua.create_function(|lua, (side, key): (String, String)| {
            let w = world(lua);
            let w = w.borrow();
            read(lua, w.state.side_values.get(&side).and_then(|m| m.get(&key)))
        })?,
    )?;
    sides.set(
        "set",
        lua.create_function(|lua, (side, key, v): (String, String, Value)| {
            if !world(lua).borrow().state.sides.contains(&side) {
                return Err(mlua::Error::runtime(format!("sides.set: unknown side '{side}'")));
            }
            let what = format!("sides.set('{side}', '{}')", key.chars().take(64).collect::<String>());
            let key = name(lua, &what, key)?;
            let j = from_lua(lua, &v, &what)?;
            let w = world(lua);
            let mut w = w.borrow_mut();
            let m = std::sync::Arc::make_mut(w.state.side_values.entry(side).or_default());
            if j.is_null() {
                m.remove(&key);
            } else {
                m.insert(key, j);
            }
            Ok(())
        })?,
    )?;
    lua.globals().set("sides", sides)
}
