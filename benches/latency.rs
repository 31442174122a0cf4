//! `cargo bench --bench latency`: the latency of every command of every script of the games
//! (scripts/stargard-solstice/*.ump, scripts/fortress-stalingrad/*.ump,
//! scripts/red-storm-over-the-reich/*.ump), in release mode. Each script is replayed in a
//! fresh session `UMPIRE_LATENCY_REPS` times (default 5) and each `Session::execute` timed.
//! Prints, by command kind, the count, median, p90, p99 and max, then the slowest commands
//! (median over the replays) and the `odds` commands. A kind is the command's first word;
//! `expect-ok X` counts as `X`, `expect-error X` as `X (refused)`. `forward` is several
//! commands in one (it plays `next` and `auto` until it stops): it is listed, with its time
//! per command played, but is not a single REPL command. See docs/performance.md.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;
use umpire::{Session, Status};

mod common;
use common::script_commands;

// (the program's own allocator, src/main.rs: what is measured is what users run)
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn kind(line: &str) -> String {
    let first = |l: &str| -> String {
        let l = l.trim();
        if l.starts_with('=') {
            return "=".into();
        }
        l.split_whitespace().next().unwrap_or("").to_string()
    };
    let k = first(line);
    let rest = || line.trim()[k.len()..].split(" ~ ").next().unwrap_or("").to_string();
    match k.as_str() {
        "expect-ok" => first(&rest()),
        "expect-error" => format!("{} (refused)", first(&rest())),
        _ => k,
    }
}

fn pct(sorted: &[f64], p: f64) -> f64 {
    // nearest rank
    let i = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[i.clamp(1, sorted.len()) - 1]
}

