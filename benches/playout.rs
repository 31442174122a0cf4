//! `cargo bench --bench playout`: whole games played by the bots (src/playout) on one core, for
//! each game of the library: seconds a game (median over the games), games per minute,
//! commands a game and milliseconds a command. `UMPIRE_PLAYOUT_GAMES=n` games a scenario
//! (default 5 with the random bot, 2 with the greedy), `UMPIRE_PLAYOUT_ONLY=<substring>` some
//! scenarios only, `UMPIRE_PLAYOUT_GREEDY=1` the greedy bot too. The target (issue 12): a whole
//! Stargard Solstice game with the random bot in under one second. See docs/performance.md.

use std::path::PathBuf;
use std::time::Instant;
use umpire::playout::{self, Policy, Spec};

// (the program's own allocator, src/main.rs: what is measured is what users run)
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) / 2.0 }
}

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let only = std::env::var("UMPIRE_PLAYOUT_ONLY").ok();
    let games =
        |default: u64| std::env::var("UMPIRE_PLAYOUT_GAMES").ok().and_then(|v| v.parse().ok()).unwrap_or(default);
    let mut policies = vec![(Policy::Random, games(5))];
    if std::env::var_os("UMPIRE_PLAYOUT_GREEDY").is_some() {
        policies.push((Policy::Greedy, games(2)));
    }
    let scenarios = [
        (root.join("tests").join("fixtures"), "fixture"),
        (root.clone(), "stargard-solstice"),
        (root.clone(), "fortress-stalingrad"),
        (root.clone(), "red-storm-over-the-reich/historical"),
        (root.clone(), "red-storm-over-the-reich/sleigh-ride"),
        (root.clone(), "red-storm-over-the-reich/guderian"),
    ];
    println!(
        "{:<38} {:>7} {:>6} {:>10} {:>10} {:>10} {:>9}",
        "scenario", "bot", "games", "s a game", "games/min", "commands", "ms a cmd"
    );
    for (lib, scen) in scenarios {
        if only.as_ref().is_some_and(|o| !scen.contains(o.as_str())) {
            continue;
        }
        let spec = Spec::new(lib, scen);
        for (policy, n) in &policies {
            let (mut secs, mut cmds, mut failed) = (Vec::new(), Vec::new(), 0);
            for seed in 1..=*n {
                let t = Instant::now();
                let r = playout::play(&spec, seed, *policy, None);
                secs.push(t.elapsed().as_secs_f64());
                cmds.push(r.commands as f64);
                if let Some(f) = r.failure {
                    failed += 1;
                    eprintln!("{scen} seed {seed}: {} at command {}: {}", f.kind, f.at, f.message);
                }
            }
            let (s, c) = (median(secs.clone()), median(cmds.clone()));
            let total: f64 = secs.iter().sum();
            println!(
                "{scen:<38} {:>7} {:>6} {s:>10.2} {:>10.1} {c:>10.0} {:>9.2}{}",
                policy.to_string(),
                n,
                *n as f64 * 60.0 / total,
                1000.0 * total / cmds.iter().sum::<f64>(),
                if failed > 0 { format!("  ({failed} failed)") } else { String::new() }
            );
        }
    }
}
