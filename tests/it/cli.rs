//! The `umpire` binary: exit statuses, the summary line, `check` diagnostics.

use std::process::Command;

fn umpire() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_umpire"));
    c.current_dir(super::repo());
    c.env_remove("RUST_LOG");
    c
}

#[test]
fn run_reports_and_fails_on_a_failed_check() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("bad.ump");
    std::fs::write(&script, "new tests/fixtures/scenarios/fixture/basic.toml --seed 1\nauto\nexpect units.get('B1').hex == '0808'\nexpect true\nmove Nobody 0101\n").unwrap();
    let out = umpire().arg("run").arg(&script).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.trim_end().ends_with("1 passed, 2 failed"), "{text}");
    assert!(text.contains("no unit 'Nobody'"), "{text}");
}

#[test]
fn run_passes_on_a_good_script_and_is_deterministic() {
    let script = super::fixtures().join("scripts/kernel.ump");
    let a = umpire().arg("run").arg(&script).output().unwrap();
    let b = umpire().arg("run").arg(&script).output().unwrap();
    assert_eq!(a.status.code(), Some(0), "{}", String::from_utf8_lossy(&a.stdout));
    assert_eq!(a.stdout, b.stdout);
}

/// The fixture scenario's text, and where a copy of it goes in a library at `lib`
/// (`scenarios/fixture/bad.toml`).
fn fixture_scenario_copy(lib: &std::path::Path) -> (String, std::path::PathBuf) {
    std::fs::create_dir_all(lib.join("scenarios/fixture")).unwrap();
    let good = std::fs::read_to_string(super::fixtures().join("scenarios/fixture/basic.toml")).unwrap();
    (good, lib.join("scenarios/fixture/bad.toml"))
}

#[test]
fn check_reports_file_line_column() {
    let dir = tempfile::tempdir().unwrap();
    let (good, bad) = fixture_scenario_copy(dir.path());
    std::fs::write(&bad, good.replace("at = \"0404\"", "at = \"0909\"").replace("cols = [1, 8]", "cols = [1, 8"))
        .unwrap();
    let out = umpire().arg("check").arg(&bad).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("bad.toml:"), "{text}");
    // a TOML syntax error has line and column
    let line = text.lines().next().unwrap();
    let parts: Vec<&str> = line.split(':').collect();
    assert!(parts.len() >= 3 && parts[1].parse::<usize>().is_ok() && parts[2].parse::<usize>().is_ok(), "{text}");

    // semantic errors: every one is reported, each with its line
    std::fs::write(&bad, good.replace("at = \"0404\"", "at = \"0909\"").replace("type = \"armor\"", "type = \"tank\""))
        .unwrap();
    let out = umpire().arg("check").arg(&bad).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("hex 0909 is not on the map"), "{text}");
    assert!(text.contains("unknown type 'tank'"), "{text}");
}

#[test]
fn check_accepts_the_fixture_ruleset() {
    let out = umpire().arg("check").arg(super::fixtures().join("rulesets/fixture")).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("ok: scenario"), "{text}");
}

#[test]
fn check_accepts_a_map_numbered_by_rows_and_names_a_bad_layout() {
    let rows = super::fixtures().join("scenarios/fixture/rows.toml");
    let out = umpire().arg("check").arg(&rows).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("ok: scenario fixture/rows"), "{text}");
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.toml");
    std::fs::write(&bad, std::fs::read_to_string(&rows).unwrap().replace("layout = \"rows\"", "layout = \"rings\""))
        .unwrap();
    let out = umpire().arg("check").arg(&bad).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("bad.toml:12:") && text.contains("bad layout 'rings' (expected \"columns\" or \"rows\")"),
        "{text}"
    );
}

/// `umpire <cmd> <fixture scenario> --seed 2` with `input` piped in: its exit status and output.
fn piped(cmd: &str, input: &[u8]) -> (Option<i32>, String) {
    use std::io::Write;
    let mut child = umpire()
        .args([cmd, "tests/fixtures/scenarios/fixture/basic.toml", "--seed", "2"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    let out = child.wait_with_output().unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stdout).to_string())
}

#[test]
fn piped_play_echoes_commands() {
    let (code, text) = piped("play", b"auto\nmove B1 0302\nstatus\n");
    assert!(text.contains("> move B1 0302"), "{text}");
    assert!(text.contains("B1 moves 0202 → 0302"), "{text}");
    assert_eq!(code, Some(0), "{text}");
}

#[test]
fn piped_line_that_is_not_utf8_fails_and_the_next_runs() {
    let (code, text) = piped("play", b"hash\n\xff\xfe\nhash\n");
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("> \u{fffd}\u{fffd}\n  error: line 2 is not valid UTF-8 text"), "{text}");
    assert_eq!(text.matches("> hash\n").count(), 2, "{text}");
    let is_hash =
        |l: &&str| l.strip_prefix("  ").is_some_and(|h| h.len() == 16 && h.chars().all(|c| c.is_ascii_hexdigit()));
    assert_eq!(text.lines().filter(is_hash).count(), 2, "{text}");
}

#[test]
fn piped_lua_left_open_is_an_error_of_its_line() {
    // as in `run`, one line is one command: the lines after an open chunk are not taken into it
    let (code, text) = piped("play", b"auto\nlua (\nhash\nlua --[[\n= 1 + 1\n");
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("> lua (\n  error: rule error: lua:1: unexpected symbol near <eof>\n> hash\n"), "{text}");
    assert!(text.contains("> lua --[[\n  error: rule error: lua:1: unfinished long comment"), "{text}");
    assert!(text.trim_end().ends_with("> = 1 + 1\n  2"), "{text}");
    // a trailing backslash continues a line, as in scripts
    let (code, text) = piped("play", b"auto\n= 1 + \\\n2\n");
    assert_eq!(code, Some(0), "{text}");
    assert!(text.trim_end().ends_with("  3"), "{text}");
}

