//! The board: the game in a browser beside the REPL (`umpire play --board`, `board` at the
//! prompt) or a saved game to step through (`umpire board SAVE`). A front end, like the
//! terminal: it depends on the session, nothing depends on it.
//!
//! * [`Board::start`] serves 127.0.0.1 on a port the system picks (tiny_http), nothing to other
//!   addresses; every request carries a token of the page's URL (128 random bits), and the
//!   token names the side whose page it is under fog of war (one page each), else one page
//!   for all.
//! * The REPL [`Board::publish`]es each position (the command, what it printed, a
//!   [`Snapshot`] of the game); the board keeps them all, a timeline the page steps through,
//!   and tells the pages at once (server-sent events, `/events`).
//! * What the page asks that needs the rules (the picture, `show`, overlays) is done on a
//!   thread of the board's own (viewer.rs) with its own VM, on a copy of the state: the REPL
//!   never waits for the board, and the board never changes the game.

mod viewer;

use crate::session::Snapshot;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;
use viewer::{Ask, Viewer};

/// The page (a static file of the project: no build step, no framework).
const PAGE: &str = include_str!("page.html");

/// One position of the timeline: the command that led to it and what it printed.
#[derive(Clone, Debug)]
pub struct Step {
    pub line: String,
    pub out: Vec<String>,
    pub snap: Snapshot,
    /// The side a question waiting for an answer asks (the set-up's, say), if any.
    pub asks: Option<String>,
}

/// The positions published so far, and a count of changes the pages wait on.
#[derive(Default)]
struct Timeline {
    steps: Vec<Step>,
    version: u64,
}

struct Shared {
    timeline: Mutex<Timeline>,
    changed: Condvar,
}

/// A board being served.
pub struct Board {
    shared: Arc<Shared>,
    /// Each page: the side it shows (None: all, without fog of war) and its URL.
    pub pages: Vec<(Option<String>, String)>,
}

/// A failure to start the board.
#[derive(Debug, thiserror::Error)]
#[error("the board could not start: {0}")]
pub struct StartError(String);

/// A token: 128 random bits, as hex (the operating system's randomness, never the game's dice).
fn token() -> String {
    use rand::RngExt;
    let mut rng = rand::rng();
    (0..4).map(|_| format!("{:08x}", rng.random::<u32>())).collect()
}

impl Board {
    /// Serves the positions of `steps` (a game so far, or a saved game to step through) on
    /// 127.0.0.1. `sides`: the sides of the game when its rules hide units (one page each),
    /// else empty (one page). `root`: the library the board's view loads rules from. `live`:
    /// more positions will come (the REPL's game), else the steps are all (a file's).
    pub fn start(root: PathBuf, steps: Vec<Step>, sides: &[String], live: bool) -> Result<Board, StartError> {
        let server = tiny_http::Server::http("127.0.0.1:0").map_err(|e| StartError(e.to_string()))?;
        let port = server.server_addr().to_ip().map(|a| a.port()).ok_or_else(|| StartError("no port".into()))?;
        let mut tokens: BTreeMap<String, Option<String>> = BTreeMap::new();
        let mut pages = Vec::new();
        let views: Vec<Option<String>> =
            if sides.is_empty() { vec![None] } else { sides.iter().cloned().map(Some).collect() };
        for side in views {
            let t = token();
            pages.push((side.clone(), format!("http://127.0.0.1:{port}/?t={t}")));
            tokens.insert(t, side);
        }
        let shared = Arc::new(Shared {
            timeline: Mutex::new(Timeline { version: steps.len() as u64, steps }),
            changed: Condvar::new(),
        });
        let (ask, asked) = mpsc::channel::<Ask>();
        Viewer::spawn(root, shared.clone(), asked);
        let serving = shared.clone();
        std::thread::Builder::new()
            .name("board".into())
            .spawn(move || {
                let tokens = Arc::new(tokens);
                for req in server.incoming_requests() {
                    let (shared, tokens, ask) = (serving.clone(), tokens.clone(), ask.clone());
                    std::thread::spawn(move || handle(req, &shared, &tokens, &ask, live));
                }
            })
            .map_err(|e| StartError(e.to_string()))?;
        Ok(Board { shared, pages })
    }

