//! The designer's loop: edit the rules, `reload`, keep the game; a broken edit keeps the old
//! rules and says where the error is. And determinism: the same commands give the same hash
//! after every command.

use umpire::session::{Session, Status};

/// A game on a copy of the fixture library (to edit its rule files), set-up answered.
fn copied_fixture_game() -> (tempfile::TempDir, Session) {
    let lib = tempfile::tempdir().unwrap();
    super::saves::copy_dir(&super::fixtures(), lib.path());
    let mut s = Session::with_root(lib.path());
    s.execute("new fixture --seed 3");
    s.execute("auto");
    (lib, s)
}

#[test]
fn reload_keeps_the_game_and_reports_broken_rules() {
    let (lib, mut s) = copied_fixture_game();
    assert_eq!(s.execute("move B1 0302").status, Status::Ok);
    let h = s.hash();
    let main = lib.path().join("rulesets/fixture/main.lua");
    let src = std::fs::read_to_string(&main).unwrap();

    // a good edit: the game is kept, the new rule applies at once
    std::fs::write(&main, src.replace("moves %s → %s for %s MP", "marches %s → %s for %s MP")).unwrap();
    let r = s.execute("reload");
    assert_eq!(r.status, Status::Ok, "{r:?}");
    assert!(r.out[0].contains("changed"), "{r:?}");
    assert_eq!(s.hash(), h, "reload changed the game");
    let r = s.execute("move B2 0303");
    assert!(r.out.iter().any(|l| l.contains("B2 marches")), "{r:?}");

    // a syntax error: reported with file:line, the previous rules stay loaded
    std::fs::write(&main, src.replace("local function mp_of(u)", "local function mp_of(u) )")).unwrap();
    let r = s.execute("reload");
    match &r.status {
        Status::Error(e) => {
            assert_eq!(e.kind(), "rule-error", "{e}");
            let m = e.to_string();
            assert!(m.contains("rulesets/fixture/main.lua:") && m.contains("previous rules stay"), "{e}")
        }
        other => panic!("{other:?}"),
    }
    let r = s.execute("undo");
    assert_eq!(r.status, Status::Ok);
    let r = s.execute("move B2 0303");
    assert!(r.out.iter().any(|l| l.contains("B2 marches")), "old rules lost: {r:?}");

    // a runtime error while loading: same
    std::fs::write(&main, format!("{src}\nlocal x = nil; x.y = 1\n")).unwrap();
    let r = s.execute("reload");
    assert!(matches!(&r.status, Status::Error(e) if e.to_string().contains("main.lua:")), "{r:?}");
    assert!(s.command_names().contains(&"move".to_string()));
}

#[test]
fn same_commands_same_hash_after_every_command() {
    let text = std::fs::read_to_string(super::fixtures().join("scripts/kernel.ump")).unwrap();
    let run = || {
        let mut s = Session::with_root(super::fixtures());
        s.scratch = Some(tempfile::tempdir().unwrap().keep());
        let mut hashes = Vec::new();
        for (_, l) in umpire::script::lines(&text) {
            s.execute(&l);
            hashes.push(s.hash());
        }
        hashes
    };
    let a = run();
    let b = run();
    assert_eq!(a, b);
    assert!(a.iter().flatten().count() > 20);
}

#[test]
fn a_failed_command_leaves_the_same_hash() {
    let mut s = super::fixture_game(4);
    s.execute("move B1 0303");
    for bad in [
        "move B1 0302",                                               // refused by a rule
        "move R1 0405",                                               // wrong side
        "move Q 0101",                                                // unknown unit
        "attack 0404 with B1",                                        // wrong phase
        "crash",                                                      // Lua error in the rules
        "lua units.get('B2'):move_to('0302'); error('late failure')", // changes, then fails
        "roll 1x6",
        "dice 0",
    ] {
        let before = s.hash();
        let r = s.execute(bad);
        assert!(matches!(r.status, Status::Error(_)), "{bad}: {r:?}");
        assert_eq!(s.hash(), before, "{bad} changed the state");
    }
    assert_eq!(s.execute("expect units.get('B2').hex == '0203'").status, Status::Check(true));
}

#[test]
fn the_svg_map_keeps_the_fog_of_war() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = super::fixture_game(2);
    let file = dir.path().join("m.svg");
    assert_eq!(s.execute(&format!("map --svg {}", file.display())).status, Status::Ok);
    let svg = std::fs::read_to_string(&file).unwrap();
    assert!(svg.contains("R2 (2nd Red Infantry)"), "the top counter is seen");
    assert!(!svg.contains("R1 (1st Red Infantry)"), "a unit under the top of an enemy stack is hidden");
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
}

