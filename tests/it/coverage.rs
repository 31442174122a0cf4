//! Rule coverage stays honest: every ruleset folder under rulesets/ (but `lib`) has a
//! `coverage.toml` and a `cases.txt` (every numbered case of its rulebook, in rulebook order).
//! The two must list the same cases, each status must be a known one with a note where one is
//! due, and every script a case names must exist and mention the case id as a whole token
//! (`12.1` is not mentioned by `12.10` or `12.1.3`) in a command, or in a comment attached to a
//! command. When the rulebook is reachable at `../shared/rulebooks/<file>` from the repository
//! root, `cases.txt` must also equal the case ids read from it, by the reader RULEBOOKS names for
//! it (ids that open lines, or ids that also run inside the paragraphs).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Ruleset id → the rulebook's file name under ../shared/rulebooks/, and how it numbers its cases.
const RULEBOOKS: &[(&str, &str, Numbering)] = &[
    ("stargard-solstice", "stargard-solstice.txt", Numbering::LineStart),
    ("fortress-stalingrad", "fortress-stalingrad.txt", Numbering::LineStart),
    (
        "red-storm-over-the-reich",
        "red-storm-over-the-reich.txt",
        Numbering::Inline { stop: "EXTENDED EXAMPLE OF PLAY" },
    ),
];

