//! Hostile and careless input against the transactions (issue 8): one budget per typed
//! command, `forward` all or nothing, the bounded undo history.

use super::sandbox::{mini_library, mini_session};
use umpire::Status;
use umpire::lua::Limits;

/// A ruleset whose verb and turns each do a fixed amount of Lua work.
const BUSY: &str = r#"local function work(n) local x = 0 for i = 1, n do x = x + i % 7 end return x end
umpire.command { usage = "spin", odds = true, run = function()
  work(100000)
  local total = dice.roll("2d6", "spin")
  return "r" .. total
end }
umpire.sequence { turns = 1000, turn_start = function() work(100000) end,
  steps = { { id = "play", name = "Play" } } }
"#;

fn busy_game(instructions: u64) -> (tempfile::TempDir, umpire::Session) {
    let lib = mini_library(&[("main.lua", BUSY)]);
    let mut s = mini_session(lib.path(), Limits { instructions, ..Limits::default() });
    let r = s.execute("new mini --seed 1");
    assert_eq!(r.status, Status::Ok, "{r:?}");
    (lib, s)
}

fn error_text(r: &umpire::Reply) -> String {
    r.error().map(|e| e.to_string()).unwrap_or_else(|| panic!("expected an error: {r:?}"))
}

#[test]
fn one_typed_command_has_one_budget_whatever_it_runs() {
    // each run of `spin` fits the budget, all 36 runs of `odds spin` do not
    let (_lib, mut s) = busy_game(3_000_000);
    assert_eq!(s.execute("spin").status, Status::Ok);
    let before = s.hash();
    let e = error_text(&s.execute("odds spin"));
    assert!(e.contains("instruction limit exceeded (3000000"), "{e}");
    assert_eq!(s.hash(), before);
    // with room for all of them, odds enumerates the 11 totals of 2d6
    let (_lib, mut s) = busy_game(200_000_000);
    let r = s.execute("odds spin");
    assert_eq!(r.status, Status::Ok, "{r:?}");
    assert!(r.out.iter().any(|l| l.contains("r12")), "{:?}", r.out);
}

#[test]
fn forward_is_stopped_by_one_budget_and_takes_back_all_it_did() {
    let (_lib, mut s) = busy_game(3_000_000);
    // one turn at a time fits
    for _ in 0..3 {
        assert_eq!(s.execute("next").status, Status::Ok);
    }
    let before = s.hash();
    let history = s.game.as_ref().unwrap().history.len();
    let e = error_text(&s.execute("forward end"));
    assert!(e.contains("instruction limit exceeded (3000000"), "{e}");
    assert!(e.contains("were taken back: the game is as before `forward`"), "{e}");
    assert_eq!(s.hash(), before);
    assert_eq!(s.game.as_ref().unwrap().history.len(), history);
    assert_eq!(s.execute("next").status, Status::Ok);
}

#[test]
fn the_undo_history_is_bounded_and_says_so() {
    let lib = mini_library(&[(
        "main.lua",
        "umpire.sequence { turns = 3, steps = { { id = \"play\", name = \"Play\" } } }\n",
    )]);
    let mut s = mini_session(lib.path(), Limits::default());
    assert_eq!(s.execute("new mini --seed 1").status, Status::Ok);
    for i in 0..1_005 {
        assert_eq!(s.execute(&format!("lua vars.set('n', {i})")).status, Status::Ok);
    }
    // the save replays the whole game, older commands included
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("long.ump");
    assert_eq!(s.execute(&format!("save {}", file.display())).status, Status::Ok);
    let mut t = mini_session(lib.path(), Limits::default());
    let r = t.execute(&format!("load {}", file.display()));
    assert_eq!(r.status, Status::Ok, "{r:?}");
    assert!(r.out.iter().any(|l| l.contains("1005 commands replayed")), "{:?}", r.out);
    assert_eq!(t.hash(), s.hash());
    let before = s.hash();
    let e = error_text(&s.execute("undo 1001"));
    assert!(e.contains("undo reaches back 1000 commands at most"), "{e}");
    assert_eq!(s.hash(), before);
    assert_eq!(s.execute("undo 1000").status, Status::Ok);
    let r = s.execute("= vars.get('n')");
    assert_eq!(r.out.last().map(String::as_str), Some("4"), "{r:?}");
}