/// Every function of the rules API is documented in docs/lua-api.md and has a stub in
/// docs/umpire.meta.lua (the API is listed from the running Lua state, so nothing drifts).
#[test]
fn every_api_function_is_documented() {
    let mut s = super::fixture_game(1);
    let r = s.execute(
        "= (function() local out = {} for _, lib in ipairs { 'umpire', 'units', 'map', 'dice', 'cups', 'tracks', 'sides', 'vars', 'log' } do for k, v in pairs(_G[lib]) do if type(v) == 'function' then out[#out+1] = lib .. '.' .. k end end end return table.concat(out, ' ') end)()",
    );
    let names: Vec<String> = r.out.last().expect("a list").split_whitespace().map(String::from).collect();
    assert!(names.len() > 50, "{names:?}");
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let api = std::fs::read_to_string(root.join("docs/lua-api.md")).unwrap();
    let meta = std::fs::read_to_string(root.join("docs/umpire.meta.lua")).unwrap();
    let missing: Vec<&String> =
        names.iter().filter(|n| !api.contains(&format!("`{n}")) || !meta.contains(&format!("function {n}("))).collect();
    assert!(missing.is_empty(), "undocumented API functions: {missing:?}");
}

/// Every field a profile may have (each key the Lua binding reads from a profile table, found
/// in src/lua/costs.rs and searches.rs) is in docs/lua-api.md §4.11's table and in the meta stubs'
/// Umpire.Profile.
#[test]
fn every_profile_field_is_documented() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let src =
        ["src/lua/costs.rs", "src/lua/searches.rs"].map(|f| std::fs::read_to_string(root.join(f)).unwrap()).join("\n");
    let api = std::fs::read_to_string(root.join("docs/lua-api.md")).unwrap();
    let meta = std::fs::read_to_string(root.join("docs/umpire.meta.lua")).unwrap();
    let section = api.split("### 4.11 Profiles and costs").nth(1).unwrap().split("\n### ").next().unwrap();
    let profile = meta.split("---@class Umpire.Profile").nth(1).unwrap().split("\n\n").next().unwrap();
    // `t.get("x")`, `t.get::<T>("x")` (t: the profile table) and reach's own `spec.get::<T>("x")`
    let mut fields = std::collections::BTreeSet::new();
    for (i, _) in src.match_indices(".get") {
        let before = &src[..i];
        let receiver: String =
            before.chars().rev().take_while(|c| c.is_alphanumeric() || *c == '_').collect::<String>();
        let after = &src[i + 4..];
        let after = if after.starts_with("::<") { &after[after.find(">(").map_or(0, |k| k + 1)..] } else { after };
        let Some(name) = after.strip_prefix("(\"").and_then(|a| a.split('"').next()) else { continue };
        // the enclosing function: reach reads a few fields itself; cost_of reads a cost table
        let in_fn = |f: &str| {
            before
                .lines()
                .rev()
                .find_map(|l| l.trim_start_matches("pub(super) ").strip_prefix("fn "))
                .is_some_and(|l| f.strip_prefix("fn ").is_some_and(|name| l.starts_with(name)))
        };
        if (receiver == "t" && !in_fn("fn cost_of(")) || (receiver == "ceps" && in_fn("fn reach(")) {
            fields.insert(name.to_string());
        }
    }
    for f in ["from", "mp", "terrain", "side_cost", "targets", "routes", "open", "unblocked"] {
        assert!(fields.contains(f), "the scan of the search profile misses {f}: {fields:?}");
    }
    let missing: Vec<&String> = fields
        .iter()
        .filter(|f| !section.contains(&format!("| `{f}` |")) || !profile.contains(&format!("---@field {f}?")))
        .collect();
    assert!(missing.is_empty(), "profile fields not documented in §4.11 and Umpire.Profile: {missing:?}");
}

#[test]
fn expect_error_checks_the_rule_and_kind_of_a_failure() {
    let mut s = super::fixture_game(11);
    assert_eq!(s.execute("move B1 0303").status, Status::Ok);
    // the refusal's rule, typed
    let r = s.execute("move B1 0302");
    assert_eq!(r.error().and_then(|e| e.rule()), Some("F5.1"), "{r:?}");
    assert_eq!(s.execute("expect-error --rule F5.1 move B1 0302").status, Status::Check(true));
    // another rule, another kind, or no failure: the check fails and says why
    let r = s.execute("expect-error --rule F6.1 move B1 0302");
    assert_eq!(r.status, Status::Check(false));
    assert!(r.out.iter().any(|l| l.contains("refused under F5.1, not F6.1")), "{r:?}");
    let r = s.execute("expect-error --kind usage move B1 0302");
    assert!(
        r.status == Status::Check(false) && r.out.iter().any(|l| l.contains("a refused error, not usage")),
        "{r:?}"
    );
    let r = s.execute("expect-error --rule F5.1 move B1");
    assert!(r.out.iter().any(|l| l.contains("not a refusal under F5.1 (a usage error)")), "{r:?}");
    // a kind that does not exist is a usage error of the check itself
    let r = s.execute("expect-error --kind nonsense move B1 0302");
    assert!(matches!(r.error(), Some(e) if e.kind() == "usage" && e.to_string().contains("kinds are")), "{r:?}");
}

