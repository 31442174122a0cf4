//! `umpire replay FILE --rules DIR`: a saved game (or a command script) played twice, under
//! the library's rules and under the rules of DIR, command by command; every command whose
//! ruling changed — accepted in one and refused in the other, other output, another state —
//! is listed, from the first one where the games diverge.
//!
//! Both games are fed the same lines: the designer sees what the edited rules do to a game
//! played under the old ones (after a divergence the later commands may be refused, which is
//! itself a changed ruling). The save's `checkpoint` lines (the old rules' hashes) are left out.

use crate::session::{Reply, Session, Status};
use std::path::Path;

/// A command whose ruling changed.
#[derive(Clone, Debug)]
pub struct Change {
    /// The line of the file, and the command.
    pub line: usize,
    pub command: String,
    pub before: Vec<String>,
    pub after: Vec<String>,
    /// Whether the state hashes differed after it.
    pub state_differs: bool,
}

#[derive(Clone, Debug, Default)]
pub struct Outcome {
    pub commands: usize,
    pub changes: Vec<Change>,
    /// The first command after which the two states differ (line, command).
    pub diverged: Option<(usize, String)>,
    /// Where the games end (the rules' results, if over).
    pub ends: (Option<String>, Option<String>),
}

/// What a reply shows as its ruling: its output lines, and its refusal with the reason.
fn ruling(r: &Reply) -> Vec<String> {
    let mut v: Vec<String> = r.out.iter().flat_map(|l| l.lines().map(str::to_string)).collect();
    match &r.status {
        Status::Error(e) => v.push(format!("refused: {}", e.to_string().lines().next().unwrap_or(""))),
        Status::Check(false) => v.push("check FAILED".into()),
        _ => {}
    }
    v
}

/// The command lines of a save or a script (`checkpoint` lines and comments left out).
pub fn lines_of(path: &Path) -> crate::Result<Vec<(usize, String)>> {
    let text = std::fs::read_to_string(path).map_err(|e| crate::Error::io(path, e))?;
    Ok(crate::text::script_lines(&text)
        .into_iter()
        .map(|(n, l)| (n, l.trim().to_string()))
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#') && !l.starts_with("checkpoint "))
        .collect())
}

/// Replays `path` under the library `root`'s rules and under `rules`.
pub fn replay(root: &Path, path: &Path, rules: &Path) -> crate::Result<Outcome> {
    let lines = lines_of(path)?;
    if !lines.iter().any(|(_, l)| l.starts_with("new ")) {
        return Err(crate::Error::Usage(format!(
            "{}: no `new` line to start the game from (a save resumed after a change of rules holds its state, not its commands)",
            path.display()
        )));
    }
    let mut a = Session::with_root(root);
    let mut b = Session::with_root(root);
    b.rules = Some(rules.to_path_buf());
    let mut out = Outcome::default();
    for (n, line) in lines {
        // a save of a game played under other rules names them: here the two sides choose
        let line = crate::session::rules_of_new(&line).0;
        let (ra, rb) = (a.execute(&line), b.execute(&line));
        if line.starts_with("new ") {
            // rules that do not load make no comparison: say so at once
            for (r, whose) in
                [(&ra, "the library's rules".to_string()), (&rb, format!("the rules in {}", rules.display()))]
            {
                if let Some(e) = r.error() {
                    return Err(crate::Error::State(format!(
                        "{}:{n}: `{line}` fails under {whose}: {e}",
                        path.display()
                    )));
                }
            }
        }
        out.commands += 1;
        let (before, after) = (ruling(&ra), ruling(&rb));
        // the banner of `new` names the rules' folder and hash: compare what follows it
        let same = if line.starts_with("new ") { before.get(1..) == after.get(1..) } else { before == after };
        let state_differs = a.hash() != b.hash();
        if state_differs && out.diverged.is_none() {
            out.diverged = Some((n, line.clone()));
        }
        if !same || (state_differs && out.changes.last().is_none_or(|c| !c.state_differs)) {
            out.changes.push(Change { line: n, command: line, before, after, state_differs });
        }
    }
    let end = |s: &Session| s.game.as_ref().and_then(|g| g.state().clock.over.clone());
    out.ends = (end(&a), end(&b));
    Ok(out)
}

/// The report of a replay.
pub fn report(file: &Path, rules: &Path, o: &Outcome) -> Vec<String> {
    let mut v = vec![format!(
        "replay {} under {}: {} commands, {} with a changed ruling",
        file.display(),
        rules.display(),
        o.commands,
        o.changes.len()
    )];
    match &o.diverged {
        Some((n, c)) => v.push(format!("the games diverge at {}:{n}: `{c}`", file.display())),
        None => v.push("the games never diverge: the same state after every command".into()),
    }
    for c in &o.changes {
        v.push(format!(
            "{}:{} `{}`{}",
            file.display(),
            c.line,
            c.command,
            if c.state_differs { " (states differ)" } else { "" }
        ));
        let common = c.before.iter().zip(&c.after).take_while(|(x, y)| x == y).count();
        for l in &c.before[common..] {
            v.push(format!("  - {l}"));
        }
        for l in &c.after[common..] {
            v.push(format!("  + {l}"));
        }
    }
    let show = |r: &Option<String>| r.clone().unwrap_or_else(|| "not over".into());
    v.push(format!("at the end: {} (library's rules) / {} (other rules)", show(&o.ends.0), show(&o.ends.1)));
    v
}