/// Where a hostile payload runs.
#[derive(Clone, Copy, Debug, PartialEq)]
enum At {
    /// At the top of main.lua, when `new` loads the rule files.
    Load,
    /// At the top of main.lua, rewritten during a game and reloaded.
    Reload,
    /// In a verb of the rules.
    Verb,
    /// In a designer's `lua` command.
    Lua,
}

/// Every payload of the reliability run (issue 8), with what its error must say (one of the
/// texts between `|`) and where it applies (some are allowed while the rule files load, which is when a ruleset builds its
/// own tables).
const PAYLOADS: &[(&str, &str, &[At])] = &[
    // runaway code in Lua and in C
    ("while true do end", "instruction limit exceeded", &[At::Load, At::Reload, At::Verb, At::Lua]),
    (
        "string.find(string.rep('a', 100), string.rep('a*', 6) .. 'b')",
        "instruction limit",
        &[At::Load, At::Reload, At::Verb, At::Lua],
    ),
    (
        "for _ in string.gmatch(string.rep('a', 100), string.rep('a*', 6) .. 'b') do end",
        "instruction limit",
        &[At::Load, At::Reload, At::Verb, At::Lua],
    ),
    (
        "string.gsub(string.rep('a', 100), string.rep('a*', 6) .. 'b', 'x')",
        "instruction limit",
        &[At::Load, At::Reload, At::Verb, At::Lua],
    ),
    (
        "local function f() return f() + 1 end f()",
        "stack overflow|memory limit",
        &[At::Load, At::Reload, At::Verb, At::Lua],
    ),
    // memory
    (
        "local t = {} for i = 1, 1e9 do t[i] = string.rep('x', 4096) .. i end",
        "memory",
        &[At::Load, At::Reload, At::Verb, At::Lua],
    ),
    ("local s = ('x'):rep(2^40)", "memory limit", &[At::Load, At::Reload, At::Verb, At::Lua]),
    // a few instructions that fill the memory (no count hook in between: the place is found in
    // the frames of the rule call's dead coroutine)
    ("local s = 'x' while true do s = s .. s end", "memory limit", &[At::Load, At::Reload, At::Verb, At::Lua]),
    (
        "local s = string.pack('s4', ('x'):rep(1000)) for i = 1, 40 do s = s .. s end",
        "memory limit",
        &[At::Load, At::Reload, At::Verb, At::Lua],
    ),
    // conversions into Rust, bounded
    ("local t = {1} for i = 1, 23 do t = {t, t} end vars.set('dag', t)", "vars.set", &[At::Verb, At::Lua]),
    (
        "local s = string.rep('x', 3e7) for i = 1, 100 do print(s) end",
        "print",
        &[At::Load, At::Reload, At::Verb, At::Lua],
    ),
    ("local s = string.rep('x', 3e7) for i = 1, 100 do log.say(s) end", "log", &[At::Verb, At::Lua]),
    // calls into Rust are charged by their work (issue 26.4): stopped by the budget at the
    // rule's line, not by the wall-clock backstop
    ("for i = 1, 1e9 do units.all() end", "instruction limit", &[At::Verb, At::Lua]),
    ("for i = 1, 1e9 do map.hexes() end", "instruction limit", &[At::Verb, At::Lua]),
    (
        "local t = {} for i = 1, 1e4 do t[i] = 'abcdefgh' end for i = 1, 1e9 do table.concat(t) end",
        "instruction limit",
        &[At::Verb, At::Lua],
    ),
    ("for i = 1, 1e9 do local s = ('x'):rep(1e6) end", "instruction limit", &[At::Verb, At::Lua]),
    // what stops a command is not caught by pcall, xpcall or coroutine.resume: a loop of them
    // would run for ever, its budget spent
    ("while true do pcall(function() while true do end end) end", "instruction limit", &[At::Verb, At::Lua]),
    ("while true do xpcall(function() while true do end end, print) end", "instruction limit", &[At::Verb, At::Lua]),
    (
        "while true do coroutine.resume(coroutine.create(function() while true do end end)) end",
        "instruction limit",
        &[At::Verb, At::Lua],
    ),
    (
        "while true do pcall(function() local s = 'x' for i = 1, 40 do s = s .. s end end) end",
        "memory limit",
        &[At::Verb, At::Lua],
    ),
    // a rule's own coroutines (issue 26.9): a question asked in one, a yield outside one
    (
        "local co = coroutine.wrap(function() local a = umpire.ask{prompt = 'q', options = {'a'}} return a end) co()",
        "umpire.ask: called inside a coroutine the rules made",
        &[At::Verb, At::Lua],
    ),
    ("coroutine.yield(1)", "coroutine.yield: outside a coroutine the rules made", &[At::Verb, At::Lua]),
    // an error that is not a text (issue 26.8), its metamethods never read
    (
        "error(setmetatable({}, {__index = function(t, k) return t[k] end}))",
        "the rule raised a table as its error",
        &[At::Verb, At::Lua],
    ),
    // values that would differ between processes (issue 26.3): keys that collide once stored
    // (which value stays would follow the table's order), memory addresses
    ("vars.set('v', {['1'] = 1, [1] = 2})", "they are one key once stored", &[At::Verb, At::Lua]),
    ("vars.set('x', tostring({}))", "memory address", &[At::Verb, At::Lua]),
    ("vars.set('x', {k = 'at ' .. tostring(print)})", "memory address", &[At::Verb, At::Lua]),
    ("log.say('t ' .. tostring({}))", "memory address", &[At::Verb, At::Lua]),
    // the sandbox's walls
    ("os.exit(1)", "os", &[At::Load, At::Reload, At::Verb, At::Lua]),
    ("io.open('/etc/passwd')", "io", &[At::Load, At::Reload, At::Verb, At::Lua]),
    ("debug.getinfo(1)", "debug", &[At::Load, At::Reload, At::Verb, At::Lua]),
    ("require('../../secrets')", "module names are dotted words", &[At::Load, At::Reload, At::Verb, At::Lua]),
    ("assert(load(string.dump(print)))", "dump", &[At::Load, At::Reload, At::Verb, At::Lua]),
    ("assert(load('\\27Lua'))", "binary", &[At::Load, At::Reload, At::Verb, At::Lua]),
    ("setmetatable({}, { __gc = function() end })", "finalizers", &[At::Load, At::Reload, At::Verb, At::Lua]),
    // the read-only libraries, API and prelude during play
    ("getmetatable('').__index.upper = function() return 'X' end", "read-only", &[At::Verb, At::Lua]),
    ("rawset(string, 'upper', function() return 'X' end)", "rawset", &[At::Verb, At::Lua]),
    ("getmetatable('').__index = {}", "read-only", &[At::Verb, At::Lua]),
    ("rawset(_G, 'g', 1)", "rawset", &[At::Verb, At::Lua]),
    ("__umpire.next = function() return 'X' end", "read-only", &[At::Verb, At::Lua]),
    ("rawset(units, 'get', 1)", "rawset", &[At::Verb, At::Lua]),
    ("GLOBAL_X = 1", "globals", &[At::Verb]),
];

