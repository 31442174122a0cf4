//! What the prelude needs to seal the rule files' tables once they have loaded (`I.freeze` in
//! `prelude.lua`), and how Rust reads a sealed table.
//!
//! Sealing empties a table in place and moves its contents to a hidden table it reads through,
//! so that every write reaches `__newindex`. Lua code reads through the seal by its
//! metamethods; Rust reads tables raw (`pairs`, `raw_len`, sequences), so every API function
//! that walks a table handed over by the rules looks through the seal first ([`seen_through`]).
//!
//! The prelude gets private handles to a few `debug`-like functions (upvalues, raw
//! metatables, function sources) that rules never see: it keeps them in locals and removes them
//! from `__umpire` before any rule file runs.

use mlua::{Function, Lua, Table, Value};
use std::os::raw::c_int;

/// The table whose contents a sealed table reads through (its metatable's `__sealed`, which
/// rules cannot reach: a sealed table's metatable is protected), or the table itself.
pub fn seen_through(t: Table) -> Table {
    let real = t.metatable().and_then(|m| m.raw_get::<Option<Table>>("__sealed").ok().flatten());
    real.unwrap_or(t)
}

/// A list of strings handed over by the rules (nil: empty), looking through a seal.
pub fn string_list(v: Value, what: &str) -> mlua::Result<Vec<String>> {
    match v {
        Value::Nil => Ok(vec![]),
        Value::Table(t) => seen_through(t).sequence_values::<String>().collect(),
        other => Err(mlua::Error::runtime(format!("{what}: expected a list of strings, not {}", other.type_name()))),
    }
}

/// Points the registry's table of loaded libraries (`_LOADED`, out of the rules' reach) at the
/// contents of the sealed `_G` and libraries: Lua names the functions of a traceback by
/// looking them up there (`function 'string.find'`), and a sealed table looks empty to it.
pub(super) fn name_functions(lua: &Lua) -> mlua::Result<()> {
    let loaded: Table = lua.named_registry_value("_LOADED")?;
    let libs: Vec<(Value, Table)> = loaded
        .pairs::<Value, Value>()
        .filter_map(|p| match p {
            Ok((k, Value::Table(t))) => Some(Ok((k, t))),
            Ok(_) => None,
            Err(e) => Some(Err(e)),
        })
        .collect::<mlua::Result<_>>()?;
    for (k, t) in libs {
        loaded.raw_set(k, seen_through(t))?;
    }
    Ok(())
}

/// Registers the private handles in `__umpire` (the prelude takes them and removes them).
pub(super) fn register(lua: &Lua, internal: &Table) -> mlua::Result<()> {
    internal.set("getupvalue", lua.create_function(get_upvalue)?)?;
    internal.set("setupvalue", lua.create_function(set_upvalue)?)?;
    internal.set("upvalueid", lua.create_function(upvalue_id)?)?;
    internal.set("changed_upvalues", lua.create_function(changed_upvalues)?)?;
    internal.set("seal_move", lua.create_function(|lua, t: Table| super::fast::seal_move(lua, &t))?)?;
    internal.set("rawmeta", lua.create_function(|_, t: Table| Ok(t.metatable()))?)?;
    internal.set(
        "fninfo",
        lua.create_function(|_, f: Function| {
            let i = f.info();
            Ok((i.what, i.short_src.unwrap_or_default(), i.line_defined.unwrap_or(0), i.num_upvalues))
        })?,
    )?;
    internal.set("where", lua.create_function(|lua, ()| Ok(rule_place(lua)))?)?;
    Ok(())
}

/// `file:line: ` of the innermost frame of rule code (not C, not the prelude), or "".
pub(super) fn rule_place(lua: &Lua) -> String {
    for level in 1..64 {
        let frame = lua.inspect_stack(level, |d| {
            let s = d.source();
            (s.what, s.short_src.map(|x| x.into_owned()), d.current_line())
        });
        let Some((what, src, line)) = frame else { break };
        let src = src.unwrap_or_default();
        if what == "C" || src == "<umpire prelude>" {
            continue;
        }
        return match line {
            Some(l) => format!("{src}:{l}: "),
            None => format!("{src}: "),
        };
    }
    String::new()
}

// The upvalue functions call the C API directly: mlua has no safe access to upvalues. Each one
// takes a Lua function (never a C function: mlua's callbacks keep Rust state in theirs) and an
// index below its `num_upvalues`, and leaves only its results on the stack.

