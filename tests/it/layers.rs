//! The library's modules depend one way (docs/ARCHITECTURE.md, "Layers"): core data ← loading
//! ← Lua host ← game ← session ← script, repl, board, main. This test reads every file under src/
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
    ("contract", 1),
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
    ("board", 5),
    ("journal", 5),
    ("script", 5),
    ("playout", 5),
    ("mutate", 5),
    ("main", 5),
    ("lib", 5),
];

const LAYER_NAMES: &[&str] = &["core data", "loading", "Lua host", "game", "session", "front ends"];

/// The top-level modules a source text names (`crate::x`, `crate::{x, y::{z, w}}`, `umpire::x`).
fn named_modules(src: &str, prefix: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (i, _) in src.match_indices(prefix) {
        // `foocrate::` is not `crate::`
        if src[..i].chars().next_back().is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let rest = &src[i + prefix.len()..];
        let items = match rest.strip_prefix('{') {
            Some(g) => top_level_items(g),
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

/// The items of a `use` group (the text after its `{`), split at its own commas: a nested
/// group (`a::{b, c}`) is one item.
fn top_level_items(group: &str) -> Vec<&str> {
    let (mut depth, mut start, mut items) = (0usize, 0usize, Vec::new());
    for (i, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => {
                items.push(&group[start..i]);
                return items;
            }
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&group[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(&group[start..]);
    items
}

/// External crates that belong to one part of the program, and the top-level modules of src/
/// that may name them: Lua only in the Lua host, the terminal and the command line only in the
/// front ends.
const CRATES: &[(&str, &[&str])] = &[
    ("mlua", &["lua"]),
    ("rustyline", &["repl", "main"]),
    ("clap", &["main"]),
    ("anyhow", &["main"]),
    ("ctrlc", &["main"]),
    ("tracing_subscriber", &["main"]),
    ("mimalloc", &["main"]),
    ("full_moon", &["mutate"]),
    ("include_dir", &["library"]),
];

fn module_of(file: &Path, src_dir: &Path) -> String {
    let rel = file.strip_prefix(src_dir).unwrap();
    let first = rel.components().next().unwrap().as_os_str().to_string_lossy().to_string();
    first.trim_end_matches(".rs").to_string()
}

pub(crate) fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
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

/// A cycle of `g` (each name and the names it uses), as the path that closes it.
fn find_cycle(g: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    // depth-first search; a name met again while on the path closes a cycle
    fn visit(
        m: &str,
        g: &BTreeMap<String, BTreeSet<String>>,
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
        for d in g.get(m).into_iter().flatten() {
            if let Some(c) = visit(d, g, path, done) {
                return Some(c);
            }
        }
        path.pop();
        None
    }
    let mut done = BTreeSet::new();
    g.keys().find_map(|m| visit(m, g, &mut Vec::new(), &mut done))
}

#[test]
fn the_module_graph_has_no_cycle() {
    let g = graph().into_iter().map(|(m, deps)| (m, deps.into_keys().collect())).collect();
    if let Some(c) = find_cycle(&g) {
        panic!("the modules form a cycle: {}", c.join(" -> "));
    }
}

#[test]
fn the_reader_of_module_names_sees_every_form() {
    let src = "use crate::hex::HexId;\nuse crate::{map::Map, state, self};\nlet x = crate::text::pick(a);\nnotcrate::x";
    let got: Vec<String> = named_modules(src, "crate::").into_iter().collect();
    assert_eq!(got, ["hex", "map", "state", "text"]);
}

#[test]
fn external_crates_stay_in_their_layer() {
    let src_dir = super::repo().join("src");
    let mut files = Vec::new();
    rust_files(&src_dir, &mut files);
    files.sort();
    let mut problems = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let m = module_of(f, &src_dir);
        for (krate, allowed) in CRATES {
            let named = text.match_indices(&format!("{krate}::")).any(|(i, _)| {
                !text[..i].chars().next_back().is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':')
            });
            if named && !allowed.contains(&m.as_str()) {
                let shown = f.strip_prefix(super::repo()).unwrap().display();
                problems.push(format!("{shown} names `{krate}`, which belongs to src/{} only", allowed.join(", src/")));
            }
        }
    }
    assert!(problems.is_empty(), "crates outside their layer:\n{}", problems.join("\n"));
}

/// The files of each folder of src/ and the sibling files each names (`super::x`,
/// `use super::{x, y}`, `crate::<folder>::x`): a folder's parent module (mod.rs) is left out,
/// since its children use what it declares.
fn folder_graphs() -> BTreeMap<String, BTreeMap<String, BTreeSet<String>>> {
    let src_dir = super::repo().join("src");
    let mut files = Vec::new();
    rust_files(&src_dir, &mut files);
    files.sort();
    let mut out: BTreeMap<String, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for f in &files {
        let rel = f.strip_prefix(&src_dir).unwrap();
        let (Some(dir), Some(stem)) = (rel.parent(), f.file_stem().and_then(|s| s.to_str())) else { continue };
        if dir.as_os_str().is_empty() || stem == "mod" {
            continue;
        }
        let siblings: BTreeSet<String> = std::fs::read_dir(f.parent().unwrap())
            .unwrap()
            .flatten()
            .filter_map(|e| {
                let p = e.path();
                let name = p.file_stem()?.to_str()?.to_string();
                (name != "mod" && (p.is_dir() || p.extension().is_some_and(|x| x == "rs"))).then_some(name)
            })
            .collect();
        let text = std::fs::read_to_string(f).unwrap();
        let folder = dir.display().to_string().replace('\\', "/");
        let mut named = named_modules(&text, "super::");
        named.extend(named_modules(&text, &format!("crate::{}::", folder.replace('/', "::"))));
        let deps = named.into_iter().filter(|n| siblings.contains(n) && n != stem).collect();
        out.entry(folder).or_default().insert(stem.to_string(), deps);
    }
    out
}

#[test]
fn no_folder_has_a_cycle_among_its_files() {
    let problems: Vec<String> = folder_graphs()
        .into_iter()
        .filter_map(|(folder, g)| find_cycle(&g).map(|c| format!("src/{folder}: {}", c.join(" -> "))))
        .collect();
    assert!(problems.is_empty(), "files of a folder form a cycle:\n{}", problems.join("\n"));
}

#[test]
fn the_reader_of_nested_use_groups_sees_every_module() {
    let src = "use crate::{a::{b, c::{d, e}}, f, g::h};";
    let got: Vec<String> = named_modules(src, "crate::").into_iter().collect();
    assert_eq!(got, ["a", "f", "g"]);
    let src = "use super::{x, y::{self, z}};";
    let got: Vec<String> = named_modules(src, "super::").into_iter().collect();
    assert_eq!(got, ["x", "y"]);
}
