//! Saves: a readable command script that replays the game (with `checkpoint <hash>` after
//! every command, so a replay that diverges says where), plus the full state so that the game
//! resumes even when the rule files have changed since. Written atomically.
//!
//! ```text
//! # umpire save: `umpire run FILE` replays it, `load FILE` resumes it
//! #@umpire-save 2
//! #@ruleset fixture 0.1.0 3f2a...
//! new fixture --seed 7
//! move A1 0304
//! checkpoint 9c1e...
//! #@state {...json...}
//! ```

use crate::error::{Error, Result};
use crate::game::Game;
use crate::state::GameState;
use std::io::Write;
use std::path::Path;

/// The save format this program writes; it reads this one and every older one. Format 2's
/// `#@hash` covers the answers of a command waiting for a decision ([`Game::hash`]); format
/// 1's was the state's alone.
pub const FORMAT: u32 = 2;
pub const HEADER: &str = "#@umpire-save 2";
const HEADER_PREFIX: &str = "#@umpire-save ";

/// The save format named in the first lines of `text` (`None`: not a save); a byte-order mark
/// before them is allowed.
fn format_of(text: &str) -> Option<std::result::Result<u32, String>> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let v = text.lines().take(5).find_map(|l| l.trim().strip_prefix(HEADER_PREFIX))?;
    Some(v.trim().parse::<u32>().map_err(|_| v.trim().to_string()))
}

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
    for (side, bot) in &g.opponents {
        s.push_str(&format!("#@opponent {side} {bot}\n"));
    }
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
        if e.by_bot {
            // (umpire played it for its side: a load keeps that, for the player's `undo`)
            s.push_str("#@bot\n");
        }
        for l in &e.lines {
            push_line(&mut s, l);
        }
        if let Some(h) = &e.after_hash {
            s.push_str(&format!("checkpoint {h}\n"));
        }
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
    s.push_str(&format!("#@hash {}\n", g.hash()));
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

/// What a file written by umpire is (a save or a map picture), for the rules of [`target`].
#[derive(Clone, Copy, PartialEq)]
pub enum Kind {
    Save,
    Picture,
}

/// Whether `path` may be written as a file of `kind`: it must not be inside the library's
/// `rulesets/` or `scenarios/`; if it exists it must be a regular, writable file (not a
/// link, a device or a FIFO) of the same kind, unless `force`. Returns the existing file's
/// mode, which the write keeps.
pub fn target(path: &Path, library: &Path, kind: Kind, force: bool) -> Result<Option<std::fs::Permissions>> {
    let shown = path.display();
    let dir = folder_of(path);
    if let (Ok(dir), Ok(lib)) = (dir.canonicalize(), library.canonicalize()) {
        for part in ["rulesets", "scenarios"] {
            if dir.starts_with(lib.join(part)) {
                return Err(Error::Save(format!(
                    "{shown} is inside the library's {part}/ (the game's own files): write it elsewhere"
                )));
            }
        }
    }
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io(path, e)),
    };
    if meta.file_type().is_symlink() {
        return Err(Error::Save(format!("{shown} is a symbolic link: umpire writes only regular files")));
    }
    if !meta.is_file() {
        return Err(Error::Save(format!("{shown} is not a regular file (a folder, a device or a FIFO)")));
    }
    if meta.permissions().readonly() {
        return Err(Error::Save(format!("{shown} is read-only")));
    }
    if !force && !is_kind(path, kind) {
        let what = if kind == Kind::Save { "an umpire save" } else { "an SVG picture" };
        return Err(Error::Save(format!("{shown} exists and is not {what}: add --force to replace it")));
    }
    Ok(Some(meta.permissions()))
}

/// The folder a file is written in (`.` for a bare name).
fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// Whether the file at `path` is an umpire save (its header in the first lines).
pub fn is_save_file(path: &Path) -> bool {
    path.is_file() && is_kind(path, Kind::Save)
}

/// Whether the file at `path` looks like a file of `kind` (its first kilobytes).
fn is_kind(path: &Path, kind: Kind) -> bool {
    use std::io::Read;
    let mut head = Vec::new();
    if std::fs::File::open(path).and_then(|f| f.take(4096).read_to_end(&mut head)).is_err() {
        return false;
    }
    let text = String::from_utf8_lossy(&head);
    match kind {
        Kind::Save => format_of(&text).is_some(),
        Kind::Picture => text.trim_start().starts_with("<svg"),
    }
}

/// Writes a save atomically (see [`write_atomic`]).
pub fn write(g: &Game, path: &Path, mode: Option<std::fs::Permissions>) -> Result<()> {
    write_atomic(path, render(g).as_bytes(), mode)
}

