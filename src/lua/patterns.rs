//! Lua's pattern matching (`string.find`, `string.match`, `string.gmatch`, `string.gsub`),
//! ported from Lua 5.4's `lstrlib.c` so that it runs under the instruction budget.
//!
//! The C functions run out of reach of the instruction hook: a pattern that backtracks
//! (`string.rep('a*', 6) .. 'b'` against a hundred `a`s) would hold the process for hours. This
//! port follows the C code function by function, on bytes, with the same results and the same
//! error messages, and counts its steps: every call of `match`, every single-character match,
//! every step of an expansion, and the bytes it compares or copies (one step for each 16), plus
//! 100 for the call itself. The steps are charged to the command's [`Budget`] every 1,000 and at
//! the end of each call, so a runaway pattern stops at the instruction limit with the rule's
//! `file:line`.
//!
//! Errors raised by the port carry the `file:line: ` of the innermost rule frame
//! ([`seal::rule_place`]), where C Lua names the function that called it; the message after
//! that is C Lua's.

use super::{Budget, seal};
use mlua::{Lua, LuaString, MultiValue, Table, Value};
use std::cell::Cell;
use std::rc::Rc;

/// Most captures a pattern may have (`LUA_MAXCAPTURES`).
const MAXCAPTURES: usize = 32;
/// Deepest recursion of `match` (`MAXCCALLS`).
const MAXCCALLS: u32 = 200;
const L_ESC: u8 = b'%';
const SPECIALS: &[u8] = b"^$*+?.([%-";
const CAP_UNFINISHED: isize = -1;
const CAP_POSITION: isize = -2;

/// Steps counted before they are charged to the budget.
const BATCH: u64 = 1_000;
/// Steps charged for each call, whatever it matches: about what the call's fixed cost (reading
/// the arguments, making the results) takes in Lua instructions, so that a loop of small
/// matches spends the budget in about the time a loop of Lua code does.
const CALL_STEPS: u64 = 100;
/// Bytes compared or copied per step.
const BYTES_PER_STEP: usize = 16;
/// Largest string `gsub` builds, whatever the memory limit.
const MAX_RESULT: usize = 32 << 20;

/// Why a pattern function stopped: a message of its own (given the rule's `file:line` when it
/// reaches Lua), or an error of Lua code it called (a replacement function, an `__index`).
enum Fail {
    Msg(String),
    Lua(mlua::Error),
}

impl From<mlua::Error> for Box<Fail> {
    fn from(e: mlua::Error) -> Box<Fail> {
        Box::new(Fail::Lua(e))
    }
}

impl Fail {
    fn raise(self, lua: &Lua) -> mlua::Error {
        match self {
            Fail::Msg(m) => mlua::Error::runtime(format!("{}{m}", seal::rule_place(lua))),
            Fail::Lua(e) => e,
        }
    }
}

fn msg(m: impl Into<String>) -> Box<Fail> {
    Box::new(Fail::Msg(m.into()))
}

/// Boxed, so that the matcher's results stay small.
type Res<T> = Result<T, Box<Fail>>;

/// Installs the four pattern functions in the string table (which is also the `__index` of
/// strings, so `s:find(…)` reaches them), replacing the C ones. The [`Budget`] they charge is
/// the one in the app data when this is called (the host sets it first); without one they
/// count nothing.
pub(super) fn register(lua: &Lua, string: &Table) -> mlua::Result<()> {
    let budget = Rc::new(match lua.app_data_ref::<Budget>() {
        Some(b) => Budget { used: b.used.clone(), limit: b.limit },
        None => Budget { used: Rc::new(Cell::new(0)), limit: u64::MAX },
    });
    let b = budget.clone();
    string.set(
        "find",
        lua.create_function(move |lua, args: MultiValue| find_aux(lua, &b, &args, true).map_err(|f| (*f).raise(lua)))?,
    )?;
    let b = budget.clone();
    string.set(
        "match",
        lua.create_function(move |lua, args: MultiValue| find_aux(lua, &b, &args, false).map_err(|f| (*f).raise(lua)))?,
    )?;
    let b = budget.clone();
    string.set(
        "gmatch",
        lua.create_function(move |lua, args: MultiValue| gmatch(lua, &b, &args).map_err(|f| (*f).raise(lua)))?,
    )?;
    let b = budget;
    string.set(
        "gsub",
        lua.create_function(move |lua, args: MultiValue| gsub(lua, &b, &args).map_err(|f| (*f).raise(lua)))?,
    )?;
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Arguments, checked as the auxiliary library checks them (`luaL_checklstring`, ...)

struct Args<'a> {
    lua: &'a Lua,
    v: &'a MultiValue,
    fname: &'static str,
}

impl Args<'_> {
    /// Argument `i` (from 1), `None` when absent.
    fn get(&self, i: usize) -> Option<&Value> {
        self.v.get(i - 1)
    }

    /// `luaL_argerror`: names the function as Lua called it, not counting `self` in a method call.
    fn arg_error(&self, arg: usize, extramsg: &str) -> Box<Fail> {
        let (name, what) = self
            .lua
            .inspect_stack(0, |d| {
                let n = d.names();
                (n.name.map(|x| x.into_owned()), n.name_what)
            })
            .unwrap_or((None, None));
        let mut arg = arg;
        if what == Some("method") {
            arg -= 1;
            if arg == 0 {
                let name = name.unwrap_or_else(|| "?".into());
                return msg(format!("calling '{name}' on bad self ({extramsg})"));
            }
        }
        let name = name.unwrap_or_else(|| format!("string.{}", self.fname));
        msg(format!("bad argument #{arg} to '{name}' ({extramsg})"))
    }

    /// `luaL_typeerror`.
    fn type_error(&self, arg: usize, tname: &str) -> Box<Fail> {
        let got = match self.get(arg) {
            None => "no value".to_string(),
            Some(Value::LightUserData(_)) => "light userdata".to_string(),
            Some(Value::Table(t)) => match t.metatable().and_then(|m| m.raw_get::<Value>("__name").ok()) {
                Some(Value::String(n)) => n.to_string_lossy(),
                _ => "table".to_string(),
            },
            Some(Value::UserData(u)) => match u.metatable().and_then(|m| m.get::<Value>("__name")) {
                Ok(Value::String(n)) => n.to_string_lossy(),
                _ => "userdata".to_string(),
            },
            Some(v) => type_name(v).to_string(),
        };
        self.arg_error(arg, &format!("{tname} expected, got {got}"))
    }

    /// `luaL_checklstring`: a string, or a number converted to one.
    fn string(&self, i: usize) -> Res<LuaString> {
        match self.get(i) {
            Some(Value::String(s)) => Ok(s.clone()),
            Some(v @ (Value::Integer(_) | Value::Number(_))) => match self.lua.coerce_string(v.clone())? {
                Some(s) => Ok(s),
                None => Err(self.type_error(i, "string")),
            },
            _ => Err(self.type_error(i, "string")),
        }
    }

    /// `luaL_optinteger`.
    fn opt_integer(&self, i: usize, default: i64) -> Res<i64> {
        let v = match self.get(i) {
            None | Some(Value::Nil) => return Ok(default),
            Some(Value::Integer(n)) => return Ok(*n),
            Some(v) => v.clone(),
        };
        if let Some(n) = self.lua.coerce_integer(v.clone())? {
            return Ok(n);
        }
        if self.lua.coerce_number(v)?.is_some() {
            return Err(self.arg_error(i, "number has no integer representation"));
        }
        Err(self.type_error(i, "number"))
    }
}