/// How a rulebook numbers its cases, i.e. which reader derives its case ids.
#[derive(Clone, Copy, Debug)]
enum Numbering {
    /// Every case id opens a line (`rulebook_cases`).
    LineStart,
    /// Headings open lines, sub-cases and lettered cases run inside the paragraphs, and the
    /// numbered items after the line `stop` are not cases (`inline_rulebook_cases`).
    Inline { stop: &'static str },
}

impl Numbering {
    fn cases(self, text: &str) -> Vec<String> {
        match self {
            Numbering::LineStart => rulebook_cases(text),
            Numbering::Inline { stop } => inline_rulebook_cases(text, stop),
        }
    }
}

/// The statuses coverage.toml files use (see the header of each coverage.toml).
const STATUSES: &[&str] = &["done", "partial", "todo", "n/a", "heading"];

/// Statuses that must say why in a `note`.
const NEED_NOTE: &[&str] = &["partial", "todo", "n/a"];

/// Statuses that claim a script checks the case: they must name at least one.
const NEED_SCRIPT: &[&str] = &["done"];

/// A case id: two or more dot-separated groups of digits (`1.0`, `3.1.2`, `19.1.13`), where a group
/// after the first two may also be one capital letter (a lettered case: `13.4.C`, `10.7.1.A.2`).
fn is_case_id(s: &str) -> bool {
    let parts: Vec<&str> = s.split('.').collect();
    let digits = |p: &&str| !p.is_empty() && p.len() <= 3 && p.bytes().all(|b| b.is_ascii_digit());
    let letter = |p: &&str| p.len() == 1 && p.bytes().all(|b| b.is_ascii_uppercase());
    parts.len() >= 2 && parts[..2].iter().all(digits) && parts[2..].iter().all(|p| digits(p) || letter(p))
}

/// The case ids a rulebook numbers: the id that opens a line (no indent, followed by a space or
/// the end of the line). A table of contents lists the same headings before the body: when the
/// first id comes again, what was read so far was the table of contents and is dropped.
fn rulebook_cases(text: &str) -> Vec<String> {
    let mut ids: Vec<String> = Vec::new();
    for line in text.lines() {
        let first = line.split_whitespace().next().unwrap_or("");
        if !line.starts_with(first) || first.is_empty() {
            continue; // indented or blank
        }
        if !is_case_id(first) {
            continue;
        }
        if ids.first().is_some_and(|f| f == first) {
            ids.clear();
        }
        ids.push(first.to_string());
    }
    ids
}

/// Whether a word opens with a capital letter, maybe behind an opening quote (`Turn`, `“Vistula”`).
fn capitalised(word: &str) -> bool {
    let mut chars = word.chars().skip_while(|c| matches!(c, '“' | '"' | '‘' | '\''));
    chars.next().is_some_and(char::is_uppercase)
}

/// A numbered case id, all groups digits (`1.0`, `8.1.1`), with one trailing dot allowed
/// (`8.1.1. Reinforcement Placement`): the id and its number of groups.
fn numbered_id(token: &str) -> Option<(&str, usize)> {
    let id = token.strip_suffix('.').unwrap_or(token);
    let groups = id.split('.').count();
    (is_case_id(id) && id.split('.').all(|g| g.bytes().all(|b| b.is_ascii_digit()))).then_some((id, groups))
}

/// The case ids of a rulebook that numbers some of its cases inside its paragraphs (Red Storm
/// over the Reich), in rulebook order:
/// - a numbered case that opens a line (`3.2 Historical Scenario`, `10.5.1 Terrain ...`);
/// - a sub-case `N.M.K` (three groups of digits, maybe with a trailing dot) inside a line, when it
///   opens a sentence (the line so far ends with `.` or `:`) and a capitalised word follows
///   (`... on the map. 8.1.1. Reinforcement Placement`): a cross-reference (`see 8.2.1.B`,
///   `per 8.1.4 Generic Garrisons`, `(10.3.B.1)`) is not one;
/// - a lettered case `X) Title` (a capital and a parenthesis as a word of its own, followed by a
///   capitalised word), numbered under the nearest preceding numbered case (`10.7.1.A`);
/// - a sub-item under the nearest preceding lettered case (`3.2.C.1`): `1.` opening a line or
///   `2)` anywhere, followed by a capitalised word; a new numbered case ends the lettered one.
///
/// Reading stops at the line `stop` (a section whose numbered items are not cases). A table of
/// contents is skipped as in `rulebook_cases`: when the first id comes again, what was read so far
/// is dropped.
fn inline_rulebook_cases(text: &str, stop: &str) -> Vec<String> {
    let mut ids: Vec<String> = Vec::new();
    let mut numbered: Option<String> = None;
    let mut lettered: Option<String> = None;
    for line in text.lines() {
        if line.trim_end() == stop {
            break;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        let opens_line = !line.starts_with(char::is_whitespace);
        for (i, w) in words.iter().enumerate() {
            let next_capital = words.get(i + 1).is_some_and(|n| capitalised(n));
            let sentence_start = i == 0 || words[i - 1].ends_with(['.', ':']);
            let mut found: Option<String> = None;
            if let Some((id, groups)) = numbered_id(w) {
                let heading = if i == 0 { opens_line } else { groups == 3 && sentence_start && next_capital };
                if heading {
                    numbered = Some(id.to_string());
                    lettered = None;
                    found = Some(id.to_string());
                }
            } else if let Some(letter) = w.strip_suffix(')').filter(|l| l.len() == 1 && capitalised(l)) {
                if let (Some(n), true) = (&numbered, next_capital) {
                    let id = format!("{n}.{letter}");
                    lettered = Some(id.clone());
                    found = Some(id);
                }
            } else if let Some(l) = &lettered {
                let item = w.strip_suffix(')').or_else(|| w.strip_suffix('.').filter(|_| i == 0 && opens_line));
                let is_number = |n: &&str| !n.is_empty() && n.len() <= 2 && n.bytes().all(|b| b.is_ascii_digit());
                if let Some(n) = item.filter(is_number).filter(|_| next_capital) {
                    found = Some(format!("{l}.{n}"));
                }
            }
            if let Some(id) = found {
                if ids.first() == Some(&id) {
                    ids.clear();
                }
                ids.push(id);
            }
        }
    }
    ids
}

/// A case list file: one case id per line, `#` comments and blank lines skipped. Returns the
/// ids with their line numbers, and the problems (lines that are not a case id, repeats).
fn parse_case_list(file: &str, text: &str) -> (Vec<String>, Vec<String>) {
    let mut ids = Vec::new();
    let mut problems = Vec::new();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if !is_case_id(line) {
            problems.push(format!("{file}:{}: `{line}` is not a case id (one id per line, like 3.1.2)", i + 1));
            continue;
        }
        if let Some(first) = seen.get(line) {
            problems.push(format!("{file}:{}: case {line} is listed twice (first on line {first})", i + 1));
            continue;
        }
        seen.insert(line.to_string(), i + 1);
        ids.push(line.to_string());
    }
    (ids, problems)
}

/// Whether `text` contains `id` as a whole token: not preceded by a digit or a dot, not followed
/// by a digit or by a dot and a digit (so `12.1.` at the end of a sentence counts).
fn has_token(text: &str, id: &str) -> bool {
    let b = text.as_bytes();
    let mut from = 0;
    while let Some(k) = text[from..].find(id) {
        let at = from + k;
        let end = at + id.len();
        let before_ok = at == 0 || !(b[at - 1].is_ascii_digit() || b[at - 1] == b'.');
        let after_ok = match (b.get(end), b.get(end + 1)) {
            (Some(c), _) if c.is_ascii_digit() => false,
            (Some(b'.'), Some(c)) if c.is_ascii_digit() => false,
            _ => true,
        };
        if before_ok && after_ok {
            return true;
        }
        from = at + 1;
    }
    false
}

/// Whether a command script mentions case `id`: in a command line (say an `expect-error` citing
/// the rule's refusal), or in a comment that is attached to a command, i.e. followed by one with
/// only comments in between (a comment before a blank line or at the end of the file, next to
/// no command, does not count).
fn script_mentions(text: &str, id: &str) -> bool {
    let lines = umpire::script::lines(text);
    let mut pending_comment = false;
    for (_, line) in &lines {
        let t = line.trim();
        if t.is_empty() {
            pending_comment = false;
        } else if t.starts_with('#') {
            pending_comment |= has_token(t, id);
        } else {
            if pending_comment || has_token(t, id) {
                return true;
            }
            pending_comment = false;
        }
    }
    false
}

/// One ruleset's coverage, read from its files.
struct Inputs<'a> {
    /// Labels for messages, e.g. `rulesets/stargard-solstice/coverage.toml`.
    coverage_file: &'a str,
    cases_file: &'a str,
    coverage: &'a str,
    cases: &'a str,
    /// The rulebook's label, its text and how it numbers its cases, when reachable.
    rulebook: Option<(&'a str, &'a str, Numbering)>,
}

