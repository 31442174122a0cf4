//! The `umpire` command line: `play`, `run`, `check`.

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use std::cell::RefCell;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::rc::Rc;
use umpire::repl::{ReplHelper, Words};
use umpire::script;
use umpire::session::{Session, Status};

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

#[derive(Parser)]
#[command(name = "umpire", version, about = "An umpire for hex-and-counter wargames")]
struct Cli {
    /// More diagnostics on stderr (-v, -vv); RUST_LOG works too.
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    verbose: u8,
    /// The library to use: a folder holding rulesets/ and scenarios/ (default: $UMPIRE_LIBRARY,
    /// else the nearest such folder at or above the current one, else the games built into the
    /// program). For `run` and `check` it replaces the library found from each path.
    #[arg(long, global = true, value_name = "DIR")]
    library: Option<PathBuf>,
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Play interactively (or from piped input): `umpire play stargard-solstice`, or
    /// `umpire play game.ump` to resume a save.
    Play {
        /// Scenario to start: <game>, <game>/<scenario> or a .toml path; or a save to resume.
        scenario: Option<String>,
        /// Seed for the dice (default: from the clock).
        #[arg(long)]
        seed: Option<u64>,
        /// Scenario options to switch on.
        #[arg(long = "option")]
        options: Vec<String>,
        /// Play under the ruleset in DIR (a copy being edited, anywhere; its lib/ from beside
        /// it or from the library).
        #[arg(long, value_name = "DIR")]
        rules: Option<PathBuf>,
        /// Resume the game of a session that ended without finishing (a closed terminal, a
        /// killed process): its journal, kept after every command.
        #[arg(long, conflicts_with_all = ["scenario", "seed", "options"])]
        resume: bool,
    },
    /// Like `play`, for designers: undo is free (it may take back dice rolls).
    Sandbox {
        scenario: Option<String>,
        #[arg(long)]
        seed: Option<u64>,
        #[arg(long = "option")]
        options: Vec<String>,
        /// Play under the ruleset in DIR.
        #[arg(long, value_name = "DIR")]
        rules: Option<PathBuf>,
    },
    /// Run command scripts (.ump) and report `N passed, N failed`.
    Run {
        #[arg(required = true)]
        scripts: Vec<PathBuf>,
        /// Print only failures and the summary.
        #[arg(short, long)]
        quiet: bool,
        /// Profile the rule code: after the scripts, the rule functions and lines that ran
        /// the most Lua instructions, with the time between samples (docs/performance.md).
        #[arg(long)]
        profile: bool,
        /// Run the scripts' games under the ruleset in DIR (a variant's folder).
        #[arg(long, value_name = "DIR")]
        rules: Option<PathBuf>,
    },
    /// Validate a game (by name), a ruleset folder, a scenario file, a save or a script, without
    /// playing.
    Check {
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// Check scripts (.ump) under the ruleset in DIR.
        #[arg(long, value_name = "DIR")]
        rules: Option<PathBuf>,
    },
    /// Play whole games by a bot choosing among the listed actions; print the distribution of
    /// outcomes, figures and game lengths (`umpire playout stargard-solstice --games 100`).
    Playout {
        /// Scenario: <game>, <game>/<scenario> or a .toml path.
        scenario: String,
        #[command(flatten)]
        games: GamesArgs,
        /// Save every game to DIR/game-<seed>.ump (`load` resumes it, `umpire run` replays it).
        #[arg(long, value_name = "DIR")]
        save: Option<PathBuf>,
        /// One line per game (seed, result, turns, commands).
        #[arg(long)]
        list: bool,
        /// Profile the rule code over the games (as `run --profile`; best with --jobs 1).
        #[arg(long)]
        profile: bool,
    },
    /// Play the same seeds under two rules folders and report how the outcomes moved:
    /// `umpire compare SCENARIO --rules A --rules B --games 200`.
    Compare {
        scenario: String,
        /// The two rules folders (a ruleset folder, or a library holding rulesets/<game>/);
        /// `--rules .` is the library's own.
        #[arg(long = "rules", value_name = "DIR", num_args = 1, required = true)]
        rules: Vec<PathBuf>,
        #[command(flatten)]
        games: GamesArgs,
    },
    /// Replay a save or a command script under other rules and list every ruling that changed,
    /// from the first command where the games diverge.
    Replay {
        file: PathBuf,
        /// The other rules folder (a ruleset folder or a library).
        #[arg(long = "rules", value_name = "DIR")]
        rules: PathBuf,
    },
    /// Play listed actions mixed with junk and report any Lua error, refused listed action,
    /// refusal that changed the state, dead end or save that does not load back; each failure
    /// is saved as a script that reproduces it.
    Fuzz {
        scenario: String,
        /// Commands in all (game after game).
        #[arg(long, default_value_t = 2000)]
        commands: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Where the reproductions go.
        #[arg(long, value_name = "DIR", default_value = "fuzz-failures")]
        out: PathBuf,
        #[arg(long = "option")]
        options: Vec<String>,
        /// Games fuzzed at once, each on its own thread (default: the cores); the report is the
        /// same whatever the number.
        #[arg(long)]
        jobs: Option<usize>,
    },
    /// The games built into the program: `umpire library export DIR` writes a copy to edit.
    Library {
        #[command(subcommand)]
        what: LibraryCmd,
    },
    /// Break the rules one small change at a time and report the changes no script notices:
    /// `umpire mutate fortress-stalingrad --sample 40` (docs/mutate.md).
    Mutate(MutateArgs),
}

