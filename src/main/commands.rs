//! The subcommands that run without a terminal: `run`, `check`, `mutate`, `fuzz`, `playout`,
//! `compare`, with their reports and progress bars.

use super::*;
use anyhow::{Context, Result};
use std::io::IsTerminal;
use std::path::PathBuf;
use umpire::script;

/// `umpire run`: scripts replayed with their checks, one report each and a total.
pub(super) fn run_scripts(
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
pub(super) fn check_paths(library: Option<PathBuf>, paths: Vec<PathBuf>, rules: Option<PathBuf>) -> Result<i32> {
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
pub(super) fn mutate(library: Option<PathBuf>, opts: MutateArgs) -> Result<i32> {
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
pub(super) fn fuzz(
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
pub(super) fn games_of(
    library: Option<PathBuf>,
    scenario: &str,
    g: &GamesArgs,
) -> (umpire::playout::Spec, Vec<u64>, usize) {
    let mut spec = umpire::playout::Spec::new(library.unwrap_or_else(umpire::ruleset::find_root), scenario);
    spec.options = g.options.clone();
    spec.max_commands = g.max_commands;
    let seeds: Vec<u64> = (0..g.games as u64).map(|i| g.seed + i).collect();
    let jobs = g.jobs.unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1));
    (spec, seeds, jobs.max(1))
}

/// A progress bar on stderr when it is a terminal.
pub(super) fn progress(total: usize, what: &str) -> indicatif::ProgressBar {
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
pub(super) fn play_games(
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

pub(super) fn speed_line(n: usize, secs: f64, jobs: usize) -> String {
    format!(
        "time: {secs:.1} s for {n} games on {jobs} thread(s): {:.1} games/min ({:.2} s a game)",
        n as f64 * 60.0 / secs.max(1e-9),
        secs / n.max(1) as f64 * jobs.min(n.max(1)) as f64
    )
}

pub(super) fn playout(
    library: Option<PathBuf>,
    scenario: &str,
    g: &GamesArgs,
    save: Option<PathBuf>,
    list: bool,
) -> Result<i32> {
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

pub(super) fn compare(library: Option<PathBuf>, scenario: &str, rules: &[PathBuf], g: &GamesArgs) -> Result<i32> {
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
