//! `cargo bench --bench umpire`: the speed of umpire on the full Stargard Solstice map
//! (48×30 = 1,440 hexes, 137 units on the map on turn 1), in release mode, through the public
//! command API only (`Session::execute`). Every position is a real one: the set-up and the
//! start of turn 1 of `scripts/stargard-solstice/turn1.ump`, replayed from the script itself.
//! See docs/performance.md for the figures and the targets.
//!
//! Bench ids:
//! * `new/cold` — `new stargard-solstice --seed 7` in a fresh session (rule files and scenario
//!   read, compiled and set up to the first decision);
//! * `movement/map_reach_overlay` — `map reach HvS/11SS`, what a player types to see a move;
//! * `movement/move` — `move HvS/11SS 24.11` (undone outside the timing);
//! * `movement/profile` — building the ruleset's movement profile (movement.profile) in `=`;
//! * `movement/profile+map.reach` — the same and the `map.reach` search itself;
//! * `look/baseline` — `= 1`, the fixed cost of any look-only command;
//! * `supply/setup` — the EZOC, occupied hexes, targets and sources of the German side;
//! * `supply/rust` — the supply check of every German unit, as the Supply Phase does it
//!   (`supply.check`, i.e. `map.reach` from each source group);
//! * `supply/plain_lua` — the same check with the trace written as a Dijkstra in plain Lua
//!   over `map.neighbours`, `map.hexside` and `map.terrain` (checked equal to the Rust trace
//!   before timing; the ratio is printed);
//! * `combat/odds` — `odds 24.10 with HvS/11SS` (6 die sequences);
//! * `combat/odds_hq_relocation` — the slowest `odds` of the scripts: hq.ump line 80,
//!   `odds 21.20 with 4Pz/4SS,8/4SS`, where most results relocate an HQ (12.2.2);
//! * `combat/attack_to_question` — `attack 24.10 with HvS/11SS` with a forced die of 3, up to its
//!   first question (9.2.1 retreat hex); `cancel` outside the timing;
//! * `campaign/replay` — `scripts/stargard-solstice/campaign.ump`, the whole ten-turn game,
//!   with its throughput in commands (the script's own and those `forward` plays).

