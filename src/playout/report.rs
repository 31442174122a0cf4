//! What `playout` and `compare` print.

use super::Record;
use super::stats::{self, Summary};
use crate::contract::Figure;
use std::collections::BTreeMap;

/// The outcomes of `records` with their counts, most frequent first (ties by name); failures
/// (`(dead end)`, `(rule error)`...) last.
pub fn outcomes(records: &[Record]) -> Vec<(String, usize)> {
    let mut by: BTreeMap<String, usize> = BTreeMap::new();
    for r in records {
        *by.entry(r.outcome()).or_default() += 1;
    }
    let mut v: Vec<(String, usize)> = by.into_iter().collect();
    v.sort_by(|a, b| a.0.starts_with('(').cmp(&b.0.starts_with('(')).then(b.1.cmp(&a.1)).then(a.0.cmp(&b.0)));
    v
}

/// The numeric figures of `records` by name (games that reported them), plus `turns` and
/// `commands` of every game.
pub fn numbers(records: &[Record]) -> BTreeMap<String, Vec<f64>> {
    let mut by: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for r in records.iter().filter(|r| r.failure.is_none()) {
        by.entry("game length (turns)".into()).or_default().push(r.turn as f64);
        by.entry("commands".into()).or_default().push(r.commands as f64);
        for (k, f) in &r.figures {
            if let Figure::Number(x) = f {
                by.entry(k.clone()).or_default().push(*x);
            }
        }
    }
    by
}

fn pct(x: f64) -> String {
    format!("{:.1}%", 100.0 * x)
}

fn num(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e12 { format!("{x:.0}") } else { format!("{x:.2}") }
}

/// A share of the games above which one outcome, the same under both rules, leaves a
/// comparison little to tell.
pub const DOMINANT: f64 = 0.9;

/// A warning when one outcome (a forfeit, say) is most games under both rules: the rules may
/// differ where the games never go.
fn dominated(cats: &[String], ka: &[usize], kb: &[usize], na: usize, nb: usize) -> Option<String> {
    let share = |k: usize, n: usize| k as f64 / n.max(1) as f64;
    let i = (0..cats.len()).find(|&i| share(ka[i], na) >= DOMINANT && share(kb[i], nb) >= DOMINANT)?;
    Some(format!(
        "warning: `{}` ends {} and {} of the games: under both rules nearly every game ends the same way, so the comparison sees little of what the change does (try another bot, e.g. --bot greedy, or another scenario)",
        cats[i],
        pct(share(ka[i], na)),
        pct(share(kb[i], nb))
    ))
}

/// Games fewer than this give no interval of a figure's mean (Student's t over two or three
/// games spans more than the figure's range).
pub const FEW_GAMES: usize = 5;

/// A figure's summary. Its interval respects the figure's range: a figure no game saw below 0
/// (a count, turns, victory points) is taken as one that cannot be negative.
pub fn summary_line(name: &str, s: &Summary) -> String {
    let ci = if s.n < FEW_GAMES {
        format!("no 95% interval: {} game(s) are too few", s.n)
    } else {
        let lo = if s.min >= 0.0 { s.ci.0.max(0.0) } else { s.ci.0 };
        format!("95% {} to {}", num(lo), num(s.ci.1))
    };
    format!(
        "  {name}: mean {} ({ci}), sd {}, median {}, min {}, max {}",
        num(s.mean),
        num(s.sd),
        num(s.median),
        num(s.min),
        num(s.max)
    )
}

/// The distribution of text figures other than `result` (a level, who won).
fn texts(records: &[Record]) -> BTreeMap<String, BTreeMap<String, usize>> {
    let mut by: BTreeMap<String, BTreeMap<String, usize>> = BTreeMap::new();
    for r in records.iter().filter(|r| r.failure.is_none()) {
        for (k, f) in &r.figures {
            if let (Figure::Text(t), false) = (f, k == "result") {
                *by.entry(k.clone()).or_default().entry(t.clone()).or_default() += 1;
            }
        }
    }
    by
}