#[test]
fn reload_starts_every_registration_afresh() {
    let (lib, mut s) = copied_fixture_game();
    // fog of war (fixture main.lua): one of Red's two units at 0404 is under the other
    let hidden = |s: &mut Session| {
        ["R1", "R2"].into_iter().filter(|u| s.execute(&format!("show {u}")).error().is_some()).count()
    };
    assert_eq!(hidden(&mut s), 1);
    let main = lib.path().join("rulesets/fixture/main.lua");
    let src = std::fs::read_to_string(&main).unwrap();
    assert!(src.contains("umpire.fog_of_war(true)"));
    // rules that no longer switch fog of war on: it is off after the reload
    std::fs::write(&main, src.replace("umpire.fog_of_war(true)", "")).unwrap();
    assert_eq!(s.execute("reload").status, Status::Ok);
    assert_eq!(hidden(&mut s), 0, "fog of war survived a reload of rules that do not set it");
    // rules that fail to load keep the registrations of the rules that stay loaded
    std::fs::write(&main, format!("{src}\nerror('broken')\n")).unwrap();
    assert!(s.execute("reload").error().is_some());
    assert_eq!(hidden(&mut s), 0);
    std::fs::write(&main, &src).unwrap();
    assert_eq!(s.execute("reload").status, Status::Ok);
    assert_eq!(hidden(&mut s), 1);
    assert!(s.command_names().contains(&"move".to_string()));
}

/// A copy of the repository's library (rulesets/ and scenarios/) to break files in.
pub fn repo_library() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for part in ["rulesets", "scenarios"] {
        super::saves::copy_dir(&super::repo().join(part), &dir.path().join(part));
    }
    dir
}

/// The 1-based line of `src` holding `text` (once).
pub fn line_of(src: &str, text: &str) -> usize {
    let lines: Vec<usize> = src.lines().enumerate().filter(|(_, l)| l.contains(text)).map(|(i, _)| i + 1).collect();
    assert_eq!(lines.len(), 1, "{text} on lines {lines:?}");
    lines[0]
}

/// Stargard's tables.lua with two bad entries (a CRT result the combat rules would misread as
/// D2, a terrain cost in words): the new text and the lines of the two entries.
pub fn break_tables(lib: &std::path::Path) -> (usize, usize) {
    let file = lib.join("rulesets/stargard-solstice/tables.lua");
    let src = std::fs::read_to_string(&file).unwrap();
    let bad = src.replacen("\"D2r3\", \"D2r3\" }, -- 6", "\"D2r3\", \"D2x3\" }, -- 6", 1).replacen(
        "forest = 2,",
        "forest = \"two\",",
        1,
    );
    assert_ne!(bad, src);
    std::fs::write(&file, &bad).unwrap();
    (line_of(&bad, "\"D2x3\""), line_of(&bad, "forest = \"two\""))
}

#[test]
fn bad_tables_stop_new_and_reload_with_their_lines_and_the_old_rules_stay() {
    let lib = repo_library();
    let mut s = Session::with_root(lib.path());
    assert_eq!(s.execute("new stargard-solstice --seed 7").status, Status::Ok);
    assert_eq!(s.execute("forward").status, Status::Ok);
    let h = s.hash();
    let (crt, forest) = break_tables(lib.path());
    let crt_at = format!("rulesets/stargard-solstice/tables.lua:{crt}:");
    let forest_at = format!("rulesets/stargard-solstice/tables.lua:{forest}:");

    // reload: both entries reported, each at its line; the rules that were loaded stay
    let r = s.execute("reload");
    let e = r.error().unwrap_or_else(|| panic!("reload accepted bad tables: {r:?}")).to_string();
    assert!(e.contains("previous rules stay"), "{e}");
    assert!(e.contains(&crt_at) && e.contains("crt[6][8]: \"D2x3\" is not a combat result"), "{e}");
    assert!(e.contains(&forest_at) && e.contains("terrain_cost.forest: \"two\" is not a number"), "{e}");
    assert_eq!(s.hash(), h, "a failed reload changed the game");
    assert_eq!(s.execute("expect require('tables').terrain_cost.forest == 2").status, Status::Check(true));
    assert_eq!(s.execute("expect require('tables').crt[6][8] == 'D2r3'").status, Status::Check(true));

    // new: the game does not start, and the one being played is kept
    let r = s.execute("new stargard-solstice --seed 7");
    let e = r.error().unwrap_or_else(|| panic!("a game started with bad tables: {r:?}"));
    assert_eq!(e.kind(), "data", "{e}");
    let e = e.to_string();
    assert!(e.contains(&crt_at) && e.contains(&forest_at), "{e}");
    assert_eq!(s.hash(), h);

    // fixed again: reload takes the tables
    std::fs::write(
        lib.path().join("rulesets/stargard-solstice/tables.lua"),
        std::fs::read_to_string(super::repo().join("rulesets/stargard-solstice/tables.lua")).unwrap(),
    )
    .unwrap();
    assert_eq!(s.execute("reload").status, Status::Ok);
}

