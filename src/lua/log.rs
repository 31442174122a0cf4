//! `log.*`: the game log of rulings (`log.rule`) and plain lines (`log.say`).

use super::world;
use mlua::Lua;

pub fn register(lua: &Lua) -> mlua::Result<()> {
    let log = lua.create_table()?;
    log.set(
        "rule",
        lua.create_function(|lua, (rule, text): (String, String)| {
            world(lua).borrow_mut().log(Some(rule), text);
            Ok(())
        })?,
    )?;
    log.set(
        "say",
        lua.create_function(|lua, text: String| {
            world(lua).borrow_mut().log(None, text);
            Ok(())
        })?,
    )?;
    lua.globals().set("log", log)
}
