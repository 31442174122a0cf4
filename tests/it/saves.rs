//! Save → load → continue ends on the same hash as the uninterrupted run, for every script;
//! corrupt and foreign files change nothing.

use std::path::Path;
use umpire::session::{Session, Status};

/// Runs `lines` and returns the final hash.
fn run(s: &mut Session, lines: &[(usize, String)]) {
    for (_, l) in lines {
        let t = l.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        s.execute(t);
    }
}

#[test]
fn slow_save_load_continue_matches_uninterrupted_run_for_every_script() {
    std::env::set_current_dir(super::repo()).unwrap();
    // the scripts in two threads (the machine's two cores), each with its own sessions
    let scripts = super::scripts::all_scripts();
    let checked: usize = std::thread::scope(|scope| {
        let halves: Vec<_> = (0..2)
            .map(|k| {
                let mine: Vec<_> = scripts.iter().skip(k).step_by(2).cloned().collect();
                scope
                    .spawn(move || mine.into_iter().map(|(path, root)| save_load_continue(&path, &root)).sum::<usize>())
            })
            .collect();
        halves.into_iter().map(|h| h.join().expect("a script failed")).sum()
    });
    assert!(checked > 0);
}

/// Splits a script at two places: save, load in a new session, continue; each must end with
/// the hash of the uninterrupted run. Returns how many splits were checked.
fn save_load_continue(path: &std::path::Path, root: &std::path::Path) -> usize {
    let mut checked = 0;
    {
        let text = std::fs::read_to_string(path).unwrap();
        let lines: Vec<(usize, String)> = umpire::script::lines(&text)
            .into_iter()
            .filter(|(_, l)| !l.trim().is_empty() && !l.trim().starts_with('#'))
            .collect();
        let last_new =
            lines.iter().rposition(|(_, l)| l.trim_start().starts_with("new ") || l.trim_start().starts_with("load "));
        let Some(first) = last_new else { return 0 };
        let scratch = tempfile::tempdir().unwrap();
        let mut whole = Session::with_root(root);
        whole.scratch = Some(scratch.path().to_path_buf());
        run(&mut whole, &lines);
        let want = whole.hash();
        let candidates = [first + 1 + (lines.len() - first - 1) / 2, first + 1 + (lines.len() - first - 1) * 3 / 4];
        for split in candidates {
            if split >= lines.len() {
                continue;
            }
            let mut a = Session::with_root(root);
            a.scratch = Some(scratch.path().to_path_buf());
            run(&mut a, &lines[..split]);
            if a.game.is_none() {
                continue;
            }
            let file = scratch.path().join("split.sav");
            let r = a.execute(&format!("save {}", file.display()));
            assert_eq!(r.status, Status::Ok, "{}: save failed: {r:?}", path.display());
            let mut b = Session::with_root(root);
            b.scratch = Some(scratch.path().to_path_buf());
            let r = b.execute(&format!("load {}", file.display()));
            assert_eq!(r.status, Status::Ok, "{}: load failed: {r:?}", path.display());
            assert!(!r.out.iter().any(|l| l.contains("diverged")), "{}: {r:?}", path.display());
            assert_eq!(
                a.hash(),
                b.hash(),
                "{}: hash after load differs (split at line {})",
                path.display(),
                lines[split].0
            );
            run(&mut b, &lines[split..]);
            assert_eq!(
                b.hash(),
                want,
                "{}: save at line {} → load → continue differs from the uninterrupted run",
                path.display(),
                lines[split].0
            );
            checked += 1;
        }
    }
    checked
}

