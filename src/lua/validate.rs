//! `umpire.validate(fn)`: a ruleset checks its own data when it loads.
//!
//! A validator is registered while the rule files load and runs once they have loaded (on
//! `new`, `reload`, `load` and `umpire check`, before any command). It returns a list of
//! problems; each one names the data file (a module name, as `require` takes it), the key path
//! of the bad entry in it (`{"crt", 3, 8}` for `T.crt[3][8]`) and a message. Lua cannot tell
//! where a table constructor's entry was written without `debug`, so the host finds the entry
//! in the file's source ([`locate`]: the assignment of the path's first name, then field by
//! field through the nested constructors) and reports it as `file:line:column`. Any problem
//! stops the rules from loading: a game with bad tables does not start, and a reload keeps the
//! rules that were loaded.

use super::{display_path, resolve_module, seal, world};
use crate::error::{Error, Located};
use crate::ruleset::Ruleset;
use mlua::{Function, Lua, Table, Value};

/// Where the validators wait (a registry value: rule code never reaches it).
const VALIDATORS: &str = "umpire.validators";

/// Most problems reported from one load (the rest are counted).
const MAX_PROBLEMS: usize = 200;

pub fn register(lua: &Lua) -> mlua::Result<()> {
    let list = lua.create_table()?;
    lua.set_named_registry_value(VALIDATORS, list.clone())?;
    let um: Table = lua.globals().get("umpire")?;
    um.set(
        "validate",
        lua.create_function(move |lua, f: Function| {
            if !world(lua).borrow().loading {
                return Err(mlua::Error::runtime(
                    "umpire.validate may only be called while the rule files load (at the top level of a rule file)",
                ));
            }
            list.raw_push(f)
        })?,
    )
}

/// One problem a validator returned: a message, and where (a module and a key path).
struct Problem {
    file: Option<String>,
    path: Vec<Value>,
    msg: String,
}

/// Runs every validator in the order registered; their problems, located, as one error.
pub(super) fn run(lua: &Lua, ruleset: &Ruleset) -> Result<(), Error> {
    let conv = super::convert_error;
    let list: Table = lua.named_registry_value(VALIDATORS).map_err(conv)?;
    let mut problems = Vec::new();
    for f in list.sequence_values::<Function>() {
        let ret: Value = f.map_err(conv)?.call(()).map_err(conv)?;
        problems.extend(problems_of(ret).map_err(conv)?);
    }
    if problems.is_empty() {
        return Ok(());
    }
    let dirs = [ruleset.dir.clone(), ruleset.root.join("rulesets").join("lib")];
    let mut out: Vec<Located> = Vec::new();
    for p in problems.iter().take(MAX_PROBLEMS) {
        let shown_path = show_path(&p.path);
        let msg = if shown_path.is_empty() { p.msg.clone() } else { format!("{shown_path}: {}", p.msg) };
        let found = p.file.as_deref().and_then(|m| resolve_module(&dirs, &ruleset.root, m).ok());
        out.push(match found {
            Some((file, real)) => {
                let shown = display_path(&ruleset.root, &file);
                let src = std::fs::read_to_string(real).unwrap_or_default();
                let span = locate(&src, &p.path).map(|at| at..at);
                Located::at(&shown, &src, span, msg)
            }
            None => Located { file: display_path(&ruleset.root, &ruleset.dir), line: 0, col: 0, msg },
        });
    }
    if problems.len() > MAX_PROBLEMS {
        let last = out.last().map(|l| l.file.clone()).unwrap_or_default();
        out.push(Located {
            file: last,
            line: 0,
            col: 0,
            msg: format!("… and {} more problems", problems.len() - MAX_PROBLEMS),
        });
    }
    Err(if out.len() == 1 { Error::Data(out.remove(0)) } else { Error::DataMany(out) })
}

