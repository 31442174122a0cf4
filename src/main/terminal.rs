//! `umpire play` at a terminal and from a pipe: the banner, the line editor, the loop of
//! commands with its questions before leaving or replacing a game, the journal, Ctrl-C.

use super::*;
use anyhow::{Context, Result};
use std::cell::RefCell;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::rc::Rc;
use umpire::repl::{ReplHelper, Words};
use umpire::script;
use umpire::session::{Session, Status};

/// Whether a command runs (Ctrl-C then stops it; at the prompt a signal ends the process).
pub(super) static RUNNING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// The line editor of `play`, completing from the words of the session.
pub(super) type LineEditor = rustyline::Editor<ReplHelper, rustyline::history::DefaultHistory>;

pub(super) fn play(
    library: Option<PathBuf>,
    scenario: Option<String>,
    seed: Option<u64>,
    options: Vec<String>,
    rules: Option<PathBuf>,
    (sandbox, resume, board): (bool, bool, bool),
    opponents: &[String],
) -> Result<i32> {
    if !opponents.is_empty() && scenario.is_none() && !resume {
        anyhow::bail!("--opponent needs a game: `umpire play <game> --opponent <side>[=<bot>]`");
    }
    let mut session = Session::new();
    if let Some(l) = library {
        session.root = l;
    }
    session.rules = rules.map(checked_rules).transpose()?;
    session.free_undo = sandbox;
    let tty = std::io::stdin().is_terminal();
    if tty {
        banner(&session, scenario.is_none() && !resume);
    }
    // the journal of a session that ended without finishing: resumed, or said
    let journals = umpire::journal::dir();
    let left = journals.as_deref().map(umpire::journal::left_behind).unwrap_or_default();
    if resume {
        let Some(j) = left.first() else { anyhow::bail!("no session to resume: no journal of an unfinished session") };
        if !run_opening(&mut session, &format!("load {}", j.display()), tty) {
            return Ok(1);
        }
        // (unsaved: the player has not saved this game; the old journal's part is taken over)
        if let Some(g) = session.game.as_mut() {
            g.saved_len = usize::MAX;
        }
        let _ = std::fs::remove_file(j);
    } else if let Some(j) = left.first().filter(|_| tty) {
        outln!(
            "a session that ended without finishing left its game ({}): `umpire play --resume` resumes it",
            j.display()
        );
    }
    if let Some(name) = scenario
        && !open_scenario(&mut session, &name, seed, options, tty)?
    {
        return Ok(1);
    }
    if tty {
        // (what umpire is doing while it plays a side, on the line it then prints over)
        session.progress = Some(Box::new(|what: &str| {
            // (an empty message: done, the line cleared)
            if what.is_empty() {
                eprint!("\r\x1b[K")
            } else {
                eprint!("\r{what}…\x1b[K")
            }
            let _ = std::io::Write::flush(&mut std::io::stderr());
        }));
    }
    for o in opponents {
        let (side, bot) = o.split_once('=').unwrap_or((o.as_str(), ""));
        if !run_opening(&mut session, format!("opponent {side} {bot}").trim_end(), tty) {
            return Ok(1);
        }
    }
    if board {
        for l in super::board::start(&session)? {
            outln!("  {l}");
        }
    }
    let words = Rc::new(RefCell::new(Words::from_session(&session)));
    // shared with the line editor, which asks it at Tab what the game says may be typed
    let session = Rc::new(RefCell::new(session));
    let mut rl = line_editor(words.clone(), session.clone())?;
    let history = history_file();
    if let Some(h) = &history {
        let _ = rl.load_history(h);
    }
    if tty {
        session.borrow_mut().color = std::env::var_os("NO_COLOR").is_none();
        fit_width(&mut rl, &mut session.borrow_mut());
    }
    // at a terminal: Ctrl-C (and a closed terminal, SIGTERM) stops the running command, taken
    // back as any failed command is; at the prompt a signal ends the process, the game kept in
    // the journal, which is written after every command that changed the game
    let mut journal = None;
    if tty {
        ctrlc::set_handler(|| {
            if RUNNING.load(std::sync::atomic::Ordering::Relaxed) {
                umpire::lua::interrupt();
            } else {
                std::process::exit(130);
            }
        })
        .context("cannot catch Ctrl-C")?;
        journal = journals.as_deref().map(umpire::journal::Journal::new);
    }
    let failed = read_eval(&mut rl, &session, &words, tty, journal.as_mut())?;
    // the session ended as the player chose (what was unsaved, they chose to leave)
    if let Some(j) = journal {
        j.finish();
    }
    if let Some(h) = &history {
        if let Some(d) = h.parent() {
            let _ = std::fs::create_dir_all(d);
        }
        let _ = rl.save_history(h);
    }
    Ok(if failed && !tty { 1 } else { 0 })
}

