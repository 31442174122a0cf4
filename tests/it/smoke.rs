//! Whole games: Fortress Stalingrad played from 16 seeds to its victory determination by the
//! simple player of rulesets/fortress-stalingrad/testing.lua (`plan`), every question answered by
//! its default. Refusals are part of play; a rule error (a bug in the Lua or the kernel) fails.

use umpire::{Session, Status};

fn play(seed: u64) -> (String, usize) {
    let mut s = Session::with_root(super::repo());
    let r = s.execute(&format!("new fortress-stalingrad --seed {seed}"));
    assert_eq!(r.status, Status::Ok, "seed {seed}: {r:?}");
    let mut commands = 0usize;
    for _ in 0..2000 {
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
                assert!(e.kind() != "rule-error", "seed {seed}: `{line}` failed with a rule error: {e}");
            }
            // answer every question with its default (the prompt shows a pending question)
            for _ in 0..200 {
                if !s.prompt().contains(" · ? ") {
                    break;
                }
                let a = s.execute("auto");
                if let Some(e) = a.error() {
                    panic!("seed {seed}: auto after `{line}` failed: {e}");
                }
            }
        }
    }
    panic!("seed {seed}: the game did not end in 2000 rounds");
}

#[test]
fn fortress_stalingrad_plays_to_the_end_from_16_seeds() {
    let mut results = Vec::new();
    for seed in 1..=16 {
        let (result, commands) = play(seed);
        assert!(result.contains("15.9)") || result.contains("(14.5)"), "seed {seed}: {result}");
        results.push(format!("seed {seed}: {result} after {commands} commands"));
    }
    println!("{}", results.join("\n"));
}