/// Every problem of one ruleset's coverage. `script` reads a script named by coverage.toml
/// (a path from the repository root); `None` if it does not exist.
fn check(inp: &Inputs, script: &dyn Fn(&str) -> Option<String>) -> Vec<String> {
    let (cf, lf) = (inp.coverage_file, inp.cases_file);
    let (list, mut problems) = parse_case_list(lf, inp.cases);
    if list.is_empty() {
        problems.push(format!("{lf}: lists no case"));
    }

    if let Some((rb_file, rb_text, numbering)) = inp.rulebook {
        let book = numbering.cases(rb_text);
        if book.is_empty() {
            problems.push(format!("{rb_file}: no numbered case found in the rulebook"));
        } else if book != list {
            let bs: BTreeSet<&String> = book.iter().collect();
            let ls: BTreeSet<&String> = list.iter().collect();
            for id in book.iter().filter(|id| !ls.contains(id)) {
                problems.push(format!("{lf}: lacks case {id}, which {rb_file} numbers"));
            }
            for id in list.iter().filter(|id| !bs.contains(id)) {
                problems.push(format!("{lf}: lists case {id}, which {rb_file} does not number"));
            }
            if bs == ls {
                let i = book.iter().zip(&list).position(|(a, b)| a != b).unwrap_or(0);
                problems.push(format!(
                    "{lf}: not in rulebook order: entry {} is {} where {rb_file} has {}",
                    i + 1,
                    list[i],
                    book[i]
                ));
            }
        }
    }

    let table: toml::Table = match inp.coverage.parse() {
        Ok(t) => t,
        Err(e) => {
            problems.push(format!("{cf}: not valid TOML: {e}"));
            return problems;
        }
    };
    let listed: BTreeSet<&str> = list.iter().map(String::as_str).collect();
    for id in &list {
        if !table.contains_key(id) {
            problems.push(format!("{cf}: lacks case {id} (listed in {lf})"));
        }
    }
    // in the case list's order, then the entries it lacks
    let mut entries: Vec<(&String, &toml::Value)> =
        list.iter().filter_map(|id| table.get_key_value(id.as_str())).collect();
    entries.extend(table.iter().filter(|(id, _)| !listed.contains(id.as_str())));
    for (id, entry) in entries {
        if !listed.contains(id.as_str()) {
            problems.push(format!("{cf}: [\"{id}\"] is not a case of {lf}"));
        }
        let Some(entry) = entry.as_table() else {
            problems.push(format!("{cf}: [\"{id}\"] is not a table"));
            continue;
        };
        let status = entry.get("status").and_then(|v| v.as_str());
        let Some(status) = status else {
            problems.push(format!("{cf}: [\"{id}\"] has no status (one of {})", STATUSES.join(", ")));
            continue;
        };
        if !STATUSES.contains(&status) {
            problems.push(format!("{cf}: [\"{id}\"] status \"{status}\" is not one of {}", STATUSES.join(", ")));
            continue;
        }
        let note = entry.get("note").and_then(|v| v.as_str()).unwrap_or("").trim();
        if NEED_NOTE.contains(&status) && note.is_empty() {
            problems.push(format!("{cf}: [\"{id}\"] is {status} but has no note saying why"));
        }
        if status == "heading" {
            let prefix = format!("{id}.");
            let base = id.strip_suffix(".0").map(|b| format!("{b}."));
            let has_sub = list.iter().any(|c| {
                c != id && (c.starts_with(&prefix) || base.as_ref().is_some_and(|b| c.starts_with(b.as_str())))
            });
            if !has_sub {
                problems.push(format!("{cf}: [\"{id}\"] is a heading but {lf} has no sub-case of it"));
            }
        }
        let scripts: Vec<&str> = match entry.get("scripts") {
            None => Vec::new(),
            Some(v) => match v.as_array() {
                Some(a) if a.iter().all(|s| s.is_str()) => a.iter().filter_map(|s| s.as_str()).collect(),
                _ => {
                    problems.push(format!("{cf}: [\"{id}\"] scripts is not a list of paths"));
                    continue;
                }
            },
        };
        if NEED_SCRIPT.contains(&status) && scripts.is_empty() {
            problems.push(format!("{cf}: [\"{id}\"] is {status} but names no script that checks it"));
        }
        let mut seen = BTreeSet::new();
        for s in scripts {
            if !seen.insert(s) {
                problems.push(format!("{cf}: [\"{id}\"] names {s} twice"));
                continue;
            }
            match script(s) {
                None => problems.push(format!("{cf}: [\"{id}\"] names {s}, which does not exist")),
                Some(text) if !script_mentions(&text, id) => problems.push(format!(
                    "{cf}: [\"{id}\"] names {s}, which never mentions {id} (as a whole token, in a \
                     command or a comment attached to one)"
                )),
                Some(_) => {}
            }
        }
    }
    problems
}

