//! `umpire mutate`: the rule author's view of the test suite. Each mutant is one small change
//! to one rule file ([`mutants`]); the game's command scripts run against it, and a mutant is
//! *killed* when a check fails (or a command errs) and *survives* when every script that runs
//! the changed line still passes. A surviving mutant is a rule no script would notice broken.
//!
//! How a run goes:
//! 1. a workspace per job: a copy of the library's `rulesets/` (the game's folder replaced by
//!    `--rules DIR` when given) beside a link to its `scenarios/`;
//! 2. the scripts run once on the unchanged rules with line coverage on
//!    ([`crate::lua::coverage`]): which lines of which rule file each one runs, and how much
//!    work it is (line events). A script that fails then stops the run;
//! 3. each mutant: its file written into the job's workspace, the scripts that run its line
//!    tried cheapest first, each up to its first failure; the first failure kills it;
//! 4. the report ([`report`]) groups mutants by rule file and by the case of coverage.toml
//!    each belongs to, lists the survivors as one-line diffs, and counts a kill rate.
//!
//! A mutant that changes nothing observable is listed in `mutants.toml` beside coverage.toml
//! with its reason ([`Equivalents`]) and leaves the kill rate. Whatever the number of jobs the
//! outcome of each mutant, and so the report, is the same.

pub mod cases;
pub mod mutants;
pub mod report;
mod workspace;

use crate::error::{Error, Result};
use mutants::Mutant;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use workspace::{Workspace, cover};

/// Rule files left out unless `--all-files`: none of them rules on a command.
pub const NOT_RULINGS: &[(&str, &str)] = &[
    (
        "actions.lua",
        "the list of legal actions (the property test, not the scripts, checks that every listed command is accepted)",
    ),
    ("evaluate.lua", "the bots' evaluation of a position"),
    ("views.lua", "what the views print"),
    ("labels.lua", "names shown to players"),
    ("testing.lua", "the scripts' own set-up helpers"),
    ("validate.lua", "the checks of the tables' data at load (the hostile tests feed it bad data)"),
];

/// What to mutate and how.
#[derive(Clone, Debug)]
pub struct Options {
    pub game: String,
    /// The library: `rulesets/`, `scenarios/`, `scripts/<game>/`.
    pub library: PathBuf,
    /// The ruleset folder to mutate (default: the library's `rulesets/<game>`).
    pub rules: Option<PathBuf>,
    /// The scripts (files or folders; default: the library's `scripts/<game>/`).
    pub scripts: Vec<PathBuf>,
    /// Only these rule files (names within the ruleset folder); empty: every rule file.
    pub files: Vec<String>,
    /// Take the files of [`NOT_RULINGS`] too.
    pub all_files: bool,
    /// Try only this many mutants, drawn by `seed`.
    pub sample: Option<usize>,
    pub seed: u64,
    pub jobs: usize,
}

/// What became of a mutant.
#[derive(Clone, Debug, PartialEq)]
pub enum Fate {
    /// A check failed or a command erred: the script, and the line of the failure.
    Killed { script: String, line: String },
    /// Every script that runs the line passed (their names).
    Survived { scripts: Vec<String> },
    /// No script runs the changed line.
    NotReached,
    /// Listed in mutants.toml as changing nothing observable.
    Equivalent { reason: String },
}

/// A rule file as read.
#[derive(Clone, Debug)]
pub struct RuleFile {
    pub name: String,
    pub src: String,
}

/// The outcome of a run.
#[derive(Debug)]
pub struct Outcome {
    pub game: String,
    pub rules: PathBuf,
    pub files: Vec<RuleFile>,
    /// Mutants of the files in all (before any sample).
    pub made: usize,
    /// The mutants tried, in file and source order, with their case and fate.
    pub tried: Vec<(Mutant, String, Fate)>,
    pub scripts: Vec<String>,
    pub cases: cases::Cases,
    pub sample: Option<(usize, u64)>,
}

