//! The Lua sandbox: no io/os/debug/loadfile, no binary chunks, `require` confined to the
//! ruleset and rulesets/lib, and runaway or hostile code stopped with file:line.

use std::path::Path;
use umpire::lua::Limits;
use umpire::session::Status;

fn error_of(r: &umpire::Reply) -> String {
    match &r.status {
        Status::Error(e) => e.to_string(),
        other => panic!("expected an error, got {other:?}: {:?}", r.out),
    }
}

#[test]
fn dangerous_libraries_are_absent() {
    let mut s = super::fixture_game(1);
    for expr in [
        "io",
        "os",
        "debug",
        "loadfile",
        "dofile",
        "package",
        "math.random",
        "math.randomseed",
        "string.dump",
        "collectgarbage",
    ] {
        let r = s.execute(&format!("expect {expr} == nil"));
        assert_eq!(r.status, Status::Check(true), "{expr} is reachable: {r:?}");
    }
}

#[test]
fn runaway_loop_is_stopped_by_the_instruction_budget() {
    // small limits keep the test fast on any machine; nothing here is timed: the budget, not the
    // clock, decides (the clock is a last resort far above it)
    let mut s = umpire::Session::with_root(super::fixtures());
    s.limits = Limits { instructions: 2_000_000, ..Limits::default() };
    assert_eq!(s.execute("new fixture --seed 1").status, Status::Ok);
    assert_eq!(s.execute("auto").status, Status::Ok);
    let before = s.hash();
    let r = s.execute("lua while true do end");
    let e = error_of(&r);
    assert!(e.contains("lua:1: instruction limit exceeded (2000000 Lua instructions in one command)"), "{e}");
    assert_eq!(s.hash(), before);
    // the default backstop is far above what the budget takes on a slow machine
    assert!(Limits::default().seconds >= 30.0);
}

#[test]
fn memory_bomb_is_stopped() {
    let mut s = umpire::Session::with_root(super::fixtures());
    s.limits = Limits { memory: 16 << 20, ..Limits::default() };
    assert_eq!(s.execute("new fixture --seed 1").status, Status::Ok);
    assert_eq!(s.execute("auto").status, Status::Ok);
    let before = s.hash();
    let r = s.execute("lua local t = {} for i = 1, 1e9 do t[i] = string.rep('x', 4096) .. i end");
    let e = error_of(&r);
    assert!(e.contains("memory") || e.contains("instruction limit"), "{e}");
    assert!(e.contains("lua:1"), "no file:line in {e}");
    assert_eq!(s.hash(), before);
    // the game goes on afterwards
    assert_eq!(s.execute("move B1 0302").status, Status::Ok);
}

#[test]
fn require_stays_inside_the_ruleset() {
    let mut s = super::fixture_game(1);
    for m in ["../../x", "/etc/passwd", "..", "a/../../b", "nonexistent"] {
        let r = s.execute(&format!("lua require {m:?}"));
        let e = error_of(&r);
        assert!(e.contains("require"), "{m}: {e}");
    }
    // modules of the ruleset and of rulesets/lib do load
    assert_eq!(s.execute("expect require('util').contains({1, 2}, 2)").status, Status::Check(true));
    assert_eq!(s.execute("expect require('combat').column(4, 4) == 2").status, Status::Check(true));
}

