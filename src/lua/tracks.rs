//! `tracks.*`: integer tracks of the game state (turn record, victory points...).

use super::vars::name;
use super::world;
use mlua::Lua;

pub fn register(lua: &Lua) -> mlua::Result<()> {
    let tracks = lua.create_table()?;
    tracks.set(
        "get",
        lua.create_function(|lua, name: String| Ok(world(lua).borrow().state.tracks.get(&name).copied().unwrap_or(0)))?,
    )?;
    tracks.set(
        "set",
        lua.create_function(|lua, (track, v): (String, i64)| {
            let track = name(lua, "tracks.set", track)?;
            world(lua).borrow_mut().state.tracks.insert(track, v);
            Ok(())
        })?,
    )?;
    tracks.set(
        "add",
        lua.create_function(|lua, (track, d): (String, i64)| {
            let name = name(lua, "tracks.add", track)?;
            let w = world(lua);
            let mut w = w.borrow_mut();
            let e = w.state.tracks.entry(name.clone()).or_insert(0);
            *e = e
                .checked_add(d)
                .ok_or_else(|| mlua::Error::runtime(format!("tracks.add('{name}'): the value overflows")))?;
            Ok(*e)
        })?,
    )?;
    lua.globals().set("tracks", tracks)
}