/// Runs the mutants of `o` (see the module's doc); `done(n, of)` after each mutant.
pub fn run(o: &Options, done: &(dyn Fn(usize, usize) + Sync)) -> Result<Outcome> {
    let rules = o.rules.clone().unwrap_or_else(|| o.library.join("rulesets").join(&o.game));
    if o.rules.is_none() && !rules.is_dir() {
        let mut games: Vec<String> = std::fs::read_dir(o.library.join("rulesets"))
            .map(|rd| rd.flatten().filter(|e| e.path().join("ruleset.toml").is_file()))
            .into_iter()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().to_string())
            .collect();
        games.sort();
        return Err(Error::NotFound(format!(
            "no game `{}` in the library {} (its games: {})",
            o.game,
            crate::ruleset::shown(&o.library),
            games.join(", ")
        )));
    }
    if !rules.join("ruleset.toml").is_file() {
        return Err(Error::NotFound(format!("{}: no ruleset.toml: not a ruleset folder", rules.display())));
    }
    let files = rule_files(&rules, o)?;
    let mut all = Vec::new();
    for f in &files {
        all.extend(mutants::of_file(&f.name, &f.src).map_err(Error::State)?);
    }
    let made = all.len();
    let tried = match o.sample {
        Some(n) if n < all.len() => sample(all, n, o.seed),
        _ => all,
    };
    let cases = cases::Cases::read(&rules, &files)?;
    let equivalents = Equivalents::read(&rules)?;
    let scripts = cover(&Workspace::new(&o.library, &o.game, &rules)?, &o.game, &script_paths(o)?)?;

    let src_of = |m: &Mutant| &files.iter().find(|f| f.name == m.file).expect("the mutant's file").src;
    let fates: Vec<Mutex<Option<Fate>>> = tried.iter().map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    let finished = AtomicUsize::new(0);
    let failed: Mutex<Option<Error>> = Mutex::new(None);
    std::thread::scope(|scope| {
        for _ in 0..o.jobs.max(1) {
            let (tried, fates, next, finished, scripts, equivalents, failed, rules) =
                (&tried, &fates, &next, &finished, &scripts, &equivalents, &failed, &rules);
            scope.spawn(move || {
                // each job its own copy of the rules (and its own Lua states)
                let ws = match Workspace::new(&o.library, &o.game, rules) {
                    Ok(ws) => ws,
                    Err(e) => {
                        *failed.lock().unwrap_or_else(|e| e.into_inner()) = Some(e);
                        return;
                    }
                };
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(m) = tried.get(i) else { break };
                    let src = src_of(m);
                    let fate = match equivalents.reason(m, src) {
                        Some(reason) => Fate::Equivalent { reason },
                        None => ws.try_mutant(m, src, scripts),
                    };
                    *fates[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(fate);
                    done(finished.fetch_add(1, Ordering::SeqCst) + 1, tried.len());
                }
            });
        }
    });
    if let Some(e) = failed.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Err(e);
    }
    let tried = tried
        .into_iter()
        .zip(fates)
        .map(|(m, f)| {
            let case = cases.of(&m);
            (m, case, f.into_inner().unwrap_or_else(|e| e.into_inner()).expect("every mutant tried"))
        })
        .collect();
    Ok(Outcome {
        game: o.game.clone(),
        rules,
        files,
        made,
        tried,
        scripts: scripts.into_iter().map(|s| s.name).collect(),
        cases,
        sample: o.sample.map(|n| (n, o.seed)),
    })
}

