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
            s.push_str(&format!("#| {l}\n"));
        }
        s.push_str(&format!("#@base {}\n", serde_json::to_string(base).expect("state serialises")));
    } else {
        s.push_str(&g.new_line);
        s.push('\n');
        for l in &g.setup {
            s.push_str(l);
            s.push('\n');
        }
    }
    for e in &g.history {
        for l in &e.lines {
            s.push_str(l);
            s.push('\n');
        }
        s.push_str(&format!("checkpoint {}\n", e.after.hash()));
    }
    let mut pending = g.pending_lines();
    // the set-up of a new game waiting for a decision: its `new` line is already written
    if g.base.is_none() && g.history.is_empty() && pending.first() == Some(&g.new_line) {
        pending.remove(0);
    }
    if !pending.is_empty() {
        s.push_str("# a command waiting for a decision:\n");
        for l in pending {
            s.push_str(&l);
            s.push('\n');
        }
    }
    s.push_str(&format!("#@state {}\n", serde_json::to_string(&*g.state()).expect("state serialises")));
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
    tmp.as_file().sync_all().map_err(|e| Error::io(path, e))?;
    tmp.persist(path).map_err(|e| Error::io(path, e.error))?;
    Ok(())
}

struct Parsed {
    ruleset_hash: String,
    ruleset_desc: String,
    state: GameState,
    base: Option<GameState>,
    prior: Vec<String>,
    /// (line number, command)
    lines: Vec<(usize, String)>,
}

fn parse(path: &Path, text: &str) -> Result<Parsed> {
    let name = path.display();
    let corrupt = |line: usize, msg: String| Error::Save(format!("{name}:{line}: {msg}"));
    if !text.lines().take(5).any(|l| l.trim() == HEADER) {
        return Err(Error::Save(format!("{name}: not an umpire save (no `{HEADER}` line at the top)")));
    }
    let mut ruleset = None;
    let mut state = None;
    let mut base = None;
    let mut prior = Vec::new();
    let mut lines = Vec::new();
    for (i, l) in text.lines().enumerate() {
        let n = i + 1;
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
        } else if let Some(j) = l.strip_prefix("#@base ") {
            base = Some(
                serde_json::from_str::<GameState>(j)
                    .map_err(|e| corrupt(n, format!("saved base state is corrupt: {e}")))?,
            );
        } else if let Some(p) = l.strip_prefix("#| ") {
            prior.push(p.to_string());
        } else if l.is_empty() || l.starts_with('#') {
            continue;
        } else {
            lines.push((n, l.to_string()));
        }
    }
    let (ruleset_hash, ruleset_desc) = ruleset.ok_or_else(|| Error::Save(format!("{name}: no #@ruleset line")))?;
    let state = state.ok_or_else(|| Error::Save(format!("{name}: no #@state line (truncated file?)")))?;
    Ok(Parsed { ruleset_hash, ruleset_desc, state, base, prior, lines })
}

/// Loads a save into the session. On any error the session is unchanged.
pub fn load(session: &mut Session, path: &Path, shown: &str) -> Result<Vec<String>> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    let p = parse(path, &text)?;
    let (file, lib, id) = resolve_scenario(&session.root, &p.state.scenario)?;
    let ruleset = Ruleset::load(&lib, &load_ruleset_id(&file, &id)?)?;
    let mut out = Vec::new();

    if p.base.is_none() && ruleset.content_hash == p.ruleset_hash {
        // same rules: replay, checking every checkpoint
        let mut replay = session.sibling(None);
        let mut diverged = None;
        for (n, l) in &p.lines {
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
        if diverged.is_none() && replay.hash().as_deref() != Some(&p.state.hash()) {
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

    // resume from a state: the saved one, or a base plus the commands after it
    let scen = Arc::new(scenario::load(&file, &id)?);
    let start = p.base.clone().unwrap_or_else(|| p.state.clone());
    let mut g = Game::assemble(scen, ruleset, start, "", session.limits)?;
    let mut prior = p.prior.clone();
    prior.extend(p.lines.iter().map(|(_, l)| l.clone()).filter(|l| !l.starts_with("checkpoint ")));
    if let Some(base) = p.base {
        // replay what came after the base with the current rules
        let mut tmp = session.sibling(Some(g));
        for (n, l) in &p.lines {
            let r = tmp.execute(l);
            if let Status::Error(e) = &r.status {
                return Err(Error::Save(format!("{}:{n}: `{l}` failed on replay: {e}", path.display())));
            }
        }
        g = tmp.game.take().expect("game");
        g.base = Some((base, p.prior));
    } else {
        g.base = Some((p.state.clone(), prior));
    }
    g.saved_len = g.history.len();
    out.push(format!("loaded {shown} (state {})", g.state().hash()));
    session.game = Some(g);
    Ok(out)
}

fn load_ruleset_id(file: &Path, id: &str) -> Result<String> {
    let s = scenario::load(file, id)?;
    Ok(s.ruleset)
}
