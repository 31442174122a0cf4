//! `cups.*`: cups of chits; `cups.draw` draws through the game's dice. The cups are those the
//! scenario declares (`[cups]`): any other name is refused, so that a misspelt cup is an error
//! and not a new, empty one.

use super::refuse;
use super::seal::rule_place;
use super::vars::name;
use super::{World, world};
use mlua::{Lua, Value};

/// The cup named `name`, or an error naming the rule's line, `what` and the cups there are.
fn cup<'a>(lua: &Lua, w: &'a mut World, name: &str, what: &str) -> mlua::Result<&'a mut Vec<String>> {
    if !w.state.cups.contains_key(name) {
        let known = if w.state.cups.is_empty() {
            "the scenario declares no cups ([cups])".to_string()
        } else {
            format!("the scenario's cups are {}", w.state.cups.keys().cloned().collect::<Vec<_>>().join(", "))
        };
        return Err(mlua::Error::runtime(format!(
            "{}{what}: no cup '{name}'{}; {known}",
            rule_place(lua),
            crate::text::did_you_mean(name, w.state.cups.keys())
        )));
    }
    Ok(w.state.cups.get_mut(name).expect("checked"))
}

pub fn register(lua: &Lua) -> mlua::Result<()> {
    let cups = lua.create_table()?;
    cups.set(
        "contents",
        lua.create_function(|lua, name: String| {
            let w = world(lua);
            let mut w = w.borrow_mut();
            Ok(cup(lua, &mut w, &name, &format!("cups.contents('{name}')"))?.clone())
        })?,
    )?;
    cups.set(
        "count",
        lua.create_function(|lua, name: String| {
            let w = world(lua);
            let mut w = w.borrow_mut();
            Ok(cup(lua, &mut w, &name, &format!("cups.count('{name}')"))?.len())
        })?,
    )?;
    cups.set(
        "add",
        lua.create_function(|lua, (name, chit): (String, String)| {
            let what = format!("cups.add('{name}')");
            let chit = self::name(lua, &what, chit)?;
            let w = world(lua);
            let mut w = w.borrow_mut();
            cup(lua, &mut w, &name, &what)?.push(chit);
            Ok(())
        })?,
    )?;
    cups.set(
        "remove",
        lua.create_function(|lua, (name, chit): (String, String)| {
            let w = world(lua);
            let mut w = w.borrow_mut();
            let cup = cup(lua, &mut w, &name, &format!("cups.remove('{name}')"))?;
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
            let w = world(lua);
            let mut w = w.borrow_mut();
            cup(lua, &mut w, &name, &format!("cups.clear('{name}')"))?.clear();
            Ok(())
        })?,
    )?;
    cups.set(
        "draw",
        lua.create_function(|lua, (name, purpose): (String, Option<String>)| {
            let what = format!("cups.draw('{name}')");
            let purpose = purpose.map(|p| self::name(lua, &what, p)).transpose()?;
            let w = world(lua);
            let mut w = w.borrow_mut();
            if w.read_only {
                return Err(mlua::Error::runtime(
                    "no chit may be drawn here: this code only looks (=, expect, show, map, or the decision of umpire.outcome_of)",
                ));
            }
            let items = cup(lua, &mut w, &name, &what)?.clone();
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
            let line = format!("draw from {name}: {chit}{}", if forced { " (forced)" } else { "" });
            super::log::admit(lua, &w, line.len(), "cups.draw")?;
            w.out.push(line);
            Ok((Value::String(lua.create_string(chit)?), Value::Nil))
        })?,
    )?;
    lua.globals().set("cups", cups)
}
