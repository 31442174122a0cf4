//! `save` and `load`. Writing a save is the game layer's (`crate::save`); loading one replays
//! its commands through a session of its own, so it lives here. A save made with the same
//! rule files is replayed line by line, every checkpoint checked; one made with other rule
//! files (or whose replay diverges) resumes from its saved state. On any error the session is
//! unchanged. Replays run without the wall-clock backstop (only the instruction budget, which
//! does not depend on the machine), and the loaded game gets it back.

use super::{Reply, Session, Status};
use crate::error::{Error, Result};
use crate::game::Game;
use crate::ruleset::{Ruleset, resolve_scenario};
use crate::save::{self, Parsed};
use crate::scenario::{self, Scenario};
use std::path::Path;
use std::sync::Arc;

/// `save [--force] <file>`: only a regular file that is not one of the library's own, and an
/// existing one only if it is a save (or with `--force`).
pub(super) fn cmd_save(s: &mut Session, rest: &str, _line: &str) -> Result<Reply> {
    s.game()?;
    // `--force` before the file or after it (`save g.ump --force` is not a file "g.ump --force")
    let rest = rest.trim();
    let (force, path) = match (rest.strip_prefix("--force "), rest.strip_suffix(" --force")) {
        (Some(p), _) | (None, Some(p)) => (true, p.trim()),
        _ if rest == "--force" => (true, ""),
        _ => (false, rest),
    };
    if path.is_empty() {
        return Err(Error::Usage("usage: save [--force] <file>".into()));
    }
    let file = s.scratch_path(path);
    let mode = save::target(&file, &s.root, save::Kind::Save, force)?;
    let g = s.game_mut()?;
    save::write(g, &file, mode)?;
    g.saved_len = g.history.len();
    Ok(Reply::ok(vec![format!("saved to {path}")]))
}

pub(super) fn cmd_load(s: &mut Session, rest: &str, _line: &str) -> Result<Reply> {
    let path = rest.trim();
    if path.is_empty() {
        return Err(Error::Usage("usage: load <file>".into()));
    }
    let file = s.scratch_path(path);
    load(s, &file, path).map(Reply::ok)
}

/// Loads a save into the session. On any error the session is unchanged.
fn load(session: &mut Session, path: &Path, shown: &str) -> Result<Vec<String>> {
    let text = read_save(path, shown)?;
    let mut p = save::parse(path, &text)?;
    let opponents = std::mem::take(&mut p.opponents);
    let mut out = load_parsed(session, path, shown, p)?;
    if let Some(g) = session.game.as_mut() {
        for (side, bot) in &opponents {
            out.push(format!("umpire plays {side} ({bot})"));
        }
        g.opponents = opponents;
    }
    Ok(out)
}

/// Loads a parsed save into the session (see [`load`]).
fn load_parsed(session: &mut Session, path: &Path, shown: &str, mut p: Parsed) -> Result<Vec<String>> {
    // the scenario as the `new` line named it (a path works from anywhere), else by its id
    let named = p.lines.iter().find_map(|(_, l)| l.strip_prefix("new ").and_then(|r| r.split_whitespace().next()));
    let (file, lib, id) = match named.map(|n| resolve_scenario(&session.root, n)) {
        Some(Ok(found)) => found,
        _ => resolve_scenario(&session.root, &p.state.scenario)?,
    };
    let scen = Arc::new(scenario::load(&file, &id)?);
    let mut gained = save::check_state(path, &p.state, &scen)?;
    if let Some(b) = &p.base {
        for u in save::check_state(path, b, &scen)? {
            if !gained.contains(&u) {
                gained.push(u);
            }
        }
    }
    // the rules the game was played under: `new ... --rules DIR`, else the session's
    let rules = p.lines.iter().find_map(|(_, l)| super::rules_of_new(l).1).or_else(|| session.rules.clone());
    let ruleset = match &rules {
        Some(other) => Ruleset::load_other(other, &lib, &scen.ruleset)?,
        None => Ruleset::load(&lib, &scen.ruleset)?,
    };
    let mut out = Vec::new();
    if !gained.is_empty() {
        // the scenario gained units since the save: a replay would differ from the first
        // command, so the game resumes from the saved state with them added
        for st in std::iter::once(&mut p.state).chain(p.base.as_mut()) {
            for id in &gained {
                if let Some(u) = scen.initial.units.get(id).filter(|_| !st.units.contains_key(id)) {
                    st.units.insert(u.clone());
                }
            }
        }
        let (n, them) = match gained.len() {
            1 => ("1 unit".to_string(), "it"),
            n => (format!("{n} units"), "them"),
        };
        out.push(format!(
            "the scenario has {n} the save does not ({}): resuming from the saved state with {them} as the scenario sets {them} up; undo history starts here",
            gained.join(", ")
        ));
    } else if p.base.is_none() && ruleset.content_hash == p.ruleset_hash {
        match replay(session, path, &p)? {
            Ok(mut g) => {
                g.host().set_backstop(true);
                g.saved_len = g.history.len();
                out.push(format!("loaded {shown} ({} commands replayed, state {})", g.history.len(), g.hash()));
                session.game = Some(g);
                return Ok(out);
            }
            Err(why) => {
                out.push(format!("replay diverged: {why}; resuming from the saved state (undo history starts here)"))
            }
        }
    } else if p.base.is_none() {
        out.push(format!(
            "the rule files changed since this save (saved with {} {}, now {} {} {}): resuming from the saved state; undo history starts here",
            p.ruleset_desc, p.ruleset_hash, ruleset.id, ruleset.version, ruleset.content_hash
        ));
    }
    let g = resume(session, path, p, scen, ruleset, &mut out)?;
    g.host().set_backstop(true);
    out.push(format!("loaded {shown} (state {})", g.hash()));
    session.game = Some(g);
    Ok(out)
}