#[test]
fn corrupt_or_foreign_files_change_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = super::fixture_game(5);
    s.execute("move B1 0302");
    let before = s.hash();
    let good = dir.path().join("good.sav");
    assert_eq!(s.execute(&format!("save {}", good.display())).status, Status::Ok);
    let text = std::fs::read_to_string(&good).unwrap();

    let foreign = dir.path().join("foreign.txt");
    std::fs::write(&foreign, "hello\n").unwrap();
    let truncated = dir.path().join("truncated.sav");
    std::fs::write(&truncated, &text[..text.find("#@state").unwrap()]).unwrap();
    let garbled = dir.path().join("garbled.sav");
    std::fs::write(&garbled, text.replace("#@state {", "#@state {{")).unwrap();
    for (f, want) in [
        (&foreign, "not an umpire save"),
        (&truncated, "no #@state"),
        (&garbled, "corrupt"),
        (&dir.path().join("missing.sav"), "missing.sav"),
    ] {
        let r = s.execute(&format!("load {}", f.display()));
        match &r.status {
            Status::Error(e) => {
                assert!(matches!(e.kind(), "save" | "io"), "{e:?}");
                assert!(e.to_string().contains(want), "{e}")
            }
            other => panic!("{}: expected an error, got {other:?}", f.display()),
        }
        assert_eq!(s.hash(), before, "a failed load changed the game");
    }
}

#[test]
fn changed_rules_resume_from_the_saved_state() {
    // copy the fixture library, save, edit a rule file, load: resumes from the state
    let lib = tempfile::tempdir().unwrap();
    copy_dir(&super::fixtures(), lib.path());
    let mut s = Session::with_root(lib.path());
    s.execute("new fixture --seed 9");
    s.execute("auto");
    s.execute("move B1 0302");
    let h = s.hash();
    let file = lib.path().join("game.sav");
    assert_eq!(s.execute(&format!("save {}", file.display())).status, Status::Ok);
    let main = lib.path().join("rulesets/fixture/main.lua");
    let src = std::fs::read_to_string(&main).unwrap();
    std::fs::write(&main, src.replace("moves %s → %s for %s MP", "marches %s → %s for %s MP")).unwrap();
    let mut t = Session::with_root(lib.path());
    let r = t.execute(&format!("load {}", file.display()));
    assert_eq!(r.status, Status::Ok, "{r:?}");
    assert!(r.out.iter().any(|l| l.contains("rule files changed")), "{:?}", r.out);
    assert_eq!(t.hash(), h);
    // the game goes on with the new rules, and saves again
    let r = t.execute("move B2 0303");
    assert!(r.out.iter().any(|l| l.contains("marches")), "{r:?}");
    let again = lib.path().join("again.sav");
    assert_eq!(t.execute(&format!("save {}", again.display())).status, Status::Ok);
    let mut u = Session::with_root(lib.path());
    assert_eq!(u.execute(&format!("load {}", again.display())).status, Status::Ok);
    assert_eq!(u.hash(), t.hash());
}

#[test]
fn saves_are_written_atomically() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = super::fixture_game(5);
    let file = dir.path().join("g.sav");
    // an older save of the game is replaced; the temporary file a killed save left goes once
    // it is old (a fresh one may be another process's save under way)
    std::fs::write(&file, "#@umpire-save 1\nold contents\n").unwrap();
    let left = dir.path().join(".g.sav.umpire-tmp.99999999.0");
    std::fs::write(&left, "half a save").unwrap();
    let hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    std::fs::File::options().write(true).open(&left).unwrap().set_modified(hour_ago).unwrap();
    assert_eq!(s.execute(&format!("save {}", file.display())).status, Status::Ok);
    // no temporary file is left beside it
    let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().flatten().map(|e| e.file_name()).collect();
    assert_eq!(names.len(), 1, "{names:?}");
    assert!(std::fs::read_to_string(&file).unwrap().contains(umpire::save::HEADER));
    // a save into a folder that does not exist fails and says where
    let r = s.execute(&format!("save {}", dir.path().join("no/such/dir/g.sav").display()));
    let e = r.error().map(|e| e.to_string()).unwrap_or_default();
    assert!(e.contains("no/such/dir/g.sav") && !e.contains("umpire-tmp") && !e.contains("dir/.tmp"), "{r:?}");
}

pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let p = e.path();
        let t = to.join(e.file_name());
        if p.is_dir() {
            copy_dir(&p, &t);
        } else {
            std::fs::copy(&p, &t).unwrap();
        }
    }
}

