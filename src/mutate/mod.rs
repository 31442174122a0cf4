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

use crate::error::{Error, Result};
use mutants::Mutant;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

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

/// A script as the run knows it.
struct Script {
    name: String,
    text: String,
    /// Lines run, by rule file name (within the ruleset folder).
    lines: BTreeMap<String, BTreeSet<usize>>,
    /// Line events on the unchanged rules (the order scripts are tried in).
    work: u64,
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
    let workspaces: Vec<Workspace> =
        (0..o.jobs.max(1)).map(|_| Workspace::new(&o.library, &o.game, &rules)).collect::<Result<_>>()?;
    let scripts = cover(&workspaces[0], &o.game, &script_paths(o)?)?;

    let src_of = |m: &Mutant| &files.iter().find(|f| f.name == m.file).expect("the mutant's file").src;
    let fates: Vec<Mutex<Option<Fate>>> = tried.iter().map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    let finished = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for ws in &workspaces {
            let (tried, fates, next, finished, scripts, equivalents) =
                (&tried, &fates, &next, &finished, &scripts, &equivalents);
            scope.spawn(move || {
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
            return Err(Error::NotFound(format!("{}: no such script or folder", p.display())));
        }
    }
    if out.is_empty() {
        return Err(Error::NotFound("no scripts to run (give --scripts)".into()));
    }
    Ok(out)
}

/// Runs every script on the unchanged rules with line coverage on; the scripts come back
/// cheapest first.
fn cover(ws: &Workspace, game: &str, paths: &[PathBuf]) -> Result<Vec<Script>> {
    let prefix = format!("rulesets/{game}/");
    let mut out = Vec::new();
    for p in paths {
        let text = std::fs::read_to_string(p).map_err(|e| Error::io(p, e))?;
        let name = p.display().to_string();
        crate::lua::coverage::start();
        let o = crate::script::in_fresh_session(&ws.root, |s| crate::script::run_text(s, &name, &text, false));
        let c = crate::lua::coverage::stop();
        if o.failed > 0 {
            return Err(Error::State(format!(
                "{name} fails on the unchanged rules: fix it before mutating\n{}",
                o.failures.trim_end()
            )));
        }
        let lines = c
            .lines
            .into_iter()
            .filter_map(|(chunk, l)| chunk.strip_prefix(&prefix).map(|f| (f.to_string(), l)))
            .collect();
        out.push(Script { name, text, lines, work: c.events });
    }
    out.sort_by(|a, b| a.work.cmp(&b.work).then_with(|| a.name.cmp(&b.name)));
    Ok(out)
}

/// A job's copy of the library, where its mutants are written.
struct Workspace {
    _dir: tempfile::TempDir,
    root: PathBuf,
    /// The game's folder in the copy.
    game_dir: PathBuf,
}

impl Workspace {
    fn new(library: &Path, game: &str, rules: &Path) -> Result<Workspace> {
        let dir = tempfile::Builder::new().prefix("umpire-mutate-").tempdir().map_err(|e| Error::io(library, e))?;
        let root = dir.path().to_path_buf();
        copy_dir(&library.join("rulesets"), &root.join("rulesets"))?;
        let game_dir = root.join("rulesets").join(game);
        if game_dir.exists() {
            std::fs::remove_dir_all(&game_dir).map_err(|e| Error::io(&game_dir, e))?;
        }
        copy_dir(rules, &game_dir)?;
        let scenarios =
            library.join("scenarios").canonicalize().map_err(|e| Error::io(library.join("scenarios"), e))?;
        link_dir(&scenarios, &root.join("scenarios"))?;
        Ok(Workspace { _dir: dir, root, game_dir })
    }

    /// Writes the mutant, runs the scripts that reach it until one fails, puts the file back.
    fn try_mutant(&self, m: &Mutant, src: &str, scripts: &[Script]) -> Fate {
        let path = self.game_dir.join(&m.file);
        if let Err(e) = std::fs::write(&path, m.apply(src)) {
            return Fate::Killed { script: "(workspace)".into(), line: e.to_string() };
        }
        let reaching: Vec<&Script> = scripts
            .iter()
            .filter(|s| s.lines.get(&m.file).is_some_and(|l| l.range(m.reach.0..=m.reach.1).next().is_some()))
            .collect();
        let fate = if reaching.is_empty() {
            Fate::NotReached
        } else {
            reaching
                .iter()
                .find_map(|s| first_failure(&self.root, s))
                .unwrap_or_else(|| Fate::Survived { scripts: reaching.iter().map(|s| s.name.clone()).collect() })
        };
        // the next mutant of another file must find this one as it was
        let _ = std::fs::write(&path, src);
        fate
    }
}

/// The script's first failure on the rules in `root`, if any.
fn first_failure(root: &Path, s: &Script) -> Option<Fate> {
    let o = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        crate::script::in_fresh_session(root, |session| crate::script::run_until_failure(session, &s.name, &s.text))
    }));
    match o {
        Ok(o) if o.failed == 0 => None,
        Ok(o) => {
            let line = o.failures.lines().find(|l| l.contains("FAILED") || l.contains("error")).unwrap_or("").trim();
            Some(Fate::Killed { script: s.name.clone(), line: line.to_string() })
        }
        Err(_) => Some(Fate::Killed { script: s.name.clone(), line: "panic".into() }),
    }
}

fn copy_dir(from: &Path, to: &Path) -> Result<()> {
    std::fs::create_dir_all(to).map_err(|e| Error::io(to, e))?;
    for e in std::fs::read_dir(from).map_err(|e| Error::io(from, e))?.flatten() {
        let (src, dst) = (e.path(), to.join(e.file_name()));
        if src.is_dir() {
            copy_dir(&src, &dst)?;
        } else {
            std::fs::copy(&src, &dst).map_err(|e| Error::io(&src, e))?;
        }
    }
    Ok(())
}

#[cfg(unix)]
fn link_dir(from: &Path, to: &Path) -> Result<()> {
    std::os::unix::fs::symlink(from, to).map_err(|e| Error::io(to, e))
}

#[cfg(not(unix))]
fn link_dir(from: &Path, to: &Path) -> Result<()> {
    copy_dir(from, to)
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