#[test]
fn every_ruleset_covers_its_rulebook_honestly() {
    let repo = super::repo();
    let rel = |p: &Path| p.strip_prefix(&repo).unwrap_or(p).display().to_string();
    let mut problems = Vec::new();
    let mut checked = 0;
    let mut dirs: Vec<_> =
        std::fs::read_dir(repo.join("rulesets")).unwrap().flatten().map(|e| e.path()).filter(|p| p.is_dir()).collect();
    dirs.sort();
    for dir in dirs {
        let game = dir.file_name().unwrap().to_string_lossy().to_string();
        if game == "lib" {
            continue;
        }
        let (cov_path, cases_path) = (dir.join("coverage.toml"), dir.join("cases.txt"));
        let (Ok(coverage), Ok(cases)) = (std::fs::read_to_string(&cov_path), std::fs::read_to_string(&cases_path))
        else {
            for p in [&cov_path, &cases_path].into_iter().filter(|p| !p.is_file()) {
                problems.push(format!("{}: missing (every ruleset keeps coverage.toml and cases.txt)", rel(p)));
            }
            continue;
        };
        let entry = RULEBOOKS.iter().find(|(g, _, _)| *g == game);
        let book = entry.map(|(_, f, _)| repo.join("../shared/rulebooks").join(f));
        let numbering = entry.map_or(Numbering::LineStart, |(_, _, n)| *n);
        let book_text = book.as_ref().and_then(|p| std::fs::read_to_string(p).ok());
        let book_label = match &book {
            Some(p) => format!("../shared/rulebooks/{}", p.file_name().unwrap().to_string_lossy()),
            None => String::new(),
        };
        match (&book, &book_text) {
            (None, _) => {
                println!("note: {game}: no rulebook file is mapped in RULEBOOKS: cases.txt not checked against it")
            }
            (Some(_), None) => {
                println!("note: {game}: {book_label} is not reachable: cases.txt not checked against it")
            }
            _ => {}
        }
        let (cf, lf) = (rel(&cov_path), rel(&cases_path));
        let inp = Inputs {
            coverage_file: &cf,
            cases_file: &lf,
            coverage: &coverage,
            cases: &cases,
            rulebook: book_text.as_deref().map(|t| (book_label.as_str(), t, numbering)),
        };
        let read = |s: &str| {
            let p = repo.join(s);
            if p.is_file() { std::fs::read_to_string(p).ok() } else { None }
        };
        problems.extend(check(&inp, &read));
        checked += 1;
    }
    assert!(checked > 0, "no ruleset with a coverage.toml under rulesets/");
    assert!(problems.is_empty(), "{} coverage problems:\n{}", problems.len(), problems.join("\n"));
}

