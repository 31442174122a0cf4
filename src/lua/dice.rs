//! `dice.*`: every roll goes through the game's generator and is recorded with its purpose.

use super::vars::name;
use super::{Refusal, world};
use crate::dice::parse_expr;
use mlua::Lua;

pub fn register(lua: &Lua) -> mlua::Result<()> {
    let t = lua.create_table()?;
    // dice.roll("2d6", purpose) -> total, {faces}
    t.set(
        "roll",
        lua.create_function(|lua, (expr, purpose): (String, Option<String>)| {
            let expr = name(lua, "dice.roll", expr)?;
            let purpose = purpose.map(|p| name(lua, "dice.roll", p)).transpose()?;
            let (n, m) = parse_expr(&expr).map_err(|e| mlua::Error::runtime(format!("dice.roll: {e}")))?;
            let w = world(lua);
            let mut w = w.borrow_mut();
            if w.read_only {
                return Err(mlua::Error::runtime(
                    "no die may be rolled in a command that only looks (=, expect, show, map)",
                ));
            }
            let purpose = purpose.unwrap_or_else(|| expr.clone());
            let faces = w
                .state
                .dice
                .roll(n, m, &purpose)
                .map_err(|e| mlua::Error::external(Refusal { rule: "dice".into(), msg: e.to_string() }))?;
            let total: u32 = faces.iter().sum();
            let forced = w.state.dice.rolls.last().is_some_and(|r| r.forced);
            if w.probe_first_roll_log.is_none() {
                w.probe_first_roll_log = Some(w.state.log.len());
            }
            let shown = if faces.len() == 1 {
                total.to_string()
            } else {
                format!("{total} ({})", faces.iter().map(|f| f.to_string()).collect::<Vec<_>>().join("+"))
            };
            let line = format!("roll {expr} for {purpose}: {shown}{}", if forced { " (forced)" } else { "" });
            super::log::admit(lua, &w, line.len(), "dice.roll")?;
            w.out.push(line);
            Ok((total, faces))
        })?,
    )?;
    t.set(
        "d6",
        lua.create_function(|lua, purpose: Option<String>| {
            let roll: mlua::Function = lua.globals().get::<mlua::Table>("dice")?.get("roll")?;
            let (total, _): (u32, Vec<u32>) = roll.call(("1d6", purpose))?;
            Ok(total)
        })?,
    )?;
    // forced results still queued (read-only)
    t.set(
        "pending",
        lua.create_function(|lua, ()| {
            Ok(world(lua).borrow().state.dice.forced.iter().map(|f| f.to_string()).collect::<Vec<_>>())
        })?,
    )?;
    t.set(
        "last",
        lua.create_function(|lua, ()| {
            let w = world(lua);
            let w = w.borrow();
            Ok(w.state.dice.rolls.last().map(|r| r.result.clone()))
        })?,
    )?;
    // every roll and draw so far: { {purpose=, what=, result=, forced=}, ... }
    t.set(
        "rolls",
        lua.create_function(|lua, ()| {
            let w = world(lua);
            let w = w.borrow();
            let out = lua.create_table()?;
            for (i, r) in w.state.dice.rolls.iter().enumerate() {
                let e = lua.create_table()?;
                e.set("purpose", r.purpose.as_str())?;
                e.set("what", r.what.as_str())?;
                e.set("result", r.result.as_str())?;
                e.set("forced", r.forced)?;
                out.set(i + 1, e)?;
            }
            Ok(out)
        })?,
    )?;
    lua.globals().set("dice", t)?;
    Ok(())
}
