//! Runs of games split across processes or machines: `--shard K/N` plays games K, K+N, K+2N…
//! of a seed range, `--json FILE` writes every game's outcome and figures with what identifies
//! the run (scenario, seeds, bot, the rules' and the program's hashes), and [`merge`] combines
//! the shards of one run into the records one unsharded run would have made, refusing shards of
//! different runs.

use super::Record;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The version of the shard file format.
const FORMAT: u32 = 1;

/// One part of `N` of a range of games: the `K`th (from 1), games K, K+N, K+2N…
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    pub k: usize,
    pub n: usize,
}

impl std::str::FromStr for Shard {
    type Err = String;
    fn from_str(s: &str) -> Result<Shard, String> {
        let bad = || format!("'{s}' is not a shard: K/N with 1 <= K <= N (`--shard 2/8`: the second of eight)");
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let (k, n): (usize, usize) = (k.trim().parse().map_err(|_| bad())?, n.trim().parse().map_err(|_| bad())?);
        if k == 0 || n == 0 || k > n {
            return Err(bad());
        }
        Ok(Shard { k, n })
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.k, self.n)
    }
}

/// The seeds of a range (`games` games from `first`) that a shard plays (all of them for none).
pub fn seeds(first: u64, games: usize, shard: Option<Shard>) -> Vec<u64> {
    (0..games).filter(|i| shard.is_none_or(|s| i % s.n == s.k - 1)).map(|i| first + i as u64).collect()
}

/// What identifies a run of games: every shard of one run has the same.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Run {
    /// `playout` or `compare`.
    pub kind: String,
    pub scenario: String,
    pub first_seed: u64,
    /// Games in the whole range (all shards).
    pub games: usize,
    pub bot: String,
    pub options: Vec<String>,
    pub max_commands: usize,
    /// The rules played, as the report names them (one for a playout, A and B for a comparison).
    pub rules: Vec<String>,
    /// Their content hashes (ruleset.toml, the Lua files, rulesets/lib).
    pub rules_hashes: Vec<String>,
    /// The program's hash (SHA-256 of its executable).
    pub program: String,
}

impl Run {
    /// The seeds of the whole range, as a title says them.
    pub fn seed_range(&self) -> String {
        format!("seeds {} to {}", self.first_seed, self.first_seed + self.games.max(1) as u64 - 1)
    }

    /// The first line of the report of `n` games of this run.
    pub fn title(&self, n: usize, shard: Option<Shard>) -> String {
        let range = match shard {
            None => self.seed_range(),
            Some(s) => format!("shard {s} of {}", self.seed_range()),
        };
        match self.kind.as_str() {
            "compare" => format!(
                "compare {}: {n} games each ({range}), bot {}; A = {}, B = {}",
                self.scenario,
                self.bot,
                self.rules.first().map_or("", String::as_str),
                self.rules.get(1).map_or("", String::as_str)
            ),
            _ => format!("playout {}: {n} games ({range}), bot {}", self.scenario, self.bot),
        }
    }
}

/// A shard file: the run, which shard, the games of each rules (one list for a playout, two
/// for a comparison) and the seconds they took.
/// (`G`: the games as written, borrowed, or as read, owned.)
#[derive(Serialize, Deserialize)]
struct File<G> {
    format: u32,
    run: Run,
    shard: Option<Shard>,
    seconds: f64,
    games: G,
}

/// Writes the games of a run (or of a shard of it) to `path`, atomically.
pub fn write(path: &Path, run: &Run, shard: Option<Shard>, seconds: f64, records: &[&[Record]]) -> crate::Result<()> {
    let file = File { format: FORMAT, run: run.clone(), shard, seconds, games: records };
    let text = serde_json::to_string_pretty(&file).map_err(|e| crate::Error::State(e.to_string()))?;
    crate::save::write_atomic(path, text.as_bytes(), None)
}

/// The runs' records combined from shard files: the run they share, each rules' records in
/// seed order, and the seconds of all the shards.
pub struct Merged {
    pub run: Run,
    pub records: Vec<Vec<Record>>,
    pub seconds: f64,
    /// The shards read, and the shards of the run that were missing (with `partial`).
    pub shards: usize,
    pub missing: Vec<Shard>,
}

