//! Which case of the rulebook a mutant belongs to: the ruleset cites its cases in comments and
//! strings (`-- 10.33`, `umpire.refuse("7.22", ...)`); a mutant belongs to the nearest case cited
//! at or above its line within its function (or top-level statement), else in the comment just
//! above that, else in the file's opening comment. The case ids are those of `cases.txt` (the
//! rulebook's, in its order), titled from coverage.toml; a ruleset with neither file has its
//! cases read from what its citations look like.

use super::RuleFile;
use super::mutants::Mutant;
use crate::error::Result;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

/// The cases a ruleset knows and the citations of its rule files.
#[derive(Debug, Default)]
pub struct Cases {
    /// Case id → its place in the rulebook.
    order: HashMap<String, usize>,
    /// Case id → its title in coverage.toml.
    titles: HashMap<String, String>,
    /// File → the first case cited on each line (lines without one left out).
    cited: HashMap<String, BTreeMap<usize, String>>,
    /// File → the first case its opening comment cites.
    header: HashMap<String, String>,
}

/// A mutant whose place cites no case.
pub const UNCITED: &str = "(no case cited)";

impl Cases {
    pub fn read(rules: &Path, files: &[RuleFile]) -> Result<Cases> {
        let mut c = Cases::default();
        let list = rules.join("cases.txt");
        if let Ok(text) = std::fs::read_to_string(&list) {
            for (i, id) in text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).enumerate() {
                c.order.insert(id.to_string(), i);
            }
        }
        let cov = rules.join("coverage.toml");
        if cov.is_file() {
            let (t, _): (toml::Table, _) = crate::datafile::parse_toml(&cov, &cov.display().to_string())?;
            for (id, v) in t {
                let title = v.get("title").and_then(|t| t.as_str()).unwrap_or("").to_string();
                let n = c.order.len();
                c.order.entry(id.clone()).or_insert(n);
                c.titles.insert(id, title);
            }
        }
        for f in files {
            let mut lines = BTreeMap::new();
            for (i, l) in f.src.lines().enumerate() {
                if let Some(id) = c.citation(l) {
                    lines.insert(i + 1, id);
                }
            }
            let header = f
                .src
                .lines()
                .take_while(|l| l.trim_start().starts_with("--") || l.trim().is_empty())
                .find_map(|l| c.citation(l));
            if let Some(h) = header {
                c.header.insert(f.name.clone(), h);
            }
            c.cited.insert(f.name.clone(), lines);
        }
        Ok(c)
    }

    /// The first case id cited on a line, in its comment or its strings.
    fn citation(&self, line: &str) -> Option<String> {
        let (code, comment) = match line.find("--") {
            Some(i) => (&line[..i], Some(&line[i + 2..])),
            None => (line, None),
        };
        // the strings of the code first (a refusal's rule), then the comment
        let mut texts: Vec<&str> = Vec::new();
        let mut rest = code;
        while let Some(i) = rest.find(['"', '\'']) {
            let q = rest.as_bytes()[i] as char;
            let after = &rest[i + 1..];
            let end = after.find(q).unwrap_or(after.len());
            texts.push(&after[..end]);
            rest = after.get(end + 1..).unwrap_or("");
        }
        texts.extend(comment);
        texts.iter().flat_map(|t| t.split(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '.'))).find_map(|w| {
            let w = w.trim_end_matches('.');
            // without a list of cases, anything shaped like one (`8.7`, `10.8.1.C`)
            let cited = if self.order.is_empty() {
                w.contains('.')
                    && w.chars()
                        .nth(usize::from(w.starts_with(char::is_alphabetic)))
                        .is_some_and(|c| c.is_ascii_digit())
            } else {
                w.starts_with(|ch: char| ch.is_ascii_digit()) && self.order.contains_key(w)
            };
            cited.then(|| w.to_string())
        })
    }

    /// The case of a mutant (or [`UNCITED`]).
    pub fn of(&self, m: &Mutant) -> String {
        let Some(lines) = self.cited.get(&m.file) else { return UNCITED.into() };
        if let Some((_, id)) = lines.range(m.anchor.min(m.line)..=m.line).next_back() {
            return id.clone();
        }
        // the comment just above the function or statement
        if let Some(file) = self.cited.get(&m.file)
            && let Some((&l, id)) = file.range(..m.anchor).next_back()
            && l + 3 >= m.anchor
        {
            return id.clone();
        }
        self.header.get(&m.file).cloned().unwrap_or_else(|| UNCITED.into())
    }

    /// The place of a case in the rulebook (uncited last).
    pub fn rank(&self, id: &str) -> usize {
        self.order.get(id).copied().unwrap_or(usize::MAX)
    }

    pub fn title(&self, id: &str) -> &str {
        self.titles.get(id).map(String::as_str).unwrap_or("")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cases(ids: &[&str]) -> Cases {
        Cases { order: ids.iter().enumerate().map(|(i, s)| (s.to_string(), i)).collect(), ..Default::default() }
    }

    #[test]
    fn citations_are_read_from_comments_and_strings() {
        let c = cases(&["7.22", "10.8.1.C", "10.33"]);
        assert_eq!(c.citation("  x = x * 1.5 -- 10.33 sums them").as_deref(), Some("10.33"));
        assert_eq!(c.citation("umpire.refuse(\"7.22\", \"no\")").as_deref(), Some("7.22"));
        assert_eq!(c.citation("-- 10.8.1.C(ii): the port").as_deref(), Some("10.8.1.C"));
        assert_eq!(c.citation("local x = 10.33"), None, "a number in code is no citation");
        assert_eq!(c.citation("-- see 3.1"), None, "not a case of this rulebook");
    }
}
