//! `umpire mutate` on a copy of the fixture library: a rule planted where no script looks is
//! reported, with its file:line and the change; a rule the scripts check is killed; the report
//! is the same on one job or two; an equivalent mutant recorded in mutants.toml leaves the
//! kill rate; a script that fails on the unchanged rules stops the run.

use umpire::mutate::{Fate, Options, mutants::Kind};

/// A copy of the fixture library with the planted rule in combat.lua (a bonus for attacks of
/// more than 99, which no script makes).
fn planted() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy(&super::fixtures(), dir.path());
    let combat = dir.path().join("rulesets/fixture/combat.lua");
    let src = std::fs::read_to_string(&combat).unwrap();
    let planted = src.replacen(
        "  att = math.floor(att)\n",
        "  att = math.floor(att)\n  if att > 99 then att = att + 1 end -- F7.9 (planted)\n",
        1,
    );
    assert_ne!(src, planted, "the fixture's combat.lua changed: plant the rule elsewhere");
    std::fs::write(&combat, planted).unwrap();
    dir
}

fn copy(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        if e.path().is_dir() {
            copy(&e.path(), &to.join(e.file_name()));
        } else {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

fn options(lib: &std::path::Path, jobs: usize) -> Options {
    Options {
        game: "fixture".into(),
        library: lib.to_path_buf(),
        rules: None,
        scripts: vec![lib.join("scripts/dice.ump"), lib.join("scripts/outcomes.ump")],
        files: vec!["combat.lua".into()],
        all_files: false,
        sample: None,
        seed: 1,
        jobs,
    }
}

#[test]
fn a_planted_untested_rule_is_reported_and_a_checked_one_killed() {
    let lib = planted();
    let o = umpire::mutate::run(&options(lib.path(), 2), &|_, _| {}).unwrap();
    let report = o.report();
    // the planted comparison survives: the scripts run its line, none notices it changed
    let planted = o
        .tried
        .iter()
        .find(|(m, _, _)| m.kind == Kind::Comparison && m.replacement == ">=" && m.line == 59)
        .expect("the planted comparison is a mutant");
    assert!(matches!(&planted.2, Fate::Survived { scripts } if !scripts.is_empty()), "{:?}", planted.2);
    assert_eq!(planted.1, "F7.9", "the mutant belongs to the case its line cites");
    for line in ["F7.9", "combat.lua:59  comparison: passed dice.ump", "- if att > 99 then", "+ if att >= 99 then"] {
        assert!(report.contains(line), "the report lacks `{line}`:\n{report}");
    }
    // a rule the scripts check: the CRT's column of an odds ratio (F7.2), read by dice.ump
    assert!(
        o.tried.iter().any(|(m, _, f)| m.file == "combat.lua" && matches!(f, Fate::Killed { .. })),
        "no mutant killed:\n{report}"
    );
    let t = o.total();
    assert_eq!(t.tried, o.made, "no sample: every mutant tried");
    assert!(t.killed > 0 && t.survived > 0 && t.killed + t.survived + t.not_reached == t.tried, "{t:?}");
    // the same fates on one job
    let one = umpire::mutate::run(&options(lib.path(), 1), &|_, _| {}).unwrap();
    let fates =
        |o: &umpire::mutate::Outcome| o.tried.iter().map(|(_, c, f)| (c.clone(), f.clone())).collect::<Vec<_>>();
    assert_eq!(fates(&one), fates(&o));
}

#[test]
fn an_equivalent_mutant_leaves_the_kill_rate_and_a_failing_script_stops_the_run() {
    let lib = planted();
    std::fs::write(
        lib.path().join("rulesets/fixture/mutants.toml"),
        "[[equivalent]]\nfile = \"combat.lua\"\nbefore = \"if att > 99 then att = att + 1 end -- F7.9 (planted)\"\n\
         after = \"if att > 100 then att = att + 1 end -- F7.9 (planted)\"\nreason = \"no attack reaches 100\"\n",
    )
    .unwrap();
    let mut opts = options(lib.path(), 1);
    opts.sample = Some(8);
    opts.scripts.truncate(1);
    let o = umpire::mutate::run(&opts, &|_, _| {}).unwrap();
    assert_eq!(o.tried.len(), 8);
    let mut all = options(lib.path(), 2);
    all.scripts.truncate(1);
    let o = umpire::mutate::run(&all, &|_, _| {}).unwrap();
    let eq: Vec<_> = o.tried.iter().filter(|(_, _, f)| matches!(f, Fate::Equivalent { .. })).collect();
    assert_eq!(eq.len(), 1, "{}", o.report());
    assert_eq!(o.total().counted(), o.total().tried - 1);

    // a script that fails on the unchanged rules
    std::fs::write(lib.path().join("scripts/broken.ump"), "new fixture --seed 1\nexpect 1 == 2\n").unwrap();
    let mut broken = options(lib.path(), 1);
    broken.scripts = vec![lib.path().join("scripts/broken.ump")];
    let e = umpire::mutate::run(&broken, &|_, _| {}).unwrap_err().to_string();
    assert!(e.contains("broken.ump fails on the unchanged rules") && e.contains("broken.ump:2"), "{e}");
}