/// `luaL_typename`.
fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Nil => "nil",
        Value::Boolean(_) => "boolean",
        Value::Integer(_) | Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Table(_) => "table",
        Value::Function(_) => "function",
        Value::Thread(_) => "thread",
        _ => "userdata",
    }
}

fn truthy(v: Option<&Value>) -> bool {
    !matches!(v, None | Some(Value::Nil) | Some(Value::Boolean(false)))
}

/// `posrelatI`: a start position from 1, negative counting from the end, clipped to 1.
fn posrelat_i(pos: i64, len: usize) -> usize {
    if pos > 0 {
        pos as usize
    } else if pos == 0 || pos < -(len as i64) {
        1
    } else {
        (len as i64 + pos + 1) as usize
    }
}

// ---------------------------------------------------------------------------------------------
// The matcher

/// Counts the steps of one call and charges them to the budget in batches.
struct Meter<'a> {
    budget: &'a Budget,
    pending: u64,
    fname: &'static str,
}

impl<'a> Meter<'a> {
    fn new(budget: &'a Budget, fname: &'static str) -> Self {
        Meter { budget, pending: CALL_STEPS, fname }
    }

    /// Counts `n` steps, charged at the next [`Meter::tick`].
    #[inline]
    fn add(&mut self, n: u64) {
        self.pending += n;
    }

    /// Counts `n` steps and charges them when there are enough.
    #[inline]
    fn tick(&mut self, n: u64) -> Res<()> {
        self.pending += n;
        if self.pending >= BATCH { self.flush() } else { Ok(()) }
    }

    /// Steps for `bytes` compared or copied.
    #[inline]
    fn bytes(&mut self, bytes: usize) -> Res<()> {
        self.tick(1 + (bytes / BYTES_PER_STEP) as u64)
    }

    fn flush(&mut self) -> Res<()> {
        let n = std::mem::take(&mut self.pending);
        if n == 0 {
            return Ok(());
        }
        self.budget.charge(n, "pattern matching").map_err(|e| match e {
            mlua::Error::RuntimeError(m) => msg(format!("string.{}: {m}", self.fname)),
            other => Box::new(Fail::Lua(other)),
        })
    }
}

#[derive(Clone, Copy)]
struct Capture {
    init: usize,
    len: isize,
}

/// A capture as returned: the bytes `start..end` of the subject, or a position (from 1).
enum Cap {
    Str(usize, usize),
    Pos(i64),
}

/// `MatchState`: positions are indices into `src` and `pat`; `pat` is the pattern after a
/// leading `^`. Reading at the end of either gives 0, as C reads the terminating `'\0'`.
struct MatchState<'a, 'm> {
    src: &'a [u8],
    pat: &'a [u8],
    matchdepth: u32,
    level: usize,
    capture: [Capture; MAXCAPTURES],
    meter: &'a mut Meter<'m>,
}

impl<'a, 'm> MatchState<'a, 'm> {
    fn new(src: &'a [u8], pat: &'a [u8], meter: &'a mut Meter<'m>) -> Self {
        MatchState {
            src,
            pat,
            matchdepth: MAXCCALLS,
            level: 0,
            capture: [Capture { init: 0, len: 0 }; MAXCAPTURES],
            meter,
        }
    }

    /// `reprepstate`.
    fn reprep(&mut self) {
        self.matchdepth = MAXCCALLS;
        self.level = 0;
    }

    #[inline]
    fn pc(&self, i: usize) -> u8 {
        self.pat.get(i).copied().unwrap_or(0)
    }

    #[inline]
    fn sc(&self, i: usize) -> u8 {
        self.src.get(i).copied().unwrap_or(0)
    }

    fn check_capture(&self, l: u8) -> Res<usize> {
        let l = l as i32 - b'1' as i32;
        if l < 0 || l as usize >= self.level || self.capture[l as usize].len == CAP_UNFINISHED {
            return Err(msg(format!("invalid capture index %{}", l + 1)));
        }
        Ok(l as usize)
    }

    fn capture_to_close(&self) -> Res<usize> {
        (0..self.level)
            .rev()
            .find(|&l| self.capture[l].len == CAP_UNFINISHED)
            .ok_or_else(|| msg("invalid pattern capture"))
    }

    /// The end of the single-character class starting at `p`.
    fn classend(&mut self, p: usize) -> Res<usize> {
        let end = self.pat.len();
        let c = self.pc(p);
        let mut p = p + 1;
        match c {
            L_ESC => {
                if p == end {
                    return Err(msg("malformed pattern (ends with '%')"));
                }
                Ok(p + 1)
            }
            b'[' => {
                let start = p;
                if self.pc(p) == b'^' {
                    p += 1;
                }
                loop {
                    // look for a ']'
                    if p == end {
                        return Err(msg("malformed pattern (missing ']')"));
                    }
                    let c = self.pc(p);
                    p += 1;
                    if c == L_ESC && p < end {
                        p += 1; // skip escapes (e.g. '%]')
                    }
                    if self.pc(p) == b']' {
                        break;
                    }
                }
                self.meter.bytes(p - start)?;
                Ok(p + 1)
            }
            _ => Ok(p),
        }
    }

    /// `matchbracketclass`: `p` is the `[`, `ec` the `]` of the set.
    fn matchbracketclass(&self, c: u8, p: usize, ec: usize) -> bool {
        let mut sig = true;
        let mut p = p;
        if self.pc(p + 1) == b'^' {
            sig = false;
            p += 1; // skip the '^'
        }
        loop {
            p += 1;
            if p >= ec {
                break;
            }
            if self.pc(p) == L_ESC {
                p += 1;
                if match_class(c, self.pc(p)) {
                    return sig;
                }
            } else if self.pc(p + 1) == b'-' && p + 2 < ec {
                p += 2;
                if self.pc(p - 2) <= c && c <= self.pc(p) {
                    return sig;
                }
            } else if self.pc(p) == c {
                return sig;
            }
        }
        !sig
    }

    /// `singlematch`: does the subject's byte at `s` match the class `p..ep`? (Counted; the
    /// count is charged by the caller: every path from here reaches `match` or a check.)
    #[inline]
    fn singlematch(&mut self, s: usize, p: usize, ep: usize) -> bool {
        self.meter.add(1);
        if s >= self.src.len() {
            return false;
        }
        let c = self.src[s];
        match self.pc(p) {
            b'.' => true, // matches any char
            L_ESC => match_class(c, self.pc(p + 1)),
            b'[' => {
                self.meter.add(((ep - p) / BYTES_PER_STEP) as u64);
                self.matchbracketclass(c, p, ep - 1)
            }
            pc => pc == c,
        }
    }