/// Writes atomically: a temporary file beside the target, fsync, rename, fsync of the folder.
/// The file gets `mode` (an existing file's), or the mode a new file gets from the umask.
/// The temporary file's name is unique to the process and the write
/// (`.<name>.umpire-tmp.<pid>.<n>`), so two processes saving to one file never rename each
/// other's; what a process killed while saving left behind is removed by a later save once it
/// is [`STALE`] old (no save takes that long), and never reaches a message.
pub fn write_atomic(path: &Path, bytes: &[u8], mode: Option<std::fs::Permissions>) -> Result<()> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static WRITES: AtomicU64 = AtomicU64::new(0);
    let dir = folder_of(path);
    let name = path.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
    let prefix = format!(".{name}.umpire-tmp");
    let tmp = dir.join(format!("{prefix}.{}.{}", std::process::id(), WRITES.fetch_add(1, Ordering::Relaxed)));
    let written = (|| -> std::io::Result<()> {
        // (a name this process used before it was reused by the system, or a link planted
        // under it, goes first)
        match std::fs::remove_file(&tmp) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
        let mut f = std::fs::OpenOptions::new().write(true).create_new(true).open(&tmp)?;
        f.write_all(bytes)?;
        if let Some(m) = mode {
            f.set_permissions(m)?;
        }
        f.sync_all()?;
        std::fs::rename(&tmp, path)?;
        // the rename is durable once the folder is
        std::fs::File::open(dir)?.sync_all()
    })();
    match written {
        Ok(()) => {
            remove_stale(dir, &prefix);
            Ok(())
        }
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            Err(Error::io(path, e))
        }
    }
}

/// How old a temporary save file must be to be another process's leftover.
const STALE: std::time::Duration = std::time::Duration::from_secs(600);

/// Removes the temporary files of saves to the same file (`prefix`) older than [`STALE`]:
/// what a process killed while saving left. Best effort: a failure leaves them.
fn remove_stale(dir: &Path, prefix: &str) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let now = std::time::SystemTime::now();
    for e in entries.flatten() {
        let stale = e.file_name().to_str().is_some_and(|n| n.starts_with(prefix))
            && e.metadata()
                .and_then(|m| m.modified())
                .is_ok_and(|t| now.duration_since(t).is_ok_and(|age| age > STALE));
        if stale {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

/// A save file as read: what the loader needs to replay or resume it.
pub struct Parsed {
    /// The save format it was written in ([`FORMAT`] or older).
    pub format: u32,
    pub ruleset_hash: String,
    pub ruleset_desc: String,
    pub state: GameState,
    /// Hash of the game as saved (with a pending command half done).
    pub hash: Option<String>,
    pub base: Option<GameState>,
    pub prior: Vec<String>,
    /// (line number, command): the committed commands, then those of a pending command
    pub lines: Vec<(usize, String)>,
    pub pending: Vec<(usize, String)>,
    /// The sides umpire played (`#@opponent SIDE BOT`), with their bots.
    pub opponents: std::collections::BTreeMap<String, String>,
    /// The line numbers of the commands umpire played for its sides (each after `#@bot`).
    pub by_bot: std::collections::BTreeSet<usize>,
}

/// Parses save text; `path` names it in errors.
pub fn parse(path: &Path, text: &str) -> Result<Parsed> {
    let name = path.display();
    let corrupt = |line: usize, msg: String| Error::Save(format!("{name}:{line}: {msg}"));
    let format = match format_of(text) {
        None => return Err(Error::Save(format!("{name}: not an umpire save (no `{HEADER}` line at the top)"))),
        Some(Err(v)) => return Err(Error::Save(format!("{name}: `{HEADER_PREFIX}{v}` names no save format"))),
        Some(Ok(v)) if v > FORMAT || v == 0 => {
            return Err(Error::Save(format!(
                "{name}: written in save format {v} by a newer umpire; this one reads formats 1 to {FORMAT}: update umpire to load it"
            )));
        }
        Some(Ok(v)) => v,
    };
    let mut ruleset = None;
    let mut state = None;
    let mut hash = None;
    let mut base = None;
    let mut prior = Vec::new();
    let mut lines = Vec::new();
    let mut pending = Vec::new();
    let mut in_pending = false;
    let mut opponents = std::collections::BTreeMap::new();
    let (mut by_bot, mut next_by_bot) = (std::collections::BTreeSet::new(), false);
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
        } else if let Some(o) = l.strip_prefix("#@opponent ") {
            let Some((side, bot)) = o.trim().split_once(' ') else {
                return Err(corrupt(n, "bad #@opponent line (#@opponent SIDE BOT)".into()));
            };
            opponents.insert(side.to_string(), bot.trim().to_string());
        } else if l == "#@bot" {
            next_by_bot = true;
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
            if std::mem::take(&mut next_by_bot) {
                by_bot.insert(n);
            }
            lines.push((n, l.to_string()));
        }
    }
    let (ruleset_hash, ruleset_desc) = ruleset.ok_or_else(|| Error::Save(format!("{name}: no #@ruleset line")))?;
    let state = state.ok_or_else(|| Error::Save(format!("{name}: no #@state line (truncated file?)")))?;
    Ok(Parsed { format, ruleset_hash, ruleset_desc, state, hash, base, prior, lines, pending, opponents, by_bot })
}

/// The saved state must fit the scenario: units it knows, steps that exist, hexes on the map.
/// Returns the scenario's units the save does not hold (the scenario gained them since).
pub fn check_state(path: &Path, state: &GameState, scen: &crate::scenario::Scenario) -> Result<Vec<String>> {
    let bad =
        |msg: String| Err(Error::Save(format!("{}: the saved state does not fit {}: {msg}", path.display(), scen.id)));
    for (id, u) in state.units.iter() {
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
    Ok(scen.initial.units.keys().filter(|id| !state.units.contains_key(id)).map(|id| id.to_string()).collect())
}