/// Reads shard files and combines them. Refused: a file that is not one, shards of different
/// runs (scenario, seeds, bot, options, rules or program), the same shard twice, and with
/// `partial` false a run whose shards are not all there.
pub fn merge(paths: &[&Path], partial: bool) -> crate::Result<Merged> {
    let refuse = |m: String| crate::Error::Usage(m);
    if paths.is_empty() {
        return Err(refuse("merge: no shard files given".into()));
    }
    let mut files: Vec<(&Path, File<Vec<Vec<Record>>>)> = Vec::new();
    for p in paths {
        let text = std::fs::read_to_string(p).map_err(|e| crate::Error::io(p, e))?;
        let f: File<Vec<Vec<Record>>> = serde_json::from_str(&text).map_err(|e| {
            refuse(format!("{}:{}:{}: not a shard file of umpire: {e}", p.display(), e.line(), e.column()))
        })?;
        if f.format != FORMAT {
            return Err(refuse(format!(
                "{}: a shard file of format {} (this program reads {FORMAT})",
                p.display(),
                f.format
            )));
        }
        files.push((p, f));
    }
    let (first_path, first) = (files[0].0, &files[0].1);
    for (p, f) in &files[1..] {
        if let Some(why) = differs(&first.run, &f.run) {
            return Err(refuse(format!(
                "{} and {} are shards of different runs: {why}",
                first_path.display(),
                p.display()
            )));
        }
        if f.shard.map(|s| s.n) != first.shard.map(|s| s.n) {
            return Err(refuse(format!(
                "{} and {} split the games differently ({} and {})",
                first_path.display(),
                p.display(),
                shown(first.shard),
                shown(f.shard)
            )));
        }
    }
    let n = first.shard.map_or(1, |s| s.n);
    let mut seen: Vec<Option<&Path>> = vec![None; n];
    for (p, f) in &files {
        let k = f.shard.map_or(1, |s| s.k);
        if let Some(other) = seen[k - 1] {
            return Err(refuse(format!(
                "{} and {} are the same shard ({})",
                other.display(),
                p.display(),
                shown(f.shard)
            )));
        }
        seen[k - 1] = Some(p);
    }
    let missing: Vec<Shard> = (1..=n).filter(|k| seen[k - 1].is_none()).map(|k| Shard { k, n }).collect();
    if !missing.is_empty() && !partial {
        let list: Vec<String> = missing.iter().map(|s| s.to_string()).collect();
        return Err(refuse(format!(
            "shards missing: {} (`merge --partial` reports on the games of the shards given)",
            list.join(", ")
        )));
    }
    let run = first.run.clone();
    let lists = files.iter().map(|(_, f)| f.games.len()).max().unwrap_or(0);
    let mut records: Vec<Vec<Record>> = vec![Vec::new(); lists];
    let mut seconds = 0.0;
    let shards = files.len();
    for (_, f) in files {
        seconds += f.seconds;
        for (i, games) in f.games.into_iter().enumerate() {
            records[i].extend(games);
        }
    }
    for rs in &mut records {
        rs.sort_by_key(|r| r.seed);
    }
    Ok(Merged { run, records, seconds, shards, missing })
}

fn shown(s: Option<Shard>) -> String {
    s.map_or_else(|| "not sharded".into(), |s| format!("shard {s}"))
}

/// What makes two runs different, said for a person (None: the same run).
fn differs(a: &Run, b: &Run) -> Option<String> {
    let field = |what: &str, x: String, y: String| (x != y).then(|| format!("{what}{x} against {what}{y}"));
    field("", a.kind.clone(), b.kind.clone())
        .or_else(|| field("scenario ", a.scenario.clone(), b.scenario.clone()))
        .or_else(|| field("", a.seed_range(), b.seed_range()))
        .or_else(|| field("bot ", a.bot.clone(), b.bot.clone()))
        .or_else(|| field("options ", format!("[{}]", a.options.join(" ")), format!("[{}]", b.options.join(" "))))
        .or_else(|| field("at most commands ", a.max_commands.to_string(), b.max_commands.to_string()))
        .or_else(|| field("rules ", a.rules_hashes.join(", "), b.rules_hashes.join(", ")))
        .or_else(|| field("program ", a.program.clone(), b.program.clone()))
}

/// The SHA-256 of a file (the program's executable), in hex.
pub fn file_hash(path: &Path) -> crate::Result<String> {
    use sha2::{Digest, Sha256};
    let bytes = std::fs::read(path).map_err(|e| crate::Error::io(path, e))?;
    Ok(Sha256::digest(&bytes).iter().map(|b| format!("{b:02x}")).collect())
}