#[test]
fn a_syntax_error_on_reload_names_file_line_and_column_once_without_a_traceback() {
    let (lib, mut s) = copied_fixture_game();
    let main = lib.path().join("rulesets/fixture/main.lua");
    let src = std::fs::read_to_string(&main).unwrap();
    let bad = src.replacen("local function mp_of(u)", "local function mp_of(u) )", 1);
    std::fs::write(&main, &bad).unwrap();
    let line = line_of(&bad, "local function mp_of(u) )");
    let col = bad.lines().nth(line - 1).unwrap().find(" )").unwrap() + 2;
    let r = s.execute("reload");
    let e = r.error().expect("reload accepted a syntax error").to_string();
    let place = format!("rulesets/fixture/main.lua:{line}:{col}: ");
    assert!(e.contains(&format!("{place}unexpected symbol near ')'")), "{e}");
    assert_eq!(e.matches("main.lua:").count(), 1, "{e}");
    assert!(!e.contains("stack traceback"), "{e}");
    assert!(s.command_names().contains(&"move".to_string()), "the old rules were dropped");
}

/// The `.luarc.json` LuaLS reads: valid JSON, Lua 5.4, and every library it names exists.
#[test]
fn the_luarc_json_points_lua_ls_at_the_api_stubs() {
    let root = super::repo();
    let text = std::fs::read_to_string(root.join(".luarc.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).expect(".luarc.json is not valid JSON");
    assert_eq!(v["runtime"]["version"], "Lua 5.4");
    let libs: Vec<&str> = v["workspace"]["library"].as_array().unwrap().iter().map(|x| x.as_str().unwrap()).collect();
    assert!(libs.contains(&"docs/umpire.meta.lua"), "{libs:?}");
    for l in &libs {
        assert!(root.join(l).exists(), ".luarc.json names {l}, which does not exist");
    }
    let globals: Vec<&str> =
        v["diagnostics"]["globals"].as_array().unwrap().iter().map(|x| x.as_str().unwrap()).collect();
    for g in ["umpire", "units", "map", "dice", "cups", "tracks", "sides", "vars", "log"] {
        assert!(globals.contains(&g), "{g} is not a known global in .luarc.json");
    }
    for disabled in ["io", "os", "debug", "package"] {
        assert_eq!(v["runtime"]["builtin"][disabled], "disable", "{disabled}");
    }
    // and the docs say how to use it
    let api = std::fs::read_to_string(root.join("docs/lua-api.md")).unwrap();
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    assert!(api.contains(".luarc.json") && api.contains("VS Code") && api.contains("Neovim"));
    assert!(readme.contains(".luarc.json"));
}

/// `umpire.validate` as the API gives it, without the schema helper: a plain string problem, a
/// problem at a key the file does not assign, a problem located in a constructor; all stop
/// `new`; a validator may only be registered while the rule files load.
#[test]
fn validators_report_every_problem_and_register_only_while_loading() {
    let (lib, mut s) = copied_fixture_game();
    assert_eq!(s.execute("expect pcall(umpire.validate, function() end) == false").status, Status::Check(true));
    let main = lib.path().join("rulesets/fixture/main.lua");
    let src = std::fs::read_to_string(&main).unwrap();
    let code = "local DATA = {\n  tcosts = { clear = 1, forest = 'x' },\n}\numpire.validate(function()\n  return { 'plain problem', { file = 'main', path = { 'nowhere' }, msg = 'not here' },\n    { file = 'main', path = { 'tcosts', 'forest' }, msg = DATA.tcosts.forest .. ' is not a cost' } }\nend)\n";
    let at = src.rfind("return M").expect("main.lua returns M");
    let bad = format!("{}{code}{}", &src[..at], &src[at..]);
    std::fs::write(&main, &bad).unwrap();
    let forest = line_of(&bad, "tcosts = {");
    let r = s.execute("new fixture --seed 3");
    let e = r.error().expect("a game started with problems").to_string();
    assert!(e.contains("rulesets/fixture: plain problem"), "{e}");
    assert!(e.contains("rulesets/fixture/main.lua: nowhere: not here"), "{e}");
    assert!(e.contains(&format!("rulesets/fixture/main.lua:{forest}:25: tcosts.forest: x is not a cost")), "{e}");
}
