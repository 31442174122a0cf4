//! The designer's commands: `reload`, `lua`, `=`, and the checks scripts are made of
//! (`expect`, `expect-ok`, `expect-error`, `checkpoint`).

use super::{Reply, Session, Status};
use crate::error::{Error, Result};

pub(super) fn reload(s: &mut Session, _rest: &str, _line: &str) -> Result<Reply> {
    let g = s.game_mut()?;
    let changed = if g.reload()? { "changed" } else { "unchanged" };
    Ok(Reply::ok(vec![format!(
        "reloaded {} {} (rule files {changed}); the game is kept",
        g.ruleset.name, g.ruleset.version
    )]))
}

pub(super) fn lua(s: &mut Session, rest: &str, line: &str) -> Result<Reply> {
    let code = rest.to_string();
    s.transact(line, move |g| g.run(crate::contract::Call::Chunk(code)))
}

pub(super) fn eval(s: &mut Session, rest: &str, _line: &str) -> Result<Reply> {
    let g = s.game()?;
    let (r, mut out) = g.read_only(|g| g.host().eval(&format!("return {rest}"), "="));
    // an expression with no value (a call that returns nothing) adds no line
    let values = r?;
    if values.count > 0 {
        out.push(values.shown);
    }
    Ok(Reply::ok(out))
}

pub(super) fn expect(s: &mut Session, rest: &str, _line: &str) -> Result<Reply> {
    let g = s.game()?;
    let (r, _) = g.read_only(|g| g.host().eval(&format!("return {rest}"), "expect"));
    Ok(match r {
        Ok(v) => Reply::check(
            v.truthy,
            if v.truthy { vec![] } else { vec![format!("expected true, got {}{}", v.first, compared(s, rest))] },
        ),
        Err(e) => Reply::check(false, vec![format!("expect raised an error: {e}")]),
    })
}

/// For a failed `expect <lhs> <op> <rhs>`, the values of both sides (`: left 3, right 4`),
/// each evaluated on its own; empty when the expression is not one such comparison or a side
/// cannot be evaluated alone.
fn compared(s: &Session, expr: &str) -> String {
    let Some((lhs, rhs)) = split_comparison(expr) else { return String::new() };
    let Ok(g) = s.game() else { return String::new() };
    let value = |side: &str| {
        let (r, _) = g.read_only(|g| g.host().eval(&format!("return {side}"), "expect"));
        r.ok().map(|v| v.first)
    };
    match (value(lhs), value(rhs)) {
        (Some(l), Some(r)) => format!(": left {l}, right {r}"),
        _ => String::new(),
    }
}

