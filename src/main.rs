//! The `umpire` command line: `play`, `run`, `check`.

use anyhow::Result;
use clap::Parser;
use std::io::IsTerminal;
use std::path::PathBuf;

/// Prints a line; a closed pipe (`umpire run x | head`) ends the program quietly.
macro_rules! outln {
    ($($arg:tt)*) => { out_raw(&format!("{}\n", format!($($arg)*))) };
}

/// Text from rules and scenario files (outcomes, log lines, names) never reaches the terminal
/// raw: control characters are shown as escapes (`\27`).
fn out_raw(s: &str) {
    out_styled(&umpire::text::printable(s));
}

/// Writes the program's own drawing as it is (the coloured text map).
fn out_styled(s: &str) {
    use std::io::Write;
    let mut o = std::io::stdout().lock();
    if o.write_all(s.as_bytes()).and_then(|_| o.flush()).is_err() {
        std::process::exit(0);
    }
}

// (after the output helpers, which they use)
#[path = "main/board.rs"]
mod board;
#[path = "main/cli.rs"]
mod cli;
#[path = "main/commands.rs"]
mod commands;
#[path = "main/terminal.rs"]
mod terminal;

use cli::*;
use commands::*;
use terminal::*;

/// The allocator: the rules' Lua and the searches make and drop many small tables, sets and
/// strings, which mimalloc serves faster than the system's (docs/performance.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let cli = Cli::parse();
    let level = match cli.verbose {
        0 => "warn",
        1 => "umpire=info",
        2 => "umpire=debug",
        _ => "umpire=trace",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(level));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none())
        .init();
    let code = match run(cli) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("umpire: {}", umpire::text::printable(&format!("{e:#}")));
            2
        }
    };
    std::process::exit(code);
}

/// The library named by `--library`, checked.
fn named_library(dir: Option<PathBuf>) -> Result<Option<PathBuf>> {
    let Some(d) = dir else { return Ok(None) };
    if !umpire::ruleset::is_library(&d) {
        anyhow::bail!("--library {}: not a library (a folder holding rulesets/ and scenarios/)", d.display());
    }
    Ok(Some(d))
}

fn run(cli: Cli) -> Result<i32> {
    let library = named_library(cli.library)?;
    match cli.cmd {
        Cmd::Run { scripts, quiet, profile, rules } => run_scripts(library, scripts, quiet, profile, rules),
        Cmd::Check { paths, rules } => check_paths(library, paths, rules),
        Cmd::Play { scenario, seed, options, rules, resume, opponent, board } => {
            play(library, scenario, seed, options, rules, (false, resume, board), &opponent)
        }
        Cmd::Sandbox { scenario, seed, options, rules, board } => {
            play(library, scenario, seed, options, rules, (true, false, board), &[])
        }
        Cmd::Board { file } => board::serve_file(library, &file),
        Cmd::Playout { scenario, games, save, list, profile } => {
            if profile {
                umpire::lua::profile::start();
            }
            let code = playout(library, &scenario, &games, save, list);
            if profile {
                eprint!("{}", umpire::lua::profile::report(25, umpire::lua::PROFILE_EVERY));
            }
            code
        }
        Cmd::Compare { scenario, rules, games } => compare(library, &scenario, &rules, &games),
        Cmd::Merge { files, partial, json } => merge(&files, partial, json),
        Cmd::Replay { file, rules } => {
            let root = library.unwrap_or_else(|| umpire::ruleset::library_for(None, &file));
            let o = umpire::playout::replay::replay(&root, &file, &rules)?;
            for l in umpire::playout::replay::report(&file, &rules, &o) {
                outln!("{l}");
            }
            Ok(if o.changes.is_empty() { 0 } else { 1 })
        }
        Cmd::Library { what: LibraryCmd::Export { dir } } => {
            umpire::library::export(&dir)?;
            outln!(
                "wrote the built-in games ({}) into {}: `cd {} && umpire play <game>` plays them; edit them there",
                umpire::library::games().join(", "),
                dir.display(),
                dir.display()
            );
            Ok(0)
        }
        Cmd::Library { what: LibraryCmd::Where } => {
            let root = library.unwrap_or_else(umpire::ruleset::find_root);
            outln!("{}", library_line(&root));
            Ok(0)
        }
        Cmd::Mutate(args) => mutate(library, args),
        Cmd::Fuzz { scenario, commands, seed, out, options, jobs, bot } => {
            let bots = umpire::playout::Lineup::parse(&bot).map_err(anyhow::Error::msg)?;
            fuzz(library, scenario, (commands, seed), out, options, jobs, &bots)
        }
    }
}

/// A `--rules DIR` folder: a ruleset folder (with ruleset.toml) or a library.
fn checked_rules(dir: PathBuf) -> Result<PathBuf> {
    if !dir.join("ruleset.toml").is_file() && !umpire::ruleset::is_library(&dir) {
        anyhow::bail!("--rules {}: not a ruleset folder (one holding ruleset.toml) or a library", dir.display());
    }
    Ok(dir)
}