/// The first line at a terminal says which copy of the rules runs: a designer editing a copy
/// must know.
pub(super) fn banner(session: &Session, no_scenario: bool) {
    let rules = match &session.rules {
        Some(r) => format!(" — rules from {}", r.canonicalize().unwrap_or_else(|_| r.clone()).display()),
        None => String::new(),
    };
    outln!(
        "umpire {} — {}{rules} — `help` lists commands{}",
        env!("CARGO_PKG_VERSION"),
        library_line(&session.root),
        if no_scenario { ", `new <game>` starts one" } else { "" }
    );
}

/// The library as the banner names it: its absolute path, and whether it is the built-in one.
pub(super) fn library_line(root: &std::path::Path) -> String {
    let abs = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    if umpire::library::is_built_in(&abs) {
        format!(
            "the built-in games (no library here; unpacked at {}; `umpire library export DIR` for a copy to edit)",
            abs.display()
        )
    } else {
        format!("library {}", abs.display())
    }
}

/// Starts the scenario named on the command line as if its `new` line had been typed, or
/// resumes the save named there as `load` would; whether to go on (not when it failed on piped
/// input, which then ends with 1).
pub(super) fn open_scenario(
    session: &mut Session,
    name: &str,
    seed: Option<u64>,
    options: Vec<String>,
    tty: bool,
) -> Result<bool> {
    let path = std::path::Path::new(name);
    if umpire::save::is_save_file(path) {
        if seed.is_some() || !options.is_empty() {
            anyhow::bail!("{name} is a save: it resumes with its own seed and options (leave out --seed and --option)");
        }
        return Ok(run_opening(session, &format!("load {name}"), tty));
    }
    if path.is_file() && path.extension().is_none_or(|x| x != "toml") {
        anyhow::bail!("{name}: neither an umpire save nor a scenario (a .toml file, or <game>[/<scenario>])");
    }
    if !path.exists() && path.extension().is_some_and(|x| x == "ump" || x == "sav") {
        anyhow::bail!("{name}: no such save file");
    }
    let mut line = format!("new {name}");
    if let Some(s) = seed {
        line.push_str(&format!(" --seed {s}"));
    }
    for o in options {
        line.push_str(&format!(" --option {o}"));
    }
    // (the line echoed is the one that runs: a copy of it starts the same game)
    if let Some(r) = &session.rules {
        line.push_str(&format!(" --rules {}", r.display()));
    }
    Ok(run_opening(session, &line, tty))
}

/// Runs the command that opens the game given on the command line (echoed when piped).
pub(super) fn run_opening(session: &mut Session, line: &str, tty: bool) -> bool {
    if !tty {
        outln!("> {line}");
    }
    let r = session.execute(line);
    print_reply(&r);
    tty || !matches!(r.status, Status::Error(_))
}

/// The line editor, with completion from `words` and history kept by hand (only what was run).
pub(super) fn line_editor(words: Rc<RefCell<Words>>, session: Rc<RefCell<Session>>) -> Result<LineEditor> {
    let config = rustyline::Config::builder()
        .completion_type(rustyline::CompletionType::List)
        // hints are dimmed (no colour), also under NO_COLOR, which would switch it off
        .color_mode(rustyline::ColorMode::Forced)
        .auto_add_history(false)
        // pasted text arrives as typed: each line its own command at its own prompt (a `lua`
        // chunk left open goes on, as typed); lines typed ahead while a command runs are kept
        // (the `buffer-redux` feature keeps what was read past the line for the next one)
        .bracketed_paste(false)
        .max_history_size(5000)
        .context("line editor settings")?
        .build();
    let mut rl: LineEditor = rustyline::Editor::with_config(config).context("cannot start the line editor")?;
    rl.set_helper(Some(ReplHelper::new(words).with_session(session)));
    Ok(rl)
}

