//! `umpire check PATH`: validates a ruleset folder (every Lua file compiles, every scenario of
//! the game loads and starts) or a scenario file, without playing. Every problem is reported.
//! The library is found by walking up from the path, whatever the current folder.

use super::Game;
use crate::error::{Error, Result};
use crate::lua::HostConfig;
use crate::ruleset::{Ruleset, library_of, lua_files};
use std::path::{Path, PathBuf};

/// Checks a ruleset folder or a scenario file; the lines say what was checked. The error holds
/// every problem found, one per line.
/// `library` replaces the library found from the path.
pub fn check_path(p: &Path, library: Option<&Path>, cfg: HostConfig) -> Result<Vec<String>> {
    let mut ok = Vec::new();
    let mut problems: Vec<String> = Vec::new();
    if p.extension().is_some_and(|x| x == "lua") {
        return Err(Error::Usage(format!(
            "{}: a Lua file is checked with its ruleset: `umpire check` takes a ruleset folder (with ruleset.toml), a scenario .toml file or a script .ump",
            p.display()
        )));
    }
    // a game's name, as `play` takes it: its ruleset folder in the library
    let named = (!p.exists() && p.components().count() == 1)
        .then(|| {
            let root = library.map(Path::to_path_buf).unwrap_or_else(crate::ruleset::find_root);
            let games = crate::ruleset::games(&root);
            // (a unique prefix, as `play` takes it: `umpire check stargard`)
            match crate::text::pick(&p.to_string_lossy(), games.iter().map(String::as_str)) {
                crate::text::Pick::One(g) => root.join("rulesets").join(g),
                _ => root.join("rulesets").join(p),
            }
        })
        .filter(|d| d.join("ruleset.toml").is_file());
    if let Some(dir) = named {
        check_ruleset(&dir, library, cfg, &mut ok, &mut problems)?;
    } else if p.is_dir() && p.join("ruleset.toml").is_file() {
        check_ruleset(p, library, cfg, &mut ok, &mut problems)?;
    } else if p.is_file() && p.extension().is_some_and(|x| x == "toml") {
        let root = crate::ruleset::library_for(library, p);
        match Game::create(&root, &p.display().to_string(), 1, &[], "new", cfg, None) {
            Ok((g, _)) => ok.push(format!(
                "ok: scenario {} ({} units, {} hexes; library {})",
                g.scenario.id,
                g.state().units.len(),
                g.scenario.map.hexes.len(),
                crate::ruleset::shown(&g.ruleset.root)
            )),
            Err(e) => problems.push(e.to_string()),
        }
    } else {
        return Err(Error::NotFound(format!(
            "{}: not a game's name, a ruleset folder (with ruleset.toml), a scenario .toml file or a script .ump",
            p.display()
        )));
    }
    if problems.is_empty() { Ok(ok) } else { Err(Error::State(problems.join("\n"))) }
}

fn check_ruleset(
    p: &Path,
    library: Option<&Path>,
    cfg: HostConfig,
    ok: &mut Vec<String>,
    problems: &mut Vec<String>,
) -> Result<()> {
    let dir = p.canonicalize().map_err(|e| Error::io(p, e))?;
    // a ruleset folder outside any library (a variant copied to be edited) is checked against
    // the scenarios of the library found as `play` finds it, with its lib/ from beside it or
    // from that library; its game is its folder's name, or the game of the same name (a copy
    // named /tmp/sg-b of Stargard Solstice plays Stargard Solstice's scenarios)
    let root = library.map(Path::to_path_buf).or_else(|| library_of(&dir)).unwrap_or_else(crate::ruleset::find_root);
    let id = Ruleset::game_of(&dir, &root)
        .unwrap_or_else(|| dir.file_name().and_then(|s| s.to_str()).unwrap_or_default().to_string());
    let own = root.join("rulesets").join(&id).canonicalize().is_ok_and(|d| d == dir);
    let other = (!own).then_some(dir.as_path());
    let rs = match other {
        Some(d) => Ruleset::load_other(d, &root, &id)?,
        None => Ruleset::load(&root, &id)?,
    };
    // every Lua file compiles (a syntax error is reported here once, with its column)
    let lua = crate::lua::SyntaxChecker::default();
    let files = lua_files(&dir);
    let before = problems.len();
    for f in &files {
        let name = crate::lua::display_path(&root, f);
        // every file is read: one that is not UTF-8 is a problem of its own, not the end
        let src = match crate::text::utf8_text(std::fs::read(f).map_err(|e| Error::io(f, e))?) {
            Ok(s) => s,
            Err(at) => {
                problems.push(format!("{name}:{at}"));
                continue;
            }
        };
        if let Err(e) = lua.compile(&src, &name) {
            problems.push(e.to_string().trim_start_matches("rule error: ").to_string());
        }
    }
    let compiles = problems.len() == before;
    ok.push(format!(
        "ok: ruleset {} {} ({} Lua files{}; library {})",
        rs.name,
        rs.version,
        files.len(),
        if other.is_some() { format!(" in {}", p.display()) } else { String::new() },
        crate::ruleset::shown(&root)
    ));
    let default = root.join("scenarios").join(&id).join(format!("{}.toml", rs.default_scenario));
    if !default.is_file() {
        problems.push(format!(
            "{}: the default scenario '{}' does not exist ({})",
            crate::lua::display_path(&root, &dir.join("ruleset.toml")),
            rs.default_scenario,
            crate::ruleset::shown(&default)
        ));
    }
    // every scenario of this game loads and starts
    let sdir = root.join("scenarios").join(&id);
    let mut scen: Vec<PathBuf> = std::fs::read_dir(&sdir)
        .map(|rd| rd.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "toml")).collect())
        .unwrap_or_default();
    scen.sort();
    for s in scen {
        let shown = crate::lua::display_path(&root, &s);
        // rules that do not compile cannot start a game: the scenario's data is checked alone
        let r = if compiles {
            Game::create(&root, &s.display().to_string(), 1, &[], "new", cfg, other).map(|_| ())
        } else {
            crate::scenario::load(&s, &shown).map(|_| ())
        };
        match r {
            Ok(()) if compiles => ok.push(format!("ok: scenario {shown}")),
            Ok(()) => ok.push(format!("ok: scenario {shown} (its data; not started: the rules do not compile)")),
            // every problem once, though several scenarios report the same bad rule data
            Err(e) if problems.contains(&e.to_string()) => {}
            Err(e) => problems.push(e.to_string()),
        }
    }
    Ok(())
}
