//! Errors of rule code as the program says them: refusals with their rule, Lua errors with
//! file:line and a tidy traceback, syntax errors with their column, memory errors with the
//! place the rule was.

use super::*;
use crate::error::Error;
use mlua::chunk::ChunkMode;
use mlua::{Function, Lua, Thread};

/// A rule refused an action; carried through Lua as an external error.
#[derive(Debug, Clone)]
pub struct Refusal {
    pub rule: String,
    pub msg: String,
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "refused ({}): {}", self.rule, self.msg)
    }
}

impl std::error::Error for Refusal {}

pub(super) fn refuse(rule: String, msg: String) -> mlua::Error {
    mlua::Error::external(Refusal { rule, msg })
}

/// A usage problem detected by the API (bad unit id in a rule call that came from a player).
pub(super) fn find_refusal(e: &mlua::Error) -> Option<Refusal> {
    match e {
        mlua::Error::ExternalError(x) => x.downcast_ref::<Refusal>().cloned(),
        mlua::Error::CallbackError { cause, .. } => find_refusal(cause),
        mlua::Error::WithContext { cause, .. } => find_refusal(cause),
        _ => None,
    }
}

/// A syntax error, possibly raised inside a Rust callback (`require` reading a file).
pub(super) fn is_syntax_error(e: &mlua::Error) -> bool {
    match e {
        mlua::Error::SyntaxError { .. } => true,
        mlua::Error::CallbackError { cause, .. } | mlua::Error::WithContext { cause, .. } => is_syntax_error(cause),
        _ => false,
    }
}

/// Compiles a rule file (`chunk_name` is its path as messages show it). A syntax error names
/// `file:line:column`: Lua's message gives the line and the token it stopped at (`near ')'`),
/// and the column is that token's place on the line — the first occurrence of the token there
/// at which the file, cut just after it, fails with the same message (an earlier occurrence
/// was read without error, so the cut file would end too early there: `near <eof>`).
pub(super) fn compile(lua: &Lua, src: &str, chunk_name: &str) -> mlua::Result<Function> {
    if let Some(f) = chunks::cached(lua, src, chunk_name) {
        return Ok(f);
    }
    let load = |text: &str| lua.load(text).set_name(format!("@{chunk_name}")).set_mode(ChunkMode::Text).into_function();
    match load(src) {
        Ok(f) => {
            chunks::keep(&f, src, chunk_name);
            Ok(f)
        }
        Err(mlua::Error::SyntaxError { message, incomplete_input }) => {
            let message = match syntax_column(src, &message, |cut| match load(cut) {
                Err(mlua::Error::SyntaxError { message, .. }) => Some(message),
                _ => None,
            }) {
                Some((n, col)) => format!("{}:{col}{}", &message[..n], &message[n..]),
                None => message,
            };
            Err(mlua::Error::SyntaxError { message, incomplete_input })
        }
        r => r,
    }
}

/// Where to insert the column in a syntax error's message (just after `file:line`), and the
/// column; `fails(cut)` is the message of compiling a cut of the source.
pub(super) fn syntax_column(
    src: &str,
    message: &str,
    fails: impl Fn(&str) -> Option<String>,
) -> Option<(usize, usize)> {
    let head = message.lines().next()?;
    // `<file>:<line>: ` — the last such place before the message text
    let (n, line) = (0..head.len()).rev().find_map(|i| {
        let rest = head.get(i..)?.strip_prefix(':')?;
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        (digits > 0 && rest[digits..].starts_with(": ")).then(|| (i + 1 + digits, rest[..digits].parse::<usize>()))
    })?;
    let line = line.ok()?;
    let near = head.rsplit_once(" near ")?.1;
    let line_start: usize = src.split_inclusive('\n').take(line - 1).map(str::len).sum();
    let text = src.get(line_start..)?.split('\n').next()?.trim_end_matches('\r');
    if near == "<eof>" {
        return Some((n, text.chars().count() + 1));
    }
    let token = near.strip_prefix('\'')?.strip_suffix('\'')?;
    let starts: Vec<usize> = text.match_indices(token).map(|(i, _)| i).collect();
    let column = |i: usize| text[..i].chars().count() + 1;
    let exact = starts.iter().find(|&&i| fails(&src[..line_start + i + token.len()]).as_deref() == Some(message));
    exact.or(starts.first()).map(|&i| (n, column(i)))
}