/// Maps are drawn as wide as the terminal is now.
pub(super) fn fit_width(rl: &mut LineEditor, session: &mut Session) {
    if let Some((cols, _)) = rl.dimensions() {
        session.width = cols as usize;
    }
}

/// Reads and runs lines until the player leaves (or the input ends); whether any command failed.
pub(super) fn read_eval(
    rl: &mut LineEditor,
    session: &RefCell<Session>,
    words: &RefCell<Words>,
    tty: bool,
    mut journal: Option<&mut umpire::journal::Journal>,
) -> Result<bool> {
    if !tty {
        return read_piped(rl, &mut session.borrow_mut(), words);
    }
    let mut failed = false;
    loop {
        if let Some(j) = journal.as_deref_mut()
            && let Some(warning) = j.update(&session.borrow())
        {
            outln!("  {warning}");
        }
        let prompt = {
            let s = session.borrow();
            umpire::repl::fit_prompt(&s.prompt(), s.width)
        };
        match rl.readline(&prompt) {
            Ok(line) => {
                let ran = handle_line(rl, &mut session.borrow_mut(), words, tty, &line);
                failed |= ran.failed;
                if ran.leave {
                    break;
                }
            }
            Err(rustyline::error::ReadlineError::Interrupted) => continue,
            Err(rustyline::error::ReadlineError::Eof) => {
                if confirm_leave(rl, &session.borrow(), tty) {
                    break;
                }
            }
            // the line editor gives up a line holding bytes that are not UTF-8; the session goes on
            Err(rustyline::error::ReadlineError::Io(e)) if e.kind() == std::io::ErrorKind::InvalidData => {
                out_raw(&script::error_lines("error", "the input was not valid UTF-8 text; the line was dropped"));
                failed = true;
            }
            Err(e) => return Err(e).context("reading input"),
        }
    }
    Ok(failed)
}

/// Piped input is read as `run` reads a script, one command a line (a `lua` chunk left open
/// does not take in the lines after it); a line that is not UTF-8 text fails and the next one
/// runs.
pub(super) fn read_piped(rl: &mut LineEditor, session: &mut Session, words: &RefCell<Words>) -> Result<bool> {
    let mut failed = false;
    for command in script::commands(std::io::stdin().lock()) {
        let ran = match command.context("reading input")? {
            (_, Ok(line)) => handle_line(rl, session, words, false, &line),
            (n, Err(shown)) => {
                outln!("> {}", shown.trim());
                out_raw(&script::error_lines("error", &format!("line {n} is not valid UTF-8 text (shown with �)")));
                Ran { failed: true, leave: false }
            }
        };
        failed |= ran.failed;
        if ran.leave {
            break;
        }
    }
    Ok(failed)
}

/// What one line of input came to (nothing, for a blank line or a replacement not confirmed).
#[derive(Default)]
pub(super) struct Ran {
    /// The command failed, or a check in it did.
    pub(super) failed: bool,
    /// The player asked to leave and may.
    pub(super) leave: bool,
}

