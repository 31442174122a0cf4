//! `cups.*`: cups of chits; `cups.draw` draws through the game's dice.

use super::umpire::refuse;
use super::world;
use mlua::{Lua, Value};

pub fn register(lua: &Lua) -> mlua::Result<()> {
    let cups = lua.create_table()?;
    cups.set(
        "contents",
        lua.create_function(|lua, name: String| {
            let w = world(lua);
            let w = w.borrow();
            Ok(w.state.cups.get(&name).cloned().unwrap_or_default())
        })?,
    )?;
    cups.set(
        "count",
        lua.create_function(|lua, name: String| {
            Ok(world(lua).borrow().state.cups.get(&name).map(|c| c.len()).unwrap_or(0))
        })?,
    )?;
    cups.set(
        "add",
        lua.create_function(|lua, (name, chit): (String, String)| {
            world(lua).borrow_mut().state.cups.entry(name).or_default().push(chit);
            Ok(())
        })?,
    )?;
    cups.set(
        "remove",
        lua.create_function(|lua, (name, chit): (String, String)| {
            let w = world(lua);
            let mut w = w.borrow_mut();
            let cup = w.state.cups.entry(name).or_default();
            match cup.iter().position(|c| *c == chit) {
                Some(i) => {
                    cup.remove(i);
                    Ok(true)
                }
                None => Ok(false),
            }
        })?,
    )?;
    cups.set(
        "clear",
        lua.create_function(|lua, name: String| {
            world(lua).borrow_mut().state.cups.insert(name, vec![]);
            Ok(())
        })?,
    )?;
    cups.set(
        "draw",
        lua.create_function(|lua, (name, purpose): (String, Option<String>)| {
            let w = world(lua);
            let mut w = w.borrow_mut();
            if w.read_only {
                return Err(mlua::Error::runtime(
                    "no chit may be drawn in a command that only looks (=, expect, show, map)",
                ));
            }
            let items = w.state.cups.get(&name).cloned().unwrap_or_default();
            if items.is_empty() {
                return Ok((Value::Nil, Value::String(lua.create_string(format!("cup {name} is empty"))?)));
            }
            let purpose = purpose.unwrap_or_else(|| format!("draw from {name}"));
            let idx = w.state.dice.draw(&name, &items, &purpose).map_err(|e| refuse("dice".into(), e.to_string()))?;
            if w.probe_first_roll_log.is_none() {
                w.probe_first_roll_log = Some(w.state.log.len());
            }
            let chit = items[idx].clone();
            w.state.cups.get_mut(&name).unwrap().remove(idx);
            let forced = w.state.dice.rolls.last().map(|r| r.forced).unwrap_or(false);
            w.out.push(format!("draw from {name}: {chit}{}", if forced { " (forced)" } else { "" }));
            Ok((Value::String(lua.create_string(chit)?), Value::Nil))
        })?,
    )?;
    lua.globals().set("cups", cups)
}