#[test]
fn piped_error_continues_indented() {
    let (code, text) = piped("play", b"auto\nlua error('first\\nsecond')\nhash\n");
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("  error: rule error: lua:1: first\n    second\n    stack traceback:\n"), "{text}");
    // every line is a command or indented below one
    assert!(text.lines().all(|l| l.starts_with("> ") || l.starts_with("  ")), "{text}");
}

#[test]
fn sandbox_undo_is_free() {
    let run = |cmd: &str| piped(cmd, b"auto\nroll 2d6 test\nundo\n").1;
    assert!(run("play").contains("undo would take back what the dice showed"));
    assert!(run("sandbox").contains("undone: roll 2d6 test"));
}

/// A copy of the fixture library (rulesets/ and scenarios/) in a folder `lib` of its own.
fn copied_library() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for part in ["rulesets", "scenarios"] {
        super::saves::copy_dir(&super::fixtures().join(part), &dir.path().join("lib").join(part));
    }
    dir
}

#[test]
fn check_finds_the_library_from_the_path_whatever_the_current_folder() {
    let copy = copied_library();
    let elsewhere = tempfile::tempdir().unwrap();
    let lib = copy.path().join("lib");
    for target in [lib.join("rulesets/fixture"), lib.join("scenarios/fixture/basic.toml")] {
        let out = umpire().current_dir(elsewhere.path()).arg("check").arg(&target).output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{}: {text}", target.display());
        // it says which library it used: the copy, not the repository's
        let shown = lib.canonicalize().unwrap().display().to_string();
        assert!(text.contains(&format!("library {shown}")), "{text}");
    }
}

#[test]
fn check_says_what_it_accepts_for_a_lua_file() {
    let out = umpire().arg("check").arg(super::fixtures().join("rulesets/fixture/main.lua")).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("a ruleset folder (with ruleset.toml), a scenario .toml file or a script .ump"), "{text}");
    assert!(!text.contains("TOML"), "{text}");
}

#[test]
fn check_runs_a_script_in_its_library() {
    let out = umpire().arg("check").arg(super::fixtures().join("scripts/undo.ump")).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.starts_with("ok: script") && text.contains("0 failed"), "{text}");
}

