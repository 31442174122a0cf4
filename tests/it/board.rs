//! The board (src/board): its pages over HTTP without a browser, then in headless Chromium
//! driven by chromedriver (WebDriver): the page loads, a command typed at the REPL changes it,
//! a click shows a unit, a side's page under fog of war hides what it must, and the stepping
//! controls reach a given command. The browser test needs `chromium` and `chromedriver`
//! (.ci/run installs them); without them it says so and passes, unless
//! `UMPIRE_BROWSER_TESTS=require`.

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};
use umpire::Session;
use umpire::board::{Board, Step};

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(60)))
        .build()
        .into()
}

/// GET `url`: the status and the body.
fn get(url: &str) -> (u16, String) {
    let r = agent().get(url).call().expect("the board answers");
    let status = r.status().as_u16();
    (status, r.into_body().read_to_string().expect("a text body"))
}

fn fixture_game() -> Session {
    let mut s = Session::with_root(super::fixtures());
    for line in ["new fixture --seed 21", "auto"] {
        let r = s.execute(line);
        assert_eq!(r.status, umpire::Status::Ok, "{line}: {r:?}");
    }
    s
}

fn step(s: &Session, line: &str) -> Step {
    let asks = s.game.as_ref().and_then(|g| g.pending.as_ref()).and_then(|p| p.question.side.clone());
    Step { line: line.into(), out: vec![format!("after {line}")], snap: s.snapshot().expect("a game"), asks }
}

/// The page URL of `side` and its base and token.
fn page(board: &Board, side: &str) -> (String, String) {
    let url = &board.pages.iter().find(|(s, _)| s.as_deref() == Some(side)).expect("a page for the side").1;
    let (base, token) = url.split_once("/?t=").expect("a token in the URL");
    (base.to_string(), token.to_string())
}

