//! Saves: a readable command script that replays the game (with `checkpoint <hash>` after
//! every command, so a replay that diverges says where), plus the full state so that the game
//! resumes even when the rule files have changed since. Written atomically.
//!
//! ```text
//! # umpire save: `umpire run FILE` replays it, `load FILE` resumes it
//! #@umpire-save 1
//! #@ruleset fixture 0.1.0 3f2a...
//! new fixture --seed 7
//! move A1 0304
//! checkpoint 9c1e...
//! #@state {...json...}
//! ```

use crate::error::{Error, Result};
use crate::ruleset::{Ruleset, resolve_scenario};
use crate::scenario;
use crate::session::{Game, Session, Status};
use crate::state::GameState;
use std::io::Write;
use std::path::Path;
use std::sync::Arc;

pub const HEADER: &str = "#@umpire-save 1";

/// Writes one command, continuing a multi-line one with `\` (the script syntax).
fn push_line(s: &mut String, l: &str) {
    s.push_str(&l.replace('\n', "\\\n"));
    s.push('\n');
}

/// Renders a game as save text.
pub fn render(g: &Game) -> String {
    let mut s = String::new();
    s.push_str("# umpire save: `umpire run FILE` replays it, `load FILE` resumes it\n");
    s.push_str(HEADER);
    s.push('\n');
    s.push_str(&format!("#@ruleset {} {} {}\n", g.ruleset.id, g.ruleset.version, g.ruleset.content_hash));
    s.push_str(&format!("#@scenario {}\n", g.scenario.id));
    if let Some((base, prior)) = &g.base {
        s.push_str("# resumed from a saved state after the rules changed; earlier commands:\n");
        for l in prior {
            s.push_str(&format!("#| {}\n", l.replace('\n', " ")));
        }
        s.push_str(&format!("#@base {}\n", serde_json::to_string(base).expect("state serialises")));
    } else {
        push_line(&mut s, &g.new_line);
        for l in &g.setup {
            push_line(&mut s, l);
        }
    }
    for e in &g.history {
        for l in &e.lines {
            push_line(&mut s, l);
        }
        s.push_str(&format!("checkpoint {}\n", e.after_hash));
    }
    let mut pending = g.pending_lines();
    // the set-up of a new game waiting for a decision: its `new` line is already written
    if g.base.is_none() && g.history.is_empty() && pending.first() == Some(&g.new_line) {
        pending.remove(0);
    }
    if !pending.is_empty() {
        s.push_str("# a command waiting for a decision:\n#@pending\n");
        for l in pending {
            push_line(&mut s, &l);
        }
    }
    s.push_str(&format!("#@hash {}\n", g.state().hash()));
    // the state to resume from when the rules changed: before any command still waiting for a
    // decision (that command is replayed and asks again)
    let state = match &g.pending {
        Some(p) if !(g.base.is_none() && g.history.is_empty() && g.pending_lines().first() == Some(&g.new_line)) => {
            serde_json::to_string(p.before()).expect("state serialises")
        }
        _ => serde_json::to_string(&*g.state()).expect("state serialises"),
    };
    s.push_str(&format!("#@state {state}\n"));
    s
}

/// Writes atomically: a temporary file in the same folder, fsync, rename.
pub fn write(g: &Game, path: &Path) -> Result<()> {
    write_atomic(path, render(g).as_bytes())
}

pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(|e| Error::io(dir, e))?;
    tmp.write_all(bytes).map_err(|e| Error::io(path, e))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        // a save is a document, readable like any file the user writes (tempfile makes 0600)
        let _ = tmp.as_file().set_permissions(std::fs::Permissions::from_mode(0o644));
    }
    tmp.as_file().sync_all().map_err(|e| Error::io(path, e))?;
    tmp.persist(path).map_err(|e| Error::io(path, e.error))?;
    Ok(())
}

struct Parsed {
    ruleset_hash: String,
    ruleset_desc: String,
    state: GameState,
    /// Hash of the game as saved (with a pending command half done).
    hash: Option<String>,
    base: Option<GameState>,
    prior: Vec<String>,
    /// (line number, command): the committed commands, then those of a pending command
    lines: Vec<(usize, String)>,
    pending: Vec<(usize, String)>,
}

fn parse(path: &Path, text: &str) -> Result<Parsed> {
    let name = path.display();
    let corrupt = |line: usize, msg: String| Error::Save(format!("{name}:{line}: {msg}"));
    if !text.lines().take(5).any(|l| l.trim() == HEADER) {
        return Err(Error::Save(format!("{name}: not an umpire save (no `{HEADER}` line at the top)")));
    }
    let mut ruleset = None;
    let mut state = None;
    let mut hash = None;
    let mut base = None;
    let mut prior = Vec::new();
    let mut lines = Vec::new();
    let mut pending = Vec::new();
    let mut in_pending = false;
    for (n, l) in crate::text::script_lines(text) {
        let l = l.trim();
        if let Some(r) = l.strip_prefix("#@ruleset ") {
            let parts: Vec<&str> = r.split_whitespace().collect();
            if parts.len() != 3 {
                return Err(corrupt(n, "bad #@ruleset line".into()));
            }
            ruleset = Some((parts[2].to_string(), format!("{} {}", parts[0], parts[1])));
        } else if let Some(j) = l.strip_prefix("#@state ") {
            state = Some(
                serde_json::from_str::<GameState>(j).map_err(|e| corrupt(n, format!("saved state is corrupt: {e}")))?,
            );
        } else if let Some(h) = l.strip_prefix("#@hash ") {
            hash = Some(h.trim().to_string());
        } else if l == "#@pending" {
            in_pending = true;
        } else if let Some(j) = l.strip_prefix("#@base ") {
            base = Some(
                serde_json::from_str::<GameState>(j)
                    .map_err(|e| corrupt(n, format!("saved base state is corrupt: {e}")))?,
            );
        } else if let Some(p) = l.strip_prefix("#| ") {
            prior.push(p.to_string());
        } else if l.is_empty() || l.starts_with('#') {
            continue;
        } else if in_pending {
            pending.push((n, l.to_string()));
        } else {
            lines.push((n, l.to_string()));
        }
    }
    let (ruleset_hash, ruleset_desc) = ruleset.ok_or_else(|| Error::Save(format!("{name}: no #@ruleset line")))?;
    let state = state.ok_or_else(|| Error::Save(format!("{name}: no #@state line (truncated file?)")))?;
    Ok(Parsed { ruleset_hash, ruleset_desc, state, hash, base, prior, lines, pending })
}

