//! The views of where the game is: `hash`, `status` (turn, phase, side, tracks in the rules'
//! words), `table` (a table of the rules), `log` and `why`.

use super::{Reply, Session};
use crate::contract::Arg;
use crate::error::{Error, Result};
use crate::game::{Game, describe_question};
use crate::lua::Said;

pub(super) fn hash(s: &mut Session, _rest: &str, _line: &str) -> Result<Reply> {
    Ok(Reply::ok(vec![s.game()?.hash()]))
}

pub(super) fn status(s: &mut Session, _rest: &str, _line: &str) -> Result<Reply> {
    let g = s.game()?;
    let st = g.state();
    let c = &st.clock;
    let mut out = vec![
        format!(
            "{} ({}) — rules {} {} from {}",
            g.scenario.name,
            g.scenario.id,
            g.ruleset.name,
            g.ruleset.version,
            crate::ruleset::shown(&g.ruleset.dir)
        ),
        c.place(),
    ];
    if let Some(o) = &c.over {
        out.push(format!("game over: {o}"));
    }
    if let Some(p) = &g.pending {
        out.push(format!("waiting for a decision: {}", describe_question(&p.question)));
    }
    if !st.options.is_empty() {
        out.push(format!("options: {}", st.options.iter().cloned().collect::<Vec<_>>().join(", ")));
    }
    let forced: Vec<String> = st.dice.forced.iter().map(|f| f.to_string()).collect();
    out.push(format!(
        "seed {}, {} roll(s) so far{}",
        st.dice.seed,
        st.dice.rolls.len(),
        if forced.is_empty() { String::new() } else { format!(", forced next: {}", forced.join(" ")) }
    ));
    out.push(format!("{} command(s) in history, {} to redo", g.history.len(), g.redo_len()));
    let tracks: Vec<(String, i64)> = st.tracks.iter().map(|(k, v)| (k.clone(), *v)).collect();
    drop(st);
    // the rules' words for each track (`umpire.describe{track=}`), or as stored
    let (words, _) = g.read_only(|g| track_words(g, &tracks));
    for ((k, v), w) in tracks.iter().zip(words?) {
        match w {
            Some(Some(text)) => out.push(text),
            Some(None) => {}
            None => out.push(format!("track {k}: {v}")),
        }
    }
    // what the rules say matters now (`umpire.status`)
    let (lines, _) = g.read_only(|g| g.host().hook_lines("status"));
    out.extend(lines?);
    Ok(Reply::ok(out))
}

/// How the rules print each track in `status` (`umpire.describe{track = fn}`): `Some(Some(text))`,
/// `Some(None)` hidden, `None` printed as stored.
fn track_words(g: &Game, tracks: &[(String, i64)]) -> Result<Vec<Option<Option<String>>>> {
    if !g.host().describes("track")? {
        return Ok(vec![None; tracks.len()]);
    }
    let mut out = Vec::new();
    for (name, v) in tracks {
        match g.host().describe_words("track", &[Arg::Word(name.clone()), Arg::Int(*v)])? {
            Said::Text(t) => out.push(Some(Some(t))),
            Said::Hidden => out.push(Some(None)),
            Said::Nothing => out.push(None),
            Said::Other(t) => {
                return Err(Error::Lua(format!(
                    "umpire.describe: `track` must return a text, false (hidden) or nil (shown as stored) for {name}, not {t}"
                )));
            }
        }
    }
    Ok(out)
}

/// `table` lists the game's tables (`umpire.table`); `table <name>` prints one as aligned
/// columns (a unique prefix of the name will do).
pub(super) fn table(s: &mut Session, rest: &str, _line: &str) -> Result<Reply> {
    let g = s.game()?;
    let names = g.host().table_names()?;
    let typed = rest.trim();
    if typed.is_empty() {
        if names.is_empty() {
            return Ok(Reply::ok(vec!["this game registers no tables".into()]));
        }
        let mut out = vec!["tables (`table <name>` prints one):".to_string()];
        let w = names.iter().map(|(n, _, _)| n.chars().count()).max().unwrap_or(0).max(12);
        for (n, title, rule) in &names {
            let rule = if rule.is_empty() { String::new() } else { format!(" [{rule}]") };
            out.push(format!("  {n:<w$} {title}{rule}"));
        }
        return Ok(Reply::ok(out));
    }
    let name = match crate::text::pick(typed, names.iter().map(|(n, _, _)| n.as_str())) {
        crate::text::Pick::One(n) => n.to_string(),
        crate::text::Pick::Many(ns) => {
            return Err(Error::Usage(format!("'{typed}' could be the tables {}", ns.join(", "))));
        }
        crate::text::Pick::None(dym) => {
            let all: Vec<&str> = names.iter().map(|(n, _, _)| n.as_str()).collect();
            return Err(Error::NotFound(format!("no table '{typed}'{dym} (tables: {})", all.join(", "))));
        }
    };
    let (view, _) = g.read_only(|g| g.host().table(&name));
    Ok(Reply::ok(table_lines(&view?)))
}

/// A table as aligned columns: the title and rule, the header, a rule line, the rows, the notes.
fn table_lines(t: &crate::lua::TableView) -> Vec<String> {
    let mut out = vec![format!(
        "{}{}",
        if t.title.is_empty() { &t.name } else { &t.title },
        if t.rule.is_empty() { String::new() } else { format!(" [{}]", t.rule) }
    )];
    let cols = t.rows.iter().map(Vec::len).chain([t.columns.len()]).max().unwrap_or(0);
    let mut width = vec![0usize; cols];
    for row in t.rows.iter().chain([&t.columns]) {
        for (i, c) in row.iter().enumerate() {
            width[i] = width[i].max(c.chars().count());
        }
    }
    let line = |row: &[String]| -> String {
        let cells: Vec<String> = row.iter().enumerate().map(|(i, c)| format!("{c:<w$}", w = width[i])).collect();
        format!("  {}", cells.join("  ").trim_end())
    };
    if !t.columns.is_empty() {
        out.push(line(&t.columns));
        out.push(format!("  {}", "-".repeat(width.iter().sum::<usize>() + 2 * cols.saturating_sub(1))));
    }
    out.extend(t.rows.iter().map(|r| line(r)));
    out.extend(t.notes.iter().map(|n| format!("  {n}")));
    out
}

pub(super) fn log(s: &mut Session, rest: &str, _line: &str) -> Result<Reply> {
    let g = s.game()?;
    let n: usize = if rest.trim().is_empty() {
        10
    } else {
        rest.trim().parse().map_err(|_| Error::Usage("usage: log [n]".into()))?
    };
    let st = g.state();
    let start = st.log.len().saturating_sub(n);
    Ok(Reply::ok(
        st.log
            .since(start)
            .map(|e| {
                format!(
                    "#{:<4} {}{}",
                    e.command,
                    e.rule.as_ref().map(|r| format!("[{r}] ")).unwrap_or_default(),
                    e.text
                )
            })
            .collect(),
    ))
}

pub(super) fn why(s: &mut Session, _rest: &str, _line: &str) -> Result<Reply> {
    let g = s.game()?;
    let st = g.state();
    let Some(last) = st.log.iter().rev().find(|e| e.rule.is_some()).map(|e| e.command) else {
        return Ok(Reply::ok(vec!["no ruling yet".into()]));
    };
    let mut out = vec![format!("ruling of command #{last}:")];
    for (i, e) in st.log.iter().filter(|e| e.command == last).enumerate() {
        out.push(format!("{:>3}. {:<10} {}", i + 1, e.rule.clone().unwrap_or_default(), e.text));
    }
    Ok(Reply::ok(out))
}