/// The problems a validator returned: nil, or a list of `{file=, path=, msg=}` (or strings).
fn problems_of(v: Value) -> mlua::Result<Vec<Problem>> {
    let t = match v {
        Value::Nil => return Ok(vec![]),
        Value::Table(t) => seal::seen_through(t),
        other => {
            return Err(mlua::Error::runtime(format!(
                "umpire.validate: a validator returns a list of problems or nil, not a {}",
                other.type_name()
            )));
        }
    };
    let mut out = Vec::new();
    for p in t.sequence_values::<Value>() {
        out.push(match p? {
            Value::String(s) => Problem { file: None, path: vec![], msg: s.to_str()?.to_string() },
            Value::Table(p) => {
                let p = seal::seen_through(p);
                let path = match p.get::<Value>("path")? {
                    Value::Table(t) => seal::seen_through(t).sequence_values::<Value>().collect::<mlua::Result<_>>()?,
                    Value::Nil => vec![],
                    v => vec![v],
                };
                Problem {
                    file: p.get::<Option<String>>("file")?,
                    path,
                    msg: p.get::<Option<String>>("msg")?.unwrap_or_else(|| "bad value".into()),
                }
            }
            other => {
                return Err(mlua::Error::runtime(format!(
                    "umpire.validate: a problem is a table {{file=, path=, msg=}} or a string, not a {}",
                    other.type_name()
                )));
            }
        });
    }
    Ok(out)
}

/// A key path as Lua writes it: `crt[3][8]`, `terrain_cost.forest`, `events[2]["x y"]`.
fn show_path(path: &[Value]) -> String {
    let mut s = String::new();
    for (i, k) in path.iter().enumerate() {
        match k {
            Value::Integer(n) => s.push_str(&format!("[{n}]")),
            Value::Number(n) => s.push_str(&format!("[{n}]")),
            Value::String(x) => {
                let x = x.to_string_lossy();
                if is_name(&x) {
                    if i > 0 {
                        s.push('.');
                    }
                    s.push_str(&x);
                } else {
                    s.push_str(&format!("[{x:?}]"));
                }
            }
            other => s.push_str(&format!("[{}]", other.type_name())),
        }
    }
    s
}

fn is_name(s: &str) -> bool {
    s.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A token of Lua source: where it starts, and what it is.
#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Name(String),
    Str(String),
    Num(f64),
    /// `=` (an assignment or a field's key), never `==`.
    Assign,
    Open(char),
    Close(char),
    /// `,` or `;` between fields.
    Sep,
    Dot,
    Other,
}

