//! docs/ARCHITECTURE.md stays true to the code: every figure it states is read from the code
//! here, and the files it names as the only ones with `unsafe` are those that have it.

use std::collections::BTreeSet;

/// The document with its whitespace folded (a figure may be cut across lines).
fn doc() -> String {
    let text = std::fs::read_to_string(super::repo().join("docs/ARCHITECTURE.md")).unwrap();
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The value of `const NAME: T = value;` in a source file, as written (underscores dropped).
fn constant(file: &str, name: &str) -> String {
    let src = std::fs::read_to_string(super::repo().join(file)).unwrap();
    let at = src.find(&format!("const {name}:")).unwrap_or_else(|| panic!("{file} has no const {name}"));
    let line = src[at..].lines().next().unwrap();
    line.split('=').nth(1).unwrap().trim().trim_end_matches(';').replace('_', "")
}

#[test]
fn the_figures_of_the_architecture_are_those_of_the_code() {
    let doc = doc();
    let limits = umpire::lua::Limits::default();
    // (what the document says, the value in the code, what the document's figure stands for)
    let figures: Vec<(String, String, &str)> = vec![
        (format!("{} MiB of Lua memory", limits.memory >> 20), String::new(), "Limits::memory"),
        (
            format!("{}M instructions per typed command", limits.instructions / 1_000_000),
            String::new(),
            "Limits::instructions",
        ),
        (format!("a {}-second wall-clock backstop", limits.seconds), String::new(), "Limits::seconds"),
        (format!("every {} instructions", group(umpire::lua::PROFILE_EVERY)), String::new(), "PROFILE_EVERY"),
        (
            "2,000 per call and 500 per hex".into(),
            format!(
                "{} per call and {} per hex",
                group(constant("src/lua/costs.rs", "SEARCH_CHARGE").parse().unwrap()),
                constant("src/lua/costs.rs", "SEARCH_CHARGE_PER_HEX")
            ),
            "SEARCH_CHARGE",
        ),
        (
            "`UNDO_DEPTH` = 1,000".into(),
            format!("`UNDO_DEPTH` = {}", group(umpire::game::UNDO_DEPTH as u64)),
            "UNDO_DEPTH",
        ),
        (
            "at most 1,000,000 nodes".into(),
            format!("at most {} nodes", group(constant("src/lua/convert.rs", "MAX_STORED_NODES").parse().unwrap())),
            "MAX_STORED_NODES",
        ),
        ("32 deep".into(), format!("{} deep", constant("src/lua/convert.rs", "MAX_DEPTH")), "MAX_DEPTH"),
        (
            "16 MiB of text".into(),
            format!("{} of text", constant("src/lua/convert.rs", "MAX_STORED_TEXT")),
            "MAX_STORED_TEXT",
        ),
        (
            "a display 64 KiB".into(),
            format!("a display {}", constant("src/lua/display.rs", "MAX_DISPLAY")),
            "MAX_DISPLAY",
        ),
    ];
    let mut problems = Vec::new();
    for (said, code, what) in figures {
        if !doc.contains(&said) {
            problems.push(format!("ARCHITECTURE.md does not say `{said}` ({what})"));
        }
        // a figure the code writes as a shift (`16 << 20`) is checked in the document's unit
        let same = code.is_empty() || said == code || shifted(&code).is_some_and(|c| said.contains(&c));
        if !same {
            problems.push(format!("ARCHITECTURE.md says `{said}`, the code `{code}` ({what})"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// `16 << 20 of text` as `16 MiB of text`, `64 << 10` as `64 KiB`.
fn shifted(code: &str) -> Option<String> {
    let (n, rest) = code.split_once(" << ")?;
    let (shift, tail) = rest.split_once(' ').map_or((rest, ""), |(a, b)| (a, b));
    let unit = match shift {
        "10" => "KiB",
        "20" => "MiB",
        _ => return None,
    };
    Some(format!("{n} {unit}{}{tail}", if tail.is_empty() { "" } else { " " }))
}

/// 1000000 as 1,000,000.
fn group(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[test]
fn the_files_with_unsafe_are_those_the_architecture_names() {
    let doc = doc();
    let said = doc.split("the crate's only `unsafe`").next().unwrap();
    let said = &said[said.rfind("): with").unwrap_or(0)..];
    let named: BTreeSet<String> = said
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|w| w.ends_with(".rs"))
        .map(str::to_string)
        .chain(std::iter::once("fast.rs".to_string()))
        .collect();
    let mut files = Vec::new();
    super::layers::rust_files(&super::repo().join("src"), &mut files);
    let with: BTreeSet<String> = files
        .iter()
        .filter(|f| std::fs::read_to_string(f).unwrap().contains("unsafe {"))
        .map(|f| f.file_name().unwrap().to_string_lossy().to_string())
        .collect();
    assert_eq!(named, with, "files with `unsafe` (named by ARCHITECTURE.md, found in src/)");
}