    fn matchbalance(&mut self, s: usize, p: usize) -> Res<Option<usize>> {
        if p + 1 >= self.pat.len() {
            return Err(msg("malformed pattern (missing arguments to '%b')"));
        }
        if self.sc(s) != self.pc(p) {
            return Ok(None);
        }
        let (b, e) = (self.pc(p), self.pc(p + 1));
        let mut cont = 1;
        let mut i = s + 1;
        while i < self.src.len() {
            let c = self.src[i];
            if c == e {
                cont -= 1;
                if cont == 0 {
                    self.meter.bytes(i - s)?;
                    return Ok(Some(i + 1));
                }
            } else if c == b {
                cont += 1;
            }
            i += 1;
        }
        self.meter.bytes(i - s)?;
        Ok(None) // string ends out of balance
    }

    fn max_expand(&mut self, s: usize, p: usize, ep: usize) -> Res<Option<usize>> {
        let mut i = 0; // counts maximum expand for item
        while self.singlematch(s + i, p, ep) {
            i += 1;
        }
        self.meter.tick(0)?;
        // keeps trying to match with the maximum repetitions
        loop {
            if let Some(res) = self.do_match(s + i, ep + 1)? {
                return Ok(Some(res));
            }
            if i == 0 {
                return Ok(None);
            }
            i -= 1; // else didn't match; reduce 1 repetition to try again
        }
    }

    fn min_expand(&mut self, s: usize, p: usize, ep: usize) -> Res<Option<usize>> {
        let mut s = s;
        loop {
            if let Some(res) = self.do_match(s, ep + 1)? {
                return Ok(Some(res));
            } else if self.singlematch(s, p, ep) {
                s += 1; // try with one more repetition
            } else {
                return Ok(None);
            }
        }
    }

    fn start_capture(&mut self, s: usize, p: usize, what: isize) -> Res<Option<usize>> {
        let level = self.level;
        if level >= MAXCAPTURES {
            return Err(msg("too many captures"));
        }
        self.capture[level] = Capture { init: s, len: what };
        self.level = level + 1;
        let res = self.do_match(s, p)?;
        if res.is_none() {
            self.level -= 1; // undo capture
        }
        Ok(res)
    }

    fn end_capture(&mut self, s: usize, p: usize) -> Res<Option<usize>> {
        let l = self.capture_to_close()?;
        self.capture[l].len = (s - self.capture[l].init) as isize; // close capture
        let res = self.do_match(s, p)?;
        if res.is_none() {
            self.capture[l].len = CAP_UNFINISHED; // undo capture
        }
        Ok(res)
    }

    fn match_capture(&mut self, s: usize, l: u8) -> Res<Option<usize>> {
        let l = self.check_capture(l)?;
        let Capture { init, len } = self.capture[l];
        // a position capture's length, read as a size, is never available
        if len < 0 || self.src.len() - s < len as usize {
            return Ok(None);
        }
        let len = len as usize;
        self.meter.bytes(len)?;
        Ok((self.src[init..init + len] == self.src[s..s + len]).then_some(s + len))
    }

    /// `match`: where a match of `pat[p..]` starting at `s` ends, if there is one.
    fn do_match(&mut self, s: usize, p: usize) -> Res<Option<usize>> {
        if self.matchdepth == 0 {
            return Err(msg("pattern too complex"));
        }
        self.matchdepth -= 1;
        self.meter.tick(1)?;
        let (mut s, mut p) = (s, p);
        let end = self.pat.len();
        // `continue` is C's `goto init` (tail recursion)
        let r = loop {
            if p == end {
                break Some(s); // end of pattern
            }
            match self.pc(p) {
                b'(' => {
                    // start capture
                    break if self.pc(p + 1) == b')' {
                        self.start_capture(s, p + 2, CAP_POSITION)?
                    } else {
                        self.start_capture(s, p + 1, CAP_UNFINISHED)?
                    };
                }
                b')' => break self.end_capture(s, p + 1)?, // end capture
                b'$' if p + 1 == end => break (s == self.src.len()).then_some(s),
                L_ESC if self.pc(p + 1) == b'b' => match self.matchbalance(s, p + 2)? {
                    Some(e) => {
                        s = e;
                        p += 4;
                        continue;
                    }
                    None => break None,
                },
                L_ESC if self.pc(p + 1) == b'f' => {
                    p += 2;
                    if self.pc(p) != b'[' {
                        return Err(msg("missing '[' after '%f' in pattern"));
                    }
                    let ep = self.classend(p)?; // points to what is next
                    let previous = if s == 0 { 0 } else { self.src[s - 1] };
                    self.meter.bytes(2 * (ep - p))?;
                    if !self.matchbracketclass(previous, p, ep - 1) && self.matchbracketclass(self.sc(s), p, ep - 1) {
                        p = ep;
                        continue;
                    }
                    break None;
                }
                L_ESC if self.pc(p + 1).is_ascii_digit() => match self.match_capture(s, self.pc(p + 1))? {
                    // capture results (%0-%9)
                    Some(e) => {
                        s = e;
                        p += 2;
                        continue;
                    }
                    None => break None,
                },
                _ => {
                    // pattern class plus optional suffix
                    let ep = self.classend(p)?; // points to optional suffix
                    let suffix = self.pc(ep);
                    if !self.singlematch(s, p, ep) {
                        // does not match at least once: accept empty?
                        if matches!(suffix, b'*' | b'?' | b'-') {
                            p = ep + 1;
                            continue;
                        }
                        break None; // '+' or no suffix
                    }
                    // matched once
                    match suffix {
                        b'?' => {
                            if let Some(res) = self.do_match(s + 1, ep + 1)? {
                                break Some(res);
                            }
                            p = ep + 1;
                            continue;
                        }
                        b'+' => break self.max_expand(s + 1, p, ep)?, // 1 match already done
                        b'*' => break self.max_expand(s, p, ep)?,
                        b'-' => break self.min_expand(s, p, ep)?,
                        _ => {
                            s += 1;
                            p = ep;
                            continue;
                        }
                    }
                }
            }
        };
        self.matchdepth += 1;
        Ok(r)
    }

    /// `get_onecapture`: capture `i`, or the whole match `s..e` when there are none.
    fn get_onecapture(&self, i: usize, s: usize, e: usize) -> Res<Cap> {
        if i >= self.level {
            if i != 0 {
                return Err(msg(format!("invalid capture index %{}", i + 1)));
            }
            return Ok(Cap::Str(s, e));
        }
        let Capture { init, len } = self.capture[i];
        match len {
            CAP_UNFINISHED => Err(msg("unfinished capture")),
            CAP_POSITION => Ok(Cap::Pos(init as i64 + 1)),
            len => Ok(Cap::Str(init, init + len as usize)),
        }
    }

