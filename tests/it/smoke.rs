//! Whole games: Stargard Solstice, Fortress Stalingrad and the three Red Storm over the Reich
//! scenarios played from several seeds each to their victory determination by the simple player
//! of each ruleset's testing.lua (`plan`), every question answered by its default. Refusals are
//! part of play; a rule error (a bug in the Lua or the kernel) fails. `UMPIRE_SMOKE_SEEDS=n`
//! plays n seeds of each; without it Stargard Solstice plays 2, Fortress Stalingrad 8 and each
//! Red Storm scenario 6 (a Red Storm game
//! takes several seconds in a test build: the 16 seeds of each are run with UMPIRE_SMOKE_SEEDS=16,
//! see docs/performance.md).

use umpire::{Session, Status};

fn seeds(default: u64) -> u64 {
    std::env::var("UMPIRE_SMOKE_SEEDS").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn play(game: &str, seed: u64) -> (String, usize) {
    let mut s = Session::with_root(super::repo());
    let r = s.execute(&format!("new {game} --seed {seed}"));
    assert_eq!(r.status, Status::Ok, "seed {seed}: {r:?}");
    let mut commands = 0usize;
    for _ in 0..4000 {
        if let Some(over) = s.prompt().split("game over: ").nth(1) {
            return (over.trim_end_matches(" › ").to_string(), commands);
        }
        let plan = s.execute("= require('testing').plan()");
        let lines: Vec<String> =
            plan.out.iter().flat_map(|l| l.lines().map(|x| x.trim().to_string())).filter(|l| !l.is_empty()).collect();
        for line in lines.iter().chain(std::iter::once(&"next".to_string())) {
            let r = s.execute(line);
            commands += 1;
            if let Some(e) = r.error() {
                assert!(e.kind() != "rule-error", "{game} seed {seed}: `{line}` failed with a rule error: {e}");
            }
            // answer every question with its default (the prompt shows a pending question)
            for _ in 0..200 {
                if !s.prompt().contains(" · ? ") {
                    break;
                }
                let a = s.execute("auto");
                if let Some(e) = a.error() {
                    panic!("{game} seed {seed}: auto after `{line}` failed: {e}");
                }
            }
        }
    }
    panic!("{game} seed {seed}: the game did not end in 4000 rounds");
}

/// Stargard Solstice to the end of its last turn: a victory level of 14.3 (the final score).
#[test]
fn stargard_solstice_plays_to_the_end() {
    let mut results = Vec::new();
    for seed in 1..=seeds(2) {
        let (result, commands) = play("stargard-solstice", seed);
        assert!(result.contains("Victory") || result.contains("Draw"), "seed {seed}: {result}");
        results.push(format!("seed {seed}: {result} after {commands} commands"));
    }
    println!("{}", results.join("\n"));
}

#[test]
fn fortress_stalingrad_plays_to_the_end() {
    let mut results = Vec::new();
    for seed in 1..=seeds(8) {
        let (result, commands) = play("fortress-stalingrad", seed);
        assert!(result.contains("15.9)") || result.contains("(14.5)"), "seed {seed}: {result}");
        results.push(format!("seed {seed}: {result} after {commands} commands"));
    }
    println!("{}", results.join("\n"));
}

/// A Red Storm scenario to its end: an automatic victory (3.2.C.1), the fall of The Bunker or
/// the last turn (3.2.C.2, 3.4.C).
fn red_storm(scenario: &str) {
    let mut results = Vec::new();
    for seed in 1..=seeds(6) {
        let (result, commands) = play(&format!("red-storm-over-the-reich/{scenario}"), seed);
        assert!(
            result.contains("(3.2.C.1)") || result.contains("(3.2.C.2)") || result.contains("(3.4.C)"),
            "{scenario} seed {seed}: {result}"
        );
        results.push(format!("{scenario} seed {seed}: {result} after {commands} commands"));
    }
    println!("{}", results.join("\n"));
}

#[test]
fn red_storm_historical_plays_to_the_end() {
    red_storm("historical");
}

#[test]
fn red_storm_sleigh_ride_plays_to_the_end() {
    red_storm("sleigh-ride");
}

#[test]
fn red_storm_guderian_plays_to_the_end() {
    red_storm("guderian");
}