const SEQUENCE: &str = "umpire.sequence { turns = 3, steps = { { id = \"play\", name = \"Play\" } } }\n";

/// Main.lua with `payload` on line 2 (at the top, or in the verb `evil`).
fn evil_main(payload: &str, at: At) -> String {
    match at {
        At::Load | At::Reload => format!("local first = 1\n{payload}\n{SEQUENCE}"),
        _ => format!("umpire.command {{ usage = \"evil\", run = function()\n{payload}\nend }}\n{SEQUENCE}"),
    }
}

fn small_limits() -> Limits {
    Limits { instructions: 20_000_000, ..Limits::default() }
}

#[test]
fn every_hostile_payload_is_stopped_with_its_place_and_the_game_goes_on() {
    let mut problems = Vec::new();
    for (payload, want, places) in PAYLOADS {
        for &at in *places {
            let good = evil_main("local nothing = 0", At::Verb);
            let lib =
                mini_library(&[("main.lua", if at == At::Load { evil_main(payload, at) } else { good }.as_str())]);
            let mut s = mini_session(lib.path(), small_limits());
            let (r, place) = match at {
                At::Load => (s.execute("new mini --seed 1"), "rulesets/mini/main.lua:2"),
                _ => {
                    let r = s.execute("new mini --seed 1");
                    assert_eq!(r.status, Status::Ok, "{r:?}");
                    let before = s.hash();
                    let (r, place) = match at {
                        At::Reload => {
                            std::fs::write(lib.path().join("rulesets/mini/main.lua"), evil_main(payload, at)).unwrap();
                            (s.execute("reload"), "rulesets/mini/main.lua:2")
                        }
                        At::Verb => {
                            std::fs::write(lib.path().join("rulesets/mini/main.lua"), evil_main(payload, at)).unwrap();
                            let r = s.execute("reload");
                            assert_eq!(r.status, Status::Ok, "{r:?}");
                            (s.execute("evil"), "rulesets/mini/main.lua:2")
                        }
                        _ => (s.execute(&format!("lua {payload}")), "lua:1"),
                    };
                    if s.hash() != before {
                        problems.push(format!("{at:?} `{payload}`: the state changed"));
                    }
                    // the game goes on
                    let next = s.execute("next");
                    if next.status != Status::Ok {
                        problems.push(format!("{at:?} `{payload}`: the game did not go on: {next:?}"));
                    }
                    (r, place)
                }
            };
            match r.error() {
                None => problems.push(format!("{at:?} `{payload}`: not stopped: {r:?}")),
                Some(e) => {
                    let e = e.to_string();
                    if !want.split('|').any(|w| e.contains(w)) || !e.contains(place) {
                        problems.push(format!("{at:?} `{payload}`: the error should say '{want}' at {place}:\n{e}"));
                    }
                }
            }
        }
    }
    assert!(problems.is_empty(), "{} problem(s):\n{}", problems.len(), problems.join("\n\n"));
}