#[test]
fn the_board_serves_each_side_its_page_and_tells_it_of_every_position() {
    let mut s = fixture_game();
    let board = Board::start(super::fixtures(), vec![step(&s, "auto")], &["Blue".to_string(), "Red".to_string()], true)
        .expect("the board starts");
    assert!(board.pages.iter().all(|(_, u)| u.starts_with("http://127.0.0.1:")), "{:?}", board.pages);
    let (base, blue) = page(&board, "Blue");
    let (_, red) = page(&board, "Red");
    assert_ne!(blue, red);
    // the page, and what it asks, only with a token of the URL printed
    let (code, html) = get(&format!("{base}/?t={blue}"));
    assert!(code == 200 && html.contains("<title>umpire board</title>"), "{code}");
    for url in [format!("{base}/status"), format!("{base}/status?t=0123"), format!("{base}/map.svg?t=x{blue}")] {
        let (code, body) = get(&url);
        assert!(code == 403 && body.contains("token"), "{url}: {code} {body}");
    }
    let (code, st) = get(&format!("{base}/status?t={blue}"));
    let st: Value = serde_json::from_str(&st).unwrap();
    assert_eq!(
        (code, &st["viewer"], &st["steps"], &st["now"]["turn"]),
        (200, &json!("Blue"), &json!(1), &json!(1)),
        "{st}"
    );
    // a page waiting for news hears of the next position at once (server-sent events)
    let events = format!("{base}/events?t={red}&since=1");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let r = agent().get(&events).call().expect("the event stream");
        let mut body = r.into_body().into_reader();
        let mut seen = Vec::new();
        let mut buf = [0u8; 256];
        while !String::from_utf8_lossy(&seen).contains("\n\n") {
            let n = body.read(&mut buf).expect("the stream reads");
            if n == 0 {
                break;
            }
            seen.extend_from_slice(&buf[..n]);
        }
        let _ = tx.send(String::from_utf8_lossy(&seen).into_owned());
    });
    std::thread::sleep(Duration::from_millis(200));
    for line in ["move B1 0303", "move B2 0303"] {
        assert_eq!(s.execute(line).status, umpire::Status::Ok, "{line}");
    }
    board.publish(step(&s, "move B2 0303"));
    let event = rx.recv_timeout(Duration::from_secs(20)).expect("an event");
    assert!(event.contains("data: 2"), "{event}");
    // the steps, each position's log, and `show` as each side may see it (fog of war)
    let (_, steps) = get(&format!("{base}/steps?t={red}"));
    let steps: Value = serde_json::from_str(&steps).unwrap();
    assert_eq!(steps.as_array().map(Vec::len), Some(2), "{steps}");
    let (_, log) = get(&format!("{base}/log?t={red}&step=0"));
    assert!(log.contains("after auto"), "{log}");
    let (_, shown) = get(&format!("{base}/show?t={blue}&what=0303"));
    assert!(shown.contains("B1") && shown.contains("B2"), "{shown}");
    let (_, hidden) = get(&format!("{base}/show?t={red}&what=0303"));
    assert!(hidden.contains("hidden by fog of war"), "{hidden}");
    let lower = if hidden.contains("B2 [Blue]") { "B1" } else { "B2" };
    assert!(!hidden.contains(&format!("{lower} [Blue]")), "{hidden}");
    let (_, before) = get(&format!("{base}/show?t={red}&what=0303&step=0"));
    assert!(!before.contains("B1") && !before.contains("B2"), "{before}");
    // the picture: every hex clickable, the stack's hidden unit not named on the enemy's page
    let (code, svg) = get(&format!("{base}/map.svg?t={red}"));
    assert!(code == 200 && svg.starts_with("<svg") && svg.contains("data-hex=\"0303\""), "{code}");
    let both = |svg: &str| svg.lines().any(|l| l.contains("<title>") && l.contains("B1 (") && l.contains("B2 ("));
    assert!(
        !both(&svg) && svg.contains(&format!("<title>{} (", if lower == "B1" { "B2" } else { "B1" })),
        "the Red page names the lower Blue unit"
    );
    let (_, svg) = get(&format!("{base}/map.svg?t={blue}"));
    assert!(both(&svg), "the Blue page names both units of its stack");
    // the rules' overlays (and the listed moves), drawn from the page
    let (_, overlays) = get(&format!("{base}/overlays?t={blue}"));
    let names: Vec<String> = serde_json::from_str::<Value>(&overlays)
        .unwrap()
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|o| o["name"].as_str().map(str::to_string))
        .collect();
    assert!(names.contains(&"zoc".to_string()) && names.contains(&"moves".to_string()), "{names:?}");
    let (code, zoc) = get(&format!("{base}/map.svg?t={blue}&overlay=zoc%20Red"));
    assert!(code == 200 && zoc.contains("<g id=\"overlay\">") && zoc.contains("overlay `zoc Red`"), "{code}");
    // under fog of war nothing the side may not see reaches its page: not the log's lines on
    // the hidden unit, nor an overlay of it (as `show` refuses it)
    let top = if lower == "B1" { "B2" } else { "B1" };
    board.publish(Step {
        line: "lua -- a command".into(),
        out: vec![format!("{lower} digs in"), format!("{top} digs in")],
        snap: s.snapshot().unwrap(),
        asks: None,
    });
    let (_, log) = get(&format!("{base}/log?t={red}&step=2"));
    assert!(!log.contains(&format!("{lower} digs in")) && log.contains(&format!("{top} digs in")), "{log}");
    assert!(log.contains("may not see"), "{log}");
    let (_, log) = get(&format!("{base}/log?t={blue}&step=2"));
    assert!(log.contains(&format!("{lower} digs in")), "{log}");
    let (code, body) = get(&format!("{base}/map.svg?t={red}&overlay=reach%20{lower}"));
    assert!(code == 400 && body.contains("hidden under the top of its stack (fog of war)"), "{code} {body}");
    assert_eq!(get(&format!("{base}/map.svg?t={blue}&overlay=reach%20{lower}")).0, 200);
    // a step that is not one is refused
    for bad in ["999", "-5", "abc"] {
        let (code, body) = get(&format!("{base}/status?t={blue}&step={bad}"));
        assert!(code == 400 && body.contains("no step"), "{bad}: {code} {body}");
    }
    // a wrong question is said, not served
    let (code, body) = get(&format!("{base}/show?t={blue}&what=9999"));
    assert!(code == 400 && !body.is_empty(), "{code} {body}");
    assert_eq!(get(&format!("{base}/nothing?t={blue}")).0, 404);
}

/// A WebDriver session of chromedriver on headless Chromium.
struct Driver {
    base: String,
    session: String,
    child: Child,
    _profile: tempfile::TempDir,
}

