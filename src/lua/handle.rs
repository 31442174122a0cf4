//! The unit handle's hot reads in plain C functions of Lua's API.
//!
//! Rule code reads `u.side`, `u.kind`, `u.hex`, `u:marker(name)`, `u:attr(key)` and
//! `u:value(key)` thousands of times a command (a zone of control or a stacking check looks at
//! every unit on the map). Through mlua each read was a Lua wrapper (`__mlua_index`), then a
//! protected Rust callback: about a third of the instructions of such a command. Here the
//! handle's metatable gets an `__index` written against the C API: it resolves the handle
//! (its id is the userdata's first user value) against the current state on every call, like
//! the methods it stands in for, and hands everything it does not serve (other fields,
//! other methods, a non-string key, a unit that no longer exists, a value that is not a
//! scalar, a budget spent) to the original `__index`, which says what is wrong as before.
//!
//! Safety: a Lua error (a memory error while a string is pushed) unwinds C frames by longjmp.
//! Nothing that owns memory or holds a borrow lives in a frame that calls the Lua API here:
//! the state is read by [`read`], which returns a plain [`Fast`] value, before anything is
//! pushed.

use super::{Budget, Shared};
use crate::state::Unit;
use mlua::{AnyUserData, Lua, ffi};
use std::os::raw::{c_char, c_int};

/// Longest string a fast read hands back (longer ones take the slow path).
const BUF: usize = 46;

/// What a read found, owning nothing.
#[derive(Clone, Copy)]
enum Fast {
    Nil,
    Int(i64),
    Num(f64),
    Bool(bool),
    Str([u8; BUF], u8),
    /// The original `__index` or method decides (and names any error).
    Slow,
}

fn text(s: &str) -> Fast {
    if s.len() > BUF {
        return Fast::Slow;
    }
    let mut b = [0u8; BUF];
    b[..s.len()].copy_from_slice(s.as_bytes());
    Fast::Str(b, s.len() as u8)
}

fn json(v: Option<&serde_json::Value>) -> Fast {
    use serde_json::Value as J;
    match v {
        None => Fast::Nil,
        Some(J::Bool(b)) => Fast::Bool(*b),
        Some(J::String(s)) => text(s),
        Some(J::Number(n)) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => Fast::Int(i),
            (None, Some(_)) if n.is_u64() => Fast::Slow,
            (None, Some(x)) => Fast::Num(x),
            _ => Fast::Slow,
        },
        // null, lists and tables: as mlua converts them
        Some(_) => Fast::Slow,
    }
}