    fn capture_value(&mut self, lua: &Lua, i: usize, s: usize, e: usize) -> Res<Value> {
        Ok(match self.get_onecapture(i, s, e)? {
            Cap::Str(a, b) => {
                self.meter.bytes(b - a)?;
                Value::String(lua.create_string(&self.src[a..b])?)
            }
            Cap::Pos(n) => Value::Integer(n),
        })
    }

    /// `push_captures`: every capture, or the whole match `s..e` (`whole`) when there are none.
    fn captures(&mut self, lua: &Lua, whole: Option<(usize, usize)>, out: &mut Vec<Value>) -> Res<()> {
        let nlevels = if self.level == 0 && whole.is_some() { 1 } else { self.level };
        let (s, e) = whole.unwrap_or((0, 0));
        for i in 0..nlevels {
            let v = self.capture_value(lua, i, s, e)?;
            out.push(v);
        }
        Ok(())
    }
}

/// `match_class`: does `c` belong to the class `%cl` (C locale)?
fn match_class(c: u8, cl: u8) -> bool {
    let res = match cl.to_ascii_lowercase() {
        b'a' => c.is_ascii_alphabetic(),
        b'c' => c.is_ascii_control(),
        b'd' => c.is_ascii_digit(),
        b'g' => c.is_ascii_graphic(),
        b'l' => c.is_ascii_lowercase(),
        b'p' => c.is_ascii_punctuation(),
        b's' => c == b' ' || (b'\t'..=b'\r').contains(&c),
        b'u' => c.is_ascii_uppercase(),
        b'w' => c.is_ascii_alphanumeric(),
        b'x' => c.is_ascii_hexdigit(),
        b'z' => c == 0, // deprecated option
        _ => return cl == c,
    };
    if cl.is_ascii_lowercase() { res } else { !res }
}

/// `lmemfind`: the first occurrence of `s2` in `s1`.
fn lmemfind(meter: &mut Meter, s1: &[u8], s2: &[u8]) -> Res<Option<usize>> {
    let Some((&first, rest)) = s2.split_first() else { return Ok(Some(0)) }; // empty strings are everywhere
    if s2.len() > s1.len() {
        return Ok(None);
    }
    // where `s2` may start
    let last = s1.len() - s2.len();
    let mut from = 0;
    while from <= last {
        let Some(off) = s1[from..=last].iter().position(|&c| c == first) else {
            meter.bytes(last + 1 - from)?;
            return Ok(None);
        };
        let at = from + off;
        meter.bytes(off + rest.len())?;
        if &s1[at + 1..at + s2.len()] == rest {
            return Ok(Some(at));
        }
        from = at + 1;
    }
    Ok(None)
}

// ---------------------------------------------------------------------------------------------
// The library functions

/// `str_find_aux`: `string.find` (`find`) and `string.match`.
fn find_aux(lua: &Lua, budget: &Budget, v: &MultiValue, find: bool) -> Res<MultiValue> {
    let fname = if find { "find" } else { "match" };
    let args = Args { lua, v, fname };
    let s = args.string(1)?;
    let p = args.string(2)?;
    let (s, p) = (s.as_bytes(), p.as_bytes());
    let ls = s.len();
    let init = posrelat_i(args.opt_integer(3, 1)?, ls) - 1;
    if init > ls {
        // start after string's end: cannot find anything
        return Ok(MultiValue::from_vec(vec![Value::Nil]));
    }
    let mut meter = Meter::new(budget, fname);
    let mut out = Vec::new();
    // explicit request or no special characters? do a plain search
    if find && (truthy(args.get(4)) || !p.iter().any(|c| SPECIALS.contains(c))) {
        if let Some(at) = lmemfind(&mut meter, &s[init..], &p)? {
            let start = init + at;
            out.push(Value::Integer(start as i64 + 1));
            out.push(Value::Integer((start + p.len()) as i64));
        }
    } else {
        let anchor = p.first() == Some(&b'^');
        let pat = if anchor { &p[1..] } else { &p[..] };
        let mut ms = MatchState::new(&s, pat, &mut meter);
        let mut s1 = init;
        loop {
            ms.reprep();
            if let Some(res) = ms.do_match(s1, 0)? {
                if find {
                    out.push(Value::Integer(s1 as i64 + 1)); // start
                    out.push(Value::Integer(res as i64)); // end
                    ms.captures(lua, None, &mut out)?;
                } else {
                    ms.captures(lua, Some((s1, res)), &mut out)?;
                }
                break;
            }
            if s1 < ls && !anchor {
                s1 += 1;
            } else {
                break;
            }
        }
    }
    meter.flush()?;
    if out.is_empty() {
        out.push(Value::Nil); // not found
    }
    Ok(MultiValue::from_vec(out))
}

/// `gmatch`: an iterator over the matches of a pattern from `init` on; an empty match right
/// where the previous one ended is skipped (5.4).
fn gmatch(lua: &Lua, budget: &Rc<Budget>, v: &MultiValue) -> Res<mlua::Function> {
    let args = Args { lua, v, fname: "gmatch" };
    let s = args.string(1)?;
    let p = args.string(2)?;
    let ls = s.as_bytes().len();
    let mut init = posrelat_i(args.opt_integer(3, 1)?, ls) - 1;
    if init > ls {
        init = ls + 1; // start after string's end
    }
    let budget = budget.clone();
    // where the next search starts, and where the last match ended
    let state = Cell::new((init, None::<usize>));
    let f = lua.create_function(move |lua, ()| {
        let run = || -> Res<MultiValue> {
            let (src, pat) = (s.as_bytes(), p.as_bytes());
            let mut meter = Meter::new(&budget, "gmatch");
            let mut ms = MatchState::new(&src, &pat, &mut meter);
            let (from, lastmatch) = state.get();
            let mut out = Vec::new();
            for start in from..=src.len() {
                ms.reprep();
                if let Some(e) = ms.do_match(start, 0)?
                    && Some(e) != lastmatch
                {
                    state.set((e, Some(e)));
                    ms.captures(lua, Some((start, e)), &mut out)?;
                    break;
                }
            }
            meter.flush()?;
            Ok(MultiValue::from_vec(out))
        };
        run().map_err(|f| (*f).raise(lua))
    })?;
    Ok(f)
}

/// The replacement argument of `gsub`.
enum Repl {
    Str(LuaString),
    Table(Table),
    Func(mlua::Function),
}

/// The result `gsub` builds, within [`MAX_RESULT`] and the sandbox's largest string.
struct Output<'l> {
    lua: &'l Lua,
    buf: Vec<u8>,
    /// The size past which the limit is looked at (first 1 MiB, then the limit itself).
    check_at: usize,
    limit: Option<usize>,
}