#[test]
fn a_save_during_set_up_comes_back_waiting_for_the_same_decision() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = Session::with_root(super::fixtures());
    assert_eq!(s.execute("new fixture --seed 4").status, Status::Ok);
    let file = dir.path().join("setup.sav");
    assert_eq!(s.execute(&format!("save {}", file.display())).status, Status::Ok);
    let text = std::fs::read_to_string(&file).unwrap();
    assert_eq!(text.matches("new fixture").count(), 1, "{text}");
    let mut t = Session::with_root(super::fixtures());
    assert_eq!(t.execute(&format!("load {}", file.display())).status, Status::Ok);
    assert_eq!(t.hash(), s.hash());
    assert!(t.prompt().contains("Place BA"), "{}", t.prompt());
    assert_eq!(t.execute("choose 0102").status, Status::Ok);
    assert_eq!(s.execute("choose 0102").status, Status::Ok);
    assert_eq!(t.hash(), s.hash());
}

#[test]
fn multi_line_commands_survive_a_save() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = super::fixture_game(6);
    assert_eq!(s.execute("lua vars.set(\"a\", 1)\nvars.set(\"b\", 2)").status, Status::Ok);
    let file = dir.path().join("ml.sav");
    assert_eq!(s.execute(&format!("save {}", file.display())).status, Status::Ok);
    let mut t = Session::with_root(super::fixtures());
    let r = t.execute(&format!("load {}", file.display()));
    assert_eq!(r.status, Status::Ok, "{r:?}");
    assert!(!r.out.iter().any(|l| l.contains("diverged")), "{r:?}");
    assert_eq!(t.hash(), s.hash());
    assert_eq!(t.execute("expect vars.get('b') == 2").status, Status::Check(true));
}

#[test]
fn a_game_started_by_path_loads_from_anywhere() {
    let dir = tempfile::tempdir().unwrap();
    let scen = super::fixtures().join("scenarios/fixture/basic.toml");
    let mut s = Session::with_root(dir.path());
    assert_eq!(s.execute(&format!("new {} --seed 3", scen.display())).status, Status::Ok);
    s.execute("auto");
    let file = dir.path().join("p.sav");
    assert_eq!(s.execute(&format!("save {}", file.display())).status, Status::Ok);
    let mut t = Session::with_root(dir.path());
    let r = t.execute(&format!("load {}", file.display()));
    assert_eq!(r.status, Status::Ok, "{r:?}");
    assert_eq!(t.hash(), s.hash());
}

#[test]
fn a_pending_decision_asks_again_when_the_rules_changed() {
    let lib = tempfile::tempdir().unwrap();
    copy_dir(&super::fixtures(), lib.path());
    let mut s = Session::with_root(lib.path());
    s.execute("new fixture --seed 11");
    s.execute("auto");
    s.execute("move B1 0303");
    s.execute("move B2 0303");
    s.execute("next");
    s.execute("dice 4");
    let r = s.execute("attack 0404 with B1,B2");
    assert!(s.game.as_ref().unwrap().pending.is_some(), "{r:?}");
    let file = lib.path().join("pending.sav");
    assert_eq!(s.execute(&format!("save {}", file.display())).status, Status::Ok);
    let main = lib.path().join("rulesets/fixture/main.lua");
    std::fs::write(&main, format!("{}\n-- edited\n", std::fs::read_to_string(&main).unwrap())).unwrap();
    let mut t = Session::with_root(lib.path());
    let r = t.execute(&format!("load {}", file.display()));
    assert_eq!(r.status, Status::Ok, "{r:?}");
    assert!(t.game.as_ref().unwrap().pending.is_some(), "the question is not asked again: {r:?}");
    assert_eq!(t.execute("choose 0405").status, Status::Ok);
    assert_eq!(t.execute("expect units.get('R1').hex == '0405'").status, Status::Check(true));
}