    /// Adds a position (after each command at the REPL): the pages are told at once.
    pub fn publish(&self, step: Step) {
        let mut t = self.shared.timeline.lock().expect("the board's timeline");
        t.steps.push(step);
        t.version += 1;
        self.shared.changed.notify_all();
    }

    /// The lines that tell the player where the pages are.
    pub fn announce(&self) -> Vec<String> {
        let mut out = vec!["the board is served on this machine only (127.0.0.1); open in a browser:".to_string()];
        for (side, url) in &self.pages {
            match side {
                Some(s) => {
                    out.push(format!("  {s}: {url}  (fog of war: what the {s} player may see; keep it to that player)"))
                }
                None => out.push(format!("  {url}")),
            }
        }
        out
    }
}

/// The query of a URL, decoded: `a=b&c=d` (`+` and `%xx` as a form sends them).
fn query(url: &str) -> (String, BTreeMap<String, String>) {
    let (path, q) = url.split_once('?').unwrap_or((url, ""));
    let mut out = BTreeMap::new();
    for pair in q.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        out.insert(decode(k), decode(v));
    }
    (path.to_string(), out)
}

fn decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < b.len() => {
                match u8::from_str_radix(std::str::from_utf8(&b[i + 1..i + 3]).unwrap_or("zz"), 16) {
                    Ok(x) => {
                        out.push(x);
                        i += 2;
                    }
                    Err(_) => out.push(b'%'),
                }
            }
            x => out.push(x),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn header(k: &str, v: &str) -> tiny_http::Header {
    tiny_http::Header::from_bytes(k.as_bytes(), v.as_bytes()).expect("a valid header")
}

fn reply(req: tiny_http::Request, status: u16, kind: &str, body: String) {
    let r = tiny_http::Response::from_string(body)
        .with_status_code(status)
        .with_header(header("Content-Type", kind))
        .with_header(header("Cache-Control", "no-store"));
    let _ = req.respond(r);
}

fn json(req: tiny_http::Request, v: serde_json::Value) {
    reply(req, 200, "application/json; charset=utf-8", v.to_string());
}

/// The game's name for the page's header: the ruleset's, with the scenario's where it says
/// more (Red Storm's "Historical").
fn title_of(snap: &Snapshot) -> String {
    let (game, scen) = (&snap.ruleset.name, &snap.scenario.name);
    if scen.contains(game.as_str()) { scen.clone() } else { format!("{game} — {scen}") }
}

/// A step's place in the game, for the page's header and its list of steps.
fn step_json(i: usize, s: &Step) -> serde_json::Value {
    let c = &s.snap.state.clock;
    serde_json::json!({
        "i": i, "line": s.line, "turn": c.turn, "phase": c.phase, "step": c.step,
        "side": c.side, "over": c.over, "asks": s.asks,
    })
}