#[test]
fn library_flag_and_variable_choose_the_library_and_status_names_it() {
    let copy = copied_library();
    let lib = copy.path().join("lib");
    let shown = lib.canonicalize().unwrap().display().to_string();
    let elsewhere = tempfile::tempdir().unwrap();
    let play = |cmd: &mut Command| {
        let mut child = cmd
            .current_dir(elsewhere.path())
            .args(["play", "fixture", "--seed", "3"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write;
        child.stdin.take().unwrap().write_all(b"status\n").unwrap();
        String::from_utf8_lossy(&child.wait_with_output().unwrap().stdout).to_string()
    };
    let by_flag = play(umpire().arg("--library").arg(&lib));
    assert!(by_flag.contains(&format!("from {shown}/rulesets/fixture")), "{by_flag}");
    let by_var = play(umpire().env("UMPIRE_LIBRARY", &lib));
    assert!(by_var.contains(&format!("from {shown}/rulesets/fixture")), "{by_var}");
    // a folder that is not a library is refused at once
    let out = umpire().arg("--library").arg(elsewhere.path()).args(["play", "fixture"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a library"));
}

/// Runs `umpire run ARGS script` on a script of the fixture game (seed 1) that goes on with
/// `body`: the exit status and what it printed.
fn run_fixture(args: &[&str], body: &str) -> (Option<i32>, String) {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("s.ump");
    std::fs::write(&script, format!("new tests/fixtures/scenarios/fixture/basic.toml --seed 1\n{body}")).unwrap();
    let out = umpire().arg("run").args(args).arg(&script).output().unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn run_quiet_shows_the_failing_command_and_why() {
    let (code, text) = run_fixture(&["-q"], "expect true\nexpect 1 + 2 == 4\nexpect-ok status ~ nowhere\n");
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("> expect 1 + 2 == 4\n  expected true, got false: left 3, right 4\n  FAILED ("), "{text}");
    assert!(text.contains("> expect-ok status ~ nowhere\n"), "{text}");
    assert!(text.contains("the output does not contain 'nowhere'"), "{text}");
    assert!(!text.contains("> expect true"), "{text}");
    assert!(text.trim_end().ends_with("1 passed, 2 failed"), "{text}");
}

#[test]
fn a_failed_comparison_shows_both_sides_only_when_it_is_one() {
    let (_, text) = run_fixture(&[], "expect #\"a]\" ~= (1 + 1)\nexpect 2 > 3 and true\n");
    assert!(text.contains("expected true, got false: left 2, right 2\n"), "{text}");
    assert!(text.contains("> expect 2 > 3 and true\n  expected true, got false\n"), "{text}");
}

#[test]
fn run_with_several_scripts_reports_each_then_the_total() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.ump"), dir.path().join("b.ump"));
    let new = "new tests/fixtures/scenarios/fixture/basic.toml --seed 1\n";
    std::fs::write(&a, format!("{new}expect true\n")).unwrap();
    std::fs::write(&b, format!("{new}expect true\nexpect false\n")).unwrap();
    let out = umpire().arg("run").arg(&a).arg(&b).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    let (an, bn) = (a.display(), b.display());
    for want in [
        format!("== {an} ==\n> new "),
        format!("{an}: 1 passed, 0 failed\n== {bn} ==\n"),
        format!("{bn}: 1 passed, 1 failed\ntotal: 2 passed, 1 failed (2 scripts)\n"),
    ] {
        assert!(text.contains(&want), "{want} missing in\n{text}");
    }
    let quiet = umpire().arg("run").arg("-q").arg(&a).arg(&b).output().unwrap();
    let text = String::from_utf8_lossy(&quiet.stdout);
    assert!(!text.contains("== "), "{text}");
    assert!(
        text.contains(&format!(
            "> expect false\n  expected true, got false\n  FAILED ({bn}:3)\n{bn}: 1 passed, 1 failed\n"
        )),
        "{text}"
    );
}

#[test]
fn expect_ok_with_absent_text_fails_when_the_output_holds_it() {
    let (_, text) = run_fixture(&[], "expect-ok status !~ no such text\nexpect-ok status !~ Place BA\n");
    assert!(text.contains("the output contains 'Place BA'"), "{text}");
    assert!(text.trim_end().ends_with("1 passed, 1 failed"), "{text}");
}

#[test]
fn expect_ok_fails_on_a_command_that_asks_a_question() {
    let (code, text) = run_fixture(&[], "expect-ok new tests/fixtures/scenarios/fixture/basic.toml --seed 2\n");
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("the command left a decision pending (`expect-ok --pending <command>` allows it)"), "{text}");
}

#[test]
fn check_reports_every_bad_table_entry_at_its_line() {
    let lib = super::designer::repo_library();
    let (crt, forest) = super::designer::break_tables(lib.path());
    let out = umpire().arg("check").arg(lib.path().join("rulesets/stargard-solstice")).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    for line in [crt, forest] {
        let at = format!("rulesets/stargard-solstice/tables.lua:{line}:");
        assert_eq!(text.matches(&at).count(), 1, "{at} not reported once: {text}");
    }
    assert!(text.contains("crt[6][8]: \"D2x3\" is not a combat result (8.1"), "{text}");
    assert!(text.contains("terrain_cost.forest: \"two\" is not a number"), "{text}");
}

/// Fortress Stalingrad's tables are checked when the rules load too (validate.lua): a CRT cell
/// that is not a result and a movement cost in words, each at its line.
#[test]
fn check_reports_bad_fortress_stalingrad_tables_at_their_lines() {
    let lib = super::designer::repo_library();
    let file = lib.path().join("rulesets/fortress-stalingrad/tables.lua");
    let src = std::fs::read_to_string(&file).unwrap();
    let bad = src.replacen("\"0/5\", \"Dx\" },   -- die 1", "\"0/5\", \"D5\" },   -- die 1", 1).replacen(
        "mech     = { clear = 1, broken = 2,",
        "mech     = { clear = 1, broken = \"two\",",
        1,
    );
    assert_ne!(bad, src);
    std::fs::write(&file, &bad).unwrap();
    let crt = super::designer::line_of(&bad, "\"D5\" },   -- die 1");
    let cost = super::designer::line_of(&bad, "broken = \"two\"");
    let out = umpire().arg("check").arg(lib.path().join("rulesets/fortress-stalingrad")).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    for line in [crt, cost] {
        let at = format!("rulesets/fortress-stalingrad/tables.lua:{line}:");
        assert_eq!(text.matches(&at).count(), 1, "{at} not reported once: {text}");
    }
    assert!(text.contains("crt[1][10]: \"D5\" is not a combat result"), "{text}");
    assert!(text.contains("move_cost.mech.broken: \"two\""), "{text}");
}

#[test]
fn check_reports_a_syntax_error_once_with_its_column() {
    let lib = super::designer::repo_library();
    let file = lib.path().join("rulesets/stargard-solstice/movement.lua");
    let src = std::fs::read_to_string(&file).unwrap();
    let bad = src.replacen("local M = {}", "local M = {} )", 1);
    std::fs::write(&file, &bad).unwrap();
    let line = super::designer::line_of(&bad, "local M = {} )");
    let out = umpire().arg("check").arg(lib.path().join("rulesets/stargard-solstice")).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    let place = format!("rulesets/stargard-solstice/movement.lua:{line}:14: unexpected symbol near ')'");
    assert_eq!(text.matches("movement.lua").count(), 1, "{text}");
    assert!(text.contains(&place), "{text}");
    assert!(!text.contains("stack traceback"), "{text}");
}

/// Problems of every kind in one scenario file: a value of the wrong shape in a unit, in a
/// track and in the map's values, an unknown key, a hex off the map, an unknown type: one run
/// reports them all, each at its line and column.
#[test]
fn check_reports_every_problem_of_a_scenario_in_one_pass() {
    let dir = tempfile::tempdir().unwrap();
    let (good, file) = fixture_scenario_copy(dir.path());
    let bad = good
        .replacen("at = \"0404\"\nstep = 2", "at = \"0404\"\nstep = \"two\"", 1) // R2: a word for a number
        .replacen("[tracks]\nvp = 0", "[tracks]\nvp = \"none\"", 1) // a track of text
        .replacen("\"0605\" = 3", "\"0605\" = \"three\"", 1) // a map value of text
        .replacen("terrain = \"clear\"", "terrain = \"clear\"\ncolour = \"green\"", 1) // no such key
        .replacen("at = \"0605\"", "at = \"0909\"", 1) // R3: off the map
        .replacen("type = \"armor\"", "type = \"tank\"", 1); // BA: no such type
    std::fs::write(&file, &bad).unwrap();
    let out = umpire().arg("check").arg(&file).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    let line = |needle: &str| super::designer::line_of(&bad, needle);
    for (at, what) in [
        (line("step = \"two\""), "unit R2: invalid type"),
        (line("vp = \"none\""), "\"none\""),
        (line("\"0605\" = \"three\""), "\"three\""),
        (line("colour = "), "unknown key 'colour'"),
        (line("at = \"0909\""), "hex 0909 is not on the map"),
        (line("type = \"tank\""), "unknown type 'tank'"),
    ] {
        let found = text.lines().find(|l| {
            l.starts_with(&format!("scenarios/fixture/bad.toml:{at}:")) && l.contains(what.split(':').next().unwrap())
        });
        assert!(found.is_some(), "nothing reported at line {at} ({what}):\n{text}");
        let parts: Vec<&str> = found.unwrap().splitn(4, ':').collect();
        assert!(parts[2].parse::<usize>().is_ok(), "no column: {found:?}");
    }
    assert_eq!(text.lines().count(), 6, "{text}");
}

#[test]
fn check_reports_every_problem_of_one_unit_in_one_pass() {
    let dir = tempfile::tempdir().unwrap();
    let (good, file) = fixture_scenario_copy(dir.path());
    // B2 gets an unknown type, an unknown side and a hex off the map; it also takes B1's id
    let b2 = "id = \"B2\"\nname = \"2nd Blue Infantry\"\nside = \"Blue\"\ntype = \"inf\"\nat = \"0203\"";
    assert!(good.contains(b2), "the fixture's B2 changed");
    let bad = good.replacen(
        b2,
        "id = \"B1\"\nname = \"2nd Blue Infantry\"\nside = \"Bleu\"\ntype = \"infantry\"\nat = \"0909\"",
        1,
    );
    std::fs::write(&file, &bad).unwrap();
    let out = umpire().arg("check").arg(&file).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    for what in
        ["unit id 'B1' is used twice", "unknown side 'Bleu'", "unknown type 'infantry'", "hex 0909 is not on the map"]
    {
        assert!(text.contains(what), "`{what}` not reported in one pass:\n{text}");
    }
}

#[test]
fn check_takes_a_games_name_and_a_scenario_file_outside_the_library() {
    let lib = super::fixtures();
    let out = umpire().arg("--library").arg(&lib).arg("check").arg("fixture").output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("ok: ruleset Fixture"), "{text}");
    // a copy of a scenario in a folder of its own takes its rules from the library named
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("t")).unwrap();
    let copy = dir.path().join("t/mine.toml");
    std::fs::copy(lib.join("scenarios/fixture/basic.toml"), &copy).unwrap();
    let out = umpire().arg("--library").arg(&lib).arg("check").arg(&copy).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("ok: scenario t/mine"), "{text}");
}