#[test]
fn a_save_that_does_not_fit_the_scenario_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = super::fixture_game(5);
    let before = s.hash();
    let file = dir.path().join("g.sav");
    s.execute(&format!("save {}", file.display()));
    let text = std::fs::read_to_string(&file).unwrap();
    let bad = dir.path().join("bad.sav");
    // B1 at step 8 of 2, and the ruleset hash changed so the state itself is used
    let state_line = text.lines().find(|l| l.starts_with("#@state ")).unwrap();
    let broken = state_line.replacen("\"step\":0", "\"step\":7", 1);
    std::fs::write(
        &bad,
        text.replace(state_line, &broken).replace("#@ruleset fixture 0.1.0 ", "#@ruleset fixture 0.1.0 x"),
    )
    .unwrap();
    let r = s.execute(&format!("load {}", bad.display()));
    match &r.status {
        Status::Error(e) => assert!(e.kind() == "save" && e.to_string().contains("does not fit"), "{e}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(s.hash(), before);
}

#[test]
fn a_replay_does_not_depend_on_the_clock_and_the_loaded_game_does() {
    // a save made on a machine where every command finished in time
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("game.sav");
    let mut s = super::fixture_game(5);
    for l in ["move B1 0303", "lua for i = 1, 200000 do end", "next"] {
        assert_eq!(s.execute(l).status, Status::Ok, "{l}");
    }
    assert_eq!(s.execute(&format!("save {}", file.display())).status, Status::Ok);
    // loaded where the wall-clock backstop would stop any rule code at once: the replay runs
    // on the instruction budget only, and ends on the saved hash
    let mut slow = Session::with_root(super::fixtures());
    slow.limits.seconds = 0.0;
    let r = slow.execute(&format!("load {}", file.display()));
    assert_eq!(r.status, Status::Ok, "{r:?}");
    assert!(r.out[0].contains("3 commands replayed"), "{r:?}");
    assert_eq!(slow.hash(), s.hash());
    // the game it leaves is played under the backstop again
    let r = slow.execute("lua for i = 1, 200000 do end");
    assert!(matches!(r.error(), Some(e) if e.to_string().contains("time limit exceeded")), "{r:?}");
    assert_eq!(slow.hash(), s.hash());
}

#[test]
fn load_reads_regular_files_only() {
    let mut s = super::fixture_game(4);
    let before = s.hash();
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status().is_ok_and(|st| st.success());
    let mut targets = vec![dir.path().to_path_buf(), "/dev/zero".into(), "/dev/null".into()];
    if made {
        targets.push(fifo); // would block for good if it were opened
    }
    for t in targets {
        let r = s.execute(&format!("load {}", t.display()));
        match r.error() {
            Some(e) => {
                assert!(e.kind() == "save" && e.to_string().contains("not a regular file"), "{}: {e}", t.display())
            }
            None => panic!("{}: loaded {r:?}", t.display()),
        }
        assert_eq!(s.hash(), before);
    }
}

#[cfg(unix)]
#[test]
fn save_and_map_svg_write_only_what_they_may_replace() {
    use std::os::unix::fs::{PermissionsExt, symlink};
    let lib = tempfile::tempdir().unwrap();
    copy_dir(&super::fixtures(), lib.path());
    let mut s = Session::with_root(lib.path());
    s.execute("new fixture --seed 3");
    s.execute("auto");
    let dir = tempfile::tempdir().unwrap();
    let at = |n: &str| dir.path().join(n);
    let refused = |s: &mut Session, cmd: String, why: &str| {
        let r = s.execute(&cmd);
        assert!(matches!(r.error(), Some(e) if e.kind() == "save" && e.to_string().contains(why)), "{cmd}: {r:?}");
    };
    // devices, FIFOs, folders and links are never written
    refused(&mut s, "save /dev/null".into(), "not a regular file");
    assert!(!std::fs::metadata("/dev/null").unwrap().is_file());
    if std::process::Command::new("mkfifo").arg(at("fifo")).status().is_ok_and(|x| x.success()) {
        refused(&mut s, format!("save --force {}", at("fifo").display()), "not a regular file");
    }
    refused(&mut s, format!("save {}", dir.path().display()), "not a regular file");
    std::fs::write(at("real.sav"), "x").unwrap();
    symlink(at("real.sav"), at("link.sav")).unwrap();
    refused(&mut s, format!("save --force {}", at("link.sav").display()), "symbolic link");
    // a read-only file, and a file that is not a save without --force, are kept
    std::fs::write(at("ro.sav"), "keep").unwrap();
    std::fs::set_permissions(at("ro.sav"), std::fs::Permissions::from_mode(0o444)).unwrap();
    if std::fs::OpenOptions::new().write(true).open(at("ro.sav")).is_err() {
        // (root may write a 0444 file; the save refuses it anyway)
    }
    refused(&mut s, format!("save --force {}", at("ro.sav").display()), "read-only");
    std::fs::write(at("notes.txt"), "my notes").unwrap();
    refused(&mut s, format!("save {}", at("notes.txt").display()), "not an umpire save");
    assert_eq!(std::fs::read_to_string(at("notes.txt")).unwrap(), "my notes");
    assert_eq!(std::fs::read_to_string(at("ro.sav")).unwrap(), "keep");
    // nor the library's own files, even with --force
    let main = lib.path().join("rulesets/fixture/main.lua");
    let src = std::fs::read_to_string(&main).unwrap();
    refused(&mut s, format!("save --force {}", main.display()), "inside the library's rulesets/");
    let scen = lib.path().join("scenarios/fixture/basic.toml");
    refused(&mut s, format!("map --svg --force {}", scen.display()), "inside the library's scenarios/");
    assert_eq!(std::fs::read_to_string(&main).unwrap(), src);
    // --force replaces a file that is not a save; a save is replaced keeping its mode
    assert_eq!(s.execute(&format!("save --force {}", at("notes.txt").display())).status, Status::Ok);
    assert!(std::fs::read_to_string(at("notes.txt")).unwrap().contains(umpire::save::HEADER));
    // ... written after the file too (not a file named "notes2.txt --force")
    std::fs::write(at("notes2.txt"), "notes").unwrap();
    assert_eq!(s.execute(&format!("save {} --force", at("notes2.txt").display())).status, Status::Ok);
    assert!(std::fs::read_to_string(at("notes2.txt")).unwrap().contains(umpire::save::HEADER));
    assert!(!at("notes2.txt --force").exists());
    assert_eq!(s.execute(&format!("save {}", at("game.sav").display())).status, Status::Ok);
    std::fs::set_permissions(at("game.sav"), std::fs::Permissions::from_mode(0o600)).unwrap();
    assert_eq!(s.execute(&format!("save {}", at("game.sav").display())).status, Status::Ok);
    assert_eq!(std::fs::metadata(at("game.sav")).unwrap().permissions().mode() & 0o777, 0o600);
    // a new file gets the mode the umask gives any new file
    std::fs::File::create(at("plain")).unwrap();
    let plain = std::fs::metadata(at("plain")).unwrap().permissions().mode() & 0o777;
    assert_eq!(s.execute(&format!("save {}", at("new.sav").display())).status, Status::Ok);
    assert_eq!(std::fs::metadata(at("new.sav")).unwrap().permissions().mode() & 0o777, plain);
    // map --svg: the same rules, an existing picture is replaced
    refused(&mut s, format!("map --svg {}", at("notes.txt").display()), "not an SVG picture");
    assert_eq!(s.execute(&format!("map --svg {}", at("board.svg").display())).status, Status::Ok);
    assert_eq!(s.execute(&format!("map --svg {}", at("board.svg").display())).status, Status::Ok);
}

#[test]
fn a_new_game_not_yet_touched_has_nothing_unsaved() {
    let mut s = Session::with_root(super::fixtures());
    assert_eq!(s.execute("new fixture --seed 1").status, Status::Ok);
    // only the first set-up question waits: `load` or leaving loses nothing
    assert!(!s.has_unsaved());
    assert_eq!(s.execute("auto").status, Status::Ok);
    assert_eq!(s.execute("move B1 0302").status, Status::Ok);
    assert!(s.has_unsaved());
    let dir = tempfile::tempdir().unwrap();
    let r = s.execute(&format!("save {}", dir.path().join("g.sav").display()));
    assert_eq!(r.status, Status::Ok, "{r:?}");
    assert!(!s.has_unsaved());
}

/// A chunk that asks two questions before it changes anything.
const TWO_QUESTIONS: &str = "lua local a = umpire.ask{prompt = 'one', options = {'x', 'y'}} local b = umpire.ask{prompt = 'two', options = {'p', 'q'}} vars.set('r', a .. b)";

#[test]
fn the_hash_covers_the_answers_of_a_pending_command_and_a_save_checks_them() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = super::fixture_game(5);
    let start = s.hash();
    assert_eq!(s.execute(TWO_QUESTIONS).status, Status::Ok);
    let asked = s.hash();
    assert_ne!(asked, start, "the command waiting is in the hash");
    assert_eq!(s.execute("choose x").status, Status::Ok);
    let answered = s.hash();
    assert_ne!(answered, asked, "the answer given is in the hash, though the state did not change yet");
    // the `hash` command says the same
    assert_eq!(s.execute("hash").out, vec![answered.clone().unwrap()]);
    // a save holds it: the pending answer edited in the file is seen when it loads
    let file = dir.path().join("pending.sav");
    assert_eq!(s.execute(&format!("save {}", file.display())).status, Status::Ok);
    let mut t = Session::with_root(super::fixtures());
    assert_eq!(t.execute(&format!("load {}", file.display())).status, Status::Ok);
    assert_eq!(t.hash(), answered);
    let text = std::fs::read_to_string(&file).unwrap();
    let edited = dir.path().join("edited.sav");
    std::fs::write(&edited, text.replace("\nchoose x\n", "\nchoose y\n")).unwrap();
    let mut u = Session::with_root(super::fixtures());
    let r = u.execute(&format!("load {}", edited.display()));
    assert!(r.out.iter().any(|l| l.contains("replay diverged")), "{r:?}");
}

