//! The compiled rule files of this process, by chunk name and source text: a `new`, `reload`
//! or `load` that reads a file it has compiled before (same name, same text, byte for byte)
//! loads the bytecode Lua made of it instead of parsing it again. The bytecode keeps its debug
//! information (chunk name, lines, local names), so messages and tracebacks are the same as
//! from the text. Only files that compiled are kept; a syntax error is always found afresh.

use mlua::chunk::ChunkMode;
use mlua::{Function, Lua};
use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

/// By chunk name, each version of its source with its bytecode.
type Cache = HashMap<String, Vec<(String, Vec<u8>)>>;

static CHUNKS: Mutex<Option<Cache>> = Mutex::new(None);

/// Most files kept (a designer editing one file adds an entry per version: the cache starts
/// afresh when full).
const MAX_CHUNKS: usize = 512;

/// The function of a file compiled before, loaded from its bytecode.
pub(super) fn cached(lua: &Lua, src: &str, chunk_name: &str) -> Option<Function> {
    let guard = CHUNKS.lock().unwrap_or_else(PoisonError::into_inner);
    let versions = guard.as_ref()?.get(chunk_name)?;
    let (_, bytes) = versions.iter().find(|(s, _)| s == src)?;
    lua.load(&bytes[..]).set_name(format!("@{chunk_name}")).set_mode(ChunkMode::Binary).into_function().ok()
}

/// Keeps the bytecode of a file that compiled.
pub(super) fn keep(f: &Function, src: &str, chunk_name: &str) {
    let bytes = f.dump(false);
    let mut guard = CHUNKS.lock().unwrap_or_else(PoisonError::into_inner);
    let cache = guard.get_or_insert_with(HashMap::new);
    if cache.values().map(Vec::len).sum::<usize>() >= MAX_CHUNKS {
        cache.clear();
    }
    cache.entry(chunk_name.to_string()).or_default().push((src.to_string(), bytes));
}
