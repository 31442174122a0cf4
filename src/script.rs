//! Command scripts (`.ump`): one command per line, `#` comments, a trailing `\` continues a
//! line. Running one prints each command and its answer and counts the checks.

use crate::session::{Session, Status};
use std::io::BufRead;
use std::path::Path;

/// The outcome of running a script.
#[derive(Debug, Default, Clone)]
pub struct Outcome {
    pub transcript: String,
    pub passed: usize,
    pub failed: usize,
    /// Errors of commands outside `expect-error` (counted in `failed`).
    pub errors: usize,
    /// Each failure as the transcript shows it: the command, what it printed (the reason), and
    /// the `FAILED`/`error` line naming where (what `umpire run -q` prints).
    pub failures: String,
}

pub use crate::text::script_lines as lines;

/// A comment as a transcript shows it: a save's data lines (`#@state {…}`, tens of kilobytes)
/// are named with their size, not printed.
fn shown_comment(t: &str) -> String {
    const LONGEST: usize = 160;
    match t.strip_prefix("#@") {
        Some(rest) if t.len() > LONGEST => {
            let key = rest.split_whitespace().next().unwrap_or("");
            format!("#@{key} … ({} characters, not shown)", t.len())
        }
        _ => t.to_string(),
    }
}

/// Runs `text` in `session`, appending to a transcript. `name` labels failures.
pub fn run_text(session: &mut Session, name: &str, text: &str, echo_comments: bool) -> Outcome {
    let mut o = Outcome::default();
    for (n, line) in lines(text) {
        let t = line.trim();
        if t.starts_with('#') {
            if echo_comments {
                o.transcript.push_str(&shown_comment(t));
                o.transcript.push('\n');
            }
        } else if !t.is_empty() && !run_command(session, name, n, t, &mut o) {
            break;
        }
    }
    o
}

/// The commands of a script (no comment, no blank line), each with its line number.
pub fn script_commands(text: &str) -> Vec<(usize, String)> {
    lines(text)
        .into_iter()
        .map(|(n, l)| (n, l.trim().to_string()))
        .filter(|(_, t)| !t.is_empty() && !t.starts_with('#'))
        .collect()
}

/// Runs `commands` in `session` up to the first failed check or error (`umpire mutate`: one
/// failure is enough to know a change was noticed).
pub fn run_until_failure(session: &mut Session, name: &str, commands: &[(usize, String)]) -> Outcome {
    let mut o = Outcome::default();
    for (n, t) in commands {
        if !run_command(session, name, *n, t, &mut o) || o.failed > 0 {
            break;
        }
    }
    o
}

/// Runs one command (line `n` of the script `name`), adding it and its answer to `o`'s
/// transcript and counting its check or error; false when the session quit.
pub fn run_command(session: &mut Session, name: &str, n: usize, t: &str, o: &mut Outcome) -> bool {
    let start = o.transcript.len();
    o.transcript.push_str(&format!("> {t}\n"));
    let r = session.execute(t);
    for l in &r.out {
        for sub in l.lines() {
            o.transcript.push_str(&format!("  {sub}\n"));
        }
    }
    match r.status {
        Status::Ok | Status::Nothing => {}
        Status::Quit => return false,
        Status::Error(e) => {
            o.failed += 1;
            o.errors += 1;
            o.transcript
                .push_str(&error_lines(&format!("error ({name}:{n})"), &crate::text::printable(&e.to_string())));
            o.failures.push_str(&o.transcript[start..]);
        }
        Status::Check(true) => {
            o.passed += 1;
            o.transcript.push_str("  ok\n");
        }
        Status::Check(false) => {
            o.failed += 1;
            o.transcript.push_str(&format!("  FAILED ({name}:{n})\n"));
            o.failures.push_str(&o.transcript[start..]);
        }
    }
    true
}

/// An error as a transcript shows it: `  <label>: ` and the first line of the message, every
/// further line (a Lua traceback) indented below it.
pub fn error_lines(label: &str, message: &str) -> String {
    let mut lines = message.lines();
    let mut s = format!("  {label}: {}\n", lines.next().unwrap_or(""));
    for l in lines {
        s.push_str(&format!("    {l}\n"));
    }
    s
}

/// Reads commands from `input` as a script's lines are read (`umpire play` with piped input):
/// one command a line, a trailing `\` continuing it, nothing else joining lines, so a line
/// that leaves a Lua chunk open is a command of its own. Each comes with the number of its
/// first line, and as text, or as `Err` of the text shown with `�` when it is not valid UTF-8.
pub fn commands<R: BufRead>(input: R) -> Commands<R> {
    Commands { input, read: 0 }
}