#[test]
fn saves_in_real_life_a_byte_order_mark_a_newer_format_two_writers() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = super::fixture_game(5);
    assert_eq!(s.execute("move B1 0302").status, Status::Ok);
    let file = dir.path().join("g.sav");
    assert_eq!(s.execute(&format!("save {}", file.display())).status, Status::Ok);
    let text = std::fs::read_to_string(&file).unwrap();
    // a byte-order mark, as some editors write: the history comes back whole
    let bom = dir.path().join("bom.sav");
    std::fs::write(&bom, format!("\u{feff}{text}")).unwrap();
    let mut t = Session::with_root(super::fixtures());
    let r = t.execute(&format!("load {}", bom.display()));
    assert_eq!(r.status, Status::Ok, "{r:?}");
    assert!(!r.out.iter().any(|l| l.contains("diverged") || l.contains("resum")), "{r:?}");
    assert_eq!(t.hash(), s.hash());
    assert_eq!(t.execute("undo").status, Status::Ok, "the history came back");
    // a newer format is reported as newer, not as a foreign file
    let newer = dir.path().join("newer.sav");
    std::fs::write(&newer, text.replace(umpire::save::HEADER, "#@umpire-save 99")).unwrap();
    let e = t.execute(&format!("load {}", newer.display())).error().map(|e| e.to_string()).unwrap_or_default();
    assert!(e.contains("save format 99 by a newer umpire"), "{e}");
    // two processes saving to one file at once: every save succeeds, the file is whole, and no
    // temporary file is left
    let shared = dir.path().join("shared.sav");
    let input: String = std::iter::once("new tests/fixtures/scenarios/fixture/basic.toml --seed 3\n".to_string())
        .chain((0..30).map(|_| format!("save {}\n", shared.display())))
        .collect();
    let spawn = || {
        let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_umpire"));
        c.arg("play").current_dir(super::repo()).env_remove("RUST_LOG");
        c.stdin(std::process::Stdio::piped()).stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped());
        let mut child = c.spawn().unwrap();
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        let input = input.clone();
        std::thread::spawn(move || stdin.write_all(input.as_bytes()).unwrap());
        child
    };
    let (a, b) = (spawn(), spawn());
    for child in [a, b] {
        let out = child.wait_with_output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success() && !text.contains("error"), "{text}{}", String::from_utf8_lossy(&out.stderr));
    }
    let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().flatten().map(|e| e.file_name()).collect();
    assert!(!names.iter().any(|n| n.to_string_lossy().contains("umpire-tmp")), "{names:?}");
    assert_eq!(Session::with_root(super::fixtures()).execute(&format!("load {}", shared.display())).status, Status::Ok);
}