/// What `umpire mutate` is asked to do.
#[derive(clap::Args)]
struct MutateArgs {
    /// The game: its ruleset is the library's rulesets/<game>, its scripts scripts/<game>/.
    game: String,
    /// The ruleset folder to mutate instead (a copy being edited).
    #[arg(long, value_name = "DIR")]
    rules: Option<PathBuf>,
    /// Scripts or folders of scripts to run (default: the library's scripts/<game>/).
    #[arg(long = "scripts", value_name = "PATH")]
    scripts: Vec<PathBuf>,
    /// Only this rule file (a name in the ruleset folder, e.g. combat.lua); may be repeated.
    #[arg(long = "file", value_name = "NAME")]
    files: Vec<String>,
    /// Mutate the files that rule on nothing too (actions, evaluate, views, labels,
    /// testing, validate).
    #[arg(long)]
    all_files: bool,
    /// Try only this many mutants, drawn by --seed.
    #[arg(long)]
    sample: Option<usize>,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Mutants tried at once, each job in a copy of the rules of its own (default: the cores).
    #[arg(long)]
    jobs: Option<usize>,
    /// Exit 1 when the kill rate of the tables and rule checks is under this percentage.
    #[arg(long, value_name = "PERCENT")]
    fail_under: Option<f64>,
}

#[derive(Subcommand)]
enum LibraryCmd {
    /// Write the built-in games (rulesets/ and scenarios/) into DIR, a new or empty folder, as
    /// a library to edit and play (`cd DIR && umpire play <game>`).
    Export { dir: PathBuf },
    /// Say which library `play` would use from here, and why.
    Where,
}

/// Which games a playout or comparison plays.
#[derive(clap::Args, Clone)]
struct GamesArgs {
    /// How many games.
    #[arg(long, default_value_t = 100)]
    games: usize,
    /// The first game's seed (game i has seed S + i).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The bot of both sides: random or greedy.
    #[arg(long, default_value = "random")]
    bot: umpire::playout::Policy,
    /// Games played at once, each on its own thread and Lua state (default: the cores).
    #[arg(long)]
    jobs: Option<usize>,
    /// A game not over after this many commands counts as unfinished.
    #[arg(long, default_value_t = 20_000)]
    max_commands: usize,
    #[arg(long = "option")]
    options: Vec<String>,
}

fn main() {
    let cli = Cli::parse();
    let level = match cli.verbose {
        0 => "warn",
        1 => "umpire=info",
        _ => "umpire=debug",
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
        Cmd::Play { scenario, seed, options, rules, resume } => {
            play(library, scenario, seed, options, rules, false, resume)
        }
        Cmd::Sandbox { scenario, seed, options, rules } => play(library, scenario, seed, options, rules, true, false),
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
        Cmd::Fuzz { scenario, commands, seed, out, options, jobs } => {
            fuzz(library, scenario, commands, seed, out, options, jobs)
        }
    }
}

