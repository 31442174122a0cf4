//! `cargo bench --bench strength`: how well the search bot plays (issue 29 point 2). For each
//! scenario and each side, the search bot plays that side against the greedy bot, game i of
//! seed i, and the same seed is played by the greedy bot on both sides; the search bot *wins*
//! a seed when its side ends better off than the greedy bot did in its seat: a better outcome
//! for its side (a victory, or a better victory level), or the same outcome and a higher score
//! (`umpire.evaluate`'s, in which the outcome counts 1000). Printed: wins with their 95% Wilson
//! interval, and the search bot's thinking (mean and longest decision, by the clock, one core)
//! and the longest game: its own thinking (the seat the minute is about: a player's
//! opponent) and both sides' together (the greedy bot's thinking too).
//! `UMPIRE_STRENGTH_GAMES=n` games a side in the default scenario of each game (default 20;
//! other scenarios a quarter of it, at least 2), `UMPIRE_STRENGTH_ONLY=<sub>` some scenarios,
//! `UMPIRE_STRENGTH_SIDE=<side>` one side's seat, `UMPIRE_STRENGTH_JOBS=n` games at once
//! (default 1: the clock figures are a core's). See docs/performance.md.

use std::path::PathBuf;
use umpire::playout::{self, Lineup, Policy, Record, Spec};

// (the program's own allocator, src/main.rs: what is measured is what users run)
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn wilson(k: usize, n: usize) -> (f64, f64) {
    let (k, n, z) = (k as f64, n as f64, 1.96f64);
    if n == 0.0 {
        return (0.0, 1.0);
    }
    let p = k / n;
    let centre = (p + z * z / (2.0 * n)) / (1.0 + z * z / n);
    let half = z / (1.0 + z * z / n) * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt();
    (centre - half, centre + half)
}

/// Whether the search bot in `side`'s seat did better than the greedy bot there.
fn won(search: &Record, greedy: &Record, side: &str) -> bool {
    let score = |r: &Record| r.scores.get(side).copied().unwrap_or(f64::NEG_INFINITY);
    search.failure.is_none() && score(search) > score(greedy)
}

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let only = std::env::var("UMPIRE_STRENGTH_ONLY").ok();
    let per_side: usize = std::env::var("UMPIRE_STRENGTH_GAMES").ok().and_then(|v| v.parse().ok()).unwrap_or(20);
    let only_side = std::env::var("UMPIRE_STRENGTH_SIDE").ok();
    let jobs: usize = std::env::var("UMPIRE_STRENGTH_JOBS").ok().and_then(|v| v.parse().ok()).unwrap_or(1);
    let scenarios = [
        ("stargard-solstice", true),
        ("fortress-stalingrad", true),
        ("red-storm-over-the-reich/historical", true),
        ("red-storm-over-the-reich/sleigh-ride", false),
        ("red-storm-over-the-reich/guderian", false),
    ];
    println!(
        "{:<38} {:<8} {:>5} {:>5} {:>8} {:>17} {:>9} {:>9} {:>8} {:>8}",
        "scenario", "side", "games", "wins", "share", "95% interval", "ms/dec", "max ms", "own s/g", "all s/g"
    );
    for (scen, default) in scenarios {
        if only.as_ref().is_some_and(|o| !scen.contains(o.as_str())) {
            continue;
        }
        let n = if default { per_side } else { (per_side / 4).max(2) };
        let seeds: Vec<u64> = (1..=n as u64).collect();
        let spec = Spec::new(root.clone(), scen);
        let baseline = playout::run_games(&spec, &seeds, Policy::Greedy, jobs, None, &|_| {});
        let sides: Vec<String> = baseline.first().map(|r| r.scores.keys().cloned().collect()).unwrap_or_default();
        for side in sides {
            if only_side.as_ref().is_some_and(|o| *o != side) {
                continue;
            }
            let lineup = Lineup::parse(&["greedy".to_string(), format!("{side}=search")]).expect("a lineup");
            let games = playout::run_games(&spec, &seeds, &lineup, jobs, None, &|_| {});
            let wins = games.iter().zip(&baseline).filter(|(s, g)| won(s, g, &side)).count();
            let (lo, hi) = wilson(wins, n);
            let (mut decisions, mut secs, mut longest) = (0, 0.0, 0.0f64);
            for r in &games {
                if let Some(f) = &r.failure {
                    eprintln!("{scen} seed {}: {} at command {}: {}", r.seed, f.kind, f.at, f.message);
                }
                if let Some(&(d, s, m)) = r.thinking.sides.get(&side) {
                    (decisions, secs, longest) = (decisions + d, secs + s, longest.max(m));
                }
            }
            let own_secs =
                games.iter().map(|r| r.thinking.sides.get(&side).map_or(0.0, |t| t.1)).fold(0.0f64, f64::max);
            let game_secs =
                games.iter().map(|r| r.thinking.sides.values().map(|t| t.1).sum::<f64>()).fold(0.0f64, f64::max);
            println!(
                "{scen:<38} {side:<8} {n:>5} {wins:>5} {:>7.0}% {:>8.0}% to {:>3.0}% {:>9.1} {:>9.0} {:>8.1} {:>8.1}",
                100.0 * wins as f64 / n as f64,
                100.0 * lo,
                100.0 * hi,
                1000.0 * secs / decisions.max(1) as f64,
                1000.0 * longest,
                own_secs,
                game_secs
            );
        }
    }
}