/// The iterator of [`commands`].
pub struct Commands<R> {
    input: R,
    /// Lines read so far.
    read: usize,
}

impl<R: BufRead> Iterator for Commands<R> {
    type Item = std::io::Result<(usize, Result<String, String>)>;

    fn next(&mut self) -> Option<Self::Item> {
        let first = self.read + 1;
        let mut command = Vec::new();
        loop {
            let mut raw = Vec::new();
            match self.input.read_until(b'\n', &mut raw) {
                Ok(0) if self.read < first => return None,
                Ok(0) => break,
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Some(Err(e)),
            }
            self.read += 1;
            let line = match raw.strip_suffix(b"\n") {
                Some(l) => l.strip_suffix(b"\r").unwrap_or(l),
                None => &raw,
            };
            if !command.is_empty() {
                command.push(b'\n');
            }
            match line.strip_suffix(b"\\") {
                Some(continued) => command.extend_from_slice(continued),
                None => {
                    command.extend_from_slice(line);
                    break;
                }
            }
        }
        let text = String::from_utf8(command).map_err(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
        Some(Ok((first, text)))
    }
}

/// `umpire check SCRIPT`: runs it in its library and reports its checks.
pub fn check_file(path: &Path, library: Option<&Path>, rules: Option<&Path>) -> crate::Result<Vec<String>> {
    let lib = crate::ruleset::library_for(library, path);
    let o = run_file_under(&lib, path, rules);
    let summary = format!(
        "script {} ({} passed, {} failed; library {})",
        path.display(),
        o.passed,
        o.failed,
        crate::ruleset::shown(&lib)
    );
    if o.failed == 0 && o.passed > 0 {
        return Ok(vec![format!("ok: {summary}")]);
    }
    // what `run -q` shows: each failing command, what it printed and why it failed
    let why = if o.passed + o.failed == 0 { "checks nothing".to_string() } else { o.failures.trim_end().to_string() };
    Err(crate::Error::State(format!("{summary}\n{why}")))
}

/// Runs a script file in a fresh session rooted at `root`.
pub fn run_file(root: &Path, path: &Path) -> Outcome {
    run_file_under(root, path, None)
}

/// Runs a script file in a fresh session rooted at `root`, its games under the rules in
/// `rules` when given (`run --rules DIR`: a variant's folder).
pub fn run_file_under(root: &Path, path: &Path, rules: Option<&Path>) -> Outcome {
    match std::fs::read_to_string(path) {
        Ok(text) => in_fresh_session(root, |s| {
            s.rules = rules.map(Path::to_path_buf);
            run_text(s, &path.display().to_string(), &text, true)
        }),
        Err(e) => Outcome {
            transcript: format!("error: {}: {e}\n", path.display()),
            failures: format!("error: {}: {e}\n", path.display()),
            failed: 1,
            errors: 1,
            ..Default::default()
        },
    }
}

/// Runs `f` in a fresh session rooted at `root`, with a scratch folder of its own for
/// `save @/x` (removed afterwards).
pub fn in_fresh_session<T>(root: &Path, f: impl FnOnce(&mut Session) -> T) -> T {
    let mut s = Session::with_root(root);
    let scratch = tempfile::tempdir().ok();
    s.scratch = scratch.as_ref().map(|d| d.path().to_path_buf());
    f(&mut s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(input: &[u8]) -> Vec<(usize, Result<String, String>)> {
        commands(input).map(Result::unwrap).collect()
    }

    #[test]
    fn commands_are_read_as_script_lines_are() {
        let text = "lua (\r\nhash\n\nlua x = \\\n  1 \\\n\n# c\nlast \\";
        let expected: Vec<(usize, Result<String, String>)> = lines(text).into_iter().map(|(n, l)| (n, Ok(l))).collect();
        assert_eq!(read(text.as_bytes()), expected);
        assert_eq!(read(b""), []);
    }

    #[test]
    fn a_line_that_is_not_utf8_is_shown_lossily() {
        assert_eq!(
            read(b"a\n\xff\xfe x\nb"),
            [(1, Ok("a".to_string())), (2, Err("\u{fffd}\u{fffd} x".to_string())), (3, Ok("b".to_string()))]
        );
    }

    #[test]
    fn a_save_data_line_is_named_not_printed() {
        let long = format!("#@state {{\"x\": \"{}\"}}", "y".repeat(500));
        assert_eq!(super::shown_comment(&long), format!("#@state … ({} characters, not shown)", long.len()));
        assert_eq!(super::shown_comment("#@hash 0123"), "#@hash 0123");
        assert_eq!(super::shown_comment("# a comment"), "# a comment");
    }
}