/// `umpire run`: scripts replayed with their checks, one report each and a total.
fn run_scripts(
    library: Option<PathBuf>,
    scripts: Vec<PathBuf>,
    quiet: bool,
    profile: bool,
    rules: Option<PathBuf>,
) -> Result<i32> {
    let rules = rules.map(checked_rules).transpose()?;
    if profile {
        umpire::lua::profile::start();
    }
    let (mut passed, mut failed) = (0, 0);
    let several = scripts.len() > 1;
    for s in &scripts {
        tracing::info!(script = %s.display(), "running");
        let lib = umpire::ruleset::library_for(library.as_deref(), s);
        let o = script::run_file_under(&lib, s, rules.as_deref());
        if several && !quiet {
            outln!("== {} ==", s.display());
        }
        out_raw(if quiet { &o.failures } else { &o.transcript });
        if several {
            outln!("{}: {} passed, {} failed", s.display(), o.passed, o.failed);
        }
        passed += o.passed;
        failed += o.failed;
    }
    if several {
        outln!("total: {passed} passed, {failed} failed ({} scripts)", scripts.len());
    } else {
        outln!("{passed} passed, {failed} failed");
    }
    if profile {
        eprint!("{}", umpire::lua::profile::report(25, umpire::lua::PROFILE_EVERY));
    }
    Ok(if failed > 0 { 1 } else { 0 })
}

/// `umpire check`: ruleset folders, scenario files and scripts checked; every problem said.
fn check_paths(library: Option<PathBuf>, paths: Vec<PathBuf>, rules: Option<PathBuf>) -> Result<i32> {
    let rules = rules.map(checked_rules).transpose()?;
    let mut bad = 0;
    for p in &paths {
        let cfg = umpire::lua::HostConfig { reserved: umpire::session::is_builtin, ..Default::default() };
        let checked = if p.extension().is_some_and(|x| x == "ump") {
            script::check_file(p, library.as_deref(), rules.as_deref())
        } else {
            umpire::game::check::check_path(p, library.as_deref(), cfg)
        };
        match checked {
            Ok(lines) => {
                for l in lines {
                    outln!("{l}");
                }
            }
            Err(e) => {
                bad += 1;
                outln!("{e}");
            }
        }
    }
    Ok(if bad > 0 { 1 } else { 0 })
}

/// `umpire mutate`: the kill rate of the rules' checks (docs/mutate.md).
fn mutate(library: Option<PathBuf>, opts: MutateArgs) -> Result<i32> {
    let MutateArgs { game, rules, scripts, files, all_files, sample, seed, jobs, fail_under } = opts;
    let opts = umpire::mutate::Options {
        game,
        library: library.unwrap_or_else(umpire::ruleset::find_root),
        rules,
        scripts,
        files,
        all_files,
        sample,
        seed,
        jobs: jobs.unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)),
    };
    let started = std::time::Instant::now();
    let bar = progress(0, "mutants");
    let o = umpire::mutate::run(&opts, &|n, of| {
        bar.set_length(of as u64);
        bar.set_position(n as u64)
    })?;
    bar.finish_and_clear();
    out_raw(&o.report());
    outln!("\n{} mutants in {:.1} s on {} jobs", o.tried.len(), started.elapsed().as_secs_f64(), opts.jobs);
    let rate = o.rule_checks().rate();
    Ok(match fail_under {
        Some(min) if rate < min => {
            outln!("the kill rate of the tables and rule checks, {rate:.1}%, is under {min}%");
            1
        }
        _ => 0,
    })
}

/// `umpire fuzz`: listed commands and junk, the invariants checked after each.
fn fuzz(
    library: Option<PathBuf>,
    scenario: String,
    commands: usize,
    seed: u64,
    out: PathBuf,
    options: Vec<String>,
    jobs: Option<usize>,
) -> Result<i32> {
    let mut spec = umpire::playout::Spec::new(library.unwrap_or_else(umpire::ruleset::find_root), &scenario);
    spec.options = options;
    std::fs::create_dir_all(&out).with_context(|| format!("creating {}", out.display()))?;
    let started = std::time::Instant::now();
    let jobs = jobs.unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1));
    let bar = progress(commands, "commands");
    let r = umpire::playout::fuzz::fuzz(&spec, commands, seed, Some(&out), jobs, &|n| bar.set_position(n as u64));
    bar.finish_and_clear();
    outln!(
        "fuzz {scenario} from seed {seed}: {} commands ({} listed, {} junk of which {} accepted) in {} games ({} ended), {} saves loaded back, {:.1} s",
        r.commands,
        r.listed,
        r.junk,
        r.junk_accepted,
        r.games,
        r.games_ended,
        r.saves_checked,
        started.elapsed().as_secs_f64()
    );
    if r.findings.is_empty() {
        outln!("no failure found");
        return Ok(0);
    }
    outln!("{} failure(s):", r.findings.len());
    for f in &r.findings {
        outln!(
            "  seed {}: {} after `{}`: {}{}",
            f.seed,
            f.kind,
            f.command,
            f.message.lines().next().unwrap_or(""),
            f.script.as_ref().map(|p| format!(" (reproduced by {})", p.display())).unwrap_or_default()
        );
    }
    Ok(1)
}

