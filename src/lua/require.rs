//! `require`: modules found only inside the ruleset's folder and `rulesets/lib/`, text only,
//! each loaded once in a coroutine of its own (so a memory error names its place).

use super::*;
use crate::ruleset::Ruleset;
use mlua::{Function, Lua, Table, Value};
use std::path::{Path, PathBuf};

/// `require`: only inside the ruleset folder and rulesets/lib, text only, cached; returns the
/// table of loaded modules.
pub(super) fn install_require(lua: &Lua, ruleset: &Ruleset) -> mlua::Result<Table> {
    let g = lua.globals();
    let loaded = lua.create_table()?;
    let dirs: Vec<PathBuf> = vec![ruleset.dir.clone(), ruleset.root.join("rulesets").join("lib")];
    let root = ruleset.root.clone();
    let modules = loaded.clone();
    g.set(
        "require",
        lua.create_function(move |lua, name: String| {
            if let Some(v) = loaded.get::<Option<Value>>(name.as_str())? {
                return Ok(v);
            }
            // a refusal names the line that required
            let refused = |m: String| mlua::Error::runtime(format!("{}{m}", seal::rule_place(lua)));
            let (file, real) = resolve_module(&dirs, &root, &name).map_err(refused)?;
            let chunk_name = display_path(&root, &file);
            let bytes = std::fs::read(&real).map_err(|e| refused(format!("require '{name}': {chunk_name}: {e}")))?;
            // (a byte that is not UTF-8, as a file saved as Latin-1 has: named by its place)
            let src = crate::text::utf8_text(bytes).map_err(|at| mlua::Error::runtime(format!("{chunk_name}:{at}")))?;
            let chunk = compile(lua, &src, &chunk_name)?;
            let v = load_module(lua, chunk, &name)?;
            let v = if v.is_nil() { Value::Boolean(true) } else { v };
            // a module first required during play is sealed at once, as the others were
            // when the rule files had loaded
            if !world(lua).borrow().loading {
                let internal: Table = lua.globals().get("__umpire")?;
                if let Some(seal) = internal.get::<Option<Function>>("seal_module")? {
                    seal.call::<()>((name.as_str(), &v))?;
                }
            }
            loaded.set(name.as_str(), v.clone())?;
            Ok(v)
        })?,
    )?;
    Ok(modules)
}

/// Runs a module's chunk (with its name as `...`) in a coroutine of its own, so that its frames
/// outlive an error: a memory error, which Lua reports without a place, is told where the module
/// was; any other error keeps the frames of the module and then those of the code that required
/// it, as one traceback.
pub(super) fn load_module(lua: &Lua, chunk: Function, name: &str) -> mlua::Result<Value> {
    let co = lua.create_thread(chunk)?;
    match co.resume::<Value>(name) {
        Ok(_) if co.status() == mlua::thread::ThreadStatus::Resumable => Err(mlua::Error::runtime(format!(
            "{}require '{name}': a module may not yield while it loads",
            seal::rule_place(lua)
        ))),
        Ok(v) => Ok(v),
        Err(e) if is_memory_error(&e) => match dead_thread_place(&co) {
            Some(place) => Err(mlua::Error::runtime(format!("{place}: {}", clean_message(&e)))),
            None => Err(e),
        },
        Err(mlua::Error::RuntimeError(m)) if m.contains("stack traceback:") => {
            let outer = lua.traceback(None, 1)?.to_string_lossy();
            let frames = outer.split_once('\n').map_or("", |(_, f)| f);
            Err(mlua::Error::runtime(format!("{m}\n\t[C]: in function 'require'\n{frames}")))
        }
        Err(e) => Err(e),
    }
}

/// Finds `name` (dots are folders) in `dirs`, refusing anything that could leave them: the
/// file's real path (links followed) must lie inside the real path of one of them. Returns the
/// file as found (for its chunk name) and its real path (to read).
pub(super) fn resolve_module(dirs: &[PathBuf], root: &Path, name: &str) -> Result<(PathBuf, PathBuf), String> {
    let ok = !name.is_empty()
        && name
            .split('.')
            .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'));
    if !ok {
        return Err(format!(
            "require '{name}': module names are dotted words (a.b.c) resolved inside the ruleset and rulesets/lib only"
        ));
    }
    let rel = format!("{}.lua", name.replace('.', "/"));
    for d in dirs {
        let p = d.join(&rel);
        if p.is_file() {
            let inside = |real: &Path| dirs.iter().filter_map(|d| d.canonicalize().ok()).any(|d| real.starts_with(d));
            return match p.canonicalize() {
                Ok(real) if inside(&real) => Ok((p, real)),
                _ => Err(format!(
                    "require '{name}': {} leads outside the ruleset folder and rulesets/lib (a link?): refused",
                    display_path(root, &p)
                )),
            };
        }
    }
    Err(format!("require '{name}': no {rel} in the ruleset folder or rulesets/lib"))
}

/// A path relative to the library root, for chunk names (`rulesets/x/main.lua`).
pub fn display_path(root: &Path, file: &Path) -> String {
    file.strip_prefix(root).unwrap_or(file).display().to_string()
}