#[test]
fn a_save_older_than_the_scenario_or_the_rules_resumes_and_says_what_changed() {
    let lib = tempfile::tempdir().unwrap();
    copy_dir(&super::fixtures(), lib.path());
    let mut s = Session::with_root(lib.path());
    s.execute("new fixture --seed 9");
    s.execute("auto");
    assert_eq!(s.execute("move B1 0302").status, Status::Ok);
    assert_eq!(s.execute(TWO_QUESTIONS).status, Status::Ok);
    let file = lib.path().join("game.sav");
    assert_eq!(s.execute(&format!("save {}", file.display())).status, Status::Ok);
    let text = std::fs::read_to_string(&file).unwrap();
    // the scenario gained a unit since: resumed from the saved state with it, and said
    let scenario = lib.path().join("scenarios/fixture/basic.toml");
    let mut toml = std::fs::read_to_string(&scenario).unwrap();
    toml.push_str("\n[[units]]\nid = \"B9\"\nname = \"9th Blue\"\nside = \"Blue\"\ntype = \"inf\"\nat = \"0101\"\n");
    std::fs::write(&scenario, toml).unwrap();
    let mut t = Session::with_root(lib.path());
    let r = t.execute(&format!("load {}", file.display()));
    assert_eq!(r.status, Status::Ok, "{r:?}");
    assert!(r.out.iter().any(|l| l.contains("the scenario has 1 unit the save does not (B9)")), "{r:?}");
    assert!(t.execute("show B9").out.iter().any(|l| l.contains("0101")), "B9 is not on the map");
    assert!(t.prompt().contains("? one"), "the pending command asks again: {}", t.prompt());
    // a pending command these rules no longer run (a verb renamed): left out, said
    let renamed = lib.path().join("renamed.sav");
    let pending_line = text.lines().find(|l| l.starts_with("lua local a = umpire.ask")).unwrap();
    std::fs::write(
        &renamed,
        text.replace(pending_line, "salute B1").replace("#@ruleset fixture 0.1.0 ", "#@ruleset fixture 0.1.0 x"),
    )
    .unwrap();
    let mut u = Session::with_root(lib.path());
    let r = u.execute(&format!("load {}", renamed.display()));
    assert_eq!(r.status, Status::Ok, "{r:?}");
    assert!(
        r.out
            .iter()
            .any(|l| l.contains("the command waiting for a decision, `salute B1`, does not run under these rules")),
        "{r:?}"
    );
    assert!(u.game.as_ref().unwrap().pending.is_none());
    // a step the sequence no longer has: said
    let gone = lib.path().join("gone.sav");
    let state_line = text.lines().find(|l| l.starts_with("#@state ")).unwrap();
    let step = serde_json::from_str::<serde_json::Value>(&state_line["#@state ".len()..]).unwrap()["clock"]["step"]
        .as_str()
        .unwrap()
        .to_string();
    let moved = state_line.replacen(&format!("\"step\":\"{step}\""), "\"step\":\"parade\"", 1);
    assert_ne!(moved, state_line);
    std::fs::write(
        &gone,
        text.replace(state_line, &moved).replace("#@ruleset fixture 0.1.0 ", "#@ruleset fixture 0.1.0 x"),
    )
    .unwrap();
    let mut v = Session::with_root(lib.path());
    let r = v.execute(&format!("load {}", gone.display()));
    assert!(r.out.iter().any(|l| l.contains("at step 'parade'")), "{r:?}");
}