/// The seeds, spec and threads of a playout or comparison.
fn games_of(library: Option<PathBuf>, scenario: &str, g: &GamesArgs) -> (umpire::playout::Spec, Vec<u64>, usize) {
    let mut spec = umpire::playout::Spec::new(library.unwrap_or_else(umpire::ruleset::find_root), scenario);
    spec.options = g.options.clone();
    spec.max_commands = g.max_commands;
    let seeds: Vec<u64> = (0..g.games as u64).map(|i| g.seed + i).collect();
    let jobs = g.jobs.unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1));
    (spec, seeds, jobs.max(1))
}

/// A progress bar on stderr when it is a terminal.
fn progress(total: usize, what: &str) -> indicatif::ProgressBar {
    if !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(total as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template(&format!(
            "{{bar:40}} {{pos}}/{{len}} {what} ({{elapsed}}, about {{eta}} left)"
        ))
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    bar
}

/// Plays the games with a progress bar; returns them and the seconds they took.
fn play_games(
    spec: &umpire::playout::Spec,
    seeds: &[u64],
    g: &GamesArgs,
    jobs: usize,
    save: Option<&std::path::Path>,
    bar: &indicatif::ProgressBar,
) -> (Vec<umpire::playout::Record>, f64) {
    let started = std::time::Instant::now();
    let recs = umpire::playout::run_games(spec, seeds, g.bot, jobs, save, &|_| bar.inc(1));
    (recs, started.elapsed().as_secs_f64())
}

fn speed_line(n: usize, secs: f64, jobs: usize) -> String {
    format!(
        "time: {secs:.1} s for {n} games on {jobs} thread(s): {:.1} games/min ({:.2} s a game)",
        n as f64 * 60.0 / secs.max(1e-9),
        secs / n.max(1) as f64 * jobs.min(n.max(1)) as f64
    )
}

fn playout(library: Option<PathBuf>, scenario: &str, g: &GamesArgs, save: Option<PathBuf>, list: bool) -> Result<i32> {
    let (spec, seeds, jobs) = games_of(library, scenario, g);
    umpire::playout::starts(&spec, g.seed)?;
    if let Some(d) = &save {
        std::fs::create_dir_all(d).with_context(|| format!("creating {}", d.display()))?;
    }
    let bar = progress(seeds.len(), "games");
    let (recs, secs) = play_games(&spec, &seeds, g, jobs, save.as_deref(), &bar);
    bar.finish_and_clear();
    let last = seeds.last().copied().unwrap_or(g.seed);
    let title = format!("playout {scenario}: {} games (seeds {} to {last}), bot {}", recs.len(), g.seed, g.bot);
    if list {
        for r in &recs {
            outln!("seed {}: {} — turn {}, {} commands", r.seed, r.outcome(), r.turn, r.commands);
        }
    }
    for l in umpire::playout::report::playout(&title, &recs) {
        outln!("{l}");
    }
    outln!("{}", speed_line(recs.len(), secs, jobs));
    Ok(if recs.iter().any(|r| r.failure.is_some()) { 1 } else { 0 })
}

fn compare(library: Option<PathBuf>, scenario: &str, rules: &[PathBuf], g: &GamesArgs) -> Result<i32> {
    if rules.len() != 2 {
        anyhow::bail!("compare takes two rules folders: --rules A --rules B (given {})", rules.len());
    }
    let (spec, seeds, jobs) = games_of(library, scenario, g);
    let specs: Vec<umpire::playout::Spec> =
        rules.iter().map(|r| umpire::playout::Spec { rules: Some(r.clone()), ..spec.clone() }).collect();
    for s in &specs {
        umpire::playout::starts(s, g.seed)?;
    }
    let mut runs = Vec::new();
    for (r, s) in rules.iter().zip(specs) {
        let bar = progress(seeds.len(), &format!("games under {}", r.display()));
        let (recs, _) = play_games(&s, &seeds, g, jobs, None, &bar);
        bar.finish_and_clear();
        runs.push(recs);
    }
    let names = (rules[0].display().to_string(), rules[1].display().to_string());
    let title = format!(
        "compare {scenario}: {} games each (seeds {} to {}), bot {}; A = {}, B = {}",
        seeds.len(),
        g.seed,
        seeds.last().copied().unwrap_or(g.seed),
        g.bot,
        names.0,
        names.1
    );
    for l in umpire::playout::report::compare(&title, &runs[0], &runs[1], ("A", "B")) {
        outln!("{l}");
    }
    Ok(0)
}

/// Whether a command runs (Ctrl-C then stops it; at the prompt a signal ends the process).
static RUNNING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// The line editor of `play`, completing from the words of the session.
type LineEditor = rustyline::Editor<ReplHelper, rustyline::history::DefaultHistory>;

fn play(
    library: Option<PathBuf>,
    scenario: Option<String>,
    seed: Option<u64>,
    options: Vec<String>,
    rules: Option<PathBuf>,
    sandbox: bool,
    resume: bool,
) -> Result<i32> {
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

/// A `--rules DIR` folder: a ruleset folder (with ruleset.toml) or a library.
fn checked_rules(dir: PathBuf) -> Result<PathBuf> {
    if !dir.join("ruleset.toml").is_file() && !umpire::ruleset::is_library(&dir) {
        anyhow::bail!("--rules {}: not a ruleset folder (one holding ruleset.toml) or a library", dir.display());
    }
    Ok(dir)
}

/// The first line at a terminal says which copy of the rules runs: a designer editing a copy
/// must know.
fn banner(session: &Session, no_scenario: bool) {
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
fn library_line(root: &std::path::Path) -> String {
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
fn open_scenario(
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
fn run_opening(session: &mut Session, line: &str, tty: bool) -> bool {
    if !tty {
        outln!("> {line}");
    }
    let r = session.execute(line);
    print_reply(&r);
    tty || !matches!(r.status, Status::Error(_))
}

/// The line editor, with completion from `words` and history kept by hand (only what was run).
fn line_editor(words: Rc<RefCell<Words>>, session: Rc<RefCell<Session>>) -> Result<LineEditor> {
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
fn fit_width(rl: &mut LineEditor, session: &mut Session) {
    if let Some((cols, _)) = rl.dimensions() {
        session.width = cols as usize;
    }
}

/// Reads and runs lines until the player leaves (or the input ends); whether any command failed.
fn read_eval(
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
fn read_piped(rl: &mut LineEditor, session: &mut Session, words: &RefCell<Words>) -> Result<bool> {
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
struct Ran {
    /// The command failed, or a check in it did.
    failed: bool,
    /// The player asked to leave and may.
    leave: bool,
}

/// Runs one line of input: kept in the history at a terminal, echoed when piped, printed with
/// its reply; completion then learns what the command changed.
fn handle_line(rl: &mut LineEditor, session: &mut Session, words: &RefCell<Words>, tty: bool, line: &str) -> Ran {
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
    umpire::lua::clear_interrupt();
    RUNNING.store(true, std::sync::atomic::Ordering::Relaxed);
    let r = session.execute(t);
    RUNNING.store(false, std::sync::atomic::Ordering::Relaxed);
    print_reply(&r);
    words.borrow_mut().refresh(session);
    Ran {
        failed: matches!(r.status, Status::Error(_) | Status::Check(false)),
        leave: r.status == Status::Quit && confirm_leave(rl, session, tty),
    }
}

/// Starting or loading another game at a terminal asks before dropping unsaved commands;
/// whether to run the line.
fn confirm_replace(rl: &mut LineEditor, session: &Session, tty: bool, line: &str) -> bool {
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
fn confirm_leave<H: rustyline::Helper>(
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
fn ask<H: rustyline::Helper>(
    rl: &mut rustyline::Editor<H, rustyline::history::DefaultHistory>,
    prompt: &str,
    unanswered: bool,
) -> bool {
    rl.readline(prompt).map(|a| is_yes(&a)).unwrap_or(unanswered)
}

/// An answer to a `[y/N]` question that says yes.
fn is_yes(answer: &str) -> bool {
    matches!(answer.trim().to_lowercase().as_str(), "y" | "yes")
}

fn print_reply(r: &umpire::Reply) {
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

fn history_file() -> Option<PathBuf> {
    Some(umpire::library::data_dir()?.join("history"))
}