/// The saved state must fit the scenario: the same units, steps that exist, hexes on the map.
fn check_state(path: &Path, state: &GameState, scen: &crate::scenario::Scenario) -> Result<()> {
    let bad =
        |msg: String| Err(Error::Save(format!("{}: the saved state does not fit {}: {msg}", path.display(), scen.id)));
    for (id, u) in &state.units {
        let Some(orig) = scen.initial.units.get(id) else { return bad(format!("unknown unit {id}")) };
        if u.steps.len() != orig.steps.len() || u.step >= u.steps.len() {
            return bad(format!("unit {id} has no step {}", u.step + 1));
        }
        if let crate::state::Location::Hex(h) = u.loc
            && !scen.map.contains(h)
        {
            return bad(format!("unit {id} is off the map"));
        }
    }
    if let Some(id) = scen.initial.units.keys().find(|id| !state.units.contains_key(*id)) {
        return bad(format!("unit {id} is missing"));
    }
    Ok(())
}

/// Loads a save into the session. On any error the session is unchanged.
pub fn load(session: &mut Session, path: &Path, shown: &str) -> Result<Vec<String>> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    let p = parse(path, &text)?;
    // the scenario as the `new` line named it (a path works from anywhere), else by its id
    let named = p.lines.iter().find_map(|(_, l)| l.strip_prefix("new ").and_then(|r| r.split_whitespace().next()));
    let (file, lib, id) = match named.map(|n| resolve_scenario(&session.root, n)) {
        Some(Ok(found)) => found,
        _ => resolve_scenario(&session.root, &p.state.scenario)?,
    };
    let scen = Arc::new(scenario::load(&file, &id)?);
    check_state(path, &p.state, &scen)?;
    if let Some(b) = &p.base {
        check_state(path, b, &scen)?;
    }
    let ruleset = Ruleset::load(&lib, &scen.ruleset)?;
    let mut out = Vec::new();
    let all: Vec<(usize, String)> = p.lines.iter().chain(p.pending.iter()).cloned().collect();
    let saved_hash = p.hash.clone().unwrap_or_else(|| p.state.hash());

    if p.base.is_none() && ruleset.content_hash == p.ruleset_hash {
        // same rules: replay, checking every checkpoint
        let mut replay = session.sibling(None);
        let mut diverged = None;
        for (n, l) in &all {
            let r = replay.execute(l);
            match r.status {
                Status::Error(e) => {
                    diverged = Some(format!("line {n} `{l}` failed: {e}"));
                    break;
                }
                Status::Check(false) => {
                    diverged = Some(format!("line {n}: {}", r.out.join("; ")));
                    break;
                }
                _ => {}
            }
        }
        if diverged.is_none() && replay.hash().as_deref() != Some(&saved_hash) {
            diverged = Some("the replayed game ends on a different state than the saved one".into());
        }
        match diverged {
            None => {
                let mut g =
                    replay.game.take().ok_or_else(|| Error::Save(format!("{}: no `new` line", path.display())))?;
                g.saved_len = g.history.len();
                out.push(format!("loaded {shown} ({} commands replayed, state {})", g.history.len(), g.state().hash()));
                session.game = Some(g);
                return Ok(out);
            }
            Some(why) => {
                out.push(format!("replay diverged: {why}; resuming from the saved state (undo history starts here)"))
            }
        }
    } else if p.base.is_none() {
        out.push(format!(
            "the rule files changed since this save (saved with {} {}, now {} {} {}): resuming from the saved state; undo history starts here",
            p.ruleset_desc, p.ruleset_hash, ruleset.id, ruleset.version, ruleset.content_hash
        ));
    }

    // resume from a state: the saved one (then the pending command is replayed and asks
    // again), or a base plus the commands after it
    let start = p.base.clone().unwrap_or_else(|| p.state.clone());
    let g = Game::assemble(scen, ruleset, start, "", session.config())?;
    let mut prior = p.prior.clone();
    prior.extend(p.lines.iter().map(|(_, l)| l.clone()).filter(|l| !l.starts_with("checkpoint ")));
    let replay_after: Vec<(usize, String)> = if p.base.is_some() { all.clone() } else { p.pending.clone() };
    let mut tmp = session.sibling(Some(g));
    for (n, l) in &replay_after {
        let r = tmp.execute(l);
        if let Status::Error(e) = &r.status {
            return Err(Error::Save(format!("{}:{n}: `{l}` failed on replay: {e}", path.display())));
        }
    }
    let mut g = tmp.game.take().expect("game");
    g.base = Some(match p.base {
        Some(base) => (base, p.prior),
        None => (p.state.clone(), prior),
    });
    g.saved_len = g.history.len();
    out.push(format!("loaded {shown} (state {})", g.state().hash()));
    session.game = Some(g);
    Ok(out)
}
