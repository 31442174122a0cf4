//! Tables of many entries built and read in one protected call of Lua's C API.
//!
//! mlua makes every string and every table write safe on its own (a protected call each, since
//! rule code runs under a memory limit). A movement or supply search hands back thousands of
//! hexes: one protected call per entry was most of what `map.reach` cost. Here a whole table is
//! built, or read, inside one protected call ([`mlua::Lua::exec_raw`]). Inside it, nothing that
//! owns memory lives in the closure's own frames (a Lua memory error unwinds them by longjmp):
//! the entries are prepared before and collected into a vector owned by the caller.

use mlua::{Lua, Table, Value, ffi};
use std::os::raw::{c_char, c_int};

/// A value of a table built here.
#[derive(Clone, Copy)]
pub enum Val<'a> {
    Num(f64),
    Int(i64),
    Bool(bool),
    Str(&'a str),
}

unsafe fn push_str_bytes(state: *mut ffi::lua_State, b: &[u8]) {
    // SAFETY: the caller has a slot on the stack; the bytes are valid for `b.len()`
    unsafe { ffi::lua_pushlstring(state, b.as_ptr() as *const c_char, b.len()) };
}

unsafe fn push_str(state: *mut ffi::lua_State, s: &str) {
    // SAFETY: as push_str_bytes
    unsafe { push_str_bytes(state, s.as_bytes()) };
}