/// Answers one request of a page.
fn handle(
    req: tiny_http::Request,
    shared: &Shared,
    tokens: &BTreeMap<String, Option<String>>,
    ask: &mpsc::Sender<Ask>,
    live: bool,
) {
    if *req.method() != tiny_http::Method::Get {
        return reply(req, 405, "text/plain", "only GET".into());
    }
    let (path, q) = query(req.url());
    let Some(side) = q.get("t").and_then(|t| tokens.get(t)).cloned() else {
        return reply(
            req,
            403,
            "text/plain; charset=utf-8",
            "this page needs the URL umpire printed (its token)".into(),
        );
    };
    // the position asked for (`step`, from 0), else the last; a step that is no number or
    // past the last is refused
    let asked = match q.get("step") {
        None => None,
        Some(v) => {
            let n = shared.timeline.lock().expect("the board's timeline").steps.len();
            match v.parse::<usize>() {
                Ok(i) if i < n => Some(i),
                _ => {
                    let last = n.saturating_sub(1);
                    return reply(
                        req,
                        400,
                        "text/plain; charset=utf-8",
                        format!("no step {v}: the steps are 0 to {last}"),
                    );
                }
            }
        }
    };
    let step = |t: &Timeline| asked.or_else(|| t.steps.len().checked_sub(1));
    match path.as_str() {
        "/" => reply(req, 200, "text/html; charset=utf-8", PAGE.to_string()),
        "/status" => {
            let t = shared.timeline.lock().expect("the board's timeline");
            let now = step(&t).map(|i| step_json(i, &t.steps[i]));
            // (the game of the step asked for: a `new` may have started another since)
            let title = step(&t).map(|i| title_of(&t.steps[i].snap)).unwrap_or_default();
            let v = serde_json::json!({ "version": t.version, "steps": t.steps.len(), "now": now, "viewer": side, "title": title, "live": live });
            drop(t);
            json(req, v)
        }
        "/steps" => {
            let t = shared.timeline.lock().expect("the board's timeline");
            let v: Vec<serde_json::Value> = t.steps.iter().enumerate().map(|(i, s)| step_json(i, s)).collect();
            drop(t);
            json(req, serde_json::Value::Array(v))
        }

        "/events" => events(req, shared, q.get("since").and_then(|v| v.parse().ok()).unwrap_or(0)),
        "/map.svg" | "/show" | "/overlays" | "/log" => {
            let at = step(&shared.timeline.lock().expect("the board's timeline"));
            let Some(at) = at else { return reply(req, 404, "text/plain", "no game yet".into()) };
            let (tx, rx) = mpsc::channel();
            let what = match path.as_str() {
                "/map.svg" => viewer::What::Svg(q.get("overlay").cloned().unwrap_or_default()),
                "/show" => viewer::What::Show(q.get("what").cloned().unwrap_or_default()),
                "/log" => viewer::What::Log,
                _ => viewer::What::Overlays,
            };
            if ask.send(Ask { step: at, side, what, reply: tx }).is_err() {
                return reply(req, 500, "text/plain", "the board's view has stopped".into());
            }
            match rx.recv_timeout(Duration::from_secs(30)) {
                Ok(Ok(body)) if path == "/map.svg" => reply(req, 200, "image/svg+xml", body),
                Ok(Ok(body)) => reply(req, 200, "application/json; charset=utf-8", body),
                Ok(Err(e)) => reply(req, 400, "text/plain; charset=utf-8", e),
                Err(_) => reply(req, 504, "text/plain", "the board's view did not answer".into()),
            }
        }
        _ => reply(req, 404, "text/plain", "not found".into()),
    }
}

/// `/events`: a stream of server-sent events, one (`data: <version>`) whenever the timeline
/// changes after `since`, a comment every 15 s to keep it open; it ends when the page goes.
fn events(req: tiny_http::Request, shared: &Shared, since: u64) {
    let head = tiny_http::Response::empty(200)
        .with_header(header("Content-Type", "text/event-stream"))
        .with_header(header("Cache-Control", "no-store"));
    // (tiny_http buffers a chunked body; the raw stream is written and flushed event by event)
    let mut out = req.upgrade("sse", head);
    let mut seen = since;
    loop {
        let version = {
            let t = shared.timeline.lock().expect("the board's timeline");
            let (t, _) = shared
                .changed
                .wait_timeout_while(t, Duration::from_secs(15), |t| t.version <= seen)
                .expect("the board's timeline");
            t.version
        };
        let msg = if version > seen { format!("data: {version}\n\n") } else { ": still here\n\n".to_string() };
        seen = version;
        if out.write_all(msg.as_bytes()).and_then(|_| out.flush()).is_err() {
            return;
        }
    }
}
