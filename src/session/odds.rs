//! `odds <arguments of a combat verb>`: every outcome and its probability, as a table; and the
//! short summary the `actions` view shows beside an attack.

use super::{Reply, Session, split_first};
use crate::contract::VerbSpec;
use crate::error::{Error, Result};
use crate::game::{Game, Odds};

/// A verb `odds` can evaluate, and whether it is allowed at the game's step.
pub(super) struct OddsVerb {
    pub(super) spec: VerbSpec,
    pub(super) allowed: bool,
}

/// The verbs marked `odds`, each with whether its phases hold the current step.
pub(super) fn odds_verbs(g: &Game) -> Vec<OddsVerb> {
    let step = g.state().clock.step.clone();
    g.verbs()
        .into_values()
        .filter(|v| v.odds)
        .map(|v| OddsVerb { allowed: v.phases.is_empty() || v.phases.contains(&step), spec: v })
        .collect()
}

/// `odds <arguments of the combat verb>`: which verb (the one named first; else the one marked
/// `odds` that is allowed at this step, or the only one whose arguments fit), then every
/// outcome as a table. Bad arguments are reported with the usage of the verb in force.
pub(super) fn odds(s: &mut Session, rest: &str, _line: &str) -> Result<Reply> {
    let g = s.game()?;
    let all = odds_verbs(g);
    let verbs: Vec<&VerbSpec> = all.iter().map(|v| &v.spec).collect();
    let phase = g.state().clock.phase.clone();
    let (first, tail) = split_first(rest);
    let (spec, args_text) = match verbs.iter().find(|v| v.name == first) {
        Some(v) => ((*v).clone(), tail.to_string()),
        None => {
            let now: Vec<&VerbSpec> = all.iter().filter(|v| v.allowed).map(|v| &v.spec).collect();
            match now.as_slice() {
                [] if verbs.is_empty() => {
                    return Err(Error::Usage("this ruleset has no verb that `odds` can evaluate".into()));
                }
                [] => {
                    let when: Vec<String> =
                        verbs.iter().map(|v| format!("`{}` ({})", v.name, g.step_labels(&v.phases))).collect();
                    return Err(Error::Usage(format!(
                        "no combat verb is allowed now ({}): odds evaluates {}",
                        if phase.is_empty() { "no phase" } else { &phase },
                        when.join(", ")
                    )));
                }
                [one] => ((*one).clone(), rest.to_string()),
                many => {
                    let fits: Vec<&&VerbSpec> = many.iter().filter(|v| s.parse_args(v, rest).is_ok()).collect();
                    match fits.as_slice() {
                        [one] => ((**one).clone(), rest.to_string()),
                        _ => {
                            let names: Vec<&str> = many.iter().map(|v| v.name.as_str()).collect();
                            return Err(Error::Usage(format!(
                                "odds <{}> <arguments>: name the verb, then its arguments",
                                names.join("|")
                            )));
                        }
                    }
                }
            }
        }
    };
    let odds_of = |e: Error| match e {
        Error::Usage(m) => Error::Usage(format!("odds takes the arguments of `{}`: {m}", spec.name)),
        other => other,
    };
    s.parse_args(&spec, &args_text).map_err(odds_of)?;
    let odds = g.odds(&spec.name, &s.parse_args(&spec, &args_text)?)?;
    Ok(Reply::ok(odds_table(odds)))
}

fn odds_table(odds: Odds) -> Vec<String> {
    let mut out = odds.explanation;
    let Some((q, each)) = odds.by_answer else {
        results_table(&odds.results, &mut out);
        return out;
    };
    // a choice that changes the result: the results of each answer
    let who = q.side.as_deref().map(|s| format!("{s} ")).unwrap_or_default();
    let rule = q.rule.as_deref().map(|r| format!("[{r}] ")).unwrap_or_default();
    for (answer, results) in &each {
        let default = if q.default.as_ref() == Some(answer) { ", the default" } else { "" };
        out.push(format!("{rule}if {who}answers `{answer}`{default} ({}):", q.prompt));
        results_table(results, &mut out);
    }
    out
}

/// One line a result, in columns as wide as the longest result (at least 24) and fraction.
fn results_table(results: &crate::game::OddsResults, out: &mut Vec<String>) {
    let w = results.iter().map(|(r, _, _)| r.to_string().chars().count()).max().unwrap_or(0).max(24);
    let fractions: Vec<String> = results.iter().map(|(_, p, _)| format!("({})", fraction(*p))).collect();
    let f = fractions.iter().map(|x| x.chars().count()).max().unwrap_or(0).max(8);
    out.push(format!("{:<w$} {:>9}  {:<f$} {}", "result", "chance", "", "dice"));
    for ((r, p, paths), frac) in results.iter().zip(&fractions) {
        out.push(format!("{:<w$} {:>8.2}%  {frac:<f$} {}", r.to_string(), p * 100.0, dice_text(paths)));
    }
}

/// The dice that give a result: `1-2, 6` for one die, `3+5, 4+4` for a few, else a count.
fn dice_text(paths: &[Vec<u32>]) -> String {
    if paths.iter().all(|p| p.is_empty()) {
        return "no roll".into();
    }
    if paths.iter().all(|p| p.len() == 1) {
        let mut faces: Vec<u32> = paths.iter().map(|p| p[0]).collect();
        faces.sort();
        let mut parts: Vec<String> = Vec::new();
        let mut i = 0;
        while i < faces.len() {
            let mut j = i;
            while j + 1 < faces.len() && faces[j + 1] == faces[j] + 1 {
                j += 1;
            }
            parts.push(if i == j { faces[i].to_string() } else { format!("{}-{}", faces[i], faces[j]) });
            i = j + 1;
        }
        return parts.join(", ");
    }
    if paths.len() <= 6 {
        return paths
            .iter()
            .map(|p| p.iter().map(|f| f.to_string()).collect::<Vec<_>>().join("+"))
            .collect::<Vec<_>>()
            .join(", ");
    }
    format!("{} combinations", paths.len())
}

/// Probability as a fraction over 6^k or 36 when exact, e.g. `7/36`.
fn fraction(p: f64) -> String {
    for d in [6u64, 36, 216, 1296, 10, 20, 100, 2, 3, 4, 8, 12, 24, 48] {
        let n = p * d as f64;
        if (n - n.round()).abs() < 1e-9 {
            let n = n.round() as u64;
            let g = crate::text::gcd(n, d);
            return format!("{}/{}", n / g, d / g);
        }
    }
    format!("{p:.4}")
}

/// The chances of each result of a command line whose verb `odds` evaluates (`moves` shows
/// them beside each attack), or `None` for any other verb or a command `odds` refuses.
pub(super) fn odds_summary(s: &Session, cmd: &str) -> Option<String> {
    let g = s.game().ok()?;
    let (verb, rest) = split_first(cmd);
    let spec = odds_verbs(g).into_iter().find(|v| v.spec.name == verb)?.spec;
    s.parse_args(&spec, rest).ok()?;
    let odds = g.odds(&spec.name, &s.parse_args(&spec, rest).ok()?).ok()?;
    let parts: Vec<String> = odds.results.iter().map(|(r, p, _)| format!("{r} {:.0}%", p * 100.0)).collect();
    Some(parts.join(", "))
}
