//! The commands that play: `new`, `next`, `forward`, answers (`choose`, `auto`, `cancel`),
//! history (`undo`, `redo`) and the dice (`dice`, `roll`, `seed`).

use super::{Reply, Session, Status, split_first};
use crate::error::{Error, Result};
use crate::game::{Checkpoint, Flow, Game};

pub(super) fn new(s: &mut Session, rest: &str, _line: &str) -> Result<Reply> {
    const USAGE: &str = "usage: new <scenario> [--seed N] [--option NAME]... [--rules DIR]";
    let mut words = rest.split_whitespace();
    let Some(name) = words.next() else {
        return Err(Error::Usage(format!(
            "{USAGE} (games: {})",
            crate::ruleset::list_dirs(&s.root.join("scenarios")).join(", ")
        )));
    };
    let mut seed = None;
    let mut options = Vec::new();
    let mut rules = None;
    while let Some(w) = words.next() {
        match w {
            "--seed" => {
                let n = words.next().and_then(|s| s.parse::<u64>().ok());
                seed = Some(n.ok_or_else(|| Error::Usage("--seed takes a whole number".into()))?);
            }
            "--option" => {
                options.push(words.next().ok_or_else(|| Error::Usage("--option takes a name".into()))?.to_string())
            }
            // a ruleset folder anywhere (a variant being edited), for this game
            "--rules" => {
                rules = Some(std::path::PathBuf::from(
                    words.next().ok_or_else(|| Error::Usage("--rules takes a ruleset folder".into()))?,
                ))
            }
            other => return Err(Error::Usage(format!("unexpected '{other}'; {USAGE}"))),
        }
    }
    let rules = rules.or_else(|| s.rules.clone());
    let seed = seed.or(s.default_seed).unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64 % 1_000_000)
            .unwrap_or(1)
    });
    let mut canonical = format!("new {name} --seed {seed}");
    for o in &options {
        canonical.push_str(&format!(" --option {o}"));
    }
    // a save of a game under other rules replays under them
    if let Some(r) = &rules {
        let r = r.canonicalize().map_err(|e| Error::io(r, e))?;
        canonical.push_str(&format!(" --rules {}", r.display()));
    }
    let (game, out) = Game::create(&s.root, name, seed, &options, &canonical, s.config(), rules.as_deref())?;
    s.game = Some(game);
    Ok(Reply::ok(out))
}

/// `next [--turn-start]`: ends the current step and plays on to the next one that waits for the
/// players; with `--turn-start`, a `next` that ends the turn stops at the start of the next one,
/// before anything of it is played (how `forward turn N` stops there).
pub(super) fn next(s: &mut Session, rest: &str, line: &str) -> Result<Reply> {
    let hold = match rest.split_whitespace().collect::<Vec<_>>().as_slice() {
        [] => false,
        ["--turn-start"] => true,
        _ => return Err(Error::Usage("usage: next [--turn-start]".into())),
    };
    s.transact(line, |g| g.run(crate::contract::Call::Next { hold }))
}

pub(super) fn choose(s: &mut Session, rest: &str, _line: &str) -> Result<Reply> {
    s.game_mut()?.answer(Some(rest)).map(Reply::ok)
}

pub(super) fn auto(s: &mut Session, rest: &str, _line: &str) -> Result<Reply> {
    if !rest.trim().is_empty() {
        return Err(Error::Usage("usage: auto (it takes no words: `choose <answer>` gives one)".into()));
    }
    s.game_mut()?.answer(None).map(Reply::ok)
}

fn past_dice(rest: &str) -> bool {
    rest.split_whitespace().any(|w| w == "--past-dice")
}

pub(super) fn cancel(s: &mut Session, rest: &str, line: &str) -> Result<Reply> {
    let free = s.free_undo;
    s.game_mut()?
        .cancel_pending(free, past_dice(rest), line)?
        .map(Reply::ok)
        .ok_or_else(|| Error::Usage("nothing to cancel: no decision is pending".into()))
}

