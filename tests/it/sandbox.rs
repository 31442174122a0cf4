//! The Lua sandbox: no io/os/debug/loadfile, no binary chunks, `require` confined to the
//! ruleset and rulesets/lib, and runaway or hostile code stopped with file:line.

use std::time::{Duration, Instant};
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
fn runaway_loop_is_stopped_within_two_seconds() {
    let mut s = super::fixture_game(1);
    let before = s.hash();
    let t = Instant::now();
    let r = s.execute("lua while true do end");
    let took = t.elapsed();
    let e = error_of(&r);
    assert!(e.contains("instruction limit"), "{e}");
    assert!(e.contains("lua:1"), "no file:line in {e}");
    assert!(took < Duration::from_secs(2), "took {took:?}");
    assert_eq!(s.hash(), before);
}

#[test]
fn memory_bomb_is_stopped() {
    let mut s = super::fixture_game(1);
    let before = s.hash();
    let t = Instant::now();
    let r = s.execute("lua local t = {} for i = 1, 1e9 do t[i] = string.rep('x', 4096) .. i end");
    let e = error_of(&r);
    assert!(e.contains("memory") || e.contains("instruction limit"), "{e}");
    assert!(e.contains("lua:1"), "no file:line in {e}");
    assert!(t.elapsed() < Duration::from_secs(5), "took {:?}", t.elapsed());
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