#[test]
fn binary_chunks_are_refused() {
    let mut s = super::fixture_game(1);
    let r = s
        .execute(r#"lua local f, e = load("\27Lua\84\0\25\147\13\10\26\10") assert(f == nil and e:find("binary"), e)"#);
    assert_eq!(r.status, Status::Ok, "{r:?}");
    let r = s.execute(r#"expect select(2, load("\27Lua")) ~= nil"#);
    assert_eq!(r.status, Status::Check(true));
}

#[test]
fn lua_errors_carry_file_line_and_traceback() {
    let mut s = super::fixture_game(1);
    let r = s.execute("lua local t = nil\nreturn t.x");
    let e = error_of(&r);
    assert!(e.contains("lua:2"), "{e}");
    // an error inside a rule file names the file
    let r = s.execute("lua require('combat').attack('0404', {})");
    let e = error_of(&r);
    assert!(e.contains("combat.lua:") || e.contains("refused"), "{e}");
}

#[test]
fn pairs_order_is_fixed() {
    let mut s = super::fixture_game(1);
    let r = s.execute("= (function() local t = {zeta=1, alpha=2, [3]=3, [1]=4, mid=5} local ks = {} for k in pairs(t) do ks[#ks+1] = tostring(k) end return table.concat(ks, ',') end)()");
    assert_eq!(r.out.last().unwrap(), "1,3,alpha,mid,zeta");
}

#[test]
fn pairs_orders_every_kind_of_key_and_refuses_table_keys() {
    let mut s = super::fixture_game(1);
    let r = s.execute("= (function() local t = {[true]=1, [false]=2, [2.5]=3, [-1]=4, B=5, a=6} local ks = {} for k in pairs(t) do ks[#ks+1] = tostring(k) end return table.concat(ks, ',') end)()");
    assert_eq!(r.out.last().unwrap(), "-1,2.5,B,a,false,true");
    // `next` follows the same order
    let r = s.execute("= next({b=1, a=2})");
    assert!(r.out.last().unwrap().contains('a'), "{:?}", r.out);
    let before = s.hash();
    let r = s.execute("lua for k in pairs({[{}] = 1}) do end");
    let e = error_of(&r);
    assert!(e.contains("no fixed order"), "{e}");
    assert_eq!(s.hash(), before);
}

#[test]
fn a_unit_has_one_handle_usable_as_a_table_key() {
    let mut s = super::fixture_game(1);
    let r = s.execute("= (function() local t = {} t[units.get('B1')] = 1 return t[units.find('b1')] == 1 and rawequal(units.get('B1'), units.find('b1')) end)()");
    assert_eq!(r.out.last().map(String::as_str), Some("true"), "{:?}", r.out);
}

#[test]
fn a_single_huge_allocation_names_the_line() {
    let mut s = super::fixture_game(1);
    let before = s.hash();
    let r = s.execute("lua local ok = 1\nlocal s = ('x'):rep(2^40)");
    let e = error_of(&r);
    assert!(e.contains("lua:2") && e.contains("memory limit"), "{e}");
    assert_eq!(s.hash(), before);
    // ordinary uses are untouched
    let r = s.execute("= string.rep('ab', 3, '-')");
    assert_eq!(r.out.last().map(String::as_str), Some("ab-ab-ab"));
}

#[test]
fn the_read_only_api_tables_can_be_walked() {
    let mut s = super::fixture_game(1);
    let r = s.execute("= (function() local n = 0 for k, v in pairs(map) do n = n + 1 end return n > 10 and next(units) ~= nil and next(string) ~= nil end)()");
    assert_eq!(r.out.last().map(String::as_str), Some("true"), "{:?}", r.out);
    let e = error_of(&s.execute("lua map.extra = 1"));
    assert!(e.contains("read-only"), "{e}");
}

/// A library holding one tiny ruleset `mini` (its files by name) on a 2×2 map.
pub(crate) fn mini_library(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let rs = dir.path().join("rulesets").join("mini");
    std::fs::create_dir_all(&rs).unwrap();
    std::fs::write(rs.join("ruleset.toml"), "[ruleset]\nname = \"Mini\"\nversion = \"0.1.0\"\nscenario = \"basic\"\n")
        .unwrap();
    for (name, text) in files {
        std::fs::write(rs.join(name), text).unwrap();
    }
    let sc = dir.path().join("scenarios").join("mini");
    std::fs::create_dir_all(&sc).unwrap();
    std::fs::write(
        sc.join("basic.toml"),
        "[scenario]\nname = \"Mini\"\nruleset = \"mini\"\nsides = [\"A\", \"B\"]\n\n[map]\ncols = [1, 2]\nrows = [1, 2]\n",
    )
    .unwrap();
    dir
}

pub(crate) fn mini_session(lib: &Path, limits: Limits) -> umpire::Session {
    let mut s = umpire::Session::with_root(lib);
    s.limits = limits;
    s
}

/// What `= expr` printed.
fn value(s: &mut umpire::Session, expr: &str) -> String {
    let r = s.execute(&format!("= {expr}"));
    assert!(matches!(r.status, Status::Ok), "{expr}: {r:?}");
    r.out.last().cloned().unwrap_or_default()
}

const DATA_LUA: &str = r#"-- constants of a tiny game
local M = {}
M.crt = { { "A1", "A2" }, { "B1", "B2" }, { "C1", "C2" } }
M.names = { "x", "y", "z" }
local hidden = { list = { 10, 20, 30 } }
local count = 0
local proto = { deep = { n = 1 } }
M.via_meta = setmetatable({}, { __index = proto })
function M.hidden() return hidden end
function M.write_hidden()
  hidden.list[2] = 99
end
function M.bump()
  count = count + 1
  return count
end
function M.count() return count end
function M.fresh() local t = { 1 } t[2] = 2 t.k = "v" return t end
function M.set_global() GLOBAL_N = 2 end
function M.new_global() NEW_GLOBAL = 1 end
return M
"#;

const MAIN_LUA: &str = r#"local data = require "data"
GLOBAL_N = 1
umpire.command { usage = "poke", run = function()
  data.crt[3][2] = "D2r3"
end }
umpire.command { usage = "note", run = function() vars.set("n", (vars.get("n") or 0) + 1) end }
umpire.sequence { turns = 3, steps = { { id = "play", name = "Play" } } }
"#;

fn sealed_game() -> (tempfile::TempDir, umpire::Session) {
    let lib = mini_library(&[("main.lua", MAIN_LUA), ("data.lua", DATA_LUA)]);
    let mut s = mini_session(lib.path(), Limits::default());
    let r = s.execute("new mini --seed 1");
    assert_eq!(r.status, Status::Ok, "{r:?}");
    (lib, s)
}

#[test]
fn module_tables_are_read_only_during_play_and_survive_undo() {
    let (_lib, mut s) = sealed_game();
    assert_eq!(s.execute("note").status, Status::Ok);
    let before = s.hash();
    // a nested module table, written by a designer's chunk and by a rule
    let e = error_of(&s.execute(r#"lua require("data").crt[3][2] = "D2r3""#));
    assert!(e.contains("lua:1: data.crt[3][2]: module tables are read-only during play"), "{e}");
    assert!(e.contains("vars or unit attributes"), "{e}");
    let e = error_of(&s.execute("poke"));
    assert!(e.contains("rulesets/mini/main.lua:4: data.crt[3][2]: module tables are read-only"), "{e}");
    assert_eq!(s.hash(), before);
    assert_eq!(s.execute("undo").status, Status::Ok);
    assert_eq!(value(&mut s, r#"require("data").crt[3][2]"#), "C2");
    let undone = s.hash();
    // a table reached through a metatable (`__index`), and the metatable itself
    let e = error_of(&s.execute(r#"lua require("data").via_meta.deep.n = 2"#));
    assert!(e.contains("lua:1: getmetatable(data.via_meta).__index.deep.n: module tables are read-only"), "{e}");
    let e = error_of(&s.execute(r#"lua getmetatable(require("data").via_meta).__index.extra = 1"#));
    assert!(e.contains("lua:1:") && e.contains("read-only"), "{e}");
    assert_eq!(value(&mut s, r#"require("data").via_meta.deep.n"#), "1");
    // a table held in an upvalue of a module function
    let e = error_of(&s.execute(r#"lua require("data").write_hidden()"#));
    assert!(e.contains("rulesets/mini/data.lua:11: local hidden"), "{e}");
    assert!(e.contains("module tables are read-only"), "{e}");
    let e = error_of(&s.execute(r#"lua require("data").hidden().list[2] = 5"#));
    assert!(e.contains("lua:1:") && e.contains("read-only"), "{e}");
    assert_eq!(value(&mut s, r#"require("data").hidden().list[2]"#), "20");
    // nor may a seal be got round
    for chunk in [
        r#"rawset(require("data").names, 1, "q")"#,
        r#"setmetatable(require("data").names, nil)"#,
        r#"table.insert(require("data").names, "w")"#,
    ] {
        let e = error_of(&s.execute(&format!("lua {chunk}")));
        assert!(e.contains("read-only during play"), "{chunk}: {e}");
    }
    // a rule may neither assign a global nor create one (a designer's chunk has globals of its own)
    let e = error_of(&s.execute(r#"lua require("data").set_global()"#));
    assert!(e.contains("rulesets/mini/data.lua:19: global GLOBAL_N: globals are read-only during play"), "{e}");
    let e = error_of(&s.execute(r#"lua require("data").new_global()"#));
    assert!(
        e.contains("rulesets/mini/data.lua:20: global NEW_GLOBAL: rules may not create globals during play"),
        "{e}"
    );
    assert_eq!(value(&mut s, "GLOBAL_N"), "1");
    assert_eq!(s.hash(), undone);
}

#[test]
fn a_module_upvalue_reassigned_during_play_is_put_back_and_refused() {
    let (_lib, mut s) = sealed_game();
    let before = s.hash();
    let e = error_of(&s.execute(r#"lua require("data").bump()"#));
    assert!(e.contains("rulesets/mini/data.lua:13: the local 'count'"), "{e}");
    assert!(e.contains("module tables are read-only during play"), "{e}");
    assert_eq!(s.hash(), before);
    assert_eq!(value(&mut s, r#"require("data").count()"#), "0");
    // looking is refused too, and changes nothing either
    let r = s.execute(r#"= require("data").bump()"#);
    assert!(error_of(&r).contains("'count'"), "{r:?}");
    assert_eq!(value(&mut s, r#"require("data").count()"#), "0");
}

#[test]
fn sealed_tables_read_as_before() {
    let (_lib, mut s) = sealed_game();
    let d = r#"require("data")"#;
    assert_eq!(
        value(
            &mut s,
            &format!("#{d}.crt, {d}.crt[2][1], table.concat({d}.names, ','), select('#', table.unpack({d}.names))")
        ),
        "3\tB1\tx,y,z\t3"
    );
    let walk = format!(
        "(function() local n = 0 for _, row in ipairs({d}.crt) do n = n + #row end local ks = {{}} for k in pairs({d}) do ks[#ks + 1] = k end return n, table.concat(ks, ',') end)()"
    );
    assert_eq!(
        value(&mut s, &walk),
        "6\tbump,count,crt,fresh,hidden,names,new_global,set_global,via_meta,write_hidden"
    );
    assert_eq!(value(&mut s, &format!("rawget({d}, 'names')[3], rawlen({d}.names), next({d}.names)")), "z\t3\t1\tx");
    assert_eq!(value(&mut s, &format!("{d}.names, getmetatable({d}.names)")), "{\"x\", \"y\", \"z\"}\tnil");
    // Rust reads through the seal too (storing a module table, building a profile)
    assert_eq!(s.execute(&format!("lua vars.set('copy', {d}.crt)")).status, Status::Ok);
    assert_eq!(value(&mut s, "vars.get('copy')[3][2]"), "C2");
    // tables made during a command stay writable
    assert_eq!(
        value(&mut s, &format!("(function() local t = {d}.fresh() t[3] = 3 t.k = nil return #t, t.k end)()")),
        "3\tnil"
    );
}

#[test]
fn limits_hit_while_the_rule_files_load_name_the_file_and_line() {
    let runaway = "local x = 0\nwhile true do\n  x = x + 1\nend\n";
    let lib = mini_library(&[("main.lua", "require 'slow'\n"), ("slow.lua", runaway)]);
    let mut s = mini_session(lib.path(), Limits { instructions: 1_000_000, ..Limits::default() });
    let e = error_of(&s.execute("new mini"));
    assert!(e.contains("rulesets/mini/slow.lua:") && e.contains("instruction limit exceeded (1000000"), "{e}");
    let bomb = "local t = {}\nfor i = 1, 1e9 do\n  t[i] = string.rep('x', 1024) .. i\nend\n";
    let lib = mini_library(&[("main.lua", "local a = 1\nrequire 'big'\n"), ("big.lua", bomb)]);
    let mut s = mini_session(lib.path(), Limits { memory: 8 << 20, ..Limits::default() });
    let e = error_of(&s.execute("new mini"));
    assert!(e.contains("rulesets/mini/big.lua:") && e.contains("memory limit exceeded"), "{e}");
    let lib = mini_library(&[("main.lua", bomb)]);
    let mut s = mini_session(lib.path(), Limits { memory: 8 << 20, ..Limits::default() });
    let e = error_of(&s.execute("new mini"));
    assert!(e.starts_with("rulesets/mini/main.lua:") || e.contains(" rulesets/mini/main.lua:"), "{e}");
    assert!(e.contains("memory limit exceeded"), "{e}");
}

#[test]
fn a_runaway_pattern_while_the_rule_files_load_stops_at_the_budget_naming_the_line() {
    // pattern matching runs in Rust, charged to the budget; the C functions would hang here
    let main = "local n = 100\nlocal s = string.rep('a', n)\nlocal found = s:find(string.rep('a*', 6) .. 'b')\n";
    let lib = mini_library(&[("main.lua", main)]);
    let mut s = mini_session(lib.path(), Limits::default());
    let e = error_of(&s.execute("new mini"));
    assert!(
        e.contains("rulesets/mini/main.lua:3: string.find: instruction limit exceeded (200000000 in one command, pattern matching included)"),
        "{e}"
    );
    // gmatch and gsub in a module are stopped the same way
    for (line, fname) in [
        ("for w in string.gmatch(string.rep('a', 100), string.rep('a*', 6) .. 'b') do end", "gmatch"),
        ("local r = string.gsub(string.rep('a', 100), string.rep('a*', 6) .. 'b', '')", "gsub"),
    ] {
        let lib = mini_library(&[("main.lua", "require 'words'\n"), ("words.lua", &format!("local x = 1\n{line}\n"))]);
        let mut s = mini_session(lib.path(), Limits { instructions: 5_000_000, ..Limits::default() });
        let e = error_of(&s.execute("new mini"));
        assert!(
            e.contains(&format!("rulesets/mini/words.lua:2: string.{fname}: instruction limit exceeded (5000000")),
            "{e}"
        );
    }
}

#[test]
fn a_sealed_table_still_serves_as_a_metatable_and_its_metamethods_are_watched() {
    let class = "local Class = {}\nClass.__index = Class\nfunction Class.new(n) return setmetatable({ n = n }, Class) end\nfunction Class:double() return self.n * 2 end\nreturn Class\n";
    let main = "require 'class'\numpire.sequence { turns = 3, steps = { { id = \"play\", name = \"Play\" } } }\n";
    let lib = mini_library(&[("main.lua", main), ("class.lua", class)]);
    let mut s = mini_session(lib.path(), Limits::default());
    assert_eq!(s.execute("new mini").status, Status::Ok);
    let c = r#"require("class")"#;
    assert_eq!(
        value(
            &mut s,
            &format!("(function() local o = {c}.new(3) o.n = 7 return o:double(), getmetatable(o) == {c} end)()")
        ),
        "14\ttrue"
    );
    let before = s.hash();
    let e = error_of(&s.execute(&format!("lua {c}.__index = nil")));
    assert!(e.contains("class.__index: written during the command and put back"), "{e}");
    assert_eq!(s.hash(), before);
    assert_eq!(value(&mut s, &format!("{c}.new(4):double()")), "8");
}

/// The message of a rule error (without its `rule error: `).
fn rule_error(r: &umpire::Reply) -> String {
    let e = error_of(r);
    e.strip_prefix("rule error: ").map(str::to_string).unwrap_or(e)
}

#[test]
fn display_is_bounded_and_ordinary_values_show_as_before() {
    use umpire::lua::MAX_DISPLAY;
    let mut s = super::fixture_game(1);
    assert_eq!(
        value(&mut s, r#"{1, 2, {a = 1, b = {c = "x"}}, "s", 1.5, {{{{1}}}}, [10] = true}"#),
        r#"{1, 2, {a = 1, b = {c = "x"}}, "s", 1.5, {{{{…}}}}, [10] = true}"#
    );
    let cut = |line: &str| line.len() <= MAX_DISPLAY + '…'.len_utf8() && line.ends_with('…');
    // a wide table shared a thousand times: cut, and not walked whole
    let wide = "(function() local t = {} for i = 1, 1000 do t[i] = i end local u = {} for i = 1, 1000 do u[i] = t end return u end)()";
    let line = value(&mut s, wide);
    assert!(line.starts_with("{{1, 2, 3, ") && cut(&line), "{}", &line[..80]);
    // a table too large to sort shows its sequence part
    let line = value(&mut s, "(function() local t = {} for i = 1, 1e6 do t[i] = i end return t end)()");
    assert!(line.starts_with("{1, 2, 3, ") && cut(&line), "{}", &line[..80]);
    // a long string is cut on a character boundary
    let line = value(&mut s, "string.rep('é', 1e5)");
    assert!(line.starts_with("éé") && cut(&line), "{}", line.len());
    // print shares one allowance for all its values
    let r = s.execute(&format!("lua local u = {wide} print(u, u, u)"));
    assert_eq!(r.status, Status::Ok, "{r:?}");
    assert!(
        r.out.iter().all(|l| l.len() <= MAX_DISPLAY + 3),
        "{:?}",
        r.out.iter().map(String::len).collect::<Vec<_>>()
    );
}

#[test]
fn a_runaway_of_output_fails_at_its_line_and_keeps_one_mebibyte() {
    // the bound of one command's output (docs/lua-api.md §1.8)
    const MAX_OUTPUT: usize = 1 << 20;
    let mut s = super::fixture_game(1);
    let before = s.hash();
    let r = s.execute("lua local s = string.rep('x', 3e7) for i = 1, 100 do print(s) end");
    let e = rule_error(&r);
    assert!(e.starts_with("lua:1: print: the command's output is over 1 MiB"), "{e}");
    let kept: usize = r.out.iter().map(|l| l.len() + 1).sum();
    assert!(kept <= MAX_OUTPUT && kept > MAX_OUTPUT / 2, "{kept}");
    // log entries count with the output, and a failed command leaves the log as it was
    let r = s.execute("lua for i = 1, 1000 do log.say(string.rep('y', 6e4)) end");
    assert!(rule_error(&r).starts_with("lua:1: log.say: the command's output is over 1 MiB"), "{r:?}");
    assert_eq!(s.hash(), before);
    let r = s.execute("log 3");
    assert!(r.out.iter().all(|l| !l.contains("yyy")), "{:?}", r.out);
    // the next command has its own allowance
    let r = s.execute("lua for i = 1, 10 do print(string.rep('z', 6e4)) end");
    assert_eq!(r.status, Status::Ok);
    assert_eq!(r.out.len(), 10);
}

#[test]
fn storing_is_charged_to_the_instruction_budget() {
    let mut s = umpire::Session::with_root(super::fixtures());
    s.limits = Limits { instructions: 4_000_000, ..Limits::default() };
    assert_eq!(s.execute("new fixture --seed 1").status, Status::Ok);
    assert_eq!(s.execute("auto").status, Status::Ok);
    let before = s.hash();
    // 1 MB of text stored under a hundred keys: a few instructions of Lua, 100 MB of state
    let e = rule_error(&s.execute("lua local s = string.rep('x', 1e6) for i = 1, 100 do vars.set('k' .. i, s) end"));
    assert!(e.contains("instruction limit exceeded"), "{e}");
    let e = rule_error(
        &s.execute("lua local t = {} for i = 1, 1e4 do t[i] = i end for i = 1, 100 do vars.set('k' .. i, t) end"),
    );
    assert!(e.contains("instruction limit exceeded"), "{e}");
    assert_eq!(s.hash(), before);
    // ordinary values cost little
    assert_eq!(s.execute("lua for i = 1, 100 do vars.set('k' .. i, { i, { x = i } }) end").status, Status::Ok);
}

/// Makes `link` a symbolic link to `target`.
#[cfg(unix)]
fn link(target: &Path, link: &Path) {
    std::os::unix::fs::symlink(target, link).unwrap();
}

#[cfg(unix)]
#[test]
fn require_does_not_follow_a_link_out_of_the_ruleset() {
    let main = "umpire.sequence { turns = 3, steps = { { id = \"play\", name = \"Play\" } } }\n";
    let lib = mini_library(&[("main.lua", main), ("real.lua", "return 'inside'\n")]);
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.lua"), "return 'outside'\n").unwrap();
    let rs = lib.path().join("rulesets/mini");
    link(&outside.path().join("secret.lua"), &rs.join("evil.lua"));
    link(outside.path(), &rs.join("far"));
    link(&rs.join("real.lua"), &rs.join("alias.lua"));
    std::fs::create_dir_all(lib.path().join("rulesets/lib")).unwrap();
    std::fs::write(lib.path().join("rulesets/lib/shared.lua"), "return 'shared'\n").unwrap();
    link(&lib.path().join("rulesets/lib/shared.lua"), &rs.join("via_lib.lua"));
    let mut s = mini_session(lib.path(), Limits::default());
    assert_eq!(s.execute("new mini").status, Status::Ok);
    let before = s.hash();
    for m in ["evil", "far.secret"] {
        let e = rule_error(&s.execute(&format!("lua require '{m}'")));
        assert!(e.starts_with(&format!("lua:1: require '{m}': rulesets/mini/")), "{e}");
        assert!(e.contains("leads outside the ruleset folder and rulesets/lib (a link?): refused"), "{e}");
    }
    assert_eq!(s.hash(), before);
    // links that stay inside the ruleset or rulesets/lib are followed
    assert_eq!(value(&mut s, "require 'alias'"), "inside");
    assert_eq!(value(&mut s, "require 'via_lib'"), "shared");
}

#[test]
fn errors_name_the_rule_line_first() {
    let main = "local function r(n) return r(n + 1) + 1 end\n\
                umpire.command { usage = \"rec\", run = function() r(1) end }\n\
                umpire.command { usage = \"req\", run = function()\n  require 'nothere'\nend }\n\
                umpire.sequence { turns = 3, steps = { { id = \"play\", name = \"Play\" } } }\n";
    let lib = mini_library(&[("main.lua", main)]);
    let mut s = mini_session(lib.path(), Limits::default());
    assert_eq!(s.execute("new mini").status, Status::Ok);
    // deep recursion in a verb: the rule's line, not the prelude's
    let e = rule_error(&s.execute("rec"));
    assert!(e.starts_with("rulesets/mini/main.lua:1: stack overflow"), "{}", &e[..200.min(e.len())]);
    // a refused require names the line that required
    let e = rule_error(&s.execute("req"));
    assert!(e.starts_with("rulesets/mini/main.lua:4: require 'nothere': no nothere.lua"), "{e}");
    // and so it does while the rule files load
    let lib = mini_library(&[("main.lua", "local x = 1\nrequire 'missing'\n")]);
    let e = rule_error(&mini_session(lib.path(), Limits::default()).execute("new mini"));
    assert!(e.starts_with("rulesets/mini/main.lua:2: require 'missing'"), "{e}");
    // a memory error at the top level of a rule file names its line, however short the file
    let short = "local a = 1\nlocal s = string.rep('x', 30e6)\nlocal u = s .. s .. s\n";
    let lib = mini_library(&[("main.lua", "local x = 1\nrequire 'big'\n"), ("big.lua", short)]);
    let e = rule_error(&mini_session(lib.path(), Limits::default()).execute("new mini"));
    assert!(e.starts_with("rulesets/mini/big.lua:3: memory limit exceeded"), "{e}");
    assert!(e.contains("rulesets/mini/main.lua:2: in main chunk"), "{e}");
    let lib = mini_library(&[("main.lua", short)]);
    let e = rule_error(&mini_session(lib.path(), Limits::default()).execute("new mini"));
    assert!(e.starts_with("rulesets/mini/main.lua:3: memory limit exceeded"), "{e}");
    // an error in a module keeps the frames of the module, then of the code that required it
    let lib = mini_library(&[("main.lua", "local x = 1\nrequire 'bad'\n"), ("bad.lua", "local t = nil\nreturn t.x\n")]);
    let e = rule_error(&mini_session(lib.path(), Limits::default()).execute("new mini"));
    assert!(e.starts_with("rulesets/mini/bad.lua:2: attempt to index a nil value"), "{e}");
    assert!(e.contains("rulesets/mini/bad.lua:2: in main chunk\n\t[C]: in function 'require'\n\trulesets/mini/main.lua:2: in main chunk"), "{e}");
    // a module may not yield while it loads: coroutine.yield outside a coroutine the rules made
    // is refused at its line
    let lib = mini_library(&[("main.lua", "require 'ask'\n"), ("ask.lua", "coroutine.yield()\n")]);
    let e = rule_error(&mini_session(lib.path(), Limits::default()).execute("new mini"));
    assert!(e.starts_with("rulesets/mini/ask.lua:1: coroutine.yield: outside a coroutine the rules made"), "{e}");
    // a memory error in a chunk names its line
    let lib = mini_library(&[("main.lua", main)]);
    let mut s = mini_session(lib.path(), Limits { memory: 16 << 20, ..Limits::default() });
    assert_eq!(s.execute("new mini").status, Status::Ok);
    let e = rule_error(&s.execute("lua local t = {} for i = 1, 1e9 do t[i] = i end"));
    assert!(e.starts_with("lua:1: memory limit exceeded"), "{e}");
}

/// `umpire.describe{marker=}`: `show` prints a marker in the rules' words, hides it on `false`,
/// prints it as stored on `nil`, and fails on anything else.
#[test]
fn show_prints_markers_in_the_rules_words() {
    let main = r#"umpire.describe { marker = function(kind, name, value, owner)
  if name == "spent" then return ("%s MP spent [X1] (%s %s)"):format(map.fmt_cost(value / 60), kind, owner) end
  if name == "secret" then return false end
  if name == "bad" then return 3 end
end }
umpire.sequence { turns = 3, steps = { { id = "play", name = "Play" } } }
"#;
    let lib = mini_library(&[("main.lua", main)]);
    let mut s = mini_session(lib.path(), Limits::default());
    assert_eq!(s.execute("new mini --seed 1").status, Status::Ok);
    let hex = value(&mut s, "map.hexes()[1]").trim_matches('"').to_string();
    for m in [("spent", 90), ("secret", 1), ("plain", 2)] {
        let r = s.execute(&format!("lua map.set_marker(\"{hex}\", \"{}\", {})", m.0, m.1));
        assert_eq!(r.status, Status::Ok, "{r:?}");
    }
    let r = s.execute(&format!("show {hex}"));
    assert_eq!(r.status, Status::Ok, "{r:?}");
    let markers = r.out.iter().find(|l| l.starts_with("markers:")).cloned().unwrap_or_default();
    assert_eq!(markers, format!("markers: plain 2, 1.5 MP spent [X1] (hex {hex})"), "{r:?}");
    assert!(!r.out.iter().any(|l| l.contains("secret")), "{r:?}");
    assert_eq!(s.execute(&format!("lua map.set_marker(\"{hex}\", \"bad\", 1)")).status, Status::Ok);
    let before = s.hash();
    let r = s.execute(&format!("show {hex}"));
    let e = r.error().map(|e| e.to_string()).unwrap_or_default();
    assert!(e.contains("`marker` must return a text, false (hidden) or nil"), "{r:?}");
    assert_eq!(s.hash(), before, "show changes nothing");
}
