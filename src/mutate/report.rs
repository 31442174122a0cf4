//! What `umpire mutate` prints: the totals and kill rates, by kind of change and by rule file,
//! then the designer's to-do list: every surviving mutant, grouped by the case it belongs to
//! in rulebook order, as `file:line` and a one-line diff.

use super::mutants::Kind;
use super::{Fate, Outcome};
use std::collections::BTreeMap;

/// Killed and tried (less the equivalent) of a group of mutants.
#[derive(Clone, Copy, Default, Debug, PartialEq)]
pub struct Tally {
    pub tried: usize,
    pub killed: usize,
    pub survived: usize,
    pub not_reached: usize,
    pub equivalent: usize,
}

impl Tally {
    fn add(&mut self, f: &Fate) {
        self.tried += 1;
        match f {
            Fate::Killed { .. } => self.killed += 1,
            Fate::Survived { .. } => self.survived += 1,
            Fate::NotReached => self.not_reached += 1,
            Fate::Equivalent { .. } => self.equivalent += 1,
        }
    }

    /// Killed of those that count (the equivalent left out).
    pub fn counted(&self) -> usize {
        self.tried - self.equivalent
    }

    /// The kill rate in percent (100 when nothing counts).
    pub fn rate(&self) -> f64 {
        if self.counted() == 0 { 100.0 } else { 100.0 * self.killed as f64 / self.counted() as f64 }
    }

    fn shown(&self) -> String {
        format!(
            "{:>5} tried {:>5} killed {:>4} survived {:>4} not reached {:>3} equivalent  {:>5.1}%",
            self.tried,
            self.killed,
            self.survived,
            self.not_reached,
            self.equivalent,
            self.rate()
        )
    }
}

impl Outcome {
    /// Every mutant tried.
    pub fn total(&self) -> Tally {
        self.tally(|_, _| true)
    }

    /// The mutants of the tables and rule checks (every kind but a dropped statement).
    pub fn rule_checks(&self) -> Tally {
        self.tally(|k, _| k.is_rule_check())
    }

    fn tally(&self, keep: impl Fn(Kind, &str) -> bool) -> Tally {
        let mut t = Tally::default();
        for (m, _, f) in &self.tried {
            if keep(m.kind, &m.file) {
                t.add(f);
            }
        }
        t
    }

    /// The report, as `umpire mutate` prints it.
    pub fn report(&self) -> String {
        let mut out = String::new();
        let total = self.total();
        let sample = match self.sample {
            Some((n, seed)) if n < self.made => format!(", {} drawn with seed {seed}", total.tried),
            _ => String::new(),
        };
        out.push_str(&format!(
            "mutate {}: {} mutants of {} rule files ({}){sample}; {} scripts\n",
            self.game,
            self.made,
            self.files.len(),
            crate::ruleset::shown(&self.rules),
            self.scripts.len()
        ));
        let rc = self.rule_checks();
        out.push_str(&format!(
            "kill rate {:.1}% ({} of {}); tables and rule checks {:.1}% ({} of {})\n",
            total.rate(),
            total.killed,
            total.counted(),
            rc.rate(),
            rc.killed,
            rc.counted()
        ));
        out.push_str("\nby kind of change\n");
        for k in Kind::ALL {
            let t = self.tally(|kind, _| kind == k);
            if t.tried > 0 {
                out.push_str(&format!("  {:<20}{}\n", k.name(), t.shown()));
            }
        }
        out.push_str("\nby rule file\n");
        for f in &self.files {
            let t = self.tally(|_, file| file == f.name);
            if t.tried > 0 {
                out.push_str(&format!("  {:<20}{}\n", f.name, t.shown()));
            }
        }
        out.push_str(&self.survivors());
        out
    }

    /// The survivors by case, in rulebook order, each as file:line and a one-line diff.
    fn survivors(&self) -> String {
        let mut by_case: BTreeMap<(usize, &str), Vec<usize>> = BTreeMap::new();
        let mut tallies: BTreeMap<&str, Tally> = BTreeMap::new();
        for (i, (_, case, fate)) in self.tried.iter().enumerate() {
            tallies.entry(case).or_default().add(fate);
            if matches!(fate, Fate::Survived { .. } | Fate::NotReached) {
                by_case.entry((self.cases.rank(case), case)).or_default().push(i);
            }
        }
        if by_case.is_empty() {
            return "\nno mutant survived\n".into();
        }
        let mut out = String::from("\nsurvivors by case (rulebook order): rules no script would notice broken\n");
        for ((_, case), list) in by_case {
            let t = tallies[case];
            let title = self.cases.title(case);
            out.push_str(&format!(
                "\n{case}{}  ({} of {} survived)\n",
                if title.is_empty() { String::new() } else { format!(" {title}") },
                t.survived + t.not_reached,
                t.counted()
            ));
            for i in list {
                let (m, _, fate) = &self.tried[i];
                let src = &self.files.iter().find(|f| f.name == m.file).expect("the mutant's file").src;
                let (before, after) = m.diff(src);
                let why = match fate {
                    Fate::NotReached => "no script runs this line".to_string(),
                    Fate::Survived { scripts } => format!("passed {}", short_list(scripts)),
                    _ => String::new(),
                };
                out.push_str(&format!("  {}:{}  {}: {why}\n", m.file, m.line, m.kind.name()));
                out.push_str(&format!("    - {before}\n    + {after}\n"));
            }
        }
        out
    }
}

/// Script names without their folders, at most four, then how many more.
fn short_list(scripts: &[String]) -> String {
    let names: Vec<&str> =
        scripts.iter().map(|s| std::path::Path::new(s).file_name().and_then(|f| f.to_str()).unwrap_or(s)).collect();
    if names.len() <= 4 { names.join(", ") } else { format!("{} and {} more", names[..4].join(", "), names.len() - 4) }
}
