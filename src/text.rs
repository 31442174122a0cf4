//! Small text helpers shared by every layer: matching what a user typed against a list of
//! names (exact, case-insensitive, unique prefix, did-you-mean), rendering values and
//! markers, and the line syntax of scripts and saves.

use std::collections::BTreeMap;

/// `s` with every control character shown as an escape (`\27`, `\7`, Lua's decimal form), so
/// that text from rules or scenario files cannot drive the terminal (set its title, clear it,
/// write the clipboard): C0 controls but the line feed and tab, DEL, and the C1 controls.
pub fn printable(s: &str) -> std::borrow::Cow<'_, str> {
    let bad = |c: char| (c.is_control() && c != '\n' && c != '\t') || ('\u{80}'..='\u{9f}').contains(&c);
    if !s.chars().any(bad) {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if bad(c) {
            out.push_str(&format!("\\{}", c as u32));
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// A file's bytes as text, or where it stops being UTF-8: `line:column` (1-based, the column
/// counted in bytes) and the byte, for a message such as `rules.lua:3:7: not UTF-8 text`.
pub fn utf8_text(bytes: Vec<u8>) -> Result<String, String> {
    String::from_utf8(bytes).map_err(|e| {
        let bytes = e.as_bytes();
        let at = e.utf8_error().valid_up_to();
        let before = &bytes[..at];
        let line = before.iter().filter(|b| **b == b'\n').count() + 1;
        let column = at - before.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1) + 1;
        format!(
            "{line}:{column}: not UTF-8 text (byte 0x{:02x}; save the file as UTF-8)",
            bytes.get(at).copied().unwrap_or(0)
        )
    })
}

/// How a typed name matched a list of names.
pub enum Pick<'a> {
    One(&'a str),
    /// No name matches; the closest ones as ` (did you mean X, Y?)` or empty.
    None(String),
    /// Several names start with the text.
    Many(Vec<&'a str>),
}

/// Matches `text` against `names`: the exact name, else the one name equal ignoring case,
/// else the one name it is a case-insensitive prefix of.
pub fn pick<'a, I>(text: &str, names: I) -> Pick<'a>
where
    I: IntoIterator<Item = &'a str>,
    I::IntoIter: Clone,
{
    let names = names.into_iter();
    if let Some(n) = names.clone().find(|n| *n == text) {
        return Pick::One(n);
    }
    let lower = text.to_lowercase();
    let same: Vec<&str> = names.clone().filter(|n| n.to_lowercase() == lower).collect();
    if let [one] = same.as_slice() {
        return Pick::One(one);
    }
    let pre: Vec<&str> = names.clone().filter(|n| n.to_lowercase().starts_with(&lower)).collect();
    match pre.len() {
        1 => Pick::One(pre[0]),
        0 => Pick::None(did_you_mean(text, names)),
        _ => Pick::Many(pre),
    }
}

/// `a, b, c` (at most `max`, then `, ...`).
pub fn list_some(names: &[&str], max: usize) -> String {
    let mut s = names.iter().take(max).copied().collect::<Vec<_>>().join(", ");
    if names.len() > max {
        s.push_str(", ...");
    }
    s
}

fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.to_lowercase().chars().collect();
    let b: Vec<char> = b.to_lowercase().chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut cur = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let sub = prev[j - 1] + usize::from(a[i - 1] != b[j - 1]);
            cur[j] = sub.min(prev[j] + 1).min(cur[j - 1] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// ` (did you mean X, Y?)` for the closest names, or nothing.
pub fn did_you_mean<'a, S: AsRef<str> + ?Sized + 'a>(text: &str, names: impl IntoIterator<Item = &'a S>) -> String {
    let len = text.chars().count();
    let limit = (len / 2).max(2);
    // a name whose length differs by more than the limit is never that close: only names of
    // about the text's length are compared, so a long text costs one pass over the names
    let mut scored: Vec<(usize, &str)> = names
        .into_iter()
        .map(|n| n.as_ref())
        .filter(|n| n.len().abs_diff(text.len()) <= limit * 4 && n.chars().count().abs_diff(len) <= limit)
        .map(|n| (edit_distance(text, n), n))
        .collect();
    scored.sort();
    let close: Vec<&str> = scored.iter().filter(|(d, _)| *d <= limit).take(3).map(|(_, n)| *n).collect();
    if close.is_empty() { String::new() } else { format!(" (did you mean {}?)", close.join(", ")) }
}

/// A JSON value as a player reads it: strings without quotes.
pub fn json_text(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Markers as `name` (one) or `name n`, in their fixed order.
pub fn markers(m: &BTreeMap<String, i64>) -> Vec<String> {
    m.iter().map(|(k, v)| if *v == 1 { k.clone() } else { format!("{k} {v}") }).collect()
}

pub fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// Joins lines continued with a trailing `\` (the syntax of scripts and saves); returns
/// (line number, command) pairs, comments and blanks included.
pub fn script_lines(text: &str) -> Vec<(usize, String)> {
    // (a byte-order mark, as some editors write, is not part of the first line)
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut out = Vec::new();
    let mut cur: Option<(usize, String)> = None;
    for (i, raw) in text.lines().enumerate() {
        let (n, mut acc) = cur.take().unwrap_or((i + 1, String::new()));
        if !acc.is_empty() {
            acc.push('\n');
        }
        if let Some(stripped) = raw.strip_suffix('\\') {
            acc.push_str(stripped);
            cur = Some((n, acc));
        } else {
            acc.push_str(raw);
            out.push((n, acc));
        }
    }
    if let Some(c) = cur {
        out.push(c);
    }
    out
}

/// A number as people write it: whole numbers without a decimal point, others to at most three
/// places (`12`, `-3.5`, `0.333`).
pub fn fmt_number(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        return format!("{x:.0}");
    }
    let s = format!("{x:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pick_prefers_exact_then_case_then_prefix() {
        let names = ["B1", "b10", "Blue"];
        assert!(matches!(pick("B1", names), Pick::One("B1")));
        assert!(matches!(pick("blue", names), Pick::One("Blue")));
        assert!(matches!(pick("bl", names), Pick::One("Blue")));
        assert!(matches!(pick("b", names), Pick::Many(v) if v.len() == 3));
        assert!(matches!(pick("Bleu", names), Pick::None(s) if s.contains("Blue")));
    }

    #[test]
    fn continued_lines_join() {
        let l = script_lines("a\\\nb\n# c\nd");
        assert_eq!(l, vec![(1, "a\nb".to_string()), (3, "# c".to_string()), (4, "d".to_string())]);
    }
}