mod checker {
    use super::*;

    const BOOK: &str = "\
Table of Contents
1.0 Intro
2.0 Moving
- 2.1 Roads

1.0 Intro
1.1 Scale
  1.1.1 indented: not a heading
2.0 Moving
Units move (see 2.1.2 and 1.1).
2.1 Roads
2.1.1 Trails. A trail is a road.
2.10 Ferries
44.30 is a hex, on a line of its own
";

    #[test]
    fn the_rulebook_is_read_after_its_table_of_contents() {
        let got = rulebook_cases(BOOK);
        assert_eq!(got, ["1.0", "1.1", "2.0", "2.1", "2.1.1", "2.10", "44.30"]);
    }

    const INLINE_BOOK: &str = "\
Table of Contents
• 1.0 INTRODUCTION
  • 1.1 The Game
• 2.0 MOVING
• EXAMPLE OF PLAY

1.0 INTRODUCTION
1.1 The Game
Two maps (see 2.1.B and 2.2). Each turn is 15 days. A) Scale: A hex is 8 miles.
2.0 MOVING
2.1 Roads
Roads help (per 2.1.2). They include: A) Highways: fast. B) Trails: slow (2) slower, see 2.1.A.
1. Mud: trails close.
2) Frost: trails open. 3. not an item, said in Turn 3. Then B) what? not a case.
(1) not an item (hex 5045) and (Feb I). Turn\t# 1\t2
2.1.1. Ferries A ferry crosses. 2.1.2 Bridges A) Cost: none. per 2.1.3 Fords cross, 2.1.4 Ruts too.
2.1.3 Fords shallow.
EXAMPLE OF PLAY
1. The 10 Tk moves.
A) Not a case.
2.2 After the example
";

    #[test]
    fn inline_cases_are_read_in_the_paragraphs() {
        let got = inline_rulebook_cases(INLINE_BOOK, "EXAMPLE OF PLAY");
        let want = [
            "1.0", "1.1", "1.1.A", "2.0", "2.1", "2.1.A", "2.1.B", "2.1.B.1", "2.1.B.2", "2.1.1", "2.1.2", "2.1.2.A",
            "2.1.3",
        ];
        assert_eq!(got, want);
    }

    #[test]
    fn a_new_numbered_case_ends_the_lettered_one() {
        // the sub-item after 3.1 has no lettered case to belong to; C) belongs to 3.1, not to 3.0.B
        let got =
            inline_rulebook_cases("3.0 X\nB) Length: Turns 1-8\n3.1 Y\n1. Placement: here C) Area: there\n", "END");
        assert_eq!(got, ["3.0", "3.0.B", "3.1", "3.1.C"]);
        // an unbulleted table of contents is dropped when the first id comes again
        let got = inline_rulebook_cases("1.0 A\n2.0 B\n\n1.0 A\nA) Set Up: now\n2.0 B\n", "END");
        assert_eq!(got, ["1.0", "1.0.A", "2.0"]);
        // each rulebook is read by its own reader: the line-start one ignores what runs inside lines
        let text = "1.0 A\nA) Set Up: now. 1.0.1 Inline B\n";
        assert_eq!(Numbering::LineStart.cases(text), ["1.0"]);
        assert_eq!(Numbering::Inline { stop: "END" }.cases(text), ["1.0", "1.0.A", "1.0.1"]);
    }

    #[test]
    fn a_case_is_a_whole_token() {
        assert!(has_token("# 12.1: the reaction", "12.1"));
        assert!(has_token("see 12.1.", "12.1"));
        assert!(has_token("(12.1)", "12.1"));
        assert!(!has_token("# 12.10 and 12.1.3 and 112.1 and 2.12.1", "12.1"));
        assert!(has_token("# 12.10 then 12.1", "12.1"));
    }

    #[test]
    fn a_comment_counts_only_next_to_a_command() {
        assert!(script_mentions("# 2.1: roads\n# more\nexpect 1 == 1\n", "2.1"));
        assert!(script_mentions("expect-error move A 0101 ~ refused (2.1)\n", "2.1"));
        assert!(!script_mentions("# 2.1: roads\n\nexpect 1 == 1\n", "2.1"));
        assert!(!script_mentions("expect 1 == 1\n# 2.1 at the end\n", "2.1"));
        assert!(!script_mentions("# 2.10\nexpect 1 == 1\n", "2.1"));
    }

    #[test]
    fn every_kind_of_problem_is_reported() {
        let cases = "# sample\n1.0\n1.1\n1.1\n2.0\n2.1\n3.0\nnot-an-id\n";
        let coverage = r#"
["1.0"]
status = "heading"
["1.1"]
status = "done"
scripts = ["a.ump", "gone.ump"]
["2.0"]
status = "n/a"
["2.1"]
status = "partial"
note = "half of it"
scripts = ["b.ump"]
["3.0"]
status = "heading"
["4.0"]
status = "finished"
scripts = []
["5.0"]
status = "done"
scripts = []
"#;
        let scripts = |s: &str| match s {
            "a.ump" => Some("# 1.10 and 1.1.2\nexpect true\n".to_string()),
            "b.ump" => Some("# 2.1\n\nexpect true\n".to_string()),
            _ => None,
        };
        let inp = Inputs {
            coverage_file: "cov.toml",
            cases_file: "cases.txt",
            coverage,
            cases,
            rulebook: Some(("book.txt", "1.0 A\n1.1 B\n1.2 C\n2.0 D\n2.1 E\n3.0 F\n", Numbering::LineStart)),
        };
        let got = check(&inp, &scripts);
        let want = [
            "cases.txt:4: case 1.1 is listed twice (first on line 3)",
            "cases.txt:8: `not-an-id` is not a case id (one id per line, like 3.1.2)",
            "cases.txt: lacks case 1.2, which book.txt numbers",
            "cov.toml: [\"1.1\"] names a.ump, which never mentions 1.1",
            "cov.toml: [\"1.1\"] names gone.ump, which does not exist",
            "cov.toml: [\"2.0\"] is n/a but has no note saying why",
            "cov.toml: [\"2.1\"] names b.ump, which never mentions 2.1",
            "cov.toml: [\"3.0\"] is a heading but cases.txt has no sub-case of it",
            "cov.toml: [\"4.0\"] is not a case of cases.txt",
            "cov.toml: [\"4.0\"] status \"finished\" is not one of",
            "cov.toml: [\"5.0\"] is not a case of cases.txt",
            "cov.toml: [\"5.0\"] is done but names no script that checks it",
        ];
        for w in want {
            assert!(got.iter().any(|g| g.starts_with(w)), "missing problem `{w}` in:\n{}", got.join("\n"));
        }
        assert_eq!(got.len(), want.len(), "unexpected problems:\n{}", got.join("\n"));

        // the same coverage, made right, has no problem
        let cases = "1.0\n1.1\n2.0\n2.1\n";
        let coverage = r#"
["1.0"]
status = "heading"
["1.1"]
status = "done"
scripts = ["a.ump"]
["2.0"]
status = "n/a"
note = "a description"
["2.1"]
status = "partial"
note = "half of it"
scripts = ["b.ump"]
"#;
        let scripts = |s: &str| match s {
            "a.ump" => Some("# 1.1: scale\nexpect true\n".to_string()),
            "b.ump" => Some("expect-error move A ~ (2.1)\n".to_string()),
            _ => None,
        };
        let inp = Inputs {
            coverage,
            cases,
            rulebook: Some(("book.txt", "1.0 A\n1.1 B\n2.0 D\n2.1 E\n", Numbering::LineStart)),
            ..inp
        };
        assert_eq!(check(&inp, &scripts), Vec::<String>::new());
    }
}