#[test]
fn forward_end_of_an_endless_game_is_stopped_by_the_budget() {
    let lib = mini_library(&[(
        "main.lua",
        "umpire.sequence { turns = 1e9, steps = { { id = \"play\", name = \"Play\" } } }\n",
    )]);
    let mut s = mini_session(lib.path(), Limits { instructions: 5_000_000, ..Limits::default() });
    assert_eq!(s.execute("new mini --seed 1").status, Status::Ok);
    let before = s.hash();
    let e = error_text(&s.execute("forward end"));
    assert!(e.contains("instruction limit exceeded (5000000"), "{e}");
    assert!(e.contains("were taken back"), "{e}");
    assert_eq!(s.hash(), before);
    assert_eq!(s.execute("next").status, Status::Ok);
}

#[cfg(unix)]
#[test]
fn links_in_a_ruleset_folder_are_never_followed_outside_it() {
    let lib = mini_library(&[("main.lua", SEQUENCE)]);
    let rs = lib.path().join("rulesets/mini");
    // a link loop, a link to a device named like a rule file, a link to a tree elsewhere
    std::os::unix::fs::symlink(".", rs.join("loop")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", rs.join("zero.lua")).unwrap();
    std::os::unix::fs::symlink("/usr", rs.join("usr")).unwrap();
    let mut s = mini_session(lib.path(), Limits::default());
    let r = s.execute("new mini --seed 1");
    assert_eq!(r.status, Status::Ok, "{r:?}");
    let e = error_text(&s.execute("lua require 'zero'"));
    assert!(e.contains("zero"), "{e}");
    assert_eq!(s.execute("reload").status, Status::Ok);
}

/// Rules that try to drive the player's terminal: a window title, a cleared screen, the
/// clipboard (OSC 52) and a bell, by every way rule code or a scenario file prints.
const TERMINAL_PAYLOAD: &str = r#"local evil = "\27]0;PWNED\7\27[2J"
umpire.command { usage = "say", run = function()
  log.say(evil) print("\27]52;c;UFdORUQ=\7") return evil
end }
umpire.command { usage = "refuse", run = function() umpire.refuse("1.1", evil) end }
umpire.command { usage = "ask", run = function()
  umpire.ask { prompt = evil, options = { "a\27[2Jb", "c" }, rule = "\27[31m" }
end }
umpire.command { usage = "fail", run = function() error(evil) end }
umpire.sequence { turns = 3, steps = { { id = "play", name = "Pl\27[2Jay" } } }
"#;

#[test]
fn rules_and_scenarios_cannot_write_control_characters_to_the_terminal() {
    let lib = mini_library(&[("main.lua", TERMINAL_PAYLOAD)]);
    let scenario = lib.path().join("scenarios/mini/basic.toml");
    let mut text = std::fs::read_to_string(&scenario).unwrap();
    text.push_str("\n[types.inf]\nkind = \"infantry\"\nsteps = [ { attack = 1, defense = 1, move = 1 } ]\n\n[[units]]\nid = \"U\\u001b[2J\"\nname = \"Evil\\u0007\"\nside = \"A\"\ntype = \"inf\"\nat = \"0101\"\n");
    std::fs::write(&scenario, text).unwrap();
    let input = "new mini --seed 1\nsay\nrefuse\nfail\nlog 3\nunits\nmap\nshow 0101\nask\nstatus\n";
    let out = super::feed(
        std::process::Command::new(env!("CARGO_BIN_EXE_umpire")).args([
            "--library",
            lib.path().to_str().unwrap(),
            "play",
        ]),
        input,
    );
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    for (name, text) in [("stdout", &stdout), ("stderr", &stderr)] {
        let raw: Vec<char> = text
            .chars()
            .filter(|c| (c.is_control() && *c != '\n' && *c != '\t') || ('\u{80}'..='\u{9f}').contains(c))
            .collect();
        assert!(raw.is_empty(), "{name} holds raw control characters {raw:?}:\n{text}");
    }
    // the program's own colours stay: the coloured text map keeps its escapes, the unit's name
    // in it does not
    let mut s = mini_session(lib.path(), Limits::default());
    s.color = true;
    assert_eq!(s.execute("new mini --seed 1").status, Status::Ok);
    let map = s.execute("map").out.join("\n");
    assert!(map.contains("\x1b["), "no colours:\n{map}");
    assert!(map.contains("U?[2J") && !map.contains("\x1b[2J"), "{map}");
    // shown, escaped, where each was printed
    for shown in [
        "\\27]0;PWNED\\7\\27[2J",
        "\\27]52;c;UFdORUQ=\\7",
        "refused (1.1): \\27]0;PWNED",
        "U\\27[2J",
        "Pl\\27[2Jay",
        "a\\27[2Jb",
    ] {
        assert!(stdout.contains(shown), "`{shown}` is not shown:\n{stdout}");
    }
}

#[test]
fn a_line_too_long_is_refused_and_a_long_word_costs_one_pass() {
    let (_lib, mut s) = busy_game(3_000_000);
    let before = s.hash();
    let e = error_text(&s.execute(&format!("show {}", "x".repeat(1 << 20))));
    assert!(e.contains("over the limit of 64 KiB for one command"), "{e}");
    assert_eq!(s.hash(), before);
    // within the limit, a word no name resembles is compared only with names of about its
    // length: no suggestion, at once
    let e = error_text(&s.execute(&format!("show {}", "x".repeat(60_000))));
    assert!(!e.contains("did you mean"), "{e}");
    assert_eq!(umpire::text::did_you_mean(&"x".repeat(60_000), ["x1", "xx"]), "");
    assert_eq!(umpire::text::did_you_mean("Stargrad", ["Stargard", "Berlin"]), " (did you mean Stargard?)");
}
