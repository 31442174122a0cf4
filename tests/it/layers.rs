//! The library's modules depend one way (docs/ARCHITECTURE.md, "Layers"): core data ← loading
//! ← Lua host ← game ← session ← script, repl, main. This test reads every file under src/
//! and fails when a module names one of a higher layer, or when the modules form a cycle.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Each top-level module of src/ and its layer (lower numbers are lower layers).
const LAYERS: &[(&str, usize)] = &[
    ("applog", 0),
    ("dice", 0),
    ("error", 0),
    ("hex", 0),
    ("map", 0),
    ("names", 0),
    ("search", 0),
    ("state", 0),
    ("text", 0),
    ("datafile", 1),
    ("library", 1),
    ("ruleset", 1),
    ("scenario", 1),
    ("lua", 2),
    ("game", 3),
    ("render", 3),
    ("save", 3),
    ("session", 4),
    ("repl", 5),
    ("journal", 5),
    ("script", 5),
    ("playout", 5),
    ("mutate", 5),
    ("main", 5),
    ("lib", 5),
];

const LAYER_NAMES: &[&str] = &["core data", "loading", "Lua host", "game", "session", "front ends"];

/// The top-level modules a source text names (`crate::x`, `crate::{x, y::z}`, `umpire::x`).
fn named_modules(src: &str, prefix: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (i, _) in src.match_indices(prefix) {
        // `foocrate::` is not `crate::`
        if src[..i].chars().next_back().is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let rest = &src[i + prefix.len()..];
        let group = rest.strip_prefix('{').map(|g| &g[..g.find('}').unwrap_or(g.len())]);
        let items: Vec<&str> = match group {
            Some(g) => g.split(',').collect(),
            None => vec![rest],
        };
        for item in items {
            let name: String = item.trim().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            if !name.is_empty() && name != "self" {
                out.insert(name);
            }
        }
    }
    out
}

fn module_of(file: &Path, src_dir: &Path) -> String {
    let rel = file.strip_prefix(src_dir).unwrap();
    let first = rel.components().next().unwrap().as_os_str().to_string_lossy().to_string();
    first.trim_end_matches(".rs").to_string()
}

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The module graph of src/: module -> (module it names -> a file that names it).
fn graph() -> BTreeMap<String, BTreeMap<String, String>> {
    let src_dir = super::repo().join("src");
    let mut files = Vec::new();
    rust_files(&src_dir, &mut files);
    files.sort();
    let mut g: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let m = module_of(f, &src_dir);
        let prefix = if m == "main" { "umpire::" } else { "crate::" };
        let shown = f.strip_prefix(super::repo()).unwrap().display().to_string();
        let entry = g.entry(m.clone()).or_default();
        for dep in named_modules(&text, prefix) {
            if dep != m && !["Error", "Result", "Session", "Reply", "Status"].contains(&dep.as_str()) {
                entry.entry(dep).or_insert_with(|| shown.clone());
            }
        }
    }
    g
}

#[test]
fn every_module_has_a_layer_and_depends_only_downwards() {
    let layer: BTreeMap<&str, usize> = LAYERS.iter().copied().collect();
    let mut problems = Vec::new();
    for (m, deps) in graph() {
        let Some(&lm) = layer.get(m.as_str()) else {
            problems.push(format!("src/{m}: no layer: add it to LAYERS here and to docs/ARCHITECTURE.md"));
            continue;
        };
        for (d, file) in deps {
            match layer.get(d.as_str()) {
                None => problems.push(format!("{file} names `{d}`, a module with no layer")),
                Some(&ld) if ld > lm => problems.push(format!(
                    "{file}: `{m}` ({}) uses `{d}` ({}), a higher layer",
                    LAYER_NAMES[lm], LAYER_NAMES[ld]
                )),
                _ => {}
            }
        }
    }
    assert!(problems.is_empty(), "the layers are broken:\n{}", problems.join("\n"));
}

#[test]
fn the_module_graph_has_no_cycle() {
    let g = graph();
    // depth-first search; a module met again while on the path closes a cycle
    fn visit(
        m: &str,
        g: &BTreeMap<String, BTreeMap<String, String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(i) = path.iter().position(|p| p == m) {
            let mut cycle = path[i..].to_vec();
            cycle.push(m.to_string());
            return Some(cycle);
        }
        if !done.insert(m.to_string()) {
            return None;
        }
        path.push(m.to_string());
        for d in g.get(m).map(|d| d.keys().cloned().collect::<Vec<_>>()).unwrap_or_default() {
            if let Some(c) = visit(&d, g, path, done) {
                return Some(c);
            }
        }
        path.pop();
        None
    }
    let mut done = BTreeSet::new();
    for m in g.keys() {
        if let Some(c) = visit(m, &g, &mut Vec::new(), &mut done) {
            panic!("the modules form a cycle: {}", c.join(" -> "));
        }
    }
}

#[test]
fn the_reader_of_module_names_sees_every_form() {
    let src = "use crate::hex::HexId;\nuse crate::{map::Map, state, self};\nlet x = crate::text::pick(a);\nnotcrate::x";
    let got: Vec<String> = named_modules(src, "crate::").into_iter().collect();
    assert_eq!(got, ["hex", "map", "state", "text"]);
}