/// `undo [--past-dice] [n]`; while a decision is pending, `undo` (or `undo 1`) cancels the
/// waiting command. Bad arguments are refused before anything is undone or cancelled.
pub(super) fn undo(s: &mut Session, rest: &str, line: &str) -> Result<Reply> {
    const USAGE: &str = "usage: undo [--past-dice] [n] (n: how many commands, 1 or more)";
    let counts: Vec<&str> = rest.split_whitespace().filter(|w| *w != "--past-dice").collect();
    let n: usize = match counts.as_slice() {
        [] => 1,
        [w] => {
            w.parse().ok().filter(|n| *n >= 1).ok_or_else(|| Error::Usage(format!("'{w}' is not a count; {USAGE}")))?
        }
        _ => return Err(Error::Usage(format!("one count at most; {USAGE}"))),
    };
    let free = s.free_undo;
    let g = s.game_mut()?;
    if g.pending.is_some() && n > 1 {
        // one step at a time, so that a refusal of the second leaves the first undone or not
        return Err(Error::Usage(format!(
            "a decision is pending: `undo` takes back the waiting command alone, then `undo {}` the rest",
            n - 1
        )));
    }
    if let Some(out) = g.cancel_pending(free, past_dice(rest), line)? {
        return Ok(Reply::ok(out));
    }
    if g.opponents.is_empty() {
        return g.undo((n, n), free, past_dice(rest), line).map(Reply::ok);
    }
    // umpire plays a side: the player's last n commands go, each with umpire's after it (an
    // undo past the dice is recorded with the count it takes back: a replay knows no opponent)
    let span = g.players_span(n);
    let recorded = format!("undo --past-dice {span}");
    g.undo((span, n), free, past_dice(rest), if past_dice(rest) { &recorded } else { line }).map(Reply::ok)
}

pub(super) fn redo(s: &mut Session, _rest: &str, _line: &str) -> Result<Reply> {
    s.game_mut()?.redo().map(Reply::ok)
}

pub(super) fn seed(s: &mut Session, rest: &str, line: &str) -> Result<Reply> {
    let n: u64 = rest.trim().parse().map_err(|_| Error::Usage("usage: seed <n> (a whole number)".into()))?;
    s.transact(line, |g| {
        g.shared.borrow_mut().state.dice.reseed(n);
        Ok(Flow::Done(vec![format!("dice reseeded with {n}")]))
    })
}

pub(super) fn dice(s: &mut Session, rest: &str, line: &str) -> Result<Reply> {
    let words: Vec<&str> = rest.split_whitespace().collect();
    if words == ["clear"] {
        return s.transact(line, |g| {
            g.shared.borrow_mut().state.dice.forced.clear();
            Ok(Flow::Done(vec!["forced results cleared".into()]))
        });
    }
    if words.is_empty() {
        let g = s.game()?;
        let st = g.state();
        let q: Vec<String> = st.dice.forced.iter().map(|f| f.to_string()).collect();
        return Ok(Reply::ok(vec![if q.is_empty() {
            "no forced results queued".into()
        } else {
            format!("forced next: {}", q.join(" "))
        }]));
    }
    if let Some(w) = words.iter().find(|w| w.parse::<i64>().is_ok_and(|v| v < 1)) {
        return Err(Error::Usage(format!("'{w}' is not a die face (faces start at 1)")));
    }
    s.transact(line, |g| {
        g.shared.borrow_mut().state.dice.force(words.iter().copied());
        Ok(Flow::Done(vec![format!("next results forced: {}", words.join(" "))]))
    })
}

pub(super) fn roll(s: &mut Session, rest: &str, line: &str) -> Result<Reply> {
    let (expr, purpose) = split_first(rest);
    let (n, m) = crate::dice::parse_expr(expr).map_err(|e| Error::Usage(e.to_string()))?;
    let purpose = if purpose.is_empty() { "roll".to_string() } else { purpose.to_string() };
    s.transact(line, |g| {
        let faces = g.shared.borrow_mut().state.dice.roll(n, m, &purpose).map_err(|e| Error::Usage(e.to_string()))?;
        let total: u32 = faces.iter().sum();
        let f: Vec<String> = faces.iter().map(|x| x.to_string()).collect();
        Ok(Flow::Done(vec![format!(
            "{expr} for {purpose}: {total}{}",
            if faces.len() > 1 { format!(" ({})", f.join("+")) } else { String::new() }
        )]))
    })
}