impl Output<'_> {
    fn add(&mut self, meter: &mut Meter, bytes: &[u8]) -> Res<()> {
        meter.bytes(bytes.len())?;
        self.buf.extend_from_slice(bytes);
        if self.buf.len() > self.check_at {
            let limit = match self.limit {
                Some(l) => l,
                None => {
                    let l = self.max_string()?;
                    self.limit = Some(l);
                    l
                }
            };
            if self.buf.len() > limit {
                return Err(msg(format!("string.gsub: a result of more than {limit} bytes is over the memory limit")));
            }
            self.check_at = limit;
        }
        Ok(())
    }

    /// The largest string the sandbox allows (`__umpire.max_string`), at most [`MAX_RESULT`].
    fn max_string(&self) -> Res<usize> {
        let internal = self.lua.globals().get::<Value>("__umpire")?;
        let max = match internal {
            Value::Table(t) => t.get::<Option<i64>>("max_string").ok().flatten(),
            _ => None,
        };
        Ok(max.map_or(MAX_RESULT, |m| (m.max(0) as usize).min(MAX_RESULT)))
    }
}

/// `add_s`: the replacement string, its `%0`-`%9` and `%%` replaced.
fn add_s(ms: &mut MatchState, out: &mut Output, news: &[u8], s: usize, e: usize) -> Res<()> {
    let mut i = 0;
    while let Some(off) = news[i..].iter().position(|&c| c == L_ESC) {
        out.add(ms.meter, &news[i..i + off])?;
        let q = i + off + 1; // skip ESC
        let c = news.get(q).copied().unwrap_or(0);
        if c == L_ESC {
            out.add(ms.meter, b"%")?; // '%%'
        } else if c == b'0' {
            out.add(ms.meter, &ms.src[s..e])?; // '%0'
        } else if c.is_ascii_digit() {
            // '%n'
            match ms.get_onecapture((c - b'1') as usize, s, e)? {
                Cap::Str(a, b) => out.add(ms.meter, &ms.src[a..b])?,
                Cap::Pos(n) => out.add(ms.meter, n.to_string().as_bytes())?,
            }
        } else {
            return Err(msg("invalid use of '%' in replacement string"));
        }
        i = q + 1;
    }
    out.add(ms.meter, &news[i..])
}

/// `add_value`: adds the replacement of the match `s..e`; whether the subject changed (a
/// function or table giving nil or false keeps the match).
fn add_value(lua: &Lua, ms: &mut MatchState, out: &mut Output, s: usize, e: usize, repl: &Repl) -> Res<bool> {
    let v: Value = match repl {
        Repl::Str(r) => {
            add_s(ms, out, &r.as_bytes(), s, e)?;
            return Ok(true);
        }
        Repl::Func(f) => {
            let mut caps = Vec::new();
            ms.captures(lua, Some((s, e)), &mut caps)?;
            ms.meter.flush()?;
            f.call(MultiValue::from_vec(caps))?
        }
        Repl::Table(t) => {
            let k = ms.capture_value(lua, 0, s, e)?; // first capture is the index
            ms.meter.flush()?;
            t.get(k)?
        }
    };
    match v {
        Value::Nil | Value::Boolean(false) => {
            out.add(ms.meter, &ms.src[s..e])?; // keep original text
            Ok(false)
        }
        Value::String(r) => {
            out.add(ms.meter, &r.as_bytes())?;
            Ok(true)
        }
        v @ (Value::Integer(_) | Value::Number(_)) => {
            let r = lua.coerce_string(v)?.map(|r| r.as_bytes().to_vec()).unwrap_or_default();
            out.add(ms.meter, &r)?;
            Ok(true)
        }
        other => Err(msg(format!("invalid replacement value (a {})", type_name(&other)))),
    }
}

/// `str_gsub`.
fn gsub(lua: &Lua, budget: &Budget, v: &MultiValue) -> Res<MultiValue> {
    let args = Args { lua, v, fname: "gsub" };
    let subject = args.string(1)?;
    let p = args.string(2)?;
    let src = subject.as_bytes();
    let srcl = src.len();
    let repl = args.get(3).cloned().unwrap_or(Value::Nil);
    let max_s = args.opt_integer(4, srcl as i64 + 1)?; // max replacements
    let repl = match repl {
        Value::String(r) => Repl::Str(r),
        v @ (Value::Integer(_) | Value::Number(_)) => match lua.coerce_string(v)? {
            Some(r) => Repl::Str(r),
            None => return Err(args.type_error(3, "string/function/table")),
        },
        Value::Table(t) => Repl::Table(t),
        Value::Function(f) => Repl::Func(f),
        _ => return Err(args.type_error(3, "string/function/table")),
    };
    let p = p.as_bytes();
    let anchor = p.first() == Some(&b'^');
    let pat = if anchor { &p[1..] } else { &p[..] };
    let mut meter = Meter::new(budget, "gsub");
    let mut out = Output { lua, buf: Vec::new(), check_at: 1 << 20, limit: None };
    let mut ms = MatchState::new(&src, pat, &mut meter);
    let mut at = 0;
    let mut lastmatch = None;
    let mut n: i64 = 0; // replacement count
    let mut changed = false;
    while n < max_s {
        ms.reprep();
        match ms.do_match(at, 0)? {
            Some(e) if Some(e) != lastmatch => {
                n += 1;
                changed |= add_value(lua, &mut ms, &mut out, at, e, &repl)?;
                at = e;
                lastmatch = Some(e);
            }
            // otherwise, skip one character
            _ if at < srcl => {
                out.add(ms.meter, &src[at..at + 1])?;
                at += 1;
            }
            _ => break, // end of subject
        }
        if anchor {
            break;
        }
    }
    let result = if changed {
        out.add(ms.meter, &src[at..])?;
        Value::String(lua.create_string(&out.buf)?)
    } else {
        Value::String(subject.clone()) // the original string
    };
    meter.flush()?;
    Ok(MultiValue::from_vec(vec![result, Value::Integer(n)]))
}

#[cfg(test)]
mod tests {
    //! The port against C Lua's own functions: the same Lua code runs in a plain VM (the C
    //! string library) and in one with the port installed, and every result must be the same.

    use super::*;

    fn ours() -> Lua {
        let lua = Lua::new();
        let string: Table = lua.globals().get("string").unwrap();
        register(&lua, &string).unwrap();
        lua
    }

