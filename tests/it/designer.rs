//! The designer's loop: edit the rules, `reload`, keep the game; a broken edit keeps the old
//! rules and says where the error is. And determinism: the same commands give the same hash
//! after every command.

use umpire::session::{Session, Status};

#[test]
fn reload_keeps_the_game_and_reports_broken_rules() {
    let lib = tempfile::tempdir().unwrap();
    super::saves::copy_dir(&super::fixtures(), lib.path());
    let mut s = Session::with_root(lib.path());
    s.execute("new fixture --seed 3");
    s.execute("auto");
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
    let lib = tempfile::tempdir().unwrap();
    super::saves::copy_dir(&super::fixtures(), lib.path());
    let mut s = Session::with_root(lib.path());
    s.execute("new fixture --seed 3");
    s.execute("auto");
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