/// Runs one line of input: kept in the history at a terminal, echoed when piped, printed with
/// its reply; completion then learns what the command changed.
pub(super) fn handle_line(
    rl: &mut LineEditor,
    session: &mut Session,
    words: &RefCell<Words>,
    tty: bool,
    line: &str,
) -> Ran {
    let t = line.trim();
    if t.is_empty() {
        return Ran::default();
    }
    if tty {
        let _ = rl.add_history_entry(t);
        fit_width(rl, session);
    } else if !t.starts_with('#') {
        // (a line over the limit is refused: its echo is cut, not printed whole)
        match t.char_indices().nth(80).filter(|_| t.len() > umpire::session::MAX_LINE) {
            Some((cut, _)) => outln!("> {}… ({} KiB in all)", &t[..cut], t.len() >> 10),
            None => outln!("> {t}"),
        }
    }
    // `next` at a terminal first says what is left undone, once
    if let Some(left) = rl.helper_mut().filter(|_| tty).and_then(|h| h.hold_next(session, t)) {
        for l in left {
            outln!("  {l}");
        }
        return Ran::default();
    }
    if !confirm_replace(rl, session, tty, t) {
        return Ran::default();
    }
    if t == "board" {
        return match super::board::start(session) {
            Ok(lines) => {
                lines.iter().for_each(|l| outln!("  {l}"));
                Ran::default()
            }
            Err(e) => {
                out_raw(&script::error_lines("error", &e.to_string()));
                Ran { failed: true, leave: false }
            }
        };
    }
    umpire::lua::clear_interrupt();
    RUNNING.store(true, std::sync::atomic::Ordering::Relaxed);
    let r = session.execute(t);
    RUNNING.store(false, std::sync::atomic::Ordering::Relaxed);
    print_reply(&r);
    for l in super::board::after(session, t, &r.out) {
        outln!("  {l}");
    }
    words.borrow_mut().refresh(session);
    Ran {
        failed: matches!(r.status, Status::Error(_) | Status::Check(false)),
        leave: r.status == Status::Quit && confirm_leave(rl, session, tty),
    }
}

/// Starting or loading another game at a terminal asks before dropping unsaved commands;
/// whether to run the line.
pub(super) fn confirm_replace(rl: &mut LineEditor, session: &Session, tty: bool, line: &str) -> bool {
    // saving over an existing file asks first (a file that is no save is refused anyway)
    if let Some(path) = line.strip_prefix("save ").map(str::trim)
        && tty
        && !path.starts_with("--force")
        && std::path::Path::new(path).exists()
    {
        return ask(rl, &format!("{path} exists. Replace it? [y/N] "), false);
    }
    let replaces = line.starts_with("new ") || line.starts_with("load ");
    if !tty || !replaces || !session.has_unsaved() {
        return true;
    }
    ask(rl, "The game has unsaved commands. Replace it anyway? [y/N] ", false)
}

/// At a terminal, leaving with unsaved commands asks first.
pub(super) fn confirm_leave<H: rustyline::Helper>(
    rl: &mut rustyline::Editor<H, rustyline::history::DefaultHistory>,
    session: &Session,
    tty: bool,
) -> bool {
    if !tty || !session.has_unsaved() {
        return true;
    }
    ask(rl, "The game has unsaved commands. Leave anyway? [y/N] ", true)
}

/// Asks a `[y/N]` question at the terminal; `unanswered` when reading fails (Ctrl-C, Ctrl-D).
pub(super) fn ask<H: rustyline::Helper>(
    rl: &mut rustyline::Editor<H, rustyline::history::DefaultHistory>,
    prompt: &str,
    unanswered: bool,
) -> bool {
    rl.readline(prompt).map(|a| is_yes(&a)).unwrap_or(unanswered)
}

/// An answer to a `[y/N]` question that says yes.
pub(super) fn is_yes(answer: &str) -> bool {
    matches!(answer.trim().to_lowercase().as_str(), "y" | "yes")
}

pub(super) fn print_reply(r: &umpire::Reply) {
    for l in &r.out {
        for sub in l.lines() {
            if r.is_styled() {
                out_styled(&format!("  {sub}\n"));
            } else {
                outln!("  {sub}");
            }
        }
    }
    match &r.status {
        Status::Error(e) => out_raw(&script::error_lines("error", &umpire::text::printable(&e.to_string()))),
        Status::Check(true) => outln!("  ok"),
        Status::Check(false) => outln!("  FAILED"),
        _ => {}
    }
}

pub(super) fn history_file() -> Option<PathBuf> {
    Some(umpire::library::data_dir()?.join("history"))
}