use criterion::{BatchSize, Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use umpire::{Reply, Session, Status};

// (the program's own allocator, src/main.rs: what is measured is what users run)
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod common;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn script(name: &str) -> Vec<String> {
    let p = root().join("scripts/stargard-solstice").join(name);
    let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    common::script_commands(&text).into_iter().map(|(_, l)| l).collect()
}

/// Runs a command that must succeed (a check must pass).
fn run(s: &mut Session, line: &str) -> Reply {
    let r = s.execute(line);
    match &r.status {
        Status::Error(e) => panic!("`{line}` failed: {e}\n{}", r.out.join("\n")),
        Status::Check(false) => panic!("check failed: `{line}`\n{}", r.out.join("\n")),
        _ => r,
    }
}

fn session() -> Session {
    Session::with_root(root())
}

/// The game's hash (the `hash` command).
fn hash(s: &mut Session) -> String {
    run(s, "hash").out.join("\n")
}

/// Turn 1, German movement (3SS-PZ-HQ activated): turn1.ump replayed up to and including its
/// `forward step movement`, its checks included.
fn turn1_movement() -> Session {
    let mut s = session();
    for line in script("turn1.ump") {
        run(&mut s, &line);
        if line == "forward step movement" {
            return s;
        }
    }
    panic!("turn1.ump has no `forward step movement`");
}

/// A script replayed up to (not including) its line `line` (1-based, as an editor counts).
fn script_prefix(name: &str, line: usize) -> Session {
    let p = root().join("scripts/stargard-solstice").join(name);
    let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    let mut s = session();
    for (_, cmd) in common::script_commands(&text).into_iter().take_while(|(n, _)| *n < line) {
        run(&mut s, &cmd);
    }
    s
}

/// Turn 1, German combat: HvS/11SS next to 212/80 in 24.10 (the README's session).
fn turn1_combat() -> Session {
    let mut s = turn1_movement();
    run(&mut s, "move HvS/11SS 24.11");
    run(&mut s, "next");
    run(&mut s, "expect umpire.clock().step == 'combat'");
    s
}

/// Times `n` runs of `line` alone: after each, `check` looks at the reply and `restore` (not
/// timed) puts the game back.
fn timed_then_restore(s: &mut Session, n: u64, line: &str, check: impl Fn(&Reply) -> bool, restore: &str) -> Duration {
    let mut total = Duration::ZERO;
    for _ in 0..n {
        let t = Instant::now();
        let r = s.execute(line);
        total += t.elapsed();
        assert!(check(&r), "`{line}` did not answer as expected: {r:?}");
        run(s, restore);
    }
    total
}

fn bench_new(c: &mut Criterion) {
    let mut g = c.benchmark_group("new");
    g.sample_size(20);
    g.bench_function("cold", |b| {
        b.iter_batched(
            session,
            |mut s| {
                let r = s.execute("new stargard-solstice --seed 7");
                assert_eq!(r.status, Status::Ok, "{r:?}");
                s
            },
            BatchSize::PerIteration,
        )
    });
    g.finish();
}

const REACH_PROFILE: &str = "local M, C = require('movement'), require('common') \
     local u = units.get('HvS/11SS') \
     local p = M.profile(u.side, u.hex, M.allowance(u), { overrun = C.attack(u) > 0 })";

fn bench_movement(c: &mut Criterion) {
    let mut s = turn1_movement();
    let mut g = c.benchmark_group("movement");
    let overlay = run(&mut s, "map reach HvS/11SS");
    assert!(overlay.out.iter().any(|l| l.contains("HvS/11")), "{overlay:?}");
    g.bench_function("map_reach_overlay", |b| b.iter(|| black_box(s.execute("map reach HvS/11SS"))));

    let before = hash(&mut s);
    g.bench_function("move", |b| {
        b.iter_custom(|n| timed_then_restore(&mut s, n, "move HvS/11SS 24.11", |r| r.status == Status::Ok, "undo"))
    });
    assert_eq!(hash(&mut s), before, "move + undo changed the game");

    let profile = format!("= (function() {REACH_PROFILE} return #p.blocked end)()");
    let reach = format!(
        "= (function() {REACH_PROFILE} local c = map.reach(p) local n = 0 for _ in pairs(c) do n = n + 1 end return n end)()"
    );
    let n = run(&mut s, &reach);
    let hexes: usize = n.out.join("").trim().parse().unwrap_or_else(|_| panic!("{n:?}"));
    assert!(hexes > 20, "HvS/11SS reaches only {hexes} hexes");
    eprintln!("movement: HvS/11SS reaches {hexes} hexes");
    g.bench_function("profile", |b| b.iter(|| black_box(run(&mut s, &profile))));
    g.bench_function("profile+map.reach", |b| b.iter(|| black_box(run(&mut s, &reach))));
    g.finish();

    let mut g = c.benchmark_group("look");
    g.bench_function("baseline", |b| b.iter(|| black_box(run(&mut s, "= 1"))));
    g.finish();
}

/// Lua shared by the supply benches: the Rust trace as the Supply Phase runs it (supply.check),
/// the same check with a plain-Lua Dijkstra, and their comparison.
const SUPPLY_LUA: &str = r#"
local S, C, T = require("supply"), require("common"), require("tables")
local side = "German"

-- the known hexes, as supply.check builds them once per phase
local function known_of(st)
  return { ezoc = C.ezoc(side, st), own = C.occupied(side), enemy = C.occupied(C.enemy(side)) }
end

-- supply.lua's festung_below (12.3), which is local there
local function festung(u, st)
  if u:attr("festung") then return true end
  if u.side ~= "German" then return false end
  for _, x in ipairs(st[u.hex] or {}) do
    if x.id == u.id then return false end
    if x:attr("festung") then return true end
  end
  return false
end

-- every unit of the side, through supply.check (map.reach in Rust, once per source group)
local function rust_supply()
  local cache, ins = {}, {}
  for _, u in ipairs(units.all { side = side, on_map = true }) do
    if not C.is_air(u) and S.check(u, cache) then ins[#ins + 1] = u.id end
  end
  local traces = {}
  for k, v in pairs(cache) do
    local area = k:match("^" .. side .. ":(supply_[%a_]+)$")
    if area then traces[area] = v end
  end
  return ins, traces
end

-- supply.trace's profile (11.1), as a Dijkstra in plain Lua over map.* calls
local TERRAIN = { clear = 1, town = 1, city = 1, forest = "no", swamp = "no", lake = "no", restrictive = "no" }
local PATHS = { rollbahn = 1, road = 1, trail = 1, railroad = 1 }
local SIDE_NO = { major_river = true, impassable = true }
local function lua_trace(sources, known, targets)
  local blocked = {}
  for h in pairs(known.enemy) do blocked[h] = true end
  for h in pairs(known.ezoc) do if not known.own[h] then blocked[h] = true end end
  local function step(a, b)
    if blocked[b] then return nil end
    local feats = map.hexside(a, b)
    local cancelled = {}
    for _, f in ipairs(feats) do
      local c = T.cancels[f]
      if c then for _, x in ipairs(c) do cancelled[x] = true end end
    end
    local path
    for _, f in ipairs(feats) do
      if SIDE_NO[f] and not cancelled[f] then return nil end
      local pc = PATHS[f]
      if pc and (not path or pc < path) then path = pc end
    end
    if path then return path end
    if known.own[b] then return 1 end                -- open: through friendly units
    local t = map.terrain(b)
    local c = TERRAIN[t]
    if c == nil then error("terrain " .. t .. " has no cost") end
    if c == "no" then return nil end
    return c
  end
  -- binary heap of {cost, hex}
  local heap, n = {}, 0
  local function push(c, h)
    n = n + 1
    local i = n
    heap[i] = { c, h }
    while i > 1 do
      local p = i // 2
      if heap[p][1] <= heap[i][1] then break end
      heap[p], heap[i] = heap[i], heap[p]
      i = p
    end
  end
  local function pop()
    local top = heap[1]
    heap[1] = heap[n]
    heap[n] = nil
    n = n - 1
    local i = 1
    while true do
      local l, r, m = 2 * i, 2 * i + 1, i
      if l <= n and heap[l][1] < heap[m][1] then m = l end
      if r <= n and heap[r][1] < heap[m][1] then m = r end
      if m == i then break end
      heap[m], heap[i] = heap[i], heap[m]
      i = m
    end
    return top[1], top[2]
  end
  local dist = {}
  for _, s in ipairs(sources) do
    if dist[s] == nil then dist[s] = 0; push(0, s) end
  end
  while n > 0 do
    local c, h = pop()
    if c <= dist[h] then
      for _, nb in ipairs(map.neighbours(h)) do
        local sc = step(h, nb)
        if sc then
          local nc = c + sc
          local d = dist[nb]
          if d == nil or nc < d then dist[nb] = nc; push(nc, nb) end
        end
      end
    end
  end
  local out = {}
  for _, t in ipairs(targets) do out[t] = dist[t] end
  return out
end

local function lua_supply()
  local st = units.stacks()
  local known = known_of(st)
  local targets = {}
  for h in pairs(known.own) do targets[#targets + 1] = h end
  local traces, ins = {}, {}
  for _, u in ipairs(units.all { side = side, on_map = true }) do
    if not C.is_air(u) then
      local ok = festung(u, st)
      if not ok then
        local area = C.source_area(u)
        traces[area] = traces[area] or lua_trace(C.sources(u), known, targets)
        ok = traces[area][u.hex] ~= nil
      end
      if ok then ins[#ins + 1] = u.id end
    end
  end
  return ins, traces
end

-- what rust_supply does besides the traces (supply.check's bookkeeping): the stacks, the
-- known hexes, the targets, the festung test and the sources of each source group
local function setup_only()
  local st = units.stacks()
  local known = known_of(st)
  local targets = {}
  for h in pairs(known.own) do targets[#targets + 1] = h end
  local groups, n = {}, 0
  for _, u in ipairs(units.all { side = side, on_map = true }) do
    if not C.is_air(u) and not festung(u, st) then
      local area = C.source_area(u)
      groups[area] = groups[area] or C.sources(u)
      n = n + 1
    end
  end
  return n + #targets
end

-- `k` traces from the German sources, the known hexes worked out once: the trace alone
local function traces_only(k, plain)
  local known = known_of(units.stacks())
  local targets = {}
  for h in pairs(known.own) do targets[#targets + 1] = h end
  local sources = map.area("supply_german")
  local r
  for _ = 1, k do
    if plain then r = lua_trace(sources, known, targets) else r = S.trace(side, sources, false, known, targets) end
  end
  return r and 1 or 0
end

local function compare()
  local ri, rt = rust_supply()
  local li, lt = lua_supply()
  local a, b = table.concat(ri, ","), table.concat(li, ",")
  if a ~= b then return "DIFFERENT units in supply: rust " .. a .. " / lua " .. b end
  local groups, hexes = 0, 0
  for area, r in pairs(rt) do
    local l = lt[area]
    if not l then return "DIFFERENT: no plain-Lua trace for " .. area end
    groups = groups + 1
    for h, c in pairs(r) do
      hexes = hexes + 1
      if l[h] ~= c then return ("DIFFERENT cost at %s from %s: rust %s, lua %s"):format(h, area, c, tostring(l[h])) end
    end
    for h, c in pairs(l) do
      if r[h] ~= c then return ("DIFFERENT cost at %s from %s: lua %s, rust %s"):format(h, area, c, tostring(r[h])) end
    end
  end
  for area in pairs(lt) do if not rt[area] then return "DIFFERENT: no Rust trace for " .. area end end
  local units_on = 0
  for _, u in ipairs(units.all { side = side, on_map = true }) do if not C.is_air(u) then units_on = units_on + 1 end end
  return ("equal: %d of %d units in supply, %d source groups, %d target costs"):format(#ri, units_on, groups, hexes)
end
"#;

fn supply_cmd(call: &str) -> String {
    format!("= (function() {SUPPLY_LUA} {call} end)()")
}

/// The median time of each line, the lines run in turn `rounds` times (so that a change in
/// the machine's load affects them all alike).
fn medians_ms(s: &mut Session, lines: &[String], rounds: usize) -> Vec<f64> {
    let mut times = vec![Vec::new(); lines.len()];
    for _ in 0..rounds {
        for (line, t) in lines.iter().zip(&mut times) {
            let start = Instant::now();
            run(s, line);
            t.push(start.elapsed().as_secs_f64() * 1000.0);
        }
    }
    times
        .into_iter()
        .map(|mut v| {
            v.sort_by(f64::total_cmp);
            v[v.len() / 2]
        })
        .collect()
}

fn bench_supply(c: &mut Criterion) {
    let mut s = turn1_movement();
    // both compute the same thing, or nothing is measured
    let cmp = run(&mut s, &supply_cmd("return compare()"));
    let verdict = cmp.out.join("\n");
    assert!(verdict.starts_with("equal"), "the plain-Lua supply trace differs from the Rust one: {verdict}");
    eprintln!("supply (German): {verdict}");
    let setup = supply_cmd("return setup_only()");
    let rust = supply_cmd("return #(rust_supply())");
    let lua = supply_cmd("return #(lua_supply())");
    let mut g = c.benchmark_group("supply");
    g.bench_function("setup", |b| b.iter(|| black_box(run(&mut s, &setup))));
    g.bench_function("rust", |b| b.iter(|| black_box(run(&mut s, &rust))));
    g.sample_size(20);
    g.bench_function("plain_lua", |b| b.iter(|| black_box(run(&mut s, &lua))));
    g.finish();
    // the ratios, from medians measured here, the commands interleaved (criterion's own
    // estimates are in its report)
    let m = medians_ms(&mut s, &[rust.clone(), lua.clone()], 15);
    eprintln!(
        "supply ratio, whole check of the side: plain Lua / Rust = {:.2} / {:.2} ms = {:.1}x",
        m[1],
        m[0],
        m[1] / m[0]
    );
    // one trace alone: (10 traces - none) / 10, the known hexes computed once
    let k = |n: u32, plain: bool| supply_cmd(&format!("return traces_only({n}, {plain})"));
    let m = medians_ms(&mut s, &[k(0, false), k(10, false), k(0, true), k(10, true)], 31);
    let (tr, tl) = ((m[1] - m[0]) / 10.0, (m[3] - m[2]) / 10.0);
    eprintln!(
        "supply ratio, one trace from supply_german: plain Lua / Rust = {tl:.3} / {tr:.3} ms = {:.1}x",
        tl / tr.max(1e-6)
    );
}

fn bench_combat(c: &mut Criterion) {
    let mut s = turn1_combat();
    let odds = run(&mut s, "odds 24.10 with HvS/11SS");
    assert!(odds.out.iter().any(|l| l.contains("final column 2:1")), "{odds:?}");
    let mut g = c.benchmark_group("combat");
    g.bench_function("odds", |b| b.iter(|| black_box(run(&mut s, "odds 24.10 with HvS/11SS"))));

    // the forced die stays queued after `cancel`, so every attack asks the same question
    run(&mut s, "dice 3");
    let before = hash(&mut s);
    g.bench_function("attack_to_question", |b| {
        let asks = |r: &Reply| r.status == Status::Ok && r.out.iter().any(|l| l.contains("retreat to which hex"));
        b.iter_custom(|n| timed_then_restore(&mut s, n, "attack 24.10 with HvS/11SS", asks, "cancel"))
    });
    g.finish();
    assert_eq!(hash(&mut s), before, "attack + cancel changed the game");

    // the slowest `odds` of the scripts (docs/performance.md): hq.ump line 80, where every
    // D1 eliminates the stack and relocates its HQ (12.2.1, 12.2.2)
    let mut s = script_prefix("hq.ump", 80);
    let line = "odds 21.20 with 4Pz/4SS,8/4SS";
    let odds = run(&mut s, line);
    assert!(odds.out.iter().any(|l| l.contains("ratio 11:2, column 5:1")), "{odds:?}");
    let mut g = c.benchmark_group("combat");
    g.sample_size(30);
    g.bench_function("odds_hq_relocation", |b| b.iter(|| black_box(run(&mut s, line))));
    g.finish();
}

/// Replays a whole script in a fresh session; returns the number of commands executed
/// (the script's own and those `forward` shows it played: its `> ` lines).
fn replay(lines: &[String], root: &Path) -> usize {
    let mut s = Session::with_root(root);
    let mut n = 0;
    for line in lines {
        let r = s.execute(line);
        assert!(!matches!(r.status, Status::Error(_) | Status::Check(false)), "{line}: {r:?}");
        n += 1 + r.out.iter().filter(|l| l.starts_with("> ")).count();
    }
    n
}

fn bench_campaign(c: &mut Criterion) {
    let lines = script("campaign.ump");
    let root = root();
    let n = replay(&lines, &root);
    eprintln!("campaign.ump: {} script lines, {n} commands in all", lines.len());
    let mut g = c.benchmark_group("campaign");
    g.sample_size(10);
    g.sampling_mode(SamplingMode::Flat);
    g.throughput(Throughput::Elements(n as u64));
    g.bench_function("replay", |b| b.iter(|| black_box(replay(&lines, &root))));
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));
    targets = bench_new, bench_movement, bench_supply, bench_combat, bench_campaign
}
criterion_main!(benches);