/// Where `forward` stops.
enum Target {
    Next,
    Turn(i64),
    Step(String),
    End,
}

/// `forward [--verbose] [turn N | step ID | end]`: `next` and `auto` until the target (default:
/// the next step that waits for the players). Each `next` and answer is a command of its own;
/// if one fails, everything `forward` did is taken back. It prints what the commands ruled
/// and a summary; `--verbose` echoes every `next` and answer with its whole output.
/// A step `forward step ID` can reach: one of the sequence where play stops (a step that runs
/// by itself would be passed over, and forward would play on to the end of the game).
fn check_step(g: &Game, id: &str) -> Result<()> {
    let (ids, stops) = (g.step_ids()?, g.stop_ids()?);
    let listing = || {
        let shown: Vec<String> =
            stops.iter().map(|i| format!("{i} ({})", g.step_labels(std::slice::from_ref(i)))).collect();
        format!("the steps where play stops: {}", shown.join(", "))
    };
    if !ids.iter().any(|i| i == id) {
        return Err(Error::Usage(format!(
            "no step '{id}' in the sequence of play{}; {}",
            crate::text::did_you_mean(id, ids.iter()),
            listing()
        )));
    }
    if !stops.iter().any(|i| i == id) {
        return Err(Error::Usage(format!(
            "play never stops at step '{id}' ({}): it runs by itself, or holds other steps; {}",
            g.step_labels(&[id.to_string()]),
            listing()
        )));
    }
    Ok(())
}

pub(super) fn forward(s: &mut Session, rest: &str, line: &str) -> Result<Reply> {
    let (verbose, target) = forward_target(rest)?;
    if let Target::Step(id) = &target {
        check_step(s.game()?, id)?;
    }
    if let Target::Step(id) = &target {
        let g = s.game()?;
        if g.pending.is_none() && g.state().clock.over.is_none() && g.state().clock.step == *id {
            return Ok(Reply::ok(vec![format!("already at step {id}")]));
        }
    }
    let checkpoint = s.game()?.checkpoint();
    let mut out = Vec::new();
    let (mut nexts, mut answers) = (0usize, 0usize);
    // the rules of the questions answered, in order of first appearance, with their counts
    let mut rules: Vec<(String, usize)> = Vec::new();
    // where forward's own commands start in the history (after the command whose decision was
    // pending, which it may finish first): they become one command, the `forward` line
    let mut own_from: Option<usize> = None;
    const MOST: usize = 100_000;
    for played in 0..=MOST {
        if played == MOST {
            out.push(format!("forward stopped after {MOST} commands without reaching its target"));
            break;
        }
        let (over, turn, step, pending) = {
            let g = s.game()?;
            let st = g.state();
            (st.clock.over.is_some(), st.clock.turn, st.clock.step.clone(), g.pending.is_some())
        };
        if own_from.is_none() && !pending {
            own_from = Some(s.game()?.history.len());
        }
        let reached = match &target {
            // (something was played: a `next`, or an answer)
            Target::Next => nexts + answers > 0,
            Target::Turn(n) => turn >= *n,
            Target::Step(id) => nexts + answers > 0 && step == *id,
            Target::End => false,
        };
        if !pending && (reached || over) {
            break;
        }
        let cmd = match (pending, &target) {
            (true, _) => "auto",
            (false, Target::Turn(_)) => "next --turn-start",
            (false, _) => "next",
        };
        if pending && let Some(p) = &s.game()?.pending {
            let rule = p.question.rule.clone().unwrap_or_else(|| "no rule".into());
            match rules.iter_mut().find(|(r, _)| *r == rule) {
                Some((_, n)) => *n += 1,
                None => rules.push((rule, 1)),
            }
        }
        let r = if crate::lua::interrupted() {
            Reply::with(vec![], Status::Error(Error::Usage("interrupted (Ctrl-C)".into())))
        } else {
            s.execute(cmd)
        };
        if let Status::Error(e) = r.status {
            return Err(forward_failed(s, checkpoint, cmd, e, r.out, nexts + answers));
        }
        if verbose {
            out.push(format!("> {cmd}"));
            out.extend(r.out.into_iter().map(|l| format!("  {l}")));
        } else {
            // the rulings and where play went; an answer's echo (`→ x`) and the questions
            // (answered next, by default) are left out
            out.extend(r.out.into_iter().filter(|l| !l.starts_with("→ ") && !l.starts_with("? ")));
        }
        if pending {
            answers += 1;
        } else {
            nexts += 1;
        }
    }
    if let Some(from) = own_from {
        s.game_mut()?.merge_history(from, line);
    }
    if !verbose {
        out.push(forward_summary(s.game()?, nexts, answers, &rules));
    }
    Ok(Reply::ok(out))
}

