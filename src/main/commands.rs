//! The subcommands that run without a terminal: `run`, `check`, `mutate`, `fuzz`, `playout`,
//! `compare`, with their reports and progress bars.

use super::*;
use anyhow::{Context, Result};
use std::io::IsTerminal;
use std::path::PathBuf;
use umpire::playout::shards::Run;
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
    (commands, seed): (usize, u64),
    out: PathBuf,
    options: Vec<String>,
    jobs: Option<usize>,
    bots: &umpire::playout::Lineup,
) -> Result<i32> {
    let mut spec = umpire::playout::Spec::new(library.unwrap_or_else(umpire::ruleset::find_root), &scenario);
    spec.options = options;
    umpire::playout::starts(&spec, seed, bots)?;
    std::fs::create_dir_all(&out).with_context(|| format!("creating {}", out.display()))?;
    let started = std::time::Instant::now();
    let jobs = jobs.unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1));
    let bar = progress(commands, "commands");
    let r = umpire::playout::fuzz::fuzz(&spec, bots, commands, seed, Some(&out), jobs, &|n| bar.set_position(n as u64));
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
    let seeds = umpire::playout::shards::seeds(g.seed, g.games, g.shard);
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
    bots: &umpire::playout::Lineup,
    jobs: usize,
    save: Option<&std::path::Path>,
    bar: &indicatif::ProgressBar,
) -> (Vec<umpire::playout::Record>, f64) {
    let started = std::time::Instant::now();
    let recs = umpire::playout::run_games(spec, seeds, bots, jobs, save, &|_| bar.inc(1));
    (recs, started.elapsed().as_secs_f64())
}

pub(super) fn speed_line(n: usize, secs: f64, jobs: usize) -> String {
    format!(
        "time: {secs:.1} s for {n} games on {jobs} thread(s): {:.1} games/min ({:.2} s a game)",
        n as f64 * 60.0 / secs.max(1e-9),
        secs / n.max(1) as f64 * jobs.min(n.max(1)) as f64
    )
}

/// What identifies the run of `g` (its shards share it): `rules` as the report names them and
/// their content hashes.
fn run_of(kind: &str, scenario: &str, g: &GamesArgs, rules: Vec<String>, hashes: Vec<String>) -> Result<Run> {
    let program = match &g.json {
        // (only a run that writes its games needs it: merge compares it)
        Some(_) => umpire::playout::shards::file_hash(&std::env::current_exe().context("finding the program")?)?,
        None => String::new(),
    };
    Ok(Run {
        kind: kind.into(),
        scenario: scenario.into(),
        first_seed: g.seed,
        games: g.games,
        bot: g.bots()?.to_string(),
        options: g.options.clone(),
        max_commands: g.max_commands,
        rules,
        rules_hashes: hashes,
        program,
    })
}

/// Writes the games of a run to `--json FILE`, when asked.
fn write_json(g: &GamesArgs, run: &Run, secs: f64, records: &[&[umpire::playout::Record]]) -> Result<()> {
    if let Some(path) = &g.json {
        umpire::playout::shards::write(path, run, g.shard, secs, records)?;
        eprintln!("wrote the {} games to {}", records.first().map_or(0, |r| r.len()), path.display());
    }
    Ok(())
}

pub(super) fn playout(
    library: Option<PathBuf>,
    scenario: &str,
    g: &GamesArgs,
    save: Option<PathBuf>,
    list: bool,
) -> Result<i32> {
    let (spec, seeds, jobs) = games_of(library, scenario, g);
    let bots = g.bots()?;
    let hash = umpire::playout::starts(&spec, g.seed, &bots)?;
    let run = run_of("playout", scenario, g, vec![], vec![hash])?;
    if let Some(d) = &save {
        std::fs::create_dir_all(d).with_context(|| format!("creating {}", d.display()))?;
    }
    let bar = progress(seeds.len(), "games");
    let (recs, secs) = play_games(&spec, &seeds, &bots, jobs, save.as_deref(), &bar);
    bar.finish_and_clear();
    if list {
        for r in &recs {
            outln!("seed {}: {} — turn {}, {} commands", r.seed, r.outcome(), r.turn, r.commands);
        }
    }
    write_json(g, &run, secs, &[&recs])?;
    print_report(&run, g.shard, &[recs.as_slice()]);
    outln!("{}", speed_line(recs.len(), secs, jobs));
    Ok(if recs.iter().any(|r| r.failure.is_some()) { 1 } else { 0 })
}

/// The report of a playout (one list of games) or a comparison (two).
fn print_report(run: &Run, shard: Option<umpire::playout::shards::Shard>, records: &[&[umpire::playout::Record]]) {
    let title = run.title(records.first().map_or(0, |r| r.len()), shard);
    let lines = match records {
        [a, b] => umpire::playout::report::compare(&title, a, b, ("A", "B")),
        [a, ..] => umpire::playout::report::playout(&title, a),
        [] => vec![title],
    };
    for l in lines {
        outln!("{l}");
    }
}

pub(super) fn compare(library: Option<PathBuf>, scenario: &str, rules: &[PathBuf], g: &GamesArgs) -> Result<i32> {
    if rules.len() != 2 {
        anyhow::bail!("compare takes two rules folders: --rules A --rules B (given {})", rules.len());
    }
    let (spec, seeds, jobs) = games_of(library, scenario, g);
    let specs: Vec<umpire::playout::Spec> =
        rules.iter().map(|r| umpire::playout::Spec { rules: Some(r.clone()), ..spec.clone() }).collect();
    let bots = g.bots()?;
    let mut hashes = Vec::new();
    for s in &specs {
        hashes.push(umpire::playout::starts(s, g.seed, &bots)?);
    }
    let names = rules.iter().map(|r| r.display().to_string()).collect();
    let run = run_of("compare", scenario, g, names, hashes)?;
    let mut runs = Vec::new();
    let mut secs = 0.0;
    for (r, s) in rules.iter().zip(specs) {
        let bar = progress(seeds.len(), &format!("games under {}", r.display()));
        let (recs, t) = play_games(&s, &seeds, &bots, jobs, None, &bar);
        bar.finish_and_clear();
        runs.push(recs);
        secs += t;
    }
    write_json(g, &run, secs, &[&runs[0], &runs[1]])?;
    print_report(&run, g.shard, &[&runs[0], &runs[1]]);
    Ok(0)
}

/// `umpire merge FILE...`: the report of the shards' games together, as one run prints it.
pub(super) fn merge(files: &[PathBuf], partial: bool, json: Option<PathBuf>) -> Result<i32> {
    let paths: Vec<&std::path::Path> = files.iter().map(PathBuf::as_path).collect();
    let m = umpire::playout::shards::merge(&paths, partial)?;
    let lists: Vec<&[umpire::playout::Record]> = m.records.iter().map(Vec::as_slice).collect();
    if let Some(path) = &json {
        umpire::playout::shards::write(path, &m.run, None, m.seconds, &lists)?;
    }
    print_report(&m.run, None, &lists);
    if !m.missing.is_empty() {
        let list: Vec<String> = m.missing.iter().map(|s| s.to_string()).collect();
        outln!("partial: the games of shards {} are missing", list.join(", "));
    }
    outln!("time: {:.1} s of play in {} shard file(s)", m.seconds, m.shards);
    let failed = m.records.first().is_some_and(|rs| rs.iter().any(|r| r.failure.is_some()));
    Ok(if failed && m.run.kind == "playout" { 1 } else { 0 })
}