/// A memory error, possibly raised inside a Rust callback (`require` loading a module).
pub(super) fn is_memory_error(e: &mlua::Error) -> bool {
    match e {
        mlua::Error::MemoryError(_) => true,
        mlua::Error::CallbackError { cause, .. } | mlua::Error::WithContext { cause, .. } => is_memory_error(cause),
        _ => false,
    }
}

/// Converts a Lua error into the library's error: refusals keep their rule number, anything
/// else is a rule bug reported with file:line and traceback.
pub(super) fn convert_error(e: mlua::Error) -> Error {
    if let Some(r) = find_refusal(&e) {
        return Error::Refused { rule: r.rule, msg: r.msg };
    }
    Error::Lua(tidy_traceback(&clean_message(&e)))
}

/// Keeps one traceback and only the frames of rule code (not the prelude's plumbing). The
/// message names one place: a place repeated by each coroutine an error went through is named
/// once, and an error the prelude raised on behalf of rule code (a stack overflow) names the
/// rule's line.
pub(super) fn tidy_traceback(msg: &str) -> String {
    let (head, rest) = msg.split_once('\n').map_or((msg, None), |(h, r)| (h, Some(r)));
    let mut head = collapse_places(head);
    if head.starts_with(PRELUDE_PLACE)
        && let (Some(n), Some(frame)) = (leading_place(&head), rest.and_then(|r| r.lines().find_map(rule_frame)))
    {
        head = format!("{frame}: {}", &head[n..]);
    }
    let msg = match rest {
        Some(r) => format!("{head}\n{r}"),
        None => head,
    };
    let mut out: Vec<&str> = Vec::new();
    let mut in_tb = false;
    let mut seen_tb = false;
    for l in msg.lines() {
        let t = l.trim();
        if t == "stack traceback:" {
            if seen_tb {
                break;
            }
            seen_tb = true;
            in_tb = true;
            out.push(l);
            continue;
        }
        if in_tb
            && (t.contains("<umpire prelude>")
                || t.starts_with("[C]: in function 'error'")
                || t.starts_with("[C]: in function 'xpcall'")
                || t.starts_with("[C]: in upvalue 'xpcall'")
                || t.starts_with("[C]: in field 'thread_error'")
                || t.starts_with("[C]: in ?")
                || t == "(...tail calls...)")
        {
            continue;
        }
        out.push(l);
    }
    if out.last().is_some_and(|l| l.trim() == "stack traceback:") {
        out.pop();
    }
    out.join("\n")
}

/// How the prelude's chunk is named in messages.
pub(super) const PRELUDE_PLACE: &str = "<umpire prelude>";

/// The length of the `file:line: ` a message starts with, if it starts with one.
pub(super) fn leading_place(s: &str) -> Option<usize> {
    let colon = s.find(':')?;
    let file = &s[..colon];
    if file.is_empty() || (file != PRELUDE_PLACE && file.contains(char::is_whitespace)) {
        return None;
    }
    let digits = s[colon + 1..].bytes().take_while(u8::is_ascii_digit).count();
    (digits > 0 && s[colon + 1 + digits..].starts_with(": ")).then_some(colon + 1 + digits + 2)
}

/// Most places kept at the start of a message that went through several coroutines.
pub(super) const MAX_PLACES: usize = 4;

/// The first line of a message with its leading places (`lua:1: lua:1: x`, one added by each
/// coroutine the error went through) named once each in a row, and at most [`MAX_PLACES`] of
/// them: the outermost and the innermost ones.
pub(super) fn collapse_places(head: &str) -> String {
    let mut places: Vec<&str> = Vec::new();
    let mut rest = head;
    while let Some(n) = leading_place(rest) {
        if places.last() != Some(&&rest[..n]) {
            places.push(&rest[..n]);
        }
        rest = &rest[n..];
    }
    if places.len() > MAX_PLACES {
        let last = places.split_off(places.len() - (MAX_PLACES - 1));
        places.truncate(1);
        places.push("…: ");
        places.extend(last);
    }
    format!("{}{rest}", places.concat())
}

/// `file:line` of a traceback line that is a frame of rule code (not C, not the prelude).
pub(super) fn rule_frame(line: &str) -> Option<&str> {
    let t = line.trim();
    if t.starts_with("[C]") || t.starts_with(PRELUDE_PLACE) {
        return None;
    }
    let (place, _) = t.split_once(": in ")?;
    leading_place(&format!("{place}: ")).map(|_| place)
}