/// `forward`'s words: whether it is verbose, and where it goes.
fn forward_target(rest: &str) -> Result<(bool, Target)> {
    const USAGE: &str = "usage: forward [--verbose] [turn N | step ID | end]";
    let mut words: Vec<&str> = rest.split_whitespace().collect();
    let verbose = words.first().is_some_and(|w| *w == "--verbose" || *w == "-v");
    if verbose {
        words.remove(0);
    }
    let target = match words.as_slice() {
        [] => Target::Next,
        ["end"] => Target::End,
        ["turn", n] => Target::Turn(n.parse().map_err(|_| Error::Usage(format!("'{n}' is not a turn number")))?),
        ["step", id] => Target::Step(id.to_string()),
        _ => return Err(Error::Usage(USAGE.into())),
    };
    Ok((verbose, target))
}

/// A command of `forward` failed: everything forward did is taken back, what the failing
/// command printed is kept (it explains the failure), and the error says how far it got.
fn forward_failed(
    s: &mut Session,
    checkpoint: Checkpoint,
    cmd: &str,
    e: Error,
    printed: Vec<String>,
    done: usize,
) -> Error {
    let lost = match s.game_mut() {
        Ok(g) => g.rollback(checkpoint),
        Err(e) => return e,
    };
    let mut msg = format!("forward stopped at `{cmd}`: {e}");
    if e.to_string().contains("instruction limit exceeded") {
        msg.push_str(" (everything forward plays shares one command's budget: go in shorter steps, `forward turn N`)");
    }
    msg.push_str(&match (done, lost) {
        (0, _) => " — nothing was done".to_string(),
        (n, None) => format!(" — the {n} command(s) it had run were taken back: the game is as before `forward`"),
        (n, Some(why)) => format!(
            " — the {n} command(s) it had run were taken back, and the decision pending before it was cancelled ({why})"
        ),
    });
    let mut lines = vec![format!("> {cmd}")];
    lines.extend(printed.into_iter().map(|l| format!("  {l}")));
    if let Ok(g) = s.game() {
        g.shared.borrow_mut().out = lines;
    }
    Error::Usage(msg)
}

/// What `forward` did, in one line: the `next`s, the questions answered by their defaults
/// (by rule), and where play is now.
fn forward_summary(g: &Game, nexts: usize, answers: usize, rules: &[(String, usize)]) -> String {
    let st = g.state();
    let c = &st.clock;
    let plural = |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let mut done = vec![];
    if nexts > 0 {
        done.push(plural(nexts, "`next`", "`next`s"));
    }
    if answers > 0 {
        let by: Vec<String> = rules.iter().map(|(r, n)| format!("{r} ×{n}")).collect();
        done.push(format!(
            "{} ({})",
            plural(answers, "question answered by its default", "questions answered by their defaults"),
            by.join(", ")
        ));
    }
    let done = if done.is_empty() { "nothing to play".to_string() } else { done.join(", ") };
    let place = match &c.over {
        Some(o) => format!("game over: {o}"),
        None => c.place(),
    };
    format!("forward: {done} — now {place}")
}