/// The largest save `load` reads (a whole campaign's save is well under 10 MiB).
const MAX_SAVE: u64 = 64 << 20;

/// Reads a save: a regular file (not a FIFO or a device, which could block or never end) of
/// at most [`MAX_SAVE`] bytes.
fn read_save(path: &Path, shown: &str) -> Result<String> {
    let meta = std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
    if !meta.is_file() {
        return Err(Error::Save(format!("{shown}: not a regular file (a save is a file written by `save`)")));
    }
    if meta.len() > MAX_SAVE {
        return Err(Error::Save(format!("{shown}: {} bytes, more than a save can hold ({MAX_SAVE})", meta.len())));
    }
    let mut text = String::new();
    use std::io::Read;
    std::fs::File::open(path)
        .and_then(|f| f.take(MAX_SAVE + 1).read_to_string(&mut text))
        .map_err(|e| Error::io(path, e))?;
    Ok(text)
}

/// Every line of the save, committed ones then the pending command's.
fn all_lines(p: &Parsed) -> Vec<(usize, String)> {
    p.lines.iter().chain(p.pending.iter()).cloned().collect()
}

/// Replays a save made with the same rule files in a session of its own, checking every
/// checkpoint and the final hash. `Ok(Err(why))` when the replay diverged.
fn replay(session: &Session, path: &Path, p: &Parsed) -> Result<std::result::Result<Game, String>> {
    let saved_hash = p.hash.clone().unwrap_or_else(|| p.state.hash());
    let mut replay = session.sibling(None);
    // (whether the command being replayed is one umpire played for its side: its entry, once
    // committed, is marked so, for the player's `undo`)
    let mut by_bot = false;
    for (n, l) in &all_lines(p) {
        by_bot |= p.by_bot.contains(n);
        let before = replay.game.as_ref().map_or(0, |g| g.history.len());
        let r = replay.execute(l);
        match r.status {
            Status::Error(e) => return Ok(Err(format!("line {n} `{l}` failed: {e}"))),
            Status::Check(false) => return Ok(Err(format!("line {n}: {}", r.out.join("; ")))),
            _ => {}
        }
        if let Some(g) = replay.game.as_mut()
            && g.history.len() > before
            && let Some(e) = g.history.last_mut()
        {
            e.by_bot = std::mem::take(&mut by_bot);
        }
    }
    // (format 1 hashed the state alone)
    let replayed = match (p.format, &replay.game) {
        (1, Some(g)) => Some(g.state().hash()),
        _ => replay.hash(),
    };
    if replayed.as_deref() != Some(&saved_hash) {
        return Ok(Err("the replayed game ends on a different state than the saved one".into()));
    }
    replay.game.take().map(Ok).ok_or_else(|| Error::Save(format!("{}: no `new` line", path.display())))
}

/// Resumes from a state: the saved one (then the pending command is replayed and asks again),
/// or a base plus the commands after it.
fn resume(
    session: &Session,
    path: &Path,
    p: Parsed,
    scen: Arc<Scenario>,
    ruleset: Ruleset,
    out: &mut Vec<String>,
) -> Result<Game> {
    let start = p.base.clone().unwrap_or_else(|| p.state.clone());
    let mut tmp = session.sibling(None);
    let g = Game::assemble(scen, ruleset, start, "", tmp.config())?;
    let mut prior = p.prior.clone();
    prior.extend(p.lines.iter().map(|(_, l)| l.clone()).filter(|l| !l.starts_with("checkpoint ")));
    let replay_after: Vec<(usize, String)> = if p.base.is_some() { all_lines(&p) } else { p.pending.clone() };
    tmp.game = Some(g);
    for (n, l) in &replay_after {
        let r = tmp.execute(l);
        if let Status::Error(e) = &r.status {
            // a command waiting for a decision that these rules no longer run (a verb renamed,
            // an answer no longer offered) is left out: the game resumes before it
            if p.base.is_none() {
                let g = tmp.game.as_mut().expect("the replay keeps its game");
                g.cancel_pending(true, true, "cancel")?;
                out.push(format!(
                    "{}:{n}: the command waiting for a decision, `{}`, does not run under these rules ({e}): it is left out, the game resumes before it",
                    path.display(),
                    p.pending.first().map_or(l.as_str(), |(_, c)| c.as_str())
                ));
                break;
            }
            return Err(Error::Save(format!("{}:{n}: `{l}` failed on replay: {e}", path.display())));
        }
    }
    let mut g = tmp.game.take().expect("the replay keeps its game");
    // a step the rules no longer have: said, not resumed silently
    let step = g.state().clock.step.clone();
    if !step.is_empty() && g.state().clock.over.is_none() && !g.step_ids()?.contains(&step) {
        out.push(format!(
            "the saved game is at step '{step}' ({}), which these rules' sequence of play does not have: `next` goes on from the same place in the sequence, under the steps it has now",
            g.state().clock.phase
        ));
    }
    g.base = Some(match p.base {
        Some(base) => (base, p.prior),
        None => (p.state, prior),
    });
    g.saved_len = g.history.len();
    Ok(g)
}
