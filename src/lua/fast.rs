//! Tables of many entries built and read in one protected call of Lua's C API.
//!
//! mlua makes every string and every table write safe on its own (a protected call each, since
//! rule code runs under a memory limit). A movement or supply search hands back thousands of
//! hexes: one protected call per entry was most of what `map.reach` cost. Here a whole table is
//! built, or read, inside one protected call ([`mlua::Lua::exec_raw`]). Inside it, nothing that
//! owns memory lives in the closure's own frames (a Lua memory error unwinds them by longjmp):
//! the entries are prepared before and collected into a vector owned by the caller.

use mlua::{Lua, Table, ffi};
use std::os::raw::{c_char, c_int};

/// A value of a table built here.
#[derive(Clone, Copy)]
pub enum Val<'a> {
    Num(f64),
    Bool(bool),
    Str(&'a str),
}

unsafe fn push_str(state: *mut ffi::lua_State, s: &str) {
    // SAFETY: the caller has a slot on the stack; the bytes are valid for `s.len()`
    unsafe { ffi::lua_pushlstring(state, s.as_ptr() as *const c_char, s.len()) };
}

unsafe fn push_val(state: *mut ffi::lua_State, v: Val) {
    // SAFETY: the caller has a slot on the stack
    unsafe {
        match v {
            Val::Num(x) => ffi::lua_pushnumber(state, x),
            Val::Bool(b) => ffi::lua_pushboolean(state, b as c_int),
            Val::Str(s) => push_str(state, s),
        }
    }
}

/// `{ [key] = value, ... }` from the entries.
pub fn keyed(lua: &Lua, entries: &[(&str, Val)]) -> mlua::Result<Table> {
    let n = c_int::try_from(entries.len()).unwrap_or(c_int::MAX);
    // SAFETY: the closure pushes one table and, per entry, a key and a value that `lua_rawset`
    // pops again (three slots, which `exec_raw` checks); it owns nothing a longjmp could leak.
    unsafe {
        lua.exec_raw::<Table>((), |state| {
            ffi::lua_createtable(state, 0, n);
            for (k, v) in entries {
                push_str(state, k);
                push_val(state, *v);
                ffi::lua_rawset(state, -3);
            }
        })
    }
}

/// What a table given as a set of hexes holds, read in one pass: the string keys whose value
/// is neither nil nor false, the string values at integer keys (a list), and whether some
/// entry is anything else (a nested table: the caller reads it the slow way). `t` must be the
/// table's contents (seen through a seal).
pub fn hex_keys(lua: &Lua, t: &Table, out: &mut Vec<Vec<u8>>) -> mlua::Result<bool> {
    let mut other = false;
    let other_ref = &mut other;
    // SAFETY: the table is the one argument (index 1); `lua_next` walks it with a key and a
    // value on top of it (three slots). Strings are read only where they are strings (no
    // conversion of a key in place, which would break `lua_next`). The vector belongs to the
    // caller, so a longjmp (none is expected: nothing here allocates in Lua) leaks nothing.
    unsafe {
        lua.exec_raw::<()>(t, |state| {
            ffi::lua_pushnil(state);
            while ffi::lua_next(state, 1) != 0 {
                let kt = ffi::lua_type(state, -2);
                let vt = ffi::lua_type(state, -1);
                let read = |idx: c_int| {
                    let mut len = 0usize;
                    let p = ffi::lua_tolstring(state, idx, &mut len);
                    std::slice::from_raw_parts(p as *const u8, len).to_vec()
                };
                if kt == ffi::LUA_TSTRING {
                    let truthy =
                        !(vt == ffi::LUA_TNIL || (vt == ffi::LUA_TBOOLEAN && ffi::lua_toboolean(state, -1) == 0));
                    if truthy {
                        out.push(read(-2));
                    }
                } else if ffi::lua_isinteger(state, -2) != 0 && vt == ffi::LUA_TSTRING {
                    out.push(read(-1));
                } else if ffi::lua_isinteger(state, -2) != 0 && vt == ffi::LUA_TTABLE {
                    *other_ref = true;
                }
                ffi::lua_pop(state, 1);
            }
            ffi::lua_pop(state, 1);
        })?;
    }
    Ok(other)
}

/// A key of a table read by [`sorted_keys`].
enum Key {
    Int(i64),
    Num(f64),
    Str(std::ops::Range<usize>),
}

/// The keys of a table in the fixed order of the prelude's `pairs` when they are all numbers
/// and strings (numbers by value first, then strings by their bytes), as a sequence; `None` if
/// some key is of another type (the caller ranks those). `t` must be the table's contents.
pub fn sorted_keys(lua: &Lua, t: &Table) -> mlua::Result<Option<Table>> {
    let mut keys: Vec<Key> = Vec::new();
    let mut bytes: Vec<u8> = Vec::new();
    let mut other = false;
    {
        let (keys, bytes, other) = (&mut keys, &mut bytes, &mut other);
        // SAFETY: as in `hex_keys`: the table at index 1, a key and a value above it; a string
        // key is read where it is a string; the vectors belong to the caller.
        unsafe {
            lua.exec_raw::<()>(t, |state| {
                ffi::lua_pushnil(state);
                while ffi::lua_next(state, 1) != 0 {
                    match ffi::lua_type(state, -2) {
                        ffi::LUA_TSTRING => {
                            let mut len = 0usize;
                            let p = ffi::lua_tolstring(state, -2, &mut len);
                            let start = bytes.len();
                            bytes.extend_from_slice(std::slice::from_raw_parts(p as *const u8, len));
                            keys.push(Key::Str(start..bytes.len()));
                        }
                        ffi::LUA_TNUMBER if ffi::lua_isinteger(state, -2) != 0 => {
                            keys.push(Key::Int(ffi::lua_tointeger(state, -2)))
                        }
                        ffi::LUA_TNUMBER => keys.push(Key::Num(ffi::lua_tonumber(state, -2))),
                        _ => *other = true,
                    }
                    ffi::lua_pop(state, 1);
                }
                ffi::lua_pop(state, 1);
            })?;
        }
    }
    if other {
        return Ok(None);
    }
    let num = |k: &Key| match k {
        Key::Int(i) => *i as f64,
        Key::Num(n) => *n,
        Key::Str(_) => 0.0,
    };
    keys.sort_by(|a, b| match (a, b) {
        (Key::Str(x), Key::Str(y)) => bytes[x.clone()].cmp(&bytes[y.clone()]),
        (Key::Str(_), _) => std::cmp::Ordering::Greater,
        (_, Key::Str(_)) => std::cmp::Ordering::Less,
        _ => num(a).total_cmp(&num(b)),
    });
    let n = c_int::try_from(keys.len()).unwrap_or(c_int::MAX);
    let (keys, bytes) = (&keys, &bytes);
    // SAFETY: one table and one value at a time on the stack; the keys are borrowed.
    let out = unsafe {
        lua.exec_raw::<Table>((), |state| {
            ffi::lua_createtable(state, n, 0);
            for (i, k) in keys.iter().enumerate() {
                match k {
                    Key::Int(v) => ffi::lua_pushinteger(state, *v),
                    Key::Num(v) => ffi::lua_pushnumber(state, *v),
                    Key::Str(r) => {
                        let b = &bytes[r.clone()];
                        ffi::lua_pushlstring(state, b.as_ptr() as *const c_char, b.len());
                    }
                }
                ffi::lua_rawseti(state, -2, (i + 1) as ffi::lua_Integer);
            }
        })?
    };
    Ok(Some(out))
}
