//! What the two benches share: reading `.ump` scripts through the public API only (the core's
//! own reader, `umpire::text::script_lines`, is not part of the API the benches may rely on).

/// A script's commands with their line numbers (1-based): `#` comments and blank lines
/// dropped, a trailing `\` continues a line (as `umpire run` reads them).
pub fn script_commands(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut cur: Option<(usize, String)> = None;
    for (i, raw) in text.lines().enumerate() {
        let (n, mut acc) = cur.take().unwrap_or((i + 1, String::new()));
        if !acc.is_empty() {
            acc.push('\n');
        }
        if let Some(s) = raw.strip_suffix('\\') {
            acc.push_str(s);
            cur = Some((n, acc));
        } else {
            acc.push_str(raw);
            out.push((n, acc));
        }
    }
    out.extend(cur);
    out.into_iter()
        .map(|(n, l)| (n, l.trim().to_string()))
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'))
        .collect()
}
