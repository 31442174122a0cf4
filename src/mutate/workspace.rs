//! Where mutants run: a job's copy of the library, and the scripts as coverage found them.
//!
//! (Measured and left out: starting a mutant's run from a fork of the game in the middle of a
//! script, after the commands no change to the line can affect. The forks cost as much as the
//! commands they skip: Stargard's combat.lua 90 s of CPU against 74, a sample of Red Storm's
//! 91 against 95. Also left out: stopping a passing script once past the last command that
//! runs the changed line, when the game's fingerprint (state, undo history) is back to the
//! unchanged run's; survivors, the costly mutants, mostly run their line up to the end:
//! Stargard, a sample of 300, 63.8 s of CPU either way; Red Storm's victory.lua 237 against
//! 248 s, within the noise.)

use super::Fate;
use super::mutants::Mutant;
use crate::error::{Error, Result};
use crate::lua::Limits;
use crate::script::{in_fresh_session, run_text, run_until_failure, script_commands};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A script as the run knows it.
pub(super) struct Script {
    pub name: String,
    commands: Vec<(usize, String)>,
    /// Lines run on the unchanged rules, by rule file name (within the ruleset folder).
    lines: BTreeMap<String, BTreeSet<usize>>,
    /// Line events on the unchanged rules (the order scripts are tried in).
    work: u64,
    /// The limits its runs on a mutant get ([`mutant_limits`]).
    limits: Limits,
}

impl Script {
    /// Whether the script runs a line of `reach` in `file`.
    fn reaches(&self, file: &str, reach: (usize, usize)) -> bool {
        self.lines.get(file).is_some_and(|l| l.range(reach.0..=reach.1).next().is_some())
    }
}

/// Runs every script on the unchanged rules with line coverage on; the scripts come back
/// cheapest first.
pub(super) fn cover(ws: &Workspace, game: &str, paths: &[PathBuf]) -> Result<Vec<Script>> {
    let prefix = format!("rulesets/{game}/");
    let mut out = Vec::new();
    for p in paths {
        let text = std::fs::read_to_string(p).map_err(|e| Error::io(p, e))?;
        let name = p.display().to_string();
        crate::lua::coverage::start();
        let o = in_fresh_session(&ws.root, |s| run_text(s, &name, &text, false));
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
        out.push(Script {
            name,
            commands: script_commands(&text),
            lines,
            work: c.events,
            limits: mutant_limits(c.peak),
        });
    }
    out.sort_by(|a, b| a.work.cmp(&b.work).then_with(|| a.name.cmp(&b.name)));
    Ok(out)
}

/// A job's copy of the library, where its mutants are written.
pub(super) struct Workspace {
    _dir: tempfile::TempDir,
    pub root: PathBuf,
    /// The game's folder in the copy.
    game_dir: PathBuf,
}

impl Workspace {
    pub fn new(library: &Path, game: &str, rules: &Path) -> Result<Workspace> {
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
    pub fn try_mutant(&self, m: &Mutant, src: &str, scripts: &[Script]) -> Fate {
        let reaching: Vec<&Script> = scripts.iter().filter(|s| s.reaches(&m.file, m.reach)).collect();
        if reaching.is_empty() {
            return Fate::NotReached;
        }
        let path = self.game_dir.join(&m.file);
        if let Err(e) = std::fs::write(&path, m.apply(src)) {
            return Fate::Killed { script: "(workspace)".into(), line: e.to_string() };
        }
        let fate = reaching
            .iter()
            .find_map(|s| whole_fails(&self.root, s))
            .unwrap_or_else(|| Fate::Survived { scripts: reaching.iter().map(|s| s.name.clone()).collect() });
        // the next mutant, of this file or another, finds it as it was
        let _ = std::fs::write(&path, src);
        fate
    }
}

/// The limits of a script's runs on a mutant: a change that makes a loop run away fails the
/// command once it has spent ten times the most any command of the script spent on the
/// unchanged rules (and at most the usual budget), not after the usual 200 million
/// instructions; the wall-clock backstop (runaways in the kernel's searches) after 10 s.
fn mutant_limits(peak: u64) -> Limits {
    let usual = Limits::default();
    Limits {
        instructions: (peak.saturating_mul(10)).clamp(2_000_000, usual.instructions),
        seconds: usual.seconds.min(10.0),
        ..usual
    }
}

/// The script's first failure on the rules in `root`, if any.
fn whole_fails(root: &Path, s: &Script) -> Option<Fate> {
    let o = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        in_fresh_session(root, |session| {
            session.limits = s.limits;
            run_until_failure(session, &s.name, &s.commands)
        })
    }));
    let killed = |line: &str| Some(Fate::Killed { script: s.name.clone(), line: line.to_string() });
    match o {
        Ok(o) if o.failed == 0 => None,
        Ok(o) => killed(o.failures.lines().find(|l| l.contains("FAILED") || l.contains("error")).unwrap_or("").trim()),
        Err(_) => killed("panic"),
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