/// A scenario that extends another: each mistake of its own reported at its line, in one pass; a
/// missing or circular `extends` named; the mistakes of the scenario it extends reported in that
/// file.
#[test]
fn check_reports_the_mistakes_of_a_scenario_that_extends_another() {
    let dir = tempfile::tempdir().unwrap();
    let (good, base) = fixture_scenario_copy(dir.path());
    let folder = base.parent().unwrap().to_path_buf();
    let child = folder.join("child.toml");
    let text = "[scenario]\nextends = \"bad\"\nname = \"Child\"\nruleset = \"other\"\nremove = [\"R9\"]\n\n\
                [map]\ncols = [1, 2]\nrows = [1, 2]\n\n[[units]]\nid = \"RX\"\nside = \"Red\"\ntype = \"tank\"\nat = \"0101\"\n";
    std::fs::write(&child, text).unwrap();
    let check = |file: &std::path::Path| {
        let out = umpire().arg("--library").arg(super::fixtures()).arg("check").arg(file).output().unwrap();
        (out.status.code(), String::from_utf8_lossy(&out.stdout).to_string())
    };
    // no such scenario; itself
    let (code, out) = check(&child);
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains("child.toml:2:")
            && out.contains("extends 'bad': no scenario bad.toml beside this one (no other scenario here)"),
        "{out}"
    );
    std::fs::write(&base, &good).unwrap();
    std::fs::write(&child, text.replace("extends = \"bad\"", "extends = \"child\"")).unwrap();
    let (_, out) = check(&child);
    assert!(out.contains("extends 'child': a scenario cannot extend itself"), "{out}");
    let looped = folder.join("loop.toml");
    std::fs::write(&looped, "[scenario]\nextends = \"loop2\"\nname = \"L\"\n").unwrap();
    std::fs::write(folder.join("loop2.toml"), "[scenario]\nextends = \"loop\"\nname = \"L2\"\n").unwrap();
    let (code, out) = check(&looped);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("loop2.toml:2:") && out.contains("extends 'loop': a scenario cannot extend itself"), "{out}");
    // its own mistakes, each at its line
    std::fs::write(&child, text).unwrap();
    let (code, out) = check(&child);
    assert_eq!(code, Some(1), "{out}");
    for (line, what) in [
        (4, "ruleset 'other' differs from the scenario it extends (bad: 'fixture')"),
        (5, "remove: 'R9' is not a unit of bad"),
        (7, "[map] is not allowed here"),
        (14, "unit RX: unknown type 'tank'"),
    ] {
        assert!(
            out.lines().any(|l| l.contains(&format!("child.toml:{line}:")) && l.contains(what)),
            "{what} at {line}:\n{out}"
        );
    }
    // a mistake of the scenario it extends is reported in that file
    std::fs::write(&child, "[scenario]\nextends = \"bad\"\nname = \"Child\"\n").unwrap();
    std::fs::write(folder.join("bad.toml"), good.replacen("at = \"0605\"", "at = \"0909\"", 1)).unwrap();
    let (code, out) = check(&child);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("bad.toml:") && out.contains("hex 0909 is not on the map"), "{out}");
    std::fs::write(folder.join("bad.toml"), &good).unwrap();
    let (code, out) = check(&child);
    assert_eq!(code, Some(0), "{out}");
}