/// `getupvalue(f, i) -> name, value` (nothing for a C function or an index out of range).
fn get_upvalue(lua: &Lua, (f, i): (Function, c_int)) -> mlua::Result<(Option<String>, Value)> {
    // SAFETY: the stack holds f (1) and i (2); lua_getupvalue pushes at most one value and
    // lua_pushstring one string; lua_replace only moves values within the frame.
    unsafe {
        lua.exec_raw::<(Option<String>, Value)>((f, i), |state| {
            if mlua::ffi::lua_iscfunction(state, 1) != 0 {
                mlua::ffi::lua_settop(state, 0);
                return;
            }
            let name = mlua::ffi::lua_getupvalue(state, 1, i);
            if name.is_null() {
                mlua::ffi::lua_settop(state, 0);
                return;
            }
            mlua::ffi::lua_pushstring(state, name);
            mlua::ffi::lua_replace(state, 1);
            mlua::ffi::lua_replace(state, 2);
        })
    }
}

/// `changed_upvalues(fs, is, vs) -> {k, ...}`: the positions k of the watched upvalues (function
/// `fs[k]`, index `is[k]`, value `vs[k]` when sealed) whose value is no longer the same, in one
/// pass (after every run of rule code: a few thousand upvalues, one call).
fn changed_upvalues(lua: &Lua, (fs, is, vs): (Table, Table, Table)) -> mlua::Result<Vec<i64>> {
    let mut changed: Vec<i64> = Vec::new();
    let out = &mut changed;
    // SAFETY: the stack holds fs (1), is (2) and vs (3); per position the loop pushes the
    // function, the index, the upvalue and the sealed value (four slots, checked first) and
    // pops them all before the next. Only Lua functions are asked (a C function's upvalues are
    // mlua's own); lua_rawgeti and lua_getupvalue raise no error; the vector is the caller's.
    unsafe {
        lua.exec_raw::<()>((fs, is, vs), |state| {
            use mlua::ffi;
            if ffi::lua_checkstack(state, 4) == 0 {
                return;
            }
            let n = ffi::lua_rawlen(state, 1) as ffi::lua_Integer;
            for k in 1..=n {
                ffi::lua_rawgeti(state, 1, k);
                ffi::lua_rawgeti(state, 2, k);
                let i = ffi::lua_tointeger(state, -1) as c_int;
                ffi::lua_pop(state, 1);
                if ffi::lua_type(state, -1) == ffi::LUA_TFUNCTION && ffi::lua_iscfunction(state, -1) == 0 {
                    if ffi::lua_getupvalue(state, -1, i).is_null() {
                        ffi::lua_pushnil(state);
                    }
                    ffi::lua_rawgeti(state, 3, k);
                    if ffi::lua_rawequal(state, -1, -2) == 0 {
                        out.push(k);
                    }
                    ffi::lua_pop(state, 2);
                }
                ffi::lua_pop(state, 1);
            }
            ffi::lua_settop(state, 0);
        })?;
    }
    Ok(changed)
}

/// `setupvalue(f, i, v)`: puts a watched upvalue back.
fn set_upvalue(lua: &Lua, (f, i, v): (Function, c_int, Value)) -> mlua::Result<()> {
    // SAFETY: the stack holds f (1), i (2) and v (3); lua_setupvalue pops v when the index is
    // valid, and the stack is emptied either way.
    unsafe {
        lua.exec_raw::<()>((f, i, v), |state| {
            if mlua::ffi::lua_iscfunction(state, 1) == 0 {
                mlua::ffi::lua_settop(state, 3);
                mlua::ffi::lua_setupvalue(state, 1, i);
            }
            mlua::ffi::lua_settop(state, 0);
        })
    }
}

/// `upvalueid(f, i)`: an id shared by closures that capture the same variable (its address,
/// used only to visit each variable once, never to order anything).
fn upvalue_id(lua: &Lua, (f, i): (Function, c_int)) -> mlua::Result<i64> {
    if i < 1 || i as usize > f.info().num_upvalues as usize {
        return Err(mlua::Error::runtime("upvalueid: no such upvalue"));
    }
    // SAFETY: the stack holds f (1) and i (2), and i is a valid upvalue index of f.
    unsafe {
        lua.exec_raw::<i64>((f, i), |state| {
            let id = mlua::ffi::lua_upvalueid(state, 1, i) as usize as i64;
            mlua::ffi::lua_settop(state, 0);
            mlua::ffi::lua_pushinteger(state, id);
        })
    }
}