/// What the rules' tables gave (`umpire.outcome`) over the games that did not fail: counts by
/// verb and outcome.
fn tables(records: &[Record]) -> BTreeMap<String, BTreeMap<String, usize>> {
    let mut by: BTreeMap<String, BTreeMap<String, usize>> = BTreeMap::new();
    for r in records.iter().filter(|r| r.failure.is_none()) {
        for (verb, outs) in &r.outcomes {
            for (o, k) in outs {
                *by.entry(verb.clone()).or_default().entry(o.clone()).or_default() += k;
            }
        }
    }
    by
}

/// The outcomes of a verb, most frequent first (ties by name).
fn by_count(outs: &BTreeMap<String, usize>) -> Vec<(&String, usize)> {
    let mut v: Vec<(&String, usize)> = outs.iter().map(|(o, k)| (o, *k)).collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    v
}

/// Outcomes of a verb shown in a report, at most (the rarer are counted as "others").
const SHOWN_OUTCOMES: usize = 12;

/// Each game's share of `outcome` among the outcomes of `verb` (games where the verb declared
/// any): the games, not the combats, are the samples.
fn shares(records: &[Record], verb: &str, outcome: &str) -> Vec<f64> {
    let mut v = Vec::new();
    for r in records.iter().filter(|r| r.failure.is_none()) {
        if let Some(outs) = r.outcomes.get(verb) {
            let total: usize = outs.values().sum();
            if total > 0 {
                v.push(*outs.get(outcome).unwrap_or(&0) as f64 / total as f64);
            }
        }
    }
    v
}

/// The playout's lines on what the tables gave: per verb, its outcomes' shares over all games.
fn tables_lines(records: &[Record]) -> Vec<String> {
    let by = tables(records);
    let games = records.iter().filter(|r| r.failure.is_none()).count().max(1);
    let mut out = Vec::new();
    if !by.is_empty() {
        out.push("what the rules' tables gave (umpire.outcome), all games:".into());
    }
    for (verb, outs) in &by {
        let total: usize = outs.values().sum();
        let sorted = by_count(outs);
        let mut parts: Vec<String> =
            sorted.iter().take(SHOWN_OUTCOMES).map(|(o, k)| format!("{o} {}", pct(*k as f64 / total as f64))).collect();
        if sorted.len() > SHOWN_OUTCOMES {
            parts.push(format!("{} others", sorted.len() - SHOWN_OUTCOMES));
        }
        out.push(format!("  {verb}: {total} ({} a game): {}", num(total as f64 / games as f64), parts.join(", ")));
    }
    out
}

/// The report of a playout.
pub fn playout(title: &str, records: &[Record]) -> Vec<String> {
    let n = records.len();
    let mut out = vec![title.to_string(), "outcomes (share with its 95% Wilson interval):".to_string()];
    let outs = outcomes(records);
    let width = outs.iter().map(|(o, _)| o.chars().count()).max().unwrap_or(0);
    for (o, k) in &outs {
        let (lo, hi) = stats::wilson(*k, n);
        out.push(format!("  {o:<width$}  {k:>5}  {:>6}  [{} to {}]", pct(*k as f64 / n as f64), pct(lo), pct(hi)));
    }
    for (name, dist) in texts(records) {
        out.push(format!("{name}:"));
        for (t, k) in dist {
            out.push(format!("  {t}: {k} ({})", pct(k as f64 / n as f64)));
        }
    }
    let nums = numbers(records);
    if !nums.is_empty() {
        out.push("figures at the end (games that ended):".into());
        for (name, xs) in &nums {
            if let Some(s) = stats::summary(xs) {
                out.push(summary_line(name, &s));
            }
        }
    }
    out.extend(tables_lines(records));
    out.extend(failures(records));
    out
}

/// The games that failed, one line each (the seed replays it).
pub fn failures(records: &[Record]) -> Vec<String> {
    let failed: Vec<&Record> = records.iter().filter(|r| r.failure.is_some()).collect();
    if failed.is_empty() {
        return vec!["errors: none".into()];
    }
    let mut out = vec![format!("errors: {} game(s)", failed.len())];
    for r in failed {
        let f = r.failure.as_ref().expect("a failure");
        out.push(format!(
            "  seed {}: {} at command {}{}: {}",
            r.seed,
            f.kind,
            f.at,
            if f.command.is_empty() { String::new() } else { format!(" `{}`", f.command) },
            f.message.lines().next().unwrap_or("")
        ));
    }
    out
}