    /// Helpers both VMs share: `run(f, ...)` calls `f` in a Lua frame (so that an error names
    /// a line in both VMs) and describes what it returned or raised; `seq(...)` runs
    /// `string.gmatch(...)` to its end.
    const HARNESS: &str = r##"
local function ser1(v)
  local t = type(v)
  if t == "string" then return string.format("%q", v)
  elseif t == "number" then return math.type(v) .. ":" .. tostring(v)
  else return tostring(v) end
end
local function describe(ok, ...)
  if not ok then return "ERR " .. tostring((...)) end
  local n = select("#", ...)
  local parts = {}
  for i = 1, n do parts[i] = ser1((select(i, ...))) end
  return "OK(" .. n .. ") " .. table.concat(parts, ",")
end
function run(f, ...)
  local args = table.pack(...)
  return describe(pcall(function()
    local r = table.pack(f(table.unpack(args, 1, args.n)))
    return table.unpack(r, 1, r.n)
  end))
end
function seq(...)
  local args = table.pack(...)
  return describe(pcall(function()
    local it = string.gmatch(table.unpack(args, 1, args.n))
    local out = {}
    for _ = 1, 300 do
      local r = table.pack(it())
      if r.n == 0 then out[#out + 1] = "end" break end
      local parts = {}
      for j = 1, r.n do parts[j] = ser1(r[j]) end
      out[#out + 1] = table.concat(parts, ",")
    end
    return table.concat(out, " | ")
  end))
end
"##;

    /// The generated cases: subjects × patterns × start positions for `find` and `match`, the
    /// plain `find`, `gmatch` sequences, and `gsub` with every kind of replacement and count.
    const CASES: &str = r##"
local subjects = { "", "a", "aaa", "aaab", "hello world", "  x = 10, y = 20  ",
  "THE (quick) [brown] fox!", "a.b-c+d*e?f^g$h", "\0a\0b\0", "ab12cd34EF", "f(a(b)c)d(e",
  "x\ny\tz\r\v\f", "caf\195\169 \226\130\172", "%%a%", "]]^^--", "key=val; k2=v2;",
  "THE END", string.rep("ab", 8), "[[x]] [y", "\1\127\128\255" }
local patterns = { "", "a", "b", "x", "^a", "^", "$", "a$", "^$", "^a$", ".", "..", ".-", ".*",
  ".+", ".?", "a*", "a+", "a-", "a?", "a-b", "a*b", "^a*", "a*$", "%a+", "%A+", "%c", "%C+",
  "%d+", "%D+", "%g+", "%G", "%l+", "%L+", "%p+", "%P+", "%s+", "%S+", "%u+", "%U+", "%w+",
  "%W+", "%x+", "%X+", "%z", "%Z+", "%.", "%%", "%]", "[abc]+", "[^abc]+", "[a-f]+",
  "[%a_][%w_]*", "[%d%.]+", "[]]", "[^]]+", "[a-]", "[-a]+", "[%-+]", "[.]", "[^%s]+",
  "[a-c-e]+", "[%]]", "[^%]]+", "[%w%p]+", "[\0-\31]+", "[\128-\255]+", "\0", "[%z]", "a\0b",
  "(a)", "(a*)", "(a)(b)", "()a()", "()", "(h)(e)(l)(l)(o)", "((a)(b))", "(%w+)=(%w+)",
  "(%w+) (%w+)", "(.)%1", "(a*)%1", "(%a+).-%1", "()aa()", "(()a)", "(a)(()b)", "(.-)%s",
  "%bxy", "%b()", "%b[]", "%b%%", "%b\0\0", "%f[%a]%a+", "%f[%A]", "%f[%w]%w+", "%f[%z]",
  "%f[^%z]", "%f[%S]%S+%f[%s]", "%f[a]", "^(%s*)(.-)(%s*)$", "%s*(%S+)%s*", "^%s*(.-)%s*$",
  "(%d+)(%a*)", "[%u][%l]*", "%$", "%^", "a%-", "$a", "a^", "^^", "%w-d", "[a-]+", "x*",
  "(x*)", "()x*()", "[[]", "[^[]+", "[%[%]]+", "%[%[(.-)%]%]", "b*a?", "a-$", ".-b", "(.-)b" }
-- malformed patterns, and patterns that fail as they match
local bad = { "[", "[a", "[^", "[^a", "%", "a%", "(", "a)", ")", "(()", "%b", "%ba", "%f", "%fa",
  "%f[a", "%1", "(a)%2", "%0", "(a)%1%2", "(a%1)", "[%", "[a%", "%g[", "(a", "((a)", "%b()(", "[]" }
local inits = { "nil", 1, 2, 0, -1, -3, -100, 4, 100, "2", 2.0 }
local bad_inits = { 1.5, {}, "x", math.maxinteger, math.mininteger }
local function arg(v) if v == "nil" then return nil end return v end
local function show(v)
  if type(v) == "string" then return string.format("%q", v) end
  return tostring(v)
end
local names, results = {}, {}
local function case(name, r) names[#names + 1] = name results[#results + 1] = r end

for _, s in ipairs(subjects) do
  for _, p in ipairs(patterns) do
    local sp = show(s) .. ", " .. show(p)
    for _, i in ipairs(inits) do
      local ii = arg(i)
      case("find(" .. sp .. ", " .. show(i) .. ")", run(string.find, s, p, ii))
      case("match(" .. sp .. ", " .. show(i) .. ")", run(string.match, s, p, ii))
    end
    for _, i in ipairs({ 1, -3, 7 }) do
      for _, plain in ipairs({ true, false }) do
        case("find(" .. sp .. ", " .. i .. ", " .. tostring(plain) .. ")", run(string.find, s, p, i, plain))
      end
    end
    case("gmatch(" .. sp .. ")", seq(s, p))
    for _, i in ipairs({ 3, -2, 100 }) do
      case("gmatch(" .. sp .. ", " .. i .. ")", seq(s, p, i))
    end
  end
  for _, p in ipairs(bad) do
    local sp = show(s) .. ", " .. show(p)
    case("find(" .. sp .. ")", run(string.find, s, p))
    case("find(" .. sp .. ", 2, true)", run(string.find, s, p, 2, true))
    case("match(" .. sp .. ")", run(string.match, s, p))
    case("gmatch(" .. sp .. ")", seq(s, p))
    case("gsub(" .. sp .. ")", run(string.gsub, s, p, "<%0>"))
  end
end
for k = 1, 6 do
  local s = subjects[k]
  for _, p in ipairs({ "", "a", "^a", "(a)", "%w+" }) do
    local sp = show(s) .. ", " .. show(p)
    for _, i in ipairs(bad_inits) do
      case("find(" .. sp .. ", " .. show(i) .. ")", run(string.find, s, p, i))
      case("match(" .. sp .. ", " .. show(i) .. ")", run(string.match, s, p, i))
      case("gmatch(" .. sp .. ", " .. show(i) .. ")", seq(s, p, i))
    end
  end
end

local tbl = setmetatable({ hello = "HI", a = "A", ["1"] = "one", [1] = "pos1", [3] = 3.5,
  x = false, b = 12, l = {}, key = "K", THE = "the" }, { __index = function(_, k)
    if k == "world" then return "WORLD" end
  end })
local repls = { "<%0>", "[%1]", "%2%1", "%%", "-", "", "%", "%x", "%9", "%1%", 7, 2.5,
  tbl,
  function(a) if type(a) == "string" then return string.upper(a) end return a end,
  function() return nil end,
  function() return false end,
  function() return 3.0 end,
  function() return {} end,
  function(...)
    local t = table.pack(...)
    local parts = {}
    for i = 1, t.n do parts[i] = type(t[i]) .. "=" .. tostring(t[i]) end
    return "{" .. t.n .. ":" .. table.concat(parts, ";") .. "}"
  end,
  function() error("boom") end,
  true, "nil" }
for _, s in ipairs(subjects) do
  for _, p in ipairs(patterns) do
    local sp = show(s) .. ", " .. show(p)
    for k, r in ipairs(repls) do
      case("gsub(" .. sp .. ", repl " .. k .. ")", run(string.gsub, s, p, arg(r)))
    end
    for _, n in ipairs({ 0, 1, 2, -1, 1.5, "2" }) do
      case("gsub(" .. sp .. ", \"<%0>\", " .. show(n) .. ")", run(string.gsub, s, p, "<%0>", n))
    end
  end
end
-- one string each: the Rust side then reads two values, not thousands
return table.concat(names, "\30"), table.concat(results, "\30")
"##;

    /// Expressions of their own: methods, argument errors, limits of the C code.
    const EXPRESSIONS: &[&str] = &[
        r##"("hello"):find("l")"##,
        r##"("hello"):match("(h)(e)")"##,
        r##"("hello"):gsub("l", "L")"##,
        r##"("x"):find({})"##,
        r##"("x"):find()"##,
        r##"("x"):gsub("x")"##,
        r##"("x"):gsub("x", true)"##,
        r##"("x"):match("x", 1.5)"##,
        r##"("abc"):gmatch(".")()"##,
        r##"("abc"):gmatch()"##,
        r##"string.find()"##,
        r##"string.find("a")"##,
        r##"string.find(nil, "a")"##,
        r##"string.find(123, 2)"##,
        r##"string.find(1.5, ".")"##,
        r##"string.find(2^63, "e")"##,
        r##"string.match(2^53, "%d+")"##,
        r##"string.match(-0.0, ".*")"##,
        r##"string.gsub(12345, "%d", "%0%0")"##,
        r##"string.gsub(12345, "7", "x")"##,
        r##"string.gsub("abc", "b", 5)"##,
        r##"string.gsub("abc", "%w", "%0", "2")"##,
        r##"string.gsub("abc", "%w", "%0", 1.5)"##,
        r##"string.gsub("abc", "%w", "%0", {})"##,
        r##"string.gsub("abc", "%w", nil, 1.5)"##,
        r##"string.gsub("abc", "%w")"##,
        r##"string.find("abc", "b", 1.5)"##,
        r##"string.find("abc", "b", "x")"##,
        r##"string.find("abc", "b", "2")"##,
        r##"string.find("abc", "b", " 0x2 ")"##,
        r##"string:find("a")"##,
        r##"string.gmatch()"##,
        r##"string.gmatch("a")"##,
        r##"string.gmatch("abc", ".", {})"##,
        r##"string.find(setmetatable({}, { __name = "Thing" }), "x")"##,
        r##"string.find(setmetatable({}, { __name = 3 }), "x")"##,
        r##"string.find(print, "x")"##,
        r##"string.find(handle, "x")"##,
        r##"string.gsub("x", "x", bare)"##,
        r##"string.find(coroutine.create(print), "x")"##,
        r##"string.find(true, "x")"##,
        r##"select("#", string.find("abc", "(x)"))"##,
        r##"string.find(string.rep("a", 300), string.rep("a?", 300))"##,
        r##"string.find(string.rep("a", 190), string.rep("a?", 190))"##,
        r##"string.match(string.rep("a", 300), string.rep("(a)", 32))"##,
        r##"string.match(string.rep("a", 300), string.rep("(a)", 33))"##,
        r##"string.find("a", string.rep("()", 40))"##,
        r##"string.find(string.rep("a", 20), string.rep("a*", 6) .. "b")"##,
        r##"string.find(string.rep("x", 1000) .. "y", string.rep("x", 999) .. "y", 1, true)"##,
        r##"string.find(string.rep("x", 1000) .. "y", string.rep("x", 999) .. "y")"##,
        r##"string.find("a\0b", "\0", 1, true)"##,
        r##"string.find("a\0b", "\0b")"##,
        r##"string.gsub("xxx", "x", "%1")"##,
        r##"string.gsub("abc", "(b)", "%2")"##,
        r##"string.gsub("abc", "b", "%")"##,
        r##"string.gsub("abc", "(b", "x")"##,
        r##"string.gsub("abc", "(b", "%1")"##,
        r##"string.gsub("abc", "(b", "%0")"##,
        r##"string.gsub("abc", "(b", {})"##,
        r##"string.gsub("abc", "(b", function(...) return select("#", ...) end)"##,
        r##"string.gsub("hello", "", "-")"##,
        r##"string.gsub("abc", ".-", "-")"##,
        r##"string.gsub("abc", "x*", "-")"##,
        r##"string.gsub("", "", "x")"##,
        r##"string.gsub("abc", "^", ">")"##,
        r##"string.gsub("abc", "$", "<")"##,
        r##"string.gsub("abc", "^.", "X", 0)"##,
        r##"string.gsub("hello world", "o", { o = "0" })"##,
        r##"string.gsub("abc", "%w", setmetatable({}, { __index = function(t, k) return k:upper() end }))"##,
        r##"string.gsub("abc", "()b()", "%1-%2")"##,
        r##"string.gsub("abc", "()", "%1")"##,
        r##"string.gsub("abc", "()", { [2] = "two" })"##,
        r##"string.gsub("abc", "%w", function(c) return c .. c, "ignored" end)"##,
        r##"string.gsub("hello world", "(o)", "%1%1", 1)"##,
        r##"string.gsub("aaa", "a", "b", math.maxinteger)"##,
        r##"string.gsub("aaa", "a", "b", math.mininteger)"##,
        r##"string.find("abc", "b", math.mininteger)"##,
        r##"string.find("abc", "b", math.maxinteger)"##,
        r##"string.find("abc", "", 4)"##,
        r##"string.find("abc", "", 5)"##,
        r##"string.match("abc", "()", 4)"##,
        r##"string.gmatch("abc", ".", math.maxinteger)()"##,
        r##"string.gmatch("abc", ".", math.mininteger)()"##,
        r##"string.gmatch("abc", "", 4)()"##,
        r##"string.gmatch("abc", "", 5)()"##,
        r##"(function() local it = string.gmatch("a,b,,c", "([^,]*)") return it(), it(), it(), it(), it(), it() end)()"##,
        r##"(function() local n = 0 for k, v in string.gmatch("a=1, b=2, c=3", "(%w+)=(%w+)") do n = n + v end return n end)()"##,
        r##"(function() local it = string.gmatch("abc", "(") return it() end)()"##,
        r##"(function() local it = string.gmatch("abc", "b") return it(), it(), it() end)()"##,
        r##"string.gsub("abc", ".", { a = true })"##,
        r##"string.gsub("abc", ".", function() return coroutine.create(print) end)"##,
        r##"string.gsub("abc", ".", function() return print end)"##,
        r##"string.gsub("a.b", "%.", "%%")"##,
        r##"string.format("%s", string.gsub("x", "x", "%%%%"))"##,
        r##"string.find("[[", "[[]")"##,
        r##"string.find("x]", "[]]")"##,
        r##"string.find("x", "[^]")"##,
        r##"string.find("f", "[a-]", 1)"##,
        r##"string.find("-", "[a-]", 1)"##,
        r##"string.find("THE END", "%f[%w]%w+", 2)"##,
        r##"string.find("x", "%f")"##,
        r##"string.find("", "%f[%z]")"##,
        r##"string.find("a", "%f[%z]")"##,
        r##"string.match(" x ", "^%s*(.-)%s*$")"##,
    ];

    struct Handle;
    impl mlua::UserData for Handle {
        fn add_fields<F: mlua::UserDataFields<Self>>(fields: &mut F) {
            fields.add_meta_field(mlua::MetaMethod::Type, "Handle");
        }
    }

    /// What a VM made of the cases: (case, result) pairs, errors cut to their message.
    fn results(lua: &Lua) -> Vec<(String, String)> {
        lua.load(HARNESS).set_name("=harness").exec().unwrap();
        // a userdata with a `__name`, and one without
        lua.globals().set("handle", lua.create_userdata(Handle).unwrap()).unwrap();
        lua.globals().set("bare", lua.create_any_userdata(()).unwrap()).unwrap();
        let (names, results): (LuaString, LuaString) = lua.load(CASES).set_name("=cases").eval().unwrap();
        let (names, results) = (names.to_string_lossy(), results.to_string_lossy());
        let mut out: Vec<(String, String)> =
            names.split('\x1e').map(String::from).zip(results.split('\x1e').map(String::from)).collect();
        let run: mlua::Function = lua.globals().get("run").unwrap();
        for e in EXPRESSIONS {
            let f = lua.load(format!("return {e}")).set_name("=expression").into_function().unwrap();
            let r: LuaString = run.call(f).unwrap();
            out.push((e.to_string(), r.to_string_lossy()));
        }
        out.into_iter().map(|(n, r)| (n, message(&r))).collect()
    }

    /// An error's message without the `file:line: ` it starts with or mlua's traceback (and the
    /// `runtime error: ` by which an error of a Rust function reads in Lua).
    fn message(r: &str) -> String {
        let Some(e) = r.strip_prefix("ERR ") else { return r.to_string() };
        let e = e.strip_prefix("runtime error: ").unwrap_or(e);
        let e = e.split("\nstack traceback:").next().unwrap_or(e);
        let e = match e.split_once(": ") {
            Some((place, rest)) if place.rsplit_once(':').is_some_and(|(_, l)| l.parse::<u32>().is_ok()) => rest,
            _ => e,
        };
        format!("ERR {}", e.trim_end())
    }

    #[test]
    fn the_port_gives_what_c_lua_gives() {
        let theirs = results(&Lua::new());
        let ours = results(&ours());
        assert_eq!(theirs.len(), ours.len());
        assert!(theirs.len() > 50_000, "{} cases", theirs.len());
        let differ: Vec<String> = theirs
            .iter()
            .zip(&ours)
            .filter(|(t, o)| t.1 != o.1)
            .take(20)
            .map(|(t, o)| format!("{}\n  C Lua: {}\n  port:  {}", t.0, t.1, o.1))
            .collect();
        assert!(differ.is_empty(), "{} differences, first:\n{}", differ.len(), differ.join("\n"));
        // the cases reach every kind of answer
        let all: Vec<&str> = theirs.iter().map(|(_, r)| r.as_str()).collect();
        for want in [
            "malformed pattern (missing ']')",
            "malformed pattern (ends with '%')",
            "malformed pattern (missing arguments to '%b')",
            "missing '[' after '%f' in pattern",
            "invalid capture index %2",
            "invalid capture index %0",
            "invalid pattern capture",
            "unfinished capture",
            "too many captures",
            "pattern too complex",
            "invalid use of '%' in replacement string",
            "invalid replacement value (a table)",
            "bad argument #1 to 'find' (string expected, got table)",
            "bad argument #3 to 'find' (number has no integer representation)",
            "(string/function/table expected, got boolean)",
            "calling 'find' on bad self",
            "got Thing",
            "got Handle",
            "boom",
            "integer:",
        ] {
            assert!(all.iter().any(|r| r.contains(want)), "no case gives {want:?}");
        }
    }

    /// A Lua with the port charging a budget of `limit` steps.
    fn budgeted(limit: u64) -> (Lua, Rc<Cell<u64>>) {
        let lua = Lua::new();
        let used = Rc::new(Cell::new(0));
        lua.set_app_data(Budget { used: used.clone(), limit });
        let string: Table = lua.globals().get("string").unwrap();
        register(&lua, &string).unwrap();
        (lua, used)
    }

    #[test]
    fn runaway_patterns_stop_at_the_budget() {
        for (code, fname) in [
            ("string.find(string.rep('a', 100), string.rep('a*', 6) .. 'b')", "find"),
            ("string.match(string.rep('a', 30), string.rep('a-', 25) .. 'b')", "match"),
            ("for x in string.gmatch(string.rep('a', 100), string.rep('a*', 6) .. 'b') do end", "gmatch"),
            ("string.gsub(string.rep('a', 100), string.rep('a*', 6) .. 'b', '')", "gsub"),
            ("('a'):rep(100):find(('a*'):rep(6) .. 'b')", "find"),
            ("string.find(string.rep('a', 5e5), string.rep('a', 4e5) .. 'b', 1, true)", "find"),
            ("string.find(string.rep('(', 1e4), '%b()')", "find"),
        ] {
            let (lua, _) = budgeted(2_000_000);
            let e = lua.load(code).set_name("=rule").exec().unwrap_err().to_string();
            let want = format!(
                "rule:1: string.{fname}: instruction limit exceeded (2000000 in one command, pattern matching included)"
            );
            assert!(e.contains(&want), "{code}: {e}");
        }
    }

    #[test]
    fn ordinary_matches_charge_a_few_steps() {
        let (lua, used) = budgeted(1_000_000);
        let r: (i64, i64) = lua.load("return ('hello world'):find('o w')").eval().unwrap();
        assert_eq!(r, (5, 7));
        let r: String = lua.load("return (string.gsub('hello world', '%w+', '<%0>'))").eval().unwrap();
        assert_eq!(r, "<hello> <world>");
        // the calls' fixed charge and a few dozen steps
        assert!(used.get() > 2 * CALL_STEPS && used.get() < 2 * CALL_STEPS + 200, "{}", used.get());
    }

    #[test]
    fn a_gsub_result_is_bounded() {
        let lua = ours();
        let e = lua
            .load("local s = string.rep('x', 1 << 20) return string.gsub(s, 'x', string.rep('y', 64))")
            .set_name("=rule")
            .exec()
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("rule:1: string.gsub: a result of more than 33554432 bytes is over the memory limit"),
            "{e}"
        );
    }
}