unsafe fn push_val(state: *mut ffi::lua_State, v: Val) {
    // SAFETY: the caller has a slot on the stack
    unsafe {
        match v {
            Val::Num(x) => ffi::lua_pushnumber(state, x),
            Val::Int(i) => ffi::lua_pushinteger(state, i),
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
/// entry is anything else (a nested table or hexset: the caller reads it the slow way). `t` must be the
/// table's contents (seen through a seal). Each text goes to `found` as it is read (no copy).
pub fn hex_keys(lua: &Lua, t: &Table, mut found: impl FnMut(&[u8])) -> mlua::Result<bool> {
    let mut other = false;
    let other_ref = &mut other;
    // SAFETY: the table is the one argument (index 1); `lua_next` walks it with a key and a
    // value on top of it (three slots). Strings are read only where they are strings (no
    // conversion of a key in place, which would break `lua_next`). What `found` keeps belongs to
    // the caller, so a longjmp (none is expected: nothing here allocates in Lua) leaks nothing.
    unsafe {
        lua.exec_raw::<()>(t, |state| {
            ffi::lua_pushnil(state);
            while ffi::lua_next(state, 1) != 0 {
                let kt = ffi::lua_type(state, -2);
                let vt = ffi::lua_type(state, -1);
                if kt == ffi::LUA_TSTRING {
                    let truthy =
                        !(vt == ffi::LUA_TNIL || (vt == ffi::LUA_TBOOLEAN && ffi::lua_toboolean(state, -1) == 0));
                    if truthy {
                        found(bytes_at(state, -2));
                    }
                } else if ffi::lua_isinteger(state, -2) != 0 && vt == ffi::LUA_TSTRING {
                    found(bytes_at(state, -1));
                } else if ffi::lua_isinteger(state, -2) != 0 && (vt == ffi::LUA_TTABLE || vt == ffi::LUA_TUSERDATA) {
                    *other_ref = true;
                }
                ffi::lua_pop(state, 1);
            }
            ffi::lua_pop(state, 1);
        })?;
    }
    Ok(other)
}

/// A table of amounts by hex (`{ ["0418"] = 2 }`) read in one pass: each string key with its
/// number. `false` when some entry is anything else (the caller reads it the slow way, which
/// names the problem). `t` must be the table's contents (seen through a seal). Each entry goes
/// to `found` as it is read (no copy).
pub fn hex_numbers(lua: &Lua, t: &Table, mut found: impl FnMut(&[u8], f64)) -> mlua::Result<bool> {
    let mut plain = true;
    let plain_ref = &mut plain;
    // SAFETY: as in `hex_keys`: the table is index 1, a key and a value above it; strings and
    // numbers are read where they are such (no conversion in place); what `found` keeps is the
    // caller's.
    unsafe {
        lua.exec_raw::<()>(t, |state| {
            ffi::lua_pushnil(state);
            while ffi::lua_next(state, 1) != 0 {
                if ffi::lua_type(state, -2) == ffi::LUA_TSTRING && ffi::lua_type(state, -1) == ffi::LUA_TNUMBER {
                    found(bytes_at(state, -2), ffi::lua_tonumber(state, -1));
                } else {
                    *plain_ref = false;
                }
                ffi::lua_pop(state, 1);
            }
            ffi::lua_pop(state, 1);
        })?;
    }
    Ok(plain)
}

/// A key's place in the fixed order of the prelude's `pairs`: its class (1 numbers, 2 strings,
/// 3 booleans, 4 handles), its number, and its bytes as a range of one shared buffer (one
/// allocation for all the keys of a table, not one per key), their first eight bytes also as
/// a number (most keys, hex ids and unit ids, differ there: compared without `memcmp`). The one
/// comparison of that order ([`cmp_rank`]), for this module's fast path and the host's general
/// one alike.
pub struct Rank {
    pub class: u8,
    pub num: f64,
    prefix: u64,
    pub bytes: std::ops::Range<usize>,
}

impl Rank {
    /// The rank of a key of `class` and `num` whose bytes are `buf[bytes]`.
    pub fn new(class: u8, num: f64, buf: &[u8], bytes: std::ops::Range<usize>) -> Rank {
        let mut head = [0u8; 8];
        let b = &buf[bytes.clone()];
        let n = b.len().min(8);
        head[..n].copy_from_slice(&b[..n]);
        Rank { class, num, prefix: u64::from_be_bytes(head), bytes }
    }
}

pub fn cmp_rank(a: &Rank, b: &Rank, buf: &[u8]) -> std::cmp::Ordering {
    // (the first eight bytes, padded with zeros, order as the bytes do; equal, the whole decides)
    a.class
        .cmp(&b.class)
        .then(a.num.total_cmp(&b.num))
        .then(a.prefix.cmp(&b.prefix))
        .then_with(|| buf[a.bytes.clone()].cmp(&buf[b.bytes.clone()]))
}

/// The bytes of the string at `idx` (which must be a string: no conversion in place).
pub(super) unsafe fn bytes_at<'a>(state: *mut ffi::lua_State, idx: c_int) -> &'a [u8] {
    let mut len = 0usize;
    // SAFETY: the value at idx is a string, which stays on the stack while the bytes are read
    unsafe {
        let p = ffi::lua_tolstring(state, idx, &mut len);
        std::slice::from_raw_parts(p as *const u8, len)
    }
}

/// The keys of a table in the fixed order of the prelude's `pairs` when they are all numbers
/// and strings, as a sequence; `None` if some key is of another type (the caller ranks those).
/// `t` must be the table's contents. (The keys are copied as Lua values, first in the order
/// `lua_next` finds them, then in the sorted order: no string is made again.)
pub fn sorted_keys(lua: &Lua, t: &Table) -> mlua::Result<Option<Table>> {
    // (rank, the key's place in the order found)
    let mut keys: Vec<(Rank, c_int)> = Vec::new();
    let mut bytes: Vec<u8> = Vec::new();
    let mut other = false;
    let (keys_ref, bytes_ref, other_ref) = (&mut keys, &mut bytes, &mut other);
    // SAFETY: the table at index 1; above it the keys as found (index 2), then a key and a
    // value while walking, then the sorted keys (index 3), one value above it at a time (four
    // slots: `luaL_checkstack` asks for them). A string key is read where it is a string (no
    // conversion in place). The vectors belong to the caller; the sort calls no Lua function.
    let out = unsafe {
        lua.exec_raw::<Value>(t, |state| {
            ffi::luaL_checkstack(state, 6, std::ptr::null());
            ffi::lua_createtable(state, 0, 0);
            let mut found: c_int = 0;
            ffi::lua_pushnil(state);
            while ffi::lua_next(state, 1) != 0 {
                let start = bytes_ref.len();
                let rank = match ffi::lua_type(state, -2) {
                    ffi::LUA_TSTRING => {
                        bytes_ref.extend_from_slice(bytes_at(state, -2));
                        Some(Rank::new(2, 0.0, bytes_ref, start..bytes_ref.len()))
                    }
                    ffi::LUA_TNUMBER if ffi::lua_isinteger(state, -2) != 0 => {
                        Some(Rank::new(1, ffi::lua_tointeger(state, -2) as f64, bytes_ref, start..start))
                    }
                    ffi::LUA_TNUMBER => Some(Rank::new(1, ffi::lua_tonumber(state, -2), bytes_ref, start..start)),
                    _ => None,
                };
                ffi::lua_pop(state, 1);
                match rank {
                    Some(r) => {
                        found += 1;
                        keys_ref.push((r, found));
                        ffi::lua_pushvalue(state, -1);
                        ffi::lua_rawseti(state, 2, found as ffi::lua_Integer);
                    }
                    None => *other_ref = true,
                }
            }
            if *other_ref {
                ffi::lua_settop(state, 0);
                ffi::lua_pushnil(state);
                return;
            }
            let buf: &[u8] = bytes_ref;
            keys_ref.sort_unstable_by(|a, b| cmp_rank(&a.0, &b.0, buf)); // (no two keys are equal)
            ffi::lua_createtable(state, found, 0);
            for (i, (_, at)) in keys_ref.iter().enumerate() {
                ffi::lua_rawgeti(state, 2, *at as ffi::lua_Integer);
                ffi::lua_rawseti(state, 3, (i + 1) as ffi::lua_Integer);
            }
            ffi::lua_copy(state, 3, 1);
            ffi::lua_settop(state, 1);
        })?
    };
    Ok(match out {
        Value::Table(t) if !other => Some(t),
        _ => None,
    })
}

/// Lists of values looked up in `cache` by id, built in one protected call: with `keys`, a
/// table `{ [keys[i]] = { cache[id], ... } }` of one list per key (`groups[i]`); without, the
/// one list of `groups[0]`. Every id must be in the cache (a missing one is left out).
pub fn lists_from(lua: &Lua, cache: &Table, keys: Option<&[String]>, groups: &[Vec<String>]) -> mlua::Result<Table> {
    // SAFETY: the cache is the one argument (index 1); the outer table sits above it, and
    // above that one list and one value at a time (four slots; `exec_raw` checks three, so
    // `luaL_checkstack` asks for more). The ids and keys are borrowed from the caller.
    unsafe {
        lua.exec_raw::<Table>(cache, |state| {
            ffi::luaL_checkstack(state, 6, std::ptr::null());
            let fill = |state: *mut ffi::lua_State, ids: &[String]| {
                ffi::lua_createtable(state, c_int::try_from(ids.len()).unwrap_or(c_int::MAX), 0);
                let mut n = 0;
                for id in ids {
                    push_str(state, id);
                    if ffi::lua_rawget(state, 1) == ffi::LUA_TNIL {
                        ffi::lua_pop(state, 1);
                        continue;
                    }
                    n += 1;
                    ffi::lua_rawseti(state, -2, n);
                }
            };
            match keys {
                Some(keys) => {
                    ffi::lua_createtable(state, 0, c_int::try_from(keys.len()).unwrap_or(c_int::MAX));
                    for (k, ids) in keys.iter().zip(groups) {
                        push_str(state, k);
                        fill(state, ids);
                        ffi::lua_rawset(state, -3);
                    }
                }
                None => fill(state, groups.first().map_or(&[][..], |g| &g[..])),
            }
            ffi::lua_replace(state, 1); // the result, in the cache's place (the one value left)
        })
    }
}

/// One step of the prelude's `pairs`: `step(keys)` with `keys` the sorted keys of a table as a
/// sequence, the table itself at `keys[0]` and the position reached at `keys[-1]`. Returns the
/// next key and `t[key]`, or nothing at the end (a C function: the loop's one call per entry
/// costs a fraction of a Lua closure's).
unsafe extern "C-unwind" fn pairs_step(state: *mut ffi::lua_State) -> c_int {
    // SAFETY: called by the generic `for` with (keys, control); at most three values are
    // pushed (a C function has LUA_MINSTACK slots); `lua_gettable` may run `__index` and its
    // errors propagate, with nothing owned in this frame
    unsafe {
        if ffi::lua_type(state, 1) != ffi::LUA_TTABLE {
            return 0;
        }
        ffi::lua_rawgeti(state, 1, -1);
        let i = ffi::lua_tointeger(state, -1) + 1;
        ffi::lua_pop(state, 1);
        ffi::lua_pushinteger(state, i);
        ffi::lua_rawseti(state, 1, -1);
        if ffi::lua_rawgeti(state, 1, i) == ffi::LUA_TNIL {
            return 0;
        }
        ffi::lua_rawgeti(state, 1, 0); // key, t
        ffi::lua_pushvalue(state, -2); // key, t, key
        ffi::lua_gettable(state, -2); // key, t, value
        ffi::lua_remove(state, -2); // key, value
        2
    }
}

/// The step function of the prelude's `pairs` ([`pairs_step`]).
pub fn pairs_stepper(lua: &Lua) -> mlua::Result<mlua::Function> {
    // SAFETY: `pairs_step` keeps to the stack discipline of a C function
    unsafe { lua.create_c_function(pairs_step) }
}

/// What sealing a table does to its entries, in one protected call: moves every entry of `t`
/// to a new table `real` (leaving `t` empty) and returns `real`, the list of its string keys
/// that start with `__` (they stay in place: Lua looks metamethods up raw), and the set of
/// keys that lead somewhere (a table or a function as the key or the value), for the walk.
pub fn seal_move(lua: &Lua, t: &Table) -> mlua::Result<(Table, Table, Table)> {
    // SAFETY: `t` is the one argument (index 1); `real`, `kept` and `leads` sit at 2-4; above
    // them a key, a value and their copies (four slots more; `luaL_checkstack` asks for them).
    // Entries of `t` are only set to nil after the walk over it. Nothing owned lives here.
    unsafe {
        lua.exec_raw::<(Table, Table, Table)>(t, |state| {
            ffi::luaL_checkstack(state, 8, std::ptr::null());
            ffi::lua_createtable(state, 0, 0); // 2 real
            ffi::lua_createtable(state, 0, 0); // 3 kept
            ffi::lua_createtable(state, 0, 0); // 4 leads
            let mut kept = 0;
            let leads = |tp: c_int| tp == ffi::LUA_TTABLE || tp == ffi::LUA_TFUNCTION;
            ffi::lua_pushnil(state);
            while ffi::lua_next(state, 1) != 0 {
                // key at -2, value at -1
                ffi::lua_pushvalue(state, -2);
                ffi::lua_pushvalue(state, -2);
                ffi::lua_rawset(state, 2);
                let (kt, vt) = (ffi::lua_type(state, -2), ffi::lua_type(state, -1));
                if kt == ffi::LUA_TSTRING && bytes_at(state, -2).starts_with(b"__") {
                    kept += 1;
                    ffi::lua_pushvalue(state, -2);
                    ffi::lua_rawseti(state, 3, kept);
                }
                if leads(kt) || leads(vt) {
                    ffi::lua_pushvalue(state, -2);
                    ffi::lua_pushboolean(state, 1);
                    ffi::lua_rawset(state, 4);
                }
                ffi::lua_pop(state, 1);
            }
            // `t` emptied (its keys read off `real`, so that `t` is not changed while walked)
            ffi::lua_pushnil(state);
            while ffi::lua_next(state, 2) != 0 {
                ffi::lua_pop(state, 1);
                ffi::lua_pushvalue(state, -1);
                ffi::lua_pushnil(state);
                ffi::lua_rawset(state, 1);
            }
            ffi::lua_remove(state, 1); // real, kept, leads
        })
    }
}

/// One entry of a list of actions as read by [`action_entries`].
#[derive(Default)]
pub struct RawAction {
    pub cmd: String,
    pub group: Option<String>,
    pub unit: Option<String>,
    pub units: Vec<String>,
    pub hex: Option<String>,
    pub note: Option<String>,
    pub side: Option<String>,
    pub weight: Option<f64>,
    pub sweep: Option<bool>,
    /// The entry is a userdata (`map.moves`): the caller reads it.
    pub userdata: bool,
}

/// The entries of a list of actions (`umpire.actions`) in one protected call: each a string,
/// or a table without a metatable whose fields are strings (`units` a list of strings). `None`
/// when some entry is anything else: the caller reads the list the slow way, which names the
/// problem.
pub fn action_entries(lua: &Lua, list: &Table) -> mlua::Result<Option<Vec<RawAction>>> {
    let mut out: Vec<RawAction> = Vec::new();
    let mut odd = false;
    {
        let (out, odd) = (&mut out, &mut odd);
        // SAFETY: the list is the one argument (index 1); an entry and one field at a time above
        // it (three slots, which exec_raw checks); strings are read where they are strings; the
        // vector belongs to the caller (a memory error while a key is pushed leaks nothing).
        unsafe {
            lua.exec_raw::<()>(list, |state| {
                let text = |state: *mut ffi::lua_State, key: &str, ok: &mut bool| -> Option<String> {
                    push_str(state, key);
                    let t = ffi::lua_rawget(state, -2);
                    let v = match t {
                        ffi::LUA_TNIL => None,
                        ffi::LUA_TSTRING => Some(String::from_utf8_lossy(bytes_at(state, -1)).into_owned()),
                        _ => {
                            *ok = false;
                            None
                        }
                    };
                    ffi::lua_pop(state, 1);
                    v
                };
                let mut i = 1;
                loop {
                    match ffi::lua_rawgeti(state, 1, i) {
                        ffi::LUA_TNIL => {
                            ffi::lua_pop(state, 1);
                            break;
                        }
                        ffi::LUA_TSTRING => {
                            out.push(RawAction {
                                cmd: String::from_utf8_lossy(bytes_at(state, -1)).into_owned(),
                                ..RawAction::default()
                            });
                        }
                        ffi::LUA_TTABLE if ffi::lua_getmetatable(state, -1) == 0 => {
                            let mut ok = true;
                            let cmd = text(state, "cmd", &mut ok);
                            let mut a = RawAction {
                                cmd: cmd.unwrap_or_default(),
                                group: text(state, "group", &mut ok),
                                unit: text(state, "unit", &mut ok),
                                hex: text(state, "hex", &mut ok),
                                note: text(state, "note", &mut ok),
                                side: text(state, "side", &mut ok),
                                weight: {
                                    push_str(state, "weight");
                                    let w = match ffi::lua_rawget(state, -2) {
                                        ffi::LUA_TNIL => None,
                                        ffi::LUA_TNUMBER => Some(ffi::lua_tonumber(state, -1)),
                                        _ => {
                                            ok = false;
                                            None
                                        }
                                    };
                                    ffi::lua_pop(state, 1);
                                    // (anything but a number of 0 or more: the slow way names it)
                                    if w.is_some_and(|w| !crate::contract::Action::valid_weight(w)) {
                                        ok = false;
                                    }
                                    w
                                },
                                sweep: {
                                    push_str(state, "sweep");
                                    let b = match ffi::lua_rawget(state, -2) {
                                        ffi::LUA_TNIL => None,
                                        ffi::LUA_TBOOLEAN => Some(ffi::lua_toboolean(state, -1) != 0),
                                        // (anything else: the slow way names it)
                                        _ => {
                                            ok = false;
                                            None
                                        }
                                    };
                                    ffi::lua_pop(state, 1);
                                    b
                                },
                                units: Vec::new(),
                                userdata: false,
                            };
                            push_str(state, "units");
                            match ffi::lua_rawget(state, -2) {
                                ffi::LUA_TNIL => {}
                                ffi::LUA_TTABLE => {
                                    let mut j = 1;
                                    while ffi::lua_rawgeti(state, -1, j) == ffi::LUA_TSTRING {
                                        a.units.push(String::from_utf8_lossy(bytes_at(state, -1)).into_owned());
                                        ffi::lua_pop(state, 1);
                                        j += 1;
                                    }
                                    if ffi::lua_type(state, -1) != ffi::LUA_TNIL {
                                        ok = false;
                                    }
                                    ffi::lua_pop(state, 1);
                                }
                                _ => ok = false,
                            }
                            ffi::lua_pop(state, 1);
                            if !ok || a.cmd.is_empty() {
                                *odd = true;
                            }
                            out.push(a);
                        }
                        ffi::LUA_TUSERDATA => out.push(RawAction { userdata: true, ..RawAction::default() }),
                        _ => *odd = true,
                    }
                    ffi::lua_pop(state, 1);
                    if *odd {
                        break;
                    }
                    i += 1;
                }
            })?;
        }
    }
    Ok(if odd { None } else { Some(out) })
}