/// `<lhs> <op> <rhs>` with exactly one comparison operator (`==`, `~=`, `<`, `<=`, `>`, `>=`)
/// outside strings and brackets, and no `and`, `or`, `not`, comment, long string or shift at
/// the top level: the two sides, trimmed. Anything else is `None` (the check keeps its plain
/// message).
pub(crate) fn split_comparison(expr: &str) -> Option<(&str, &str)> {
    let b = expr.as_bytes();
    let (mut depth, mut i) = (0i32, 0);
    let mut found: Option<(usize, usize)> = None;
    while i < b.len() {
        let c = b[i];
        match c {
            b'"' | b'\'' => {
                i += 1;
                while i < b.len() && b[i] != c {
                    if b[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
                if i >= b.len() {
                    return None;
                }
            }
            b'[' if matches!(b.get(i + 1), Some(b'[' | b'=')) => return None,
            b'-' if b.get(i + 1) == Some(&b'-') => return None,
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => {
                depth -= 1;
                if depth < 0 {
                    return None;
                }
            }
            _ if depth > 0 => {}
            b'=' | b'~' | b'<' | b'>' => {
                let next = b.get(i + 1).copied();
                let len = match (c, next) {
                    (b'<', Some(b'<')) | (b'>', Some(b'>')) => return None,
                    (_, Some(b'=')) => 2,
                    (b'=' | b'~', _) => return None,
                    _ => 1,
                };
                if found.is_some() {
                    return None;
                }
                found = Some((i, len));
                i += len;
                continue;
            }
            _ if c.is_ascii_alphabetic() || c == b'_' => {
                let start = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                    i += 1;
                }
                if matches!(&expr[start..i], "and" | "or" | "not") {
                    return None;
                }
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    let (at, len) = found?;
    let (lhs, rhs) = (expr[..at].trim(), expr[at + len..].trim());
    (depth == 0 && !lhs.is_empty() && !rhs.is_empty()).then_some((lhs, rhs))
}

pub(super) fn checkpoint(s: &mut Session, rest: &str, _line: &str) -> Result<Reply> {
    let h = s.game()?.state().hash();
    let want = rest.trim();
    Ok(if h == want {
        Reply::check(true, vec![])
    } else {
        Reply::check(false, vec![format!("state hash is {h}, expected {want}: the game has diverged here")])
    })
}

/// `<command> [~ text]`: the command checked and the text its answer must hold.
fn command_and_text<'a>(rest: &'a str, usage: &str) -> Result<(&'a str, Option<&'a str>)> {
    let (cmd, want) = match rest.rsplit_once(" ~ ") {
        Some((c, w)) => (c.trim(), Some(w.trim().trim_matches('"'))),
        None => (rest.trim(), None),
    };
    if cmd.is_empty() {
        return Err(Error::Usage(format!("usage: {usage}")));
    }
    Ok((cmd, want))
}

/// What `expect-error` wants of the failure besides its text.
#[derive(Default)]
struct Wanted<'a> {
    rule: Option<&'a str>,
    kind: Option<&'a str>,
}

/// Reads the leading `--rule R` and `--kind K` of `expect-error`.
fn wanted(mut rest: &str) -> Result<(Wanted<'_>, &str)> {
    let mut w = Wanted::default();
    loop {
        let (flag, tail) = super::split_first(rest);
        let (value, tail) = super::split_first(tail);
        match flag {
            "--rule" | "--kind" if value.is_empty() => {
                return Err(Error::Usage(format!("{flag} takes a value; usage: {}", USAGE_ERROR)));
            }
            "--rule" => w.rule = Some(value),
            "--kind" if !Error::KINDS.contains(&value) => {
                return Err(Error::Usage(format!("--kind {value}: kinds are {}", Error::KINDS.join(", "))));
            }
            "--kind" => w.kind = Some(value),
            _ => return Ok((w, rest)),
        }
        rest = tail;
    }
}

const USAGE_ERROR: &str = "expect-error [--rule R] [--kind K] <command> [~ text]";

pub(super) fn expect_error(s: &mut Session, rest: &str, _line: &str) -> Result<Reply> {
    let (want, rest) = wanted(rest)?;
    let (cmd, text) = command_and_text(rest, USAGE_ERROR)?;
    let before = s.hash();
    let r = s.execute(cmd);
    let after = s.hash();
    let Status::Error(e) = r.status else {
        let mut out = r.out;
        out.push("expected an error, but the command succeeded".into());
        return Ok(Reply::check(false, out));
    };
    let mut out = vec![format!("error as expected: {e}")];
    if let Some(rule) = want.rule
        && e.rule() != Some(rule)
    {
        out.push(match e.rule() {
            Some(r) => format!("but it was refused under {r}, not {rule}"),
            None => format!("but it is not a refusal under {rule} (a {} error)", e.kind()),
        });
    }
    if let Some(kind) = want.kind
        && e.kind() != kind
    {
        out.push(format!("but it is a {} error, not {kind}", e.kind()));
    }
    if want.kind.is_none() && e.kind() == "pending" {
        // the command never ran: a decision waits for its answer (not a refusal)
        out.push("but the command did not run: a decision is pending (expect it with --kind pending)".into());
    }
    if let Some(w) = text
        && !e.to_string().contains(w)
    {
        out.push(format!("but the message does not contain '{w}'"));
    }
    if before != after {
        out.push("but the state changed".into());
    }
    Ok(Reply::check(out.len() == 1, out))
}

pub(super) fn expect_ok(s: &mut Session, rest: &str, _line: &str) -> Result<Reply> {
    const USAGE: &str = "expect-ok [--pending] <command> [~ text] [!~ text]";
    // `--pending`: the command may leave a decision pending (ask a question)
    let (flag, tail) = super::split_first(rest);
    let (may_ask, rest) = if flag == "--pending" { (true, tail) } else { (false, rest) };
    // `!~ text`: the output must not hold the text
    let (rest, absent) = match rest.rsplit_once(" !~ ") {
        Some((c, w)) => (c, Some(w.trim().trim_matches('"'))),
        _ => (rest, None),
    };
    let (cmd, want) = command_and_text(rest, USAGE)?;
    let pending = |s: &Session| s.game().is_ok_and(|g| g.pending.is_some());
    let before = pending(s);
    let r = s.execute(cmd);
    let mut out = r.out.clone();
    let asked = pending(s) && (!before || r.out.iter().any(|l| l.starts_with("? ")));
    match r.status {
        Status::Error(e) => {
            out.push(format!("expected success, got: {e}"));
            Ok(Reply::check(false, out))
        }
        Status::Check(false) => {
            out.push("the check inside failed".into());
            Ok(Reply::check(false, out))
        }
        _ => {
            let holds = |w: &str| r.out.iter().any(|l| l.contains(w));
            let mut pass = true;
            if asked && !may_ask {
                pass = false;
                out.push("the command left a decision pending (`expect-ok --pending <command>` allows it)".into());
            }
            if let Some(w) = want
                && !holds(w)
            {
                pass = false;
                out.push(format!("the output does not contain '{w}'"));
            }
            if let Some(w) = absent
                && holds(w)
            {
                pass = false;
                out.push(format!("the output contains '{w}'"));
            }
            Ok(Reply::check(pass, out))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::split_comparison;

    #[test]
    fn only_one_top_level_comparison_is_split() {
        assert_eq!(split_comparison("a.b(1, 2) == 3"), Some(("a.b(1, 2)", "3")));
        assert_eq!(split_comparison("x ~= 'a == b'"), Some(("x", "'a == b'")));
        assert_eq!(split_comparison("f(a < b) >= #t"), Some(("f(a < b)", "#t")));
        assert_eq!(split_comparison("t[\"<\"] < 4"), Some(("t[\"<\"]", "4")));
        for no in [
            "a == b == c",
            "a == 1 and b",
            "not a == b",
            "x",
            "a << 2 == 1",
            "a == [[x]]",
            "a == b -- c",
            "(a == b)",
            "a ~ b",
        ] {
            assert_eq!(split_comparison(no), None, "{no}");
        }
    }
}