/// The tokens of Lua source with their byte offsets (comments skipped). Good enough to walk
/// table constructors; an unreadable rest of the file ends the list.
fn tokens(src: &str) -> Vec<(usize, Tok)> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    // `[[`, `[=[`...: the length of the opening and its level
    let long_open = |i: usize| -> Option<(usize, usize)> {
        if b.get(i) != Some(&b'[') {
            return None;
        }
        let eq = b[i + 1..].iter().take_while(|&&c| c == b'=').count();
        (b.get(i + 1 + eq) == Some(&b'[')).then_some((eq + 2, eq))
    };
    let long_end = |from: usize, level: usize| -> usize {
        let close = format!("]{}]", "=".repeat(level));
        src[from..].find(&close).map_or(b.len(), |k| from + k + close.len())
    };
    while i < b.len() {
        let c = b[i];
        let start = i;
        if c.is_ascii_whitespace() {
            i += 1;
        } else if src[i..].starts_with("--") {
            match long_open(i + 2) {
                Some((n, level)) => i = long_end(i + 2 + n, level),
                None => i = src[i..].find('\n').map_or(b.len(), |k| i + k),
            }
        } else if c.is_ascii_alphabetic() || c == b'_' {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            out.push((start, Tok::Name(src[start..i].to_string())));
        } else if c.is_ascii_digit() || (c == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit)) {
            while i < b.len()
                && (b[i].is_ascii_alphanumeric()
                    || b[i] == b'.'
                    || ((b[i] == b'+' || b[i] == b'-') && matches!(b[i - 1], b'e' | b'E' | b'p' | b'P')))
            {
                i += 1;
            }
            out.push((start, Tok::Num(src[start..i].parse().unwrap_or(f64::NAN))));
        } else if c == b'"' || c == b'\'' {
            let mut text = String::new();
            i += 1;
            while i < b.len() && b[i] != c && b[i] != b'\n' {
                if b[i] == b'\\' {
                    i += 1;
                }
                if let Some(ch) = src.get(i..).and_then(|r| r.chars().next()) {
                    text.push(ch);
                    i += ch.len_utf8();
                } else {
                    i += 1;
                }
            }
            i += 1;
            out.push((start, Tok::Str(text)));
        } else if let Some((n, level)) = long_open(i) {
            let end = long_end(i + n, level);
            let body_end = end.saturating_sub(level + 2).max(i + n);
            out.push((start, Tok::Str(src.get(i + n..body_end).unwrap_or_default().to_string())));
            i = end;
        } else {
            let ch = src[i..].chars().next().unwrap_or(' ');
            i += ch.len_utf8();
            out.push((
                start,
                match ch {
                    '=' if b.get(i) == Some(&b'=') => {
                        i += 1;
                        Tok::Other
                    }
                    '=' => Tok::Assign,
                    '(' | '[' | '{' => Tok::Open(ch),
                    ')' | ']' | '}' => Tok::Close(ch),
                    ',' | ';' => Tok::Sep,
                    '.' if b.get(i) == Some(&b'.') => {
                        while b.get(i) == Some(&b'.') {
                            i += 1;
                        }
                        Tok::Other
                    }
                    '.' => Tok::Dot,
                    '~' | '<' | '>' if b.get(i) == Some(&b'=') => {
                        i += 1;
                        Tok::Other
                    }
                    _ => Tok::Other,
                },
            ));
        }
    }
    out
}

/// Whether a key of a path names a field key token (`name` or `["name"]`, `[3]`).
fn key_matches(key: &Value, tok: &Tok) -> bool {
    match (key, tok) {
        (Value::String(s), Tok::Name(n) | Tok::Str(n)) => s.to_string_lossy() == *n,
        (Value::Integer(k), Tok::Num(x)) => *k as f64 == *x,
        (Value::Number(k), Tok::Num(x)) => k == x,
        _ => false,
    }
}

/// The byte offset in `src` of the entry at `path`: the assignment of the first key (`T.crt =`,
/// `crt =`, `local crt =`; the first one in the file), then each further key through the table
/// constructors (a positional entry by its position, a keyed one by its key). When the path
/// goes deeper than the constructors do, the deepest entry found.
pub fn locate(src: &str, path: &[Value]) -> Option<usize> {
    let toks = tokens(src);
    let first = path.first()?;
    // `<key> =` at any depth, as a statement target or a field of a constructor
    let at = (0..toks.len()).find(|&i| {
        key_matches(first, &toks[i].1) && matches!(toks[i].1, Tok::Name(_)) && assigned(&toks, i + 1).is_some()
    })?;
    let mut found = toks[at].0;
    let mut value = assigned(&toks, at + 1)?;
    for key in &path[1..] {
        if toks.get(value).map(|t| &t.1) != Some(&Tok::Open('{')) {
            break;
        }
        match field(&toks, value, key) {
            Some((start, v)) => {
                found = toks[start].0;
                value = v;
            }
            None => break,
        }
    }
    Some(found)
}

