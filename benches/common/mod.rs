//! What the two benches share: reading `.ump` scripts as `umpire run` reads them.

/// A script's commands with their line numbers (1-based): `#` comments and blank lines
/// dropped, a trailing `\` continues a line.
pub fn script_commands(text: &str) -> Vec<(usize, String)> {
    umpire::text::script_lines(text)
        .into_iter()
        .map(|(n, l)| (n, l.trim().to_string()))
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'))
        .collect()
}