/// The report of a comparison: the outcomes side by side with the change of each share and its
/// test, the chi-square test of the whole distribution, and each figure's change (Welch).
pub fn compare(title: &str, a: &[Record], b: &[Record], names: (&str, &str)) -> Vec<String> {
    let (na, nb) = (a.len(), b.len());
    let mut out = vec![title.to_string()];
    let (oa, ob) = (outcomes(a), outcomes(b));
    let mut cats: Vec<String> = oa.iter().map(|(o, _)| o.clone()).collect();
    for (o, _) in &ob {
        if !cats.contains(o) {
            cats.push(o.clone());
        }
    }
    let count = |v: &[(String, usize)], c: &str| v.iter().find(|(o, _)| o == c).map(|(_, k)| *k).unwrap_or(0);
    let width = cats.iter().map(|c| c.chars().count()).max().unwrap_or(0).max(7);
    out.push(format!("  {:<width$}  {:>14}  {:>14}  change (95%), p", "outcome", names.0, names.1));
    let (mut ka, mut kb) = (Vec::new(), Vec::new());
    for c in &cats {
        let (x, y) = (count(&oa, c), count(&ob, c));
        ka.push(x);
        kb.push(y);
        let (d, ci, p) = stats::two_proportions(x, na, y, nb);
        out.push(format!(
            "  {c:<width$}  {:>14}  {:>14}  {:+.1} ({:+.1} to {:+.1}) points, p {:.3}",
            format!("{x} {}", pct(x as f64 / na.max(1) as f64)),
            format!("{y} {}", pct(y as f64 / nb.max(1) as f64)),
            100.0 * d,
            100.0 * ci.0,
            100.0 * ci.1,
            p
        ));
    }
    let (stat, df, p) = stats::chi_square(&ka, &kb);
    let mut tests: Vec<(String, f64)> = vec![("the outcome distribution".into(), p)];
    let verdict = if p < 0.05 { "the outcomes changed (significant at 5%)" } else { "no significant change at 5%" };
    out.push(format!("outcome distribution: chi-square {stat:.2} on {df} df, p {p:.4}: {verdict}"));
    if let Some(w) = dominated(&cats, &ka, &kb, na, nb) {
        out.push(w);
    }
    let (xa, xb) = (numbers(a), numbers(b));
    let mut keys: Vec<&String> = xa.keys().collect();
    for k in xb.keys() {
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    keys.sort();
    if !keys.is_empty() {
        out.push("figures (mean A → mean B, Welch's t-test):".into());
    }
    for k in keys {
        let (va, vb) = (xa.get(k).cloned().unwrap_or_default(), xb.get(k).cloned().unwrap_or_default());
        match (stats::summary(&va), stats::summary(&vb), stats::welch(&va, &vb)) {
            (Some(sa), Some(sb), Some((d, p))) => {
                tests.push((format!("`{k}`"), p));
                out.push(format!(
                    "  {k}: {} → {} ({}{}), p {p:.4}{}",
                    num(sa.mean),
                    num(sb.mean),
                    if d >= 0.0 { "+" } else { "" },
                    num(d),
                    if p < 0.05 { ", significant" } else { "" }
                ))
            }
            _ => out.push(format!("  {k}: not reported by both")),
        }
    }
    out.extend(compare_tables(a, b, &mut tests));
    out.push(verdict_line(&tests));
    for (name, recs) in [(names.0, a), (names.1, b)] {
        let f = failures(recs);
        out.push(format!("{name}: {}", f[0]));
        out.extend(f[1..].iter().cloned());
    }
    out
}

/// The comparison's lines on what the tables gave: for each verb, each outcome's share of the
/// verb's outcomes in a game, A against B (Welch's t-test over the games); the tests are added
/// to `tests`.
fn compare_tables(a: &[Record], b: &[Record], tests: &mut Vec<(String, f64)>) -> Vec<String> {
    let (ta, tb) = (tables(a), tables(b));
    let mut verbs: Vec<&String> = ta.keys().chain(tb.keys()).collect();
    verbs.sort();
    verbs.dedup();
    let mut out = Vec::new();
    if !verbs.is_empty() {
        out.push(
            "what the rules' tables gave (umpire.outcome; a game's share of each outcome of the verb, Welch's t-test):"
                .into(),
        );
    }
    let empty = BTreeMap::new();
    for verb in verbs {
        let (oa, ob) = (ta.get(verb).unwrap_or(&empty), tb.get(verb).unwrap_or(&empty));
        let mut both = oa.clone();
        for (o, k) in ob {
            *both.entry(o.clone()).or_default() += k;
        }
        let games = |recs: &[Record]| recs.iter().filter(|r| r.outcomes.contains_key(verb.as_str())).count().max(1);
        out.push(format!(
            "  {verb}: {} → {} a game",
            num(oa.values().sum::<usize>() as f64 / games(a) as f64),
            num(ob.values().sum::<usize>() as f64 / games(b) as f64)
        ));
        for (o, _) in by_count(&both).into_iter().take(SHOWN_OUTCOMES) {
            let (sa, sb) = (shares(a, verb, o), shares(b, verb, o));
            let mean = |v: &[f64]| stats::summary(v).map(|s| s.mean).unwrap_or(0.0);
            let Some((d, p)) = stats::welch(&sa, &sb) else {
                out.push(format!("    {o}: {} → {} (too few games)", pct(mean(&sa)), pct(mean(&sb))));
                continue;
            };
            tests.push((format!("`{verb}` giving {o}"), p));
            out.push(format!(
                "    {o}: {} → {} ({:+.1} points), p {p:.4}{}",
                pct(mean(&sa)),
                pct(mean(&sb)),
                100.0 * d,
                if p < 0.05 { ", significant" } else { "" }
            ));
        }
    }
    out
}

/// The comparison's verdict over all its tests together (Holm's correction: many tests at 5%
/// each would find some change by chance).
fn verdict_line(tests: &[(String, f64)]) -> String {
    let ps: Vec<f64> = tests.iter().map(|(_, p)| *p).collect();
    let adjusted = stats::holm(&ps);
    let held: Vec<usize> = (0..tests.len()).filter(|&i| adjusted[i] < 0.05).collect();
    let strongest = (0..tests.len()).min_by(|&i, &j| ps[i].total_cmp(&ps[j]).then(i.cmp(&j)));
    match (held.len(), strongest) {
        (0, Some(i)) => format!(
            "verdict: no change found at 5% over the {} tests together (Holm's correction; the strongest, {}, p {:.4}, adjusted {:.4})",
            tests.len(),
            tests[i].0,
            ps[i],
            adjusted[i]
        ),
        (k, Some(i)) => format!(
            "verdict: the rules play differently: {k} of {} tests hold at 5% together (Holm's correction); the strongest: {}, p {:.2e}",
            tests.len(),
            tests[i].0,
            ps[i]
        ),
        _ => "verdict: nothing to test".into(),
    }
}

#[cfg(test)]
mod figure_tests {
    use super::*;

    #[test]
    fn a_figure_interval_respects_its_range_and_needs_enough_games() {
        // two games: no interval (Student's t would span -199 to 233)
        let two = stats::summary(&[0.0, 34.0]).unwrap();
        assert!(summary_line("soviet_vp", &two).contains("no 95% interval: 2 game(s) are too few"));
        // a count never below 0 keeps its interval at 0 or above
        let counts = stats::summary(&[0.0, 0.0, 0.0, 0.0, 1.0, 12.0]).unwrap();
        assert!(counts.ci.0 < 0.0);
        assert!(summary_line("steps", &counts).contains("(95% 0 to "), "{}", summary_line("steps", &counts));
        // a figure seen below 0 keeps the interval as computed
        let signed = stats::summary(&[-3.0, -1.0, 0.0, 2.0, 5.0, 1.0]).unwrap();
        assert!(summary_line("margin", &signed).contains(&format!("(95% {} to", num(signed.ci.0))));
    }

    #[test]
    fn a_comparison_where_one_outcome_is_nearly_every_game_says_so() {
        let cats = vec!["Soviet Victory by Forfeit".to_string(), "German Victory".to_string()];
        let w = dominated(&cats, &[19, 1], &[20, 0], 20, 20).unwrap();
        assert!(w.starts_with("warning: `Soviet Victory by Forfeit` ends 95.0% and 100.0%"), "{w}");
        assert_eq!(dominated(&cats, &[19, 1], &[15, 5], 20, 20), None);
    }
}