/// The rule files to mutate, by name.
fn rule_files(rules: &Path, o: &Options) -> Result<Vec<RuleFile>> {
    let mut names = Vec::new();
    for e in std::fs::read_dir(rules).map_err(|e| Error::io(rules, e))?.flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        if name.ends_with(".lua") && e.path().is_file() {
            names.push(name);
        }
    }
    names.sort();
    for f in &o.files {
        if !names.contains(f) {
            return Err(Error::NotFound(format!(
                "{}: no rule file {f} (it has {})",
                rules.display(),
                names.join(", ")
            )));
        }
    }
    names.retain(|n| {
        if !o.files.is_empty() {
            return o.files.contains(n);
        }
        o.all_files || !NOT_RULINGS.iter().any(|(f, _)| f == n)
    });
    names
        .into_iter()
        .map(|name| {
            let path = rules.join(&name);
            let src = std::fs::read_to_string(&path).map_err(|e| Error::io(&path, e))?;
            Ok(RuleFile { name, src })
        })
        .collect()
}

/// `n` mutants drawn by `seed`, back in file and source order.
fn sample(all: Vec<Mutant>, n: usize, seed: u64) -> Vec<Mutant> {
    use rand::SeedableRng;
    use rand::seq::SliceRandom;
    let mut idx: Vec<usize> = (0..all.len()).collect();
    idx.shuffle(&mut rand_chacha::ChaCha8Rng::seed_from_u64(seed));
    let mut keep: Vec<usize> = idx.into_iter().take(n).collect();
    keep.sort_unstable();
    let mut all: Vec<Option<Mutant>> = all.into_iter().map(Some).collect();
    keep.into_iter().filter_map(|i| all[i].take()).collect()
}

/// The script files: each path given, or the `.ump` files of each folder given (default the
/// library's `scripts/<game>/`), sorted.
fn script_paths(o: &Options) -> Result<Vec<PathBuf>> {
    let given = if o.scripts.is_empty() { vec![o.library.join("scripts").join(&o.game)] } else { o.scripts.clone() };
    let mut out = Vec::new();
    for p in given {
        if p.is_dir() {
            let mut v: Vec<PathBuf> = std::fs::read_dir(&p)
                .map_err(|e| Error::io(&p, e))?
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "ump"))
                .collect();
            v.sort();
            out.extend(v);
        } else if p.is_file() {
            out.push(p);
        } else {
            return Err(Error::NotFound(format!(
                "{}: no such script or folder (a game's scripts are in the clone, not in the built-in games: run mutate in the clone, or name them with --scripts DIR)",
                p.display()
            )));
        }
    }
    if out.is_empty() {
        return Err(Error::NotFound("no scripts to run (give --scripts)".into()));
    }
    Ok(out)
}

/// The mutants recorded in `mutants.toml` as changing nothing observable: each by its file,
/// its line before and after (trimmed), and the reason, so that the entry holds however the
/// file's lines move.
#[derive(Debug, Default)]
pub struct Equivalents {
    entries: Vec<Equivalent>,
}

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Equivalent {
    file: String,
    before: String,
    after: String,
    reason: String,
}

#[derive(Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct EquivalentsFile {
    #[serde(default)]
    equivalent: Vec<Equivalent>,
}

impl Equivalents {
    pub const FILE: &str = "mutants.toml";

    pub fn read(rules: &Path) -> Result<Equivalents> {
        let path = rules.join(Self::FILE);
        if !path.is_file() {
            return Ok(Equivalents::default());
        }
        let (f, _): (EquivalentsFile, _) = crate::datafile::parse_toml(&path, &path.display().to_string())?;
        for e in &f.equivalent {
            if e.reason.trim().is_empty() {
                return Err(Error::State(format!(
                    "{}: the equivalent mutant of {} `{}` gives no reason",
                    path.display(),
                    e.file,
                    e.after
                )));
            }
        }
        Ok(Equivalents { entries: f.equivalent })
    }

    fn reason(&self, m: &Mutant, src: &str) -> Option<String> {
        let (before, after) = m.diff(src);
        self.entries
            .iter()
            .find(|e| e.file == m.file && e.before == before && e.after == after)
            .map(|e| e.reason.clone())
    }
}