/// What is read: a field, or the argument of a method.
#[derive(Clone, Copy)]
enum What<'a> {
    Field(&'a [u8]),
    Marker(&'a [u8]),
    Attr(&'a [u8]),
    Value(&'a [u8]),
}

/// Reads `what` of the unit `id` from the current state (every borrow ends before it returns).
fn read(lua: &Lua, id: &[u8], what: What) -> Fast {
    let Some(shared) = lua.app_data_ref::<Shared>() else { return Fast::Slow };
    let Ok(w) = shared.try_borrow() else { return Fast::Slow };
    let Ok(id) = std::str::from_utf8(id) else { return Fast::Slow };
    let u: &Unit = match w.state.units.get(id) {
        Some(u) => u,
        None if matches!(what, What::Field(b"exists")) => return Fast::Bool(false),
        None => return Fast::Slow,
    };
    match what {
        What::Field(f) => match f {
            b"name" => text(&u.name),
            b"side" => text(&u.side),
            b"kind" => text(&u.kind),
            b"hex" => match u.hex() {
                Some(h) => match w.map.printed_id(h) {
                    Some(s) => text(s),
                    None => text(&w.map.grid.format(h)),
                },
                None => Fast::Nil,
            },
            b"step" => Fast::Int(u.step as i64 + 1),
            b"steps" => Fast::Int(u.steps.len() as i64),
            b"steps_left" => Fast::Int((u.steps.len() - u.step) as i64),
            b"exists" => Fast::Bool(true),
            _ => Fast::Slow,
        },
        What::Marker(k) => match std::str::from_utf8(k) {
            Ok(k) => u.markers.get(k).map_or(Fast::Nil, |&v| Fast::Int(v)),
            Err(_) => Fast::Slow,
        },
        What::Value(k) => match std::str::from_utf8(k) {
            Ok(k) => json(u.values().get(k)),
            Err(_) => Fast::Slow,
        },
        What::Attr(k) => {
            let Ok(k) = std::str::from_utf8(k) else { return Fast::Slow };
            let v = json(u.attrs.get(k));
            // a stored value read back is charged as `attr` charges it (vars.rs): one node
            if !matches!(v, Fast::Nil | Fast::Slow) {
                let Some(b) = lua.app_data_ref::<Budget>() else { return Fast::Slow };
                let used = b.used.get() + super::vars::READ_CHARGE_PER_NODE;
                if used > b.limit {
                    return Fast::Slow;
                }
                b.used.set(used);
            }
            v
        }
    }
}

/// Pushes what a read found; false if the slow path must answer.
unsafe fn push(state: *mut ffi::lua_State, v: Fast) -> bool {
    // SAFETY: the caller has a free slot on the stack (a C function has LUA_MINSTACK)
    unsafe {
        match v {
            Fast::Nil => ffi::lua_pushnil(state),
            Fast::Int(i) => ffi::lua_pushinteger(state, i),
            Fast::Num(x) => ffi::lua_pushnumber(state, x),
            Fast::Bool(b) => ffi::lua_pushboolean(state, b as c_int),
            Fast::Str(b, n) => {
                ffi::lua_pushlstring(state, b.as_ptr() as *const c_char, n as usize);
            }
            Fast::Slow => return false,
        }
    }
    true
}

/// The bytes of the string at `idx`, if it is one (not a number: no conversion in place).
unsafe fn string_at<'a>(state: *mut ffi::lua_State, idx: c_int) -> Option<&'a [u8]> {
    // SAFETY: the value stays on the stack while the slice is used; fast::bytes_at reads a string
    unsafe { (ffi::lua_type(state, idx) == ffi::LUA_TSTRING).then(|| super::fast::bytes_at(state, idx)) }
}

/// The id of the handle at `idx` (pushed on the stack, so it lives while used), or None if
/// the value is not a unit handle (its metatable is not the one at upvalue `mt`).
unsafe fn handle_id<'a>(state: *mut ffi::lua_State, idx: c_int, mt: c_int) -> Option<&'a [u8]> {
    // SAFETY: a C function's stack has room for the two values compared and the id
    unsafe {
        if ffi::lua_type(state, idx) != ffi::LUA_TUSERDATA || ffi::lua_getmetatable(state, idx) == 0 {
            return None;
        }
        let same = ffi::lua_rawequal(state, -1, ffi::lua_upvalueindex(mt)) != 0;
        ffi::lua_pop(state, 1);
        if !same {
            return None;
        }
        ffi::lua_getiuservalue(state, idx, 1);
        string_at(state, -1)
    }
}

/// Calls the function at upvalue `up` with the arguments of this call; returns its result.
unsafe fn slow(state: *mut ffi::lua_State, up: c_int, nargs: c_int) -> c_int {
    // SAFETY: the arguments are the first `nargs` slots; the call's errors propagate
    unsafe {
        ffi::lua_settop(state, nargs);
        ffi::lua_pushvalue(state, ffi::lua_upvalueindex(up));
        ffi::lua_insert(state, 1);
        ffi::lua_call(state, nargs, 1);
    }
    1
}

// upvalues of `index`
const UP_ORIGINAL: c_int = 1;
const UP_MARKER: c_int = 2;
const UP_ATTR: c_int = 3;
const UP_VALUE: c_int = 4;
const UP_META: c_int = 5;

/// `__index(handle, key)`.
unsafe extern "C-unwind" fn index(state: *mut ffi::lua_State) -> c_int {
    // SAFETY: called by Lua as the metamethod, with (handle, key)
    unsafe {
        let Some(key) = string_at(state, 2) else { return slow(state, UP_ORIGINAL, 2) };
        let method = match key {
            b"marker" => Some(UP_MARKER),
            b"attr" => Some(UP_ATTR),
            b"value" => Some(UP_VALUE),
            _ => None,
        };
        if let Some(up) = method {
            ffi::lua_pushvalue(state, ffi::lua_upvalueindex(up));
            return 1;
        }
        let Some(id) = handle_id(state, 1, UP_META) else { return slow(state, UP_ORIGINAL, 2) };
        if key == b"id" {
            return 1; // the user value just pushed
        }
        let lua = Lua::get_or_init_from_ptr(state);
        let v = read(lua, id, What::Field(key));
        if push(state, v) { 1 } else { slow(state, UP_ORIGINAL, 2) }
    }
}

// upvalues of the methods
const M_ORIGINAL: c_int = 1;
const M_META: c_int = 2;

unsafe fn method(state: *mut ffi::lua_State, what: for<'a> fn(&'a [u8]) -> What<'a>) -> c_int {
    // SAFETY: called by Lua as a method, with (handle, key)
    unsafe {
        let nargs = ffi::lua_gettop(state);
        if nargs != 2 {
            return slow(state, M_ORIGINAL, nargs);
        }
        let Some(key) = string_at(state, 2) else { return slow(state, M_ORIGINAL, 2) };
        let Some(id) = handle_id(state, 1, M_META) else { return slow(state, M_ORIGINAL, 2) };
        let lua = Lua::get_or_init_from_ptr(state);
        let v = read(lua, id, what(key));
        if push(state, v) { 1 } else { slow(state, M_ORIGINAL, 2) }
    }
}

unsafe extern "C-unwind" fn marker(state: *mut ffi::lua_State) -> c_int {
    // SAFETY: as `method`
    unsafe { method(state, |k| What::Marker(k)) }
}
unsafe extern "C-unwind" fn attr(state: *mut ffi::lua_State) -> c_int {
    // SAFETY: as `method`
    unsafe { method(state, |k| What::Attr(k)) }
}
unsafe extern "C-unwind" fn value(state: *mut ffi::lua_State) -> c_int {
    // SAFETY: as `method`
    unsafe { method(state, |k| What::Value(k)) }
}

/// Gives a new handle its id as its first user value (what the fast reads resolve).
pub fn set_id(lua: &Lua, u: &AnyUserData, id: &str) -> mlua::Result<()> {
    // SAFETY: the handle and the id are pushed by exec_raw; setiuservalue pops the id
    unsafe {
        lua.exec_raw::<()>((u, id), |state| {
            ffi::lua_setiuservalue(state, -2, 1);
            ffi::lua_pop(state, 1);
        })
    }
}

/// Puts the fast `__index` in the metatable of unit handles, given one handle (mlua makes the
/// metatable with the first handle). The original `__index` and methods stay behind it.
pub fn install(lua: &Lua, sample: &AnyUserData) -> mlua::Result<()> {
    // SAFETY: stack effects counted per line; at most 8 slots are used (exec_raw checks 3, and
    // `lua_checkstack` is asked for the rest); everything is left to exec_raw's stack guard
    unsafe {
        lua.exec_raw::<()>(sample, |state| {
            ffi::luaL_checkstack(state, 10, std::ptr::null());
            let ud = ffi::lua_gettop(state);
            ffi::lua_getmetatable(state, ud); // mt
            let mt = ffi::lua_gettop(state);
            ffi::lua_pushstring(state, c"__index".as_ptr());
            ffi::lua_rawget(state, mt); // original
            let original = ffi::lua_gettop(state);
            ffi::lua_pushvalue(state, original); // upvalue 1 of index
            let fast: [(&std::ffi::CStr, ffi::lua_CFunction); 3] =
                [(c"marker", marker), (c"attr", attr), (c"value", value)];
            for (name, f) in fast {
                ffi::lua_pushvalue(state, original);
                ffi::lua_pushvalue(state, ud);
                ffi::lua_pushstring(state, name.as_ptr());
                ffi::lua_call(state, 2, 1); // the original method
                ffi::lua_pushvalue(state, mt);
                ffi::lua_pushcclosure(state, f, 2); // upvalues 2-4 of index
            }
            ffi::lua_pushvalue(state, mt); // upvalue 5
            ffi::lua_pushcclosure(state, index, 5);
            ffi::lua_pushstring(state, c"__index".as_ptr());
            ffi::lua_insert(state, -2);
            ffi::lua_rawset(state, mt);
        })
    }
}
