//! The board beside the REPL (`umpire play --board`, `board` at the prompt), told of every
//! command, and a saved game or a script to step through (`umpire board FILE`). The board
//! itself is src/board.

use super::out_raw;
use anyhow::{Context, Result};
use std::cell::RefCell;
use std::path::{Path, PathBuf};
use umpire::Session;
use umpire::board::{Board, Step};

/// The board of this session and the state it was last told of.
struct Live {
    board: Board,
    last: Option<String>,
    /// The sides with a page of their own (fog of war), as the board was started.
    sides: Vec<String>,
}

thread_local! {
    static LIVE: RefCell<Option<Live>> = const { RefCell::new(None) };
}

/// The sides that get a page of their own: every side when the rules hide units (fog of war).
fn pages_for(session: &Session) -> Vec<String> {
    match &session.game {
        Some(g) if g.fog() => g.sides(),
        _ => Vec::new(),
    }
}

/// The position now, as a step of the board's timeline.
fn step(session: &Session, line: &str, out: &[String]) -> Option<Step> {
    let asks = session.game.as_ref().and_then(|g| g.pending.as_ref()).and_then(|p| p.question.side.clone());
    session.snapshot().map(|snap| Step { line: line.to_string(), out: out.to_vec(), snap, asks })
}

/// `board` at the prompt (or `--board`): serves the game from the position it is in (once; again,
/// it says where the pages are). The lines to print.
pub(super) fn start(session: &Session) -> Result<Vec<String>> {
    LIVE.with(|live| {
        let mut live = live.borrow_mut();
        if let Some(l) = live.as_ref() {
            return Ok(l.board.announce());
        }
        let first: Vec<Step> = step(session, "(the game when the board opened)", &[]).into_iter().collect();
        let sides = pages_for(session);
        let board = Board::start(session.root.clone(), first, &sides, true)?;
        let lines = board.announce();
        *live = Some(Live { board, last: session.hash(), sides });
        Ok(lines)
    })
}

/// After a command at the prompt: the board (if served) is told of the position when the
/// command changed the game. A game that hides units where the last did not (or the reverse,
/// after `new` or `load`) gets a board of its own, with a page for each side (or one page):
/// the lines to print then say where.
pub(super) fn after(session: &Session, line: &str, out: &[String]) -> Vec<String> {
    let restart = LIVE.with(|live| {
        let mut live = live.borrow_mut();
        let Some(l) = live.as_mut() else { return false };
        let hash = session.hash();
        if hash == l.last {
            return false;
        }
        if pages_for(session) != l.sides {
            // (the old pages stop following: they were made for another game's eyes)
            *live = None;
            return true;
        }
        l.last = hash;
        if let Some(s) = step(session, line, out) {
            l.board.publish(s);
        }
        false
    });
    if !restart {
        return Vec::new();
    }
    let mut lines = vec![if session.fog() {
        "this game hides units (fog of war): the board now has a page for each side; the old page no longer follows"
            .to_string()
    } else {
        "this game hides nothing: the board now has one page; the old pages no longer follow".to_string()
    }];
    match start(session) {
        Ok(l) => lines.extend(l),
        Err(e) => lines.push(format!("error: {e}")),
    }
    lines
}

/// `umpire board FILE`: plays a save's commands (or a script's lines) and serves every
/// position to step through, until the process is stopped.
pub(super) fn serve_file(library: Option<PathBuf>, file: &Path) -> Result<i32> {
    let root = library.unwrap_or_else(|| umpire::ruleset::library_for(None, file));
    let mut session = Session::with_root(root.clone());
    session.width = 100;
    let text = std::fs::read_to_string(file).with_context(|| format!("cannot read {}", file.display()))?;
    let lines: Vec<(usize, String)> = if umpire::save::is_save_file(file) {
        let p = umpire::save::parse(file, &text)?;
        if p.base.is_some() {
            anyhow::bail!(
                "{}: this save resumes a game from a saved state (its first commands are not in it): `umpire play {}` loads it; stepping needs the commands from the start",
                file.display(),
                file.display()
            );
        }
        p.lines.into_iter().chain(p.pending).collect()
    } else {
        text.lines().enumerate().map(|(i, l)| (i + 1, l.trim().to_string())).collect()
    };
    let mut steps: Vec<Step> = Vec::new();
    let mut last = None;
    for (n, line) in lines {
        if line.is_empty() || line.starts_with('#') || line.starts_with("checkpoint ") {
            continue;
        }
        let r = session.execute(&line);
        if let Some(e) = r.error()
            && !line.starts_with("expect")
        {
            anyhow::bail!("{}:{n}: `{line}` failed: {e}", file.display());
        }
        if session.hash() != last {
            last = session.hash();
            steps.extend(step(&session, &line, &r.out));
        }
    }
    if steps.is_empty() {
        anyhow::bail!("{}: no game in it (no `new` or position to show)", file.display());
    }
    let n = steps.len();
    let board = Board::start(root, steps, &pages_for(&session), false)?;
    outln!("{}: {n} positions to step through", file.display());
    for l in board.announce() {
        outln!("{l}");
    }
    outln!("(Ctrl-C stops serving)");
    loop {
        std::thread::park();
    }
}