/// After a key (`i` just past it): the index of the first value of the assignment if `=`
/// follows, past the other targets of a multiple assignment (`T.a, T.b = 1, 2`: the values
/// are not told apart, the key's line is what matters).
fn assigned(toks: &[(usize, Tok)], mut i: usize) -> Option<usize> {
    while toks.get(i).map(|t| &t.1) == Some(&Tok::Sep) {
        i += 1;
        while matches!(toks.get(i).map(|t| &t.1), Some(Tok::Name(_) | Tok::Dot)) {
            i += 1;
        }
    }
    (toks.get(i).map(|t| &t.1) == Some(&Tok::Assign)).then_some(i + 1)
}

/// In the constructor opening at `open`, the field for `key`: the index of its first token and
/// of its value.
fn field(toks: &[(usize, Tok)], open: usize, key: &Value) -> Option<(usize, usize)> {
    let position = match key {
        Value::Integer(n) if *n >= 1 => Some(*n as usize),
        _ => None,
    };
    let mut i = open + 1;
    let mut positional = 0;
    while i < toks.len() {
        if matches!(toks[i].1, Tok::Close(_)) {
            return None;
        }
        let start = i;
        // `name =`, `[key] =` or a positional value
        let (keyed, value) = match (&toks[i].1, toks.get(i + 1).map(|t| &t.1)) {
            (Tok::Name(_), Some(Tok::Assign)) => (Some(&toks[i].1), i + 2),
            (Tok::Open('['), _)
                if toks.get(i + 2).map(|t| &t.1) == Some(&Tok::Close(']'))
                    && toks.get(i + 3).map(|t| &t.1) == Some(&Tok::Assign) =>
            {
                (Some(&toks[i + 1].1), i + 4)
            }
            _ => (None, i),
        };
        match keyed {
            Some(k) if key_matches(key, k) => return Some((start, value)),
            Some(_) => {}
            None => {
                positional += 1;
                if position == Some(positional) {
                    return Some((start, value));
                }
            }
        }
        // skip to the next field of this constructor
        i = value;
        let mut depth = 0;
        while i < toks.len() {
            match toks[i].1 {
                Tok::Open(_) => depth += 1,
                Tok::Close(_) if depth == 0 => break,
                Tok::Close(_) => depth -= 1,
                Tok::Sep if depth == 0 => {
                    i += 1;
                    break;
                }
                _ => {}
            }
            i += 1;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(src: &str, path: &[Value]) -> Option<(usize, usize)> {
        locate(src, path).map(|o| crate::error::line_col(src, o))
    }

    #[test]
    fn entries_of_table_constructors_are_found_by_their_key_path() {
        let lua = Lua::new();
        let s = |x: &str| Value::String(lua.create_string(x).unwrap());
        let n = Value::Integer;
        let src = "local T = {}\n-- T.crt = { 'no' }\nT.crt = {\n  { \"A1\", 'x = {', [[D]] }, -- 1\n  { \"Dr\", --[[ } ]] \"D2x3\" },\n}\nT.cost = { clear = 1, [\"forest\"] = \"two\", [3] = 0 }\nT.a, T.b = 2, { 5 }\n";
        assert_eq!(at(src, &[s("crt"), n(2), n(2)]), Some((5, 21)));
        assert_eq!(at(src, &[s("crt"), n(1), n(3)]), Some((4, 20)));
        assert_eq!(at(src, &[s("crt"), n(2)]), Some((5, 3)));
        assert_eq!(at(src, &[s("cost"), s("forest")]), Some((7, 23)));
        assert_eq!(at(src, &[s("cost"), n(3)]), Some((7, 43)));
        assert_eq!(at(src, &[s("b")]), Some((8, 8)));
        // deeper than the constructors: the deepest entry found
        assert_eq!(at(src, &[s("cost"), s("clear"), n(1)]), Some((7, 12)));
        assert_eq!(at(src, &[s("nothing")]), None);
        assert_eq!(show_path(&[s("crt"), n(3), n(8)]), "crt[3][8]");
        assert_eq!(show_path(&[s("cost"), s("forest"), s("a b")]), "cost.forest[\"a b\"]");
    }
}