struct Sample {
    script: String,
    line: usize,
    text: String,
    kind: String,
    ms: Vec<f64>,
    /// commands played by `forward` (the entries it added to the history)
    played: usize,
}

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let reps: usize = std::env::var("UMPIRE_LATENCY_REPS").ok().and_then(|v| v.parse().ok()).unwrap_or(5);
    let mut scripts: Vec<PathBuf> = Vec::new();
    // UMPIRE_LATENCY_ONLY=red-storm (a substring of `<game>/<script>.ump`) replays only those
    let only = std::env::var("UMPIRE_LATENCY_ONLY").unwrap_or_default();
    for game in ["stargard-solstice", "fortress-stalingrad", "red-storm-over-the-reich"] {
        let dir = root.join("scripts").join(game);
        let mut these: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "ump"))
            .filter(|p| format!("{game}/{}", p.file_name().unwrap().to_string_lossy()).contains(&only))
            .collect();
        these.sort();
        scripts.extend(these);
    }
    let mut samples: Vec<Sample> = Vec::new();
    let started = Instant::now();
    for path in &scripts {
        let game = path.parent().and_then(|p| p.file_name()).unwrap().to_string_lossy().to_string();
        let name = format!("{game}/{}", path.file_name().unwrap().to_string_lossy());
        let cmds = script_commands(&std::fs::read_to_string(path).unwrap());
        let first = samples.len();
        for rep in 0..reps {
            let scratch = tempfile::tempdir().expect("a scratch folder");
            let mut s = Session::with_root(&root);
            s.scratch = Some(scratch.path().to_path_buf());
            for (i, (n, line)) in cmds.iter().enumerate() {
                let before = s.game.as_ref().map_or(0, |g| g.history.len());
                let t = Instant::now();
                let r = s.execute(line);
                let ms = t.elapsed().as_secs_f64() * 1000.0;
                let bad = match &r.status {
                    Status::Error(e) => Some(e.to_string()),
                    Status::Check(false) => Some("check failed".into()),
                    _ => None,
                };
                if let Some(e) = bad {
                    panic!("{name}:{n}: `{line}`: {e}: the scripts must pass to be timed");
                }
                if rep == 0 {
                    samples.push(Sample {
                        script: name.clone(),
                        line: *n,
                        text: line.lines().next().unwrap_or("").to_string(),
                        kind: kind(line),
                        ms: Vec::new(),
                        // the commands it added to the history (`forward` plays several)
                        played: s.game.as_ref().map_or(0, |g| g.history.len()).saturating_sub(before),
                    });
                }
                samples[first + i].ms.push(ms);
            }
        }
    }
    let wall = started.elapsed().as_secs_f64();
    for s in &mut samples {
        s.ms.sort_by(f64::total_cmp);
    }
    let med = |s: &Sample| s.ms[s.ms.len() / 2];

    println!(
        "{} scripts, {} commands, {reps} replays each ({wall:.1} s); times in ms, over every replay of every command",
        scripts.len(),
        samples.len()
    );
    let mut by_kind: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    for s in &samples {
        by_kind.entry(&s.kind).or_default().extend(&s.ms);
    }
    let mut kinds: Vec<(&str, Vec<f64>)> = by_kind.into_iter().collect();
    for (_, v) in &mut kinds {
        v.sort_by(f64::total_cmp);
    }
    kinds.sort_by(|a, b| pct(&b.1, 99.0).total_cmp(&pct(&a.1, 99.0)));
    println!("{:<22} {:>6} {:>9} {:>9} {:>9} {:>9}", "kind", "n", "median", "p90", "p99", "max");
    for (k, v) in &kinds {
        println!(
            "{:<22} {:>6} {:>9.3} {:>9.3} {:>9.3} {:>9.3}",
            k,
            v.len() / reps,
            pct(v, 50.0),
            pct(v, 90.0),
            pct(v, 99.0),
            v[v.len() - 1]
        );
    }
    let fwd: Vec<&Sample> = samples.iter().filter(|s| s.kind == "forward").collect();
    let played: usize = fwd.iter().map(|s| s.played).sum();
    let fwd_ms: f64 = fwd.iter().map(|s| med(s)).sum();
    println!(
        "forward: {} commands played {played} commands in {fwd_ms:.1} ms: {:.3} ms per command played",
        fwd.len(),
        fwd_ms / played.max(1) as f64
    );

    println!("\nslowest single commands (median of the replays; forward excluded):");
    let mut slow: Vec<&Sample> = samples.iter().filter(|s| s.kind != "forward").collect();
    slow.sort_by(|a, b| med(b).total_cmp(&med(a)));
    for s in slow.iter().take(15) {
        println!("{:>9.3}  {}:{}  {}", med(s), s.script, s.line, truncate(&s.text, 90));
    }

    println!("\nodds commands (median / max of the replays):");
    let mut odds: Vec<&Sample> = samples.iter().filter(|s| s.kind.starts_with("odds")).collect();
    odds.sort_by(|a, b| med(b).total_cmp(&med(a)));
    for s in &odds {
        println!("{:>9.3} {:>9.3}  {}:{}  {}", med(s), s.ms[s.ms.len() - 1], s.script, s.line, truncate(&s.text, 90));
    }
    let over: Vec<&&Sample> = slow.iter().filter(|s| med(s) >= 10.0).collect();
    let mut over_by_kind: BTreeMap<&str, usize> = BTreeMap::new();
    for s in &over {
        *over_by_kind.entry(&s.kind).or_default() += 1;
    }
    let by: Vec<String> = over_by_kind.iter().map(|(k, n)| format!("{k} {n}")).collect();
    println!("\n{} single commands at or over 10 ms (median): {}", over.len(), by.join(", "));
    for s in over.iter().filter(|s| !s.kind.starts_with("odds") && s.kind != "new") {
        println!("{:>9.3}  {}:{}  {}", med(s), s.script, s.line, truncate(&s.text, 90));
    }
    // Fortress Stalingrad's mutual supply phases at the start of turn 2 (every unit of both sides
    // traced: the Soviet 0-0-1s and AS levels, the German rail net and OOS levels)
    timed_rules(
        &root,
        reps,
        &["new fortress-stalingrad --seed 1", "forward step initial_supply"],
        "Fortress Stalingrad supply phases, both sides, the full map (turn 2; ms):",
        &[
            ("Initial Supply Phase (7.10, 7.28, 7.38)", "lua require('supply').initial()"),
            ("Terminal Supply Phase (4.2.V, 7.15-7.33)", "lua require('supply').terminal()"),
        ],
    );
    // Red Storm over the Reich's supply segments at the start of turn 1 (about 2,600 hexes, 300
    // units: the rail net, the lines, the defensive works near the front)
    timed_rules(
        &root,
        reps,
        &["new red-storm-over-the-reich --seed 1"],
        "Red Storm over the Reich supply segments, the full map (turn 1; ms):",
        &[
            ("Soviet Supply Segment (7.0-7.3)", "lua require('supply').check('Soviet')"),
            ("German Supply Segment (7.0-7.3)", "lua require('supply').check('German')"),
        ],
    );
}

/// Rule code run as `lua` commands on a game set up by `setup`, each undone after, `reps` × 10
/// times: the median, p99 and max of each.
fn timed_rules(root: &std::path::Path, reps: usize, setup: &[&str], title: &str, codes: &[(&str, &str)]) {
    let mut s = Session::with_root(root);
    for line in setup {
        let r = s.execute(line);
        assert!(r.error().is_none(), "{line}: {r:?}");
    }
    println!("\n{title}");
    for (what, code) in codes {
        let mut ms = Vec::new();
        for _ in 0..reps * 10 {
            let t = Instant::now();
            let r = s.execute(code);
            ms.push(t.elapsed().as_secs_f64() * 1000.0);
            assert!(r.error().is_none(), "{code}: {r:?}");
            let r = s.execute("undo");
            assert!(r.error().is_none(), "undo: {r:?}");
        }
        ms.sort_by(f64::total_cmp);
        println!(
            "{what:<44} n {:>4}  median {:>7.3}  p99 {:>7.3}  max {:>7.3}",
            ms.len(),
            pct(&ms, 50.0),
            pct(&ms, 99.0),
            ms[ms.len() - 1]
        );
    }
}

fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() <= n { s.to_string() } else { format!("{}…", s.chars().take(n).collect::<String>()) }
}
