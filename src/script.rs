//! Command scripts (`.ump`): one command per line, `#` comments, a trailing `\` continues a
//! line. Running one prints each command and its answer and counts the checks.

use crate::session::{Session, Status};
use std::path::Path;

/// The outcome of running a script.
#[derive(Debug, Default, Clone)]
pub struct Outcome {
    pub transcript: String,
    pub passed: usize,
    pub failed: usize,
    /// Errors of commands outside `expect-error` (counted in `failed`).
    pub errors: usize,
}

pub use crate::text::script_lines as lines;

/// Runs `text` in `session`, appending to a transcript. `name` labels failures.
pub fn run_text(session: &mut Session, name: &str, text: &str, echo_comments: bool) -> Outcome {
    let mut o = Outcome::default();
    for (n, line) in lines(text) {
        let t = line.trim();
        if t.is_empty() {
            continue;
        }
        if t.starts_with('#') {
            if echo_comments {
                o.transcript.push_str(t);
                o.transcript.push('\n');
            }
            continue;
        }
        o.transcript.push_str(&format!("> {t}\n"));
        let r = session.execute(t);
        for l in &r.out {
            for sub in l.lines() {
                o.transcript.push_str(&format!("  {sub}\n"));
            }
        }
        match r.status {
            Status::Ok | Status::Nothing => {}
            Status::Quit => break,
            Status::Error(e) => {
                o.failed += 1;
                o.errors += 1;
                o.transcript.push_str(&error_lines(&format!("error ({name}:{n})"), &e.to_string()));
            }
            Status::Check(true) => {
                o.passed += 1;
                o.transcript.push_str("  ok\n");
            }
            Status::Check(false) => {
                o.failed += 1;
                o.transcript.push_str(&format!("  FAILED ({name}:{n})\n"));
            }
        }
    }
    o
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

/// `umpire check SCRIPT`: runs it in its library and reports its checks.
pub fn check_file(path: &Path, library: Option<&Path>) -> crate::Result<Vec<String>> {
    let lib = crate::ruleset::library_for(library, path);
    let o = run_file(&lib, path);
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
    let failures: Vec<&str> = o.transcript.lines().filter(|l| l.contains("FAILED") || l.contains("error")).collect();
    let why = if o.passed + o.failed == 0 { "checks nothing".to_string() } else { failures.join("\n") };
    Err(crate::Error::State(format!("{summary}\n{why}")))
}

/// Runs a script file in a fresh session rooted at `root`.
pub fn run_file(root: &Path, path: &Path) -> Outcome {
    let mut s = Session::with_root(root);
    match std::fs::read_to_string(path) {
        Ok(text) => {
            let name = path.display().to_string();
            let scratch = tempfile::tempdir().ok();
            s.scratch = scratch.as_ref().map(|d| d.path().to_path_buf());
            run_text(&mut s, &name, &text, true)
        }
        Err(e) => Outcome {
            transcript: format!("error: {}: {e}\n", path.display()),
            failed: 1,
            errors: 1,
            ..Default::default()
        },
    }
}