/// `umpire` with no library around the current folder and none named: a fresh user's
/// installed program.
fn installed(cwd: &std::path::Path, data: &std::path::Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_umpire"));
    c.current_dir(cwd).env_remove("RUST_LOG").env_remove("UMPIRE_LIBRARY").env("XDG_DATA_HOME", data);
    c
}

#[test]
fn outside_any_library_the_built_in_games_play_and_export_a_copy_to_edit() {
    let (cwd, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    // the games built in, unpacked into the data folder, named with an absolute path
    let out = installed(cwd.path(), data.path()).args(["library", "where"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let unpacked = data.path().canonicalize().unwrap().join("umpire");
    assert!(text.starts_with("the built-in games (no library here; unpacked at /"), "{text}");
    assert!(text.contains(&unpacked.display().to_string()), "{text}");
    // and played from there
    let mut child = installed(cwd.path(), data.path())
        .args(["play", "stargard-solstice", "--seed", "1"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(b"status\n").unwrap();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains(&format!("from {}", unpacked.display())), "{text}");
    // an editable copy: a library of its own
    let copy = cwd.path().join("games");
    let out = installed(cwd.path(), data.path()).args(["library", "export", "games"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    for game in ["stargard-solstice", "fortress-stalingrad", "red-storm-over-the-reich"] {
        assert!(copy.join("rulesets").join(game).join("ruleset.toml").is_file(), "{game}");
        assert!(copy.join("scenarios").join(game).is_dir(), "{game}");
    }
    assert!(copy.join("rulesets/lib").is_dir());
    let out = installed(&copy, data.path()).args(["library", "where"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert_eq!(text.trim(), format!("library {}", copy.canonicalize().unwrap().display()));
    // never over a folder that holds something
    let out = installed(cwd.path(), data.path()).args(["library", "export", "games"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("games: the folder is not empty"), "{out:?}");
}

#[test]
fn play_resumes_a_save_and_refuses_a_file_that_is_neither_save_nor_scenario() {
    let dir = tempfile::tempdir().unwrap();
    let save = dir.path().join("game.sav");
    let feed = |args: &[&str], input: String| {
        let out = super::feed(umpire().args(args), &input);
        (out.status.code(), String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr))
    };
    let (code, text) = feed(
        &["play", "tests/fixtures/scenarios/fixture/basic.toml", "--seed", "4"],
        format!("auto\nmove B1 0302\nsave {}\n", save.display()),
    );
    assert_eq!(code, Some(0), "{text}");
    // the save (whatever its name) resumes where it was saved
    let (code, text) = feed(&["play", save.to_str().unwrap()], "status\nexpect units.get('B1').hex == '0302'\n".into());
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains(&format!("> load {}", save.display())), "{text}");
    assert!(text.contains("seed 4") && text.contains("  ok"), "{text}");
    // a save brings its own seed
    let (code, text) = feed(&["play", save.to_str().unwrap(), "--seed", "5"], String::new());
    assert_eq!(code, Some(2), "{text}");
    assert!(text.contains("is a save: it resumes with its own seed"), "{text}");
    // a file that is neither
    let other = dir.path().join("notes.txt");
    std::fs::write(&other, "not a game\n").unwrap();
    let (code, text) = feed(&["play", other.to_str().unwrap()], String::new());
    assert_eq!(code, Some(2), "{text}");
    assert!(text.contains("neither an umpire save nor a scenario"), "{text}");
}

/// A copy of the fixture's ruleset folder in `dir` (outside any library), as a designer makes one.
/// A copy of the fixture's rules under another folder name, as the README's `/tmp/sg-b` (its
/// game is found by its ruleset's name).
fn fixture_rules_copy(dir: &std::path::Path) -> std::path::PathBuf {
    let copy = dir.join("fx-b");
    std::fs::create_dir_all(&copy).unwrap();
    for e in std::fs::read_dir(super::fixtures().join("rulesets/fixture")).unwrap().flatten() {
        std::fs::copy(e.path(), copy.join(e.file_name())).unwrap();
    }
    copy
}

#[test]
fn compare_playout_and_replay_stop_at_once_on_rules_that_do_not_load() {
    let dir = tempfile::tempdir().unwrap();
    let broken = fixture_rules_copy(dir.path());
    let combat = broken.join("combat.lua");
    let text = std::fs::read_to_string(&combat).unwrap();
    std::fs::write(&combat, format!("local broken = = 1\n{text}")).unwrap();
    let lib = super::fixtures();
    let good = lib.join("rulesets/fixture");
    let run = |args: &[&std::ffi::OsStr]| {
        let out = umpire().arg("--library").arg(&lib).args(args).output().unwrap();
        (out.status.code(), String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr))
    };
    let os = |s: &str| std::ffi::OsString::from(s);
    let (code, text) = run(&[
        &os("compare"),
        &os("fixture"),
        &os("--rules"),
        good.as_os_str(),
        &os("--rules"),
        broken.as_os_str(),
        &os("--games"),
        &os("2"),
    ]);
    assert_eq!(code, Some(2), "{text}");
    assert!(text.contains(&format!("the rules in {}", broken.display())), "{text}");
    assert!(text.contains("combat.lua:1"), "the error names the file and line:\n{text}");
    assert!(!text.contains("100.0%"), "no outcome is reported:\n{text}");
    // replay: a script played under the broken rules
    let script = dir.path().join("s.ump");
    std::fs::write(&script, "new fixture --seed 1\nauto\n").unwrap();
    let (code, text) = run(&[&os("replay"), script.as_os_str(), &os("--rules"), broken.as_os_str()]);
    assert_eq!(code, Some(2), "{text}");
    assert!(text.contains("s.ump:1: `new fixture --seed 1` fails under the rules in"), "{text}");
    assert!(text.contains("combat.lua:1"), "{text}");
}

#[test]
fn check_of_a_script_shows_the_failing_check_and_why_as_run_quiet_does() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("s.ump");
    // passing lines that mention errors come first; the failing check is on line 5
    std::fs::write(
        &script,
        "new tests/fixtures/scenarios/fixture/basic.toml --seed 1\nauto\nexpect-error move Nobody 0101 ~ no unit\nexpect-error move Nobody 0102\nexpect units.get('B1').hex == '0909'\n",
    )
    .unwrap();
    let out = umpire().arg("check").arg(&script).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    let (_, why) = text.split_once('\n').unwrap();
    assert!(why.starts_with("> expect units.get('B1').hex == '0909'"), "{text}");
    assert!(why.contains("FAILED (") && why.contains("s.ump:5)"), "{text}");
    assert!(why.contains("expected true, got false"), "{text}");
    assert!(!why.contains("Nobody"), "passing lines are not shown:\n{text}");
}

#[test]
fn expect_error_does_not_pass_on_a_pending_decision_unless_asked() {
    // the fixture starts with its set-up decision pending: `move` never runs
    let (code, text) = run_fixture(&[], "expect-error move B1 0302\nexpect-error --kind pending move B1 0302\n");
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("but the command did not run: a decision is pending"), "{text}");
    assert!(text.trim_end().ends_with("1 passed, 1 failed"), "{text}");
}

#[test]
fn a_ruleset_copied_anywhere_is_checked_played_reloaded_compared_and_replayed() {
    let dir = tempfile::tempdir().unwrap();
    let copy = fixture_rules_copy(dir.path());
    let lib = super::fixtures();
    let shown = copy.canonicalize().unwrap().display().to_string();
    // check: the copy, outside any library, against the library's scenarios and lib/
    let out = umpire().arg("--library").arg(&lib).arg("check").arg(&copy).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.starts_with("ok: ruleset Fixture") && text.contains(&format!("in {}", copy.display())), "{text}");
    // (its folder is named fx-b: its game, the fixture, is found by its ruleset's name)
    assert!(text.contains("ok: scenario scenarios/fixture/basic.toml"), "{text}");
    // play under it: status names the copy, and a save replays under it
    let save = dir.path().join("g.sav");
    let mut child = umpire()
        .arg("--library")
        .arg(&lib)
        .args(["play", "fixture", "--seed", "3", "--rules"])
        .arg(&copy)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(format!("auto\nstatus\nsave {}\n", save.display()).as_bytes()).unwrap();
    let text = String::from_utf8_lossy(&child.wait_with_output().unwrap().stdout).to_string();
    assert!(text.contains(&format!("from {shown}")), "{text}");
    let saved = std::fs::read_to_string(&save).unwrap();
    assert!(saved.contains(&format!("new fixture --seed 3 --rules {shown}")), "{saved}");
    // edit a table of the copy, and reload it into the running game
    let mut s = umpire::Session::with_root(lib.clone());
    s.rules = Some(copy.clone());
    assert_eq!(s.execute("new fixture --seed 3").status, umpire::Status::Ok);
    assert_eq!(s.execute("auto").status, umpire::Status::Ok);
    let combat = copy.join("combat.lua");
    let text = std::fs::read_to_string(&combat).unwrap();
    std::fs::write(
        &combat,
        text.replacen("{ \"AE\", \"AR\", \"AR\", \"EX\", \"DR\" }", "{ \"AR\", \"AR\", \"AR\", \"EX\", \"DR\" }", 1),
    )
    .unwrap();
    let r = s.execute("reload");
    assert!(r.out.join("\n").contains("rule files changed"), "{r:?}");
    let r = s.execute("= require('combat').crt[1][1]");
    assert!(r.out.join("\n").contains("AR"), "{r:?}");
    // compare the two rule versions, and replay a game under the copy
    let out = umpire()
        .arg("--library")
        .arg(&lib)
        .args(["compare", "fixture", "--games", "4", "--jobs", "1", "--rules"])
        .arg(lib.join("rulesets/fixture"))
        .arg("--rules")
        .arg(&copy)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert_eq!(out.status.code(), Some(0), "{text}{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains(&format!("B = {}", copy.display())), "{text}");
    let out = umpire().arg("--library").arg(&lib).arg("replay").arg(&save).arg("--rules").arg(&copy).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(matches!(out.status.code(), Some(0 | 1)), "{text}");
    // the rules of another game are refused at once, by name (not a Lua traceback or a
    // replay where every command is refused)
    let other = lib.join("rulesets/seqtest");
    for args in [vec!["play", "fixture", "--seed", "3"], vec!["replay", save.to_str().unwrap()]] {
        let out = umpire().arg("--library").arg(&lib).args(&args).arg("--rules").arg(&other).output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
        assert!(text.contains("these are the rules of seqtest, not of fixture"), "{args:?}: {text}");
        assert_ne!(out.status.code(), Some(0), "{text}");
    }
    // a save that is not there is said to be missing
    let out = umpire().args(["play", "no-such-game.ump"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(text.contains("no-such-game.ump: no such save file"), "{text}");
}

#[test]
fn check_names_every_rule_file_that_is_not_utf8_at_its_place() {
    let dir = tempfile::tempdir().unwrap();
    let copy = fixture_rules_copy(dir.path());
    for (file, text) in
        [("combat.lua", b"-- caf\xe9\n".as_slice()), ("main.lua", b"local x = 1\n-- na\xefve\n".as_slice())]
    {
        let mut bytes = std::fs::read(copy.join(file)).unwrap();
        bytes.extend_from_slice(text);
        std::fs::write(copy.join(file), bytes).unwrap();
    }
    let out = umpire().arg("--library").arg(super::fixtures()).arg("check").arg(&copy).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{text}");
    let combat_lines = std::fs::read(copy.join("combat.lua")).unwrap().iter().filter(|b| **b == b'\n').count();
    let main_lines = std::fs::read(copy.join("main.lua")).unwrap().iter().filter(|b| **b == b'\n').count();
    assert!(text.contains(&format!("combat.lua:{combat_lines}:7: not UTF-8 text (byte 0xe9")), "{text}");
    assert!(text.contains(&format!("main.lua:{main_lines}:6: not UTF-8 text (byte 0xef")), "{text}");
}

#[test]
fn a_piped_line_over_the_limit_is_refused_and_its_echo_cut() {
    let input = format!("{}\n", "x".repeat(70_000));
    let out =
        super::feed(umpire().args(["play", "tests/fixtures/scenarios/fixture/basic.toml", "--seed", "1"]), &input);
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        text.contains("… (68 KiB in all)") && text.contains("over the limit of 64 KiB"),
        "{}",
        &text[..text.len().min(400)]
    );
    assert!(text.len() < 4_000, "the line was echoed whole ({} bytes)", text.len());
}

/// `--shard K/N`, `--json FILE` and `umpire merge` (issue 28): four shards of a playout, and of
/// a comparison, merge into the very report (and games) of the unsharded run; shards of
/// different runs, the same shard twice and a missing shard are refused, each said.
#[test]
fn four_merged_shards_make_the_report_of_the_unsharded_run() {
    let dir = tempfile::tempdir().unwrap();
    let lib = super::fixtures();
    let run = |args: &[&str]| {
        let out = umpire().args(args).arg("--library").arg(&lib).output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    // (the report without its time line, which the merge says its own way)
    let report = |text: &str| text.lines().filter(|l| !l.starts_with("time:")).collect::<Vec<_>>().join("\n");
    let edited = dir.path().join("edited");
    std::fs::create_dir_all(&edited).unwrap();
    for e in std::fs::read_dir(lib.join("rulesets/fixture")).unwrap().flatten() {
        std::fs::copy(e.path(), edited.join(e.file_name())).unwrap();
    }
    let own = lib.join("rulesets/fixture").display().to_string();
    let edited = edited.display().to_string();
    for kind in ["playout", "compare"] {
        let mut base = vec![kind, "fixture", "--games", "18", "--seed", "3", "--jobs", "2"];
        if kind == "compare" {
            base.extend(["--rules", own.as_str(), "--rules", edited.as_str()]);
        }
        let whole_json = dir.path().join(format!("{kind}-whole.json")).display().to_string();
        let (code, whole, err) = run(&[base.as_slice(), &["--json", whole_json.as_str()]].concat());
        assert_eq!(code, Some(0), "{whole}{err}");
        let mut files = Vec::new();
        for k in 1..=4 {
            let f = dir.path().join(format!("{kind}-{k}.json")).display().to_string();
            let shard = format!("{k}/4");
            let (code, text, err) =
                run(&[base.as_slice(), &["--shard", shard.as_str(), "--json", f.as_str()]].concat());
            assert_eq!(code, Some(0), "{text}{err}");
            assert!(text.contains(&format!("(shard {k}/4 of seeds 3 to 20)")), "{text}");
            files.push(f);
        }
        let merged_json = dir.path().join(format!("{kind}-merged.json")).display().to_string();
        let mut args = vec!["merge", "--json", merged_json.as_str()];
        args.extend(files.iter().rev().map(String::as_str));
        let (code, merged, err) = run(&args);
        assert_eq!(code, Some(0), "{merged}{err}");
        assert_eq!(report(&merged), report(&whole), "{kind}");
        assert!(merged.contains("in 4 shard file(s)"), "{merged}");
        // the games themselves, seed by seed, are the unsharded run's
        let games = |f: &str| {
            let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(f).unwrap()).unwrap();
            (v["run"].clone(), v["games"].clone())
        };
        assert_eq!(games(&merged_json), games(&whole_json), "{kind}");
        // refused: a missing shard (unless --partial), the same shard twice, another run
        let (code, _, err) = run(&["merge", &files[0], &files[1]]);
        assert_eq!((code, err.contains("shards missing: 3/4, 4/4")), (Some(2), true), "{err}");
        let (code, text, _) = run(&["merge", "--partial", &files[0], &files[1]]);
        assert!(code == Some(0) && text.contains("partial: the games of shards 3/4, 4/4 are missing"), "{text}");
        let (code, _, err) = run(&["merge", &files[0], &files[0]]);
        assert_eq!((code, err.contains("are the same shard (shard 1/4)")), (Some(2), true), "{err}");
    }
    let (code, _, err) = run(&[
        "merge",
        &format!("{}/playout-1.json", dir.path().display()),
        &format!("{}/compare-2.json", dir.path().display()),
    ]);
    assert_eq!((code, err.contains("shards of different runs: playout against compare")), (Some(2), true), "{err}");
    // a shard of other rules (an edited table) is refused by the rules' hash
    std::fs::write(
        format!("{edited}/combat.lua"),
        std::fs::read_to_string(format!("{edited}/combat.lua")).unwrap() + "\n-- edited\n",
    )
    .unwrap();
    let other = dir.path().join("other.json").display().to_string();
    let (code, _, err) = run(&[
        "compare", "fixture", "--games", "18", "--seed", "3", "--jobs", "2", "--rules", &own, "--rules", &edited,
        "--shard", "2/4", "--json", &other,
    ]);
    assert_eq!(code, Some(0), "{err}");
    let (code, _, err) = run(&["merge", &format!("{}/compare-1.json", dir.path().display()), &other]);
    assert_eq!((code, err.contains("shards of different runs: rules ")), (Some(2), true), "{err}");
}

#[test]
fn play_with_an_opponent_has_umpire_play_that_side() {
    let mut child = umpire()
        .arg("--library")
        .arg(super::fixtures())
        .args(["play", "fixture", "--seed", "4", "--opponent", "Red=random"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(b"auto\nnext\nnext\nopponent\n").unwrap();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("> opponent Red random\n  umpire plays Red (random)"), "{text}");
    // Blue's second `next` hands the turn to Red: umpire plays it, back to Blue in turn 2
    let red = text.split("> next\n").nth(2).unwrap_or_default();
    assert!(red.contains("Red (umpire) › ") && red.contains("Turn 2"), "{text}");
    let no_game = umpire().args(["play", "--opponent", "Red"]).output().unwrap();
    assert!(String::from_utf8_lossy(&no_game.stderr).contains("--opponent needs a game"));
}

#[test]
fn the_profile_counts_a_function_alone_and_with_what_it_calls() {
    // f does the work; the chunk only calls it: alone the chunk costs nothing, with f all of it
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("p.ump");
    std::fs::write(
        &script,
        "new tests/fixtures/scenarios/fixture/basic.toml --seed 1\nauto\n\
         lua local function f() local n = 0 for i = 1, 200000 do n = n + i end return n end for i = 1, 3 do f() end\n",
    )
    .unwrap();
    let out = umpire().arg("run").arg("--profile").arg(&script).output().unwrap();
    let text = String::from_utf8_lossy(&out.stderr);
    let section = |title: &str| -> Vec<String> {
        let from = text.find(title).unwrap_or_else(|| panic!("no `{title}` in {text}"));
        text[from..]
            .lines()
            .skip(1)
            .take_while(|l| !l.contains("  functions") && !l.contains("  lines"))
            .map(String::from)
            .collect()
    };
    let alone = section("functions (where defined)");
    let with = section("functions with the functions they call");
    let instr = |rows: &[String], name: &str| -> u64 {
        rows.iter()
            .find(|l| l.ends_with(&format!("function {name}")))
            .map(|l| l.split_whitespace().next().unwrap().trim_end_matches('k').parse().unwrap())
            .unwrap_or(0)
    };
    assert!(instr(&alone, "lua:1") >= 500, "{text}");
    assert!(instr(&alone, "lua:0") < 10, "{text}");
    assert!(instr(&with, "lua:0") >= instr(&alone, "lua:1"), "{text}");
}

/// `-vvv` traces each decision of `greedy` and `search`: the bot, the command it plays (the
/// game's own next command) and what it judged; without it, nothing is traced.
#[test]
fn the_bots_decisions_are_traced_at_the_third_verbosity() {
    let lib = super::fixtures();
    let play = |verbose: Option<&str>| {
        let mut c = umpire();
        c.args(["playout", "fixture", "--games", "1", "--seed", "2", "--jobs", "1", "--bot", "search"]);
        c.args(["--bot", "Red=greedy", "--list", "--library"]).arg(&lib);
        c.env("NO_COLOR", "1");
        if let Some(v) = verbose {
            c.arg(v);
        }
        let out = c.output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        (String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let (quiet_out, quiet_err) = play(None);
    let (out, err) = play(Some("-vvv"));
    assert_eq!(
        quiet_out.lines().filter(|l| !l.starts_with("time:")).collect::<Vec<_>>(),
        out.lines().filter(|l| !l.starts_with("time:")).collect::<Vec<_>>(),
        "the trace changes no game"
    );
    assert!(!quiet_err.contains("umpire::bot"), "{quiet_err}");
    let traced: Vec<&str> = err.lines().filter(|l| l.contains("umpire::bot")).collect();
    for bot in ["search: ", "greedy: "] {
        let line = traced.iter().find(|l| l.contains(bot)).unwrap_or_else(|| panic!("no {bot}decision traced:\n{err}"));
        for field in ["turn=", "step=", "side=", "gain=", "nodes=", "tried=", "gaining=", "losing=", "neither="] {
            assert!(line.contains(field), "{field} missing: {line}");
        }
    }
}