impl Driver {
    fn start(chromium: &str, chromedriver: &str) -> Driver {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let child = Command::new(chromedriver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts");
        let base = format!("http://127.0.0.1:{port}");
        let profile = tempfile::tempdir().unwrap();
        let args = [
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--window-size=1200,800",
        ];
        let mut args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        args.push(format!("--user-data-dir={}", profile.path().display()));
        let caps = json!({ "capabilities": { "alwaysMatch": { "goog:chromeOptions": { "binary": chromium, "args": args } } } });
        let deadline = Instant::now() + Duration::from_secs(30);
        let session = loop {
            if let Ok(r) =
                agent().post(&format!("{base}/session")).content_type("application/json").send(caps.to_string())
            {
                let v: Value = serde_json::from_str(&r.into_body().read_to_string().unwrap()).unwrap();
                break v["value"]["sessionId"]
                    .as_str()
                    .unwrap_or_else(|| panic!("no WebDriver session: {v}"))
                    .to_string();
            }
            assert!(Instant::now() < deadline, "chromedriver did not answer");
            std::thread::sleep(Duration::from_millis(200));
        };
        Driver { base, session, child, _profile: profile }
    }

    fn call(&self, method: &str, path: &str, body: Value) -> Value {
        let url = format!("{}/session/{}{path}", self.base, self.session);
        let r = match method {
            "GET" => agent().get(&url).call(),
            _ => agent().post(&url).content_type("application/json").send(body.to_string()),
        }
        .expect("chromedriver answers");
        let v: Value = serde_json::from_str(&r.into_body().read_to_string().unwrap()).unwrap();
        v["value"].clone()
    }

    fn open(&self, url: &str) {
        self.call("POST", "/url", json!({ "url": url }));
    }

    fn js(&self, script: &str) -> Value {
        self.call("POST", "/execute/sync", json!({ "script": script, "args": [] }))
    }

    fn text(&self, id: &str) -> String {
        self.js(&format!("return document.getElementById('{id}').textContent")).as_str().unwrap_or_default().to_string()
    }

    /// Waits until the text of element `id` holds `want` (20 s at most).
    fn wait_text(&self, id: &str, want: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let t = self.text(id);
            if t.contains(want) {
                return t;
            }
            assert!(Instant::now() < deadline, "#{id} never showed {want:?}; it shows {t:?}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Waits until `script` returns true (20 s at most).
    fn wait_js(&self, script: &str) {
        let deadline = Instant::now() + Duration::from_secs(20);
        while self.js(script) != json!(true) {
            assert!(Instant::now() < deadline, "never true: {script}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Clicks the element `css` selects, as a player's mouse does (WebDriver's click).
    fn click(&self, css: &str) {
        let el = self.call("POST", "/element", json!({ "using": "css selector", "value": css }));
        let id = el
            .as_object()
            .and_then(|o| o.values().next())
            .and_then(Value::as_str)
            .unwrap_or_else(|| panic!("no {css}: {el}"));
        self.call("POST", &format!("/element/{id}/click"), json!({}));
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = agent().delete(&format!("{}/session/{}", self.base, self.session)).call();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `chromium` and `chromedriver` on the PATH, else None (the test is then skipped, unless
/// `UMPIRE_BROWSER_TESTS=require`).
fn browser() -> Option<(String, String)> {
    let found = |names: &[&str]| {
        names.iter().find_map(|n| {
            std::env::var_os("PATH")?
                .to_str()?
                .split(':')
                .map(|d| format!("{d}/{n}"))
                .find(|p| std::path::Path::new(p).is_file())
        })
    };
    let b = found(&["chromium", "chromium-browser", "google-chrome"]).zip(found(&["chromedriver"]));
    if b.is_none() {
        assert!(
            std::env::var("UMPIRE_BROWSER_TESTS").as_deref() != Ok("require"),
            "UMPIRE_BROWSER_TESTS=require, but chromium or chromedriver is not on the PATH"
        );
        eprintln!("skipped: no chromium and chromedriver on the PATH (.ci/run installs them)");
    }
    b
}

/// `umpire --library LIBRARY ARGS...` at a pipe, and the lines it prints as they come (read on a
/// thread to the end, so that it never writes to a closed pipe).
fn umpire(library: &std::path::Path, args: &[&str]) -> (Child, std::process::ChildStdin, mpsc::Receiver<String>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_umpire"))
        .arg("--library")
        .arg(library)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("umpire starts");
    let stdin = child.stdin.take().unwrap();
    let out = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for l in BufReader::new(out).lines().map_while(Result::ok) {
            let _ = tx.send(l);
        }
    });
    (child, stdin, rx)
}

/// `umpire play` of the fixture at a pipe with the board.
fn play_with_board() -> (Child, std::process::ChildStdin, mpsc::Receiver<String>) {
    umpire(&super::fixtures(), &["play", "fixture", "--seed", "21", "--board"])
}

#[test]
fn in_a_browser_the_board_follows_the_repl_shows_a_unit_hides_what_fog_hides_and_steps_back() {
    let Some((chromium, chromedriver)) = browser() else { return };
    let (mut umpire, mut stdin, lines) = play_with_board();
    let mut urls = std::collections::BTreeMap::new();
    while urls.len() < 2 {
        let l = lines.recv_timeout(Duration::from_secs(60)).expect("umpire prints the board's URLs");
        if let Some((side, url)) = l.trim().split_once(": http://") {
            urls.insert(side.to_string(), format!("http://{}", url.split_whitespace().next().unwrap()));
        }
    }
    let d = Driver::start(&chromium, &chromedriver);
    // the page loads with the game as it is
    d.open(&urls["Blue"]);
    d.wait_text("where", "turn 1");
    assert!(d.wait_text("viewer", "Blue").contains("fog of war"));
    d.wait_js("return document.querySelectorAll('#map [data-hex]').length > 20");
    // commands typed at the REPL change the page, each within a moment
    writeln!(stdin, "auto").unwrap();
    d.wait_text("log", "> auto");
    writeln!(stdin, "move B1 0303").unwrap();
    writeln!(stdin, "move B2 0303").unwrap();
    d.wait_text("stepno", "4 / 4");
    d.wait_text("log", "> move B2 0303");
    d.wait_js("return document.getElementById('map').dataset.step === '3'");
    // a click on a counter shows what `show` says of it
    d.click("#map [data-unit]");
    let shown = d.wait_text("show", "(Blue, ");
    assert!(shown.contains("strength"), "{shown}");
    // the Red player's page: the Blue stack's lower unit is not named
    d.open(&urls["Red"]);
    d.wait_text("stepno", "4 / 4");
    d.wait_js("return document.getElementById('map').dataset.step === '3' && !!document.querySelector(\"#map [data-hex='0303']\")");
    // (the hex under the stack: its counter covers the hex's middle, where a click lands)
    d.js(
        "document.querySelector(\"#map [data-hex='0303']\").dispatchEvent(new MouseEvent('click', { bubbles: true }))",
    );
    d.wait_text("show", "hidden by fog of war");
    let titles =
        d.js("return [...document.querySelectorAll('#map [data-unit] title')].map(t => t.textContent).join('|')");
    assert!(titles.as_str().unwrap_or_default().contains("1 hidden"), "{titles}");
    // stepping: to the first position, one forward, and a turn's or phase's start
    d.click("#first");
    d.wait_text("stepno", "1 / 4");
    d.wait_text("log", "(the game when the board opened)");
    assert!(d.text("live").contains("stepping"));
    d.click("#fwd");
    d.wait_text("stepno", "2 / 4");
    d.wait_text("log", "> auto");
    assert_eq!(d.js("return document.getElementById('map').dataset.step"), json!("1"));
    assert!(d.js("return document.getElementById('jump').options.length").as_u64().unwrap_or(0) >= 2);
    d.click("#last");
    d.wait_text("stepno", "4 / 4");
    drop(stdin);
    let _ = umpire.wait();
}

#[test]
fn a_script_is_served_position_by_position_to_step_through() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("game.ump");
    std::fs::write(
        &script,
        "new fixture --seed 21\nauto\nmove B1 0303\nexpect units.get('B1').hex == '0303'\nmove B2 0303\n",
    )
    .unwrap();
    let (mut child, _stdin, out) = umpire(&super::fixtures(), &["board", script.to_str().unwrap()]);
    let mut said = Vec::new();
    let mut url = None;
    while let Ok(l) = out.recv_timeout(Duration::from_secs(60)) {
        said.push(l.clone());
        if let Some((_, u)) = l.trim().split_once(": http://") {
            url = Some(format!("http://{}", u.split_whitespace().next().unwrap()));
            break;
        }
    }
    let url = url.unwrap_or_else(|| panic!("no URL: {said:?}"));
    assert!(said.iter().any(|l| l.contains("4 positions to step through")), "{said:?}");
    let (base, token) = url.split_once("/?t=").unwrap();
    let (_, steps) = get(&format!("{base}/steps?t={token}"));
    let steps: Value = serde_json::from_str(&steps).unwrap();
    let lines: Vec<&str> = steps.as_array().unwrap().iter().filter_map(|s| s["line"].as_str()).collect();
    assert_eq!(lines, ["new fixture --seed 21", "auto", "move B1 0303", "move B2 0303"]);
    let (_, log) = get(&format!("{base}/log?t={token}&step=2"));
    assert!(log.contains("move B1 0303"), "{log}");
    let (_, shown) = get(&format!("{base}/show?t={token}&what=B1&step=1"));
    assert!(!shown.contains("0303"), "B1 had not moved yet at the second position: {shown}");
    let _ = child.kill();
    let _ = child.wait();
}

/// Standard base64 (WebDriver's screenshots), decoded.
fn base64(text: &str) -> Vec<u8> {
    let val = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        _ => 63,
    };
    let digits: Vec<u8> =
        text.bytes().filter(|c| c.is_ascii_alphanumeric() || *c == b'+' || *c == b'/').map(val).collect();
    let mut out = Vec::with_capacity(digits.len() * 3 / 4);
    for chunk in digits.chunks(4) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, d)| n | (u32::from(*d) << (18 - 6 * i)));
        out.extend_from_slice(&n.to_be_bytes()[1..chunk.len()]);
    }
    out
}

/// Run by hand (`cargo test --test it -- --ignored board::the_readme`): the README's pictures of
/// each game's board, docs/board-<game>.png, made by the browser the tests drive.
#[test]
#[ignore = "writes docs/board-*.png for the README; run by hand"]
fn the_readme_pictures_of_each_games_board() {
    let Some((chromium, chromedriver)) = browser() else { return };
    let d = Driver::start(&chromium, &chromedriver);
    for (game, centre, scale) in [
        ("stargard-solstice", "16.13", 0.9),
        ("fortress-stalingrad", "3327", 0.75),
        ("red-storm-over-the-reich", "4838", 0.75),
    ] {
        let (mut child, mut stdin, lines) = umpire(&super::repo(), &["play", game, "--seed", "1", "--board"]);
        let url = loop {
            let l = lines.recv_timeout(Duration::from_secs(60)).expect("the board's URL");
            if let Some(i) = l.find("http://") {
                break l[i..].split_whitespace().next().unwrap().to_string();
            }
        };
        writeln!(stdin, "forward").unwrap();
        d.open(&url);
        d.wait_js("return document.querySelectorAll('#map [data-hex]').length > 20");
        std::thread::sleep(Duration::from_secs(2));
        // the part of the map around `centre`, at `scale`, with what `show` says of it
        d.js(&format!(
            "const h = document.querySelector(\"#map [data-hex='{centre}']\").getBBox(); scale = {scale}; \
             tx = 400 - (h.x + h.width / 2) * scale; ty = 330 - (h.y + h.height / 2) * scale; place(); \
             document.querySelector(\"#map [data-hex='{centre}']\").dispatchEvent(new MouseEvent('click', {{ bubbles: true }}));"
        ));
        std::thread::sleep(Duration::from_secs(1));
        let png = base64(d.call("GET", "/screenshot", json!({})).as_str().expect("a screenshot"));
        assert!(png.starts_with(b"\x89PNG"), "not a PNG");
        std::fs::write(super::repo().join("docs").join(format!("board-{game}.png")), png).unwrap();
        drop(stdin);
        let _ = child.kill();
        let _ = child.wait();
    }
}

#[test]
fn the_page_names_the_side_a_waiting_question_asks() {
    // Stargard's set-up: no side to act, the German asked where each unit goes (15.1)
    let mut s = Session::with_root(super::repo());
    assert_eq!(s.execute("new stargard-solstice --seed 3").status, umpire::Status::Ok);
    let board = Board::start(super::repo(), vec![step(&s, "new")], &[], false).expect("the board starts");
    let (base, token) = board.pages[0].1.split_once("/?t=").map(|(b, t)| (b.to_string(), t.to_string())).unwrap();
    let st: Value = serde_json::from_str(&get(&format!("{base}/status?t={token}")).1).unwrap();
    assert_eq!(
        (&st["now"]["side"], &st["now"]["asks"], &st["live"]),
        (&Value::Null, &json!("German"), &json!(false)),
        "{st}"
    );
}