pub(super) fn clean_message(e: &mlua::Error) -> String {
    match e {
        // a syntax error names its file, line and column: the frames of the `require` that
        // read the file add nothing
        mlua::Error::CallbackError { cause, .. } if is_syntax_error(cause) => clean_message(cause),
        mlua::Error::CallbackError { traceback, cause } => {
            let inner = clean_message(cause);
            if inner.contains("stack traceback:") { inner } else { format!("{inner}\n{traceback}") }
        }
        mlua::Error::WithContext { context, cause } => {
            format!("{context}: {}", clean_message(cause))
        }
        mlua::Error::MemoryError(m) => format!("memory limit exceeded ({m})"),
        mlua::Error::SyntaxError { message, .. } => message.clone(),
        mlua::Error::RuntimeError(m) => m.clone(),
        mlua::Error::ExternalError(x) => x.to_string(),
        other => other.to_string(),
    }
}

/// Memory above the limit that an error of running out of it may use to be said and checked.
pub(super) const GRACE: usize = 1 << 20;

/// The command ran out of memory: marked so (its garbage goes, and the limit comes back, when
/// the next command starts), with room above the limit to say it and to check the rule files
/// after it (the dead coroutine holds its memory until then).
pub(super) fn out_of_memory(lua: &Lua, limit: usize) {
    lua.set_app_data(OutOfMemory);
    let _ = lua.set_memory_limit(limit + GRACE);
}

/// The error a rule call died of in its own coroutine (the prelude's `protected`), for its
/// caller: a text with the traceback of the dead coroutine and then the frames of the caller; a
/// memory error (which Lua reports without a place and without calling a message handler) is
/// raised with the place where the rule was, with room to say it.
pub(super) fn thread_error(lua: &Lua, co: &Thread, msg: String, memory: usize) -> mlua::Result<String> {
    if msg == "not enough memory" {
        out_of_memory(lua, memory);
        let m = "memory limit exceeded (not enough memory)";
        return Err(mlua::Error::runtime(match dead_thread_place(co) {
            Some(place) => format!("{place}: {m}"),
            None => m.to_string(),
        }));
    }
    if msg.contains("stack traceback:") {
        return Ok(msg);
    }
    let co_state = co.state();
    // SAFETY: the stack holds `msg` (1); luaL_traceback reads the frames of `co` (alive,
    // borrowed, not running) and pushes one string, and `msg` is then removed.
    let inner: String = unsafe {
        lua.exec_raw(msg, |state| {
            let m = mlua::ffi::lua_tostring(state, 1);
            mlua::ffi::luaL_traceback(state, co_state, m, 0);
            mlua::ffi::lua_remove(state, 1);
        })?
    };
    let outer = lua.traceback(None, 1)?.to_string_lossy();
    let frames = outer.split_once('\n').map_or("", |(_, f)| f);
    Ok(format!("{inner}\n{frames}"))
}

/// `file:line` where a coroutine that died by an error was in rule code: Lua keeps the frames of
/// a dead coroutine, so a memory error (reported without a place) can be located after it.
pub(super) fn dead_thread_place(co: &Thread) -> Option<String> {
    let l = co.state();
    // SAFETY: `co` is alive (borrowed), not running, and lua_getstack/lua_getinfo("Sl") only read
    // its call frames into `ar` (no allocation, nothing pushed).
    unsafe {
        let mut ar: mlua::ffi::lua_Debug = std::mem::zeroed();
        let mut level = 0;
        while mlua::ffi::lua_getstack(l, level, &mut ar) != 0 {
            if mlua::ffi::lua_getinfo(l, c"Sl".as_ptr(), &mut ar) != 0 && ar.currentline > 0 {
                let src = std::ffi::CStr::from_ptr(ar.short_src.as_ptr()).to_string_lossy();
                if src != PRELUDE_PLACE {
                    return Some(format!("{src}:{}", ar.currentline));
                }
            }
            level += 1;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn syntax_error(src: &str) -> String {
        let lua = Lua::new();
        match compile(&lua, src, "x.lua") {
            Err(e) => clean_message(&e),
            Ok(_) => panic!("compiled: {src}"),
        }
    }

    #[test]
    fn a_syntax_error_names_the_column_of_the_token_lua_stopped_at() {
        // the second `)` of the line is the bad one
        assert_eq!(syntax_error("local a = (1))\n"), "x.lua:1:14: unexpected symbol near ')'");
        assert_eq!(syntax_error("local t = {}\n  t.x = = 2\n"), "x.lua:2:9: unexpected symbol near '='");
        // at the end of the file: the column after its last character
        assert_eq!(
            syntax_error("function f()\n  return 1"),
            "x.lua:2:11: 'end' expected (to close 'function' at line 1) near <eof>"
        );
    }
}
