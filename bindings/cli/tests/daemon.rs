//! The daemon and the edit commands of `rad`, as real processes over a real
//! Unix socket.

#![allow(clippy::unwrap_used, clippy::pedantic)]

use std::io::{Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

struct Env {
    _dir: tempfile::TempDir,
    project: PathBuf,
    home: PathBuf,
}

fn env() -> Env {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("p");
    let home = dir.path().join("home");
    std::fs::create_dir_all(&project).unwrap();
    Env {
        _dir: dir,
        project,
        home,
    }
}

impl Env {
    fn rad(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_rad"))
            .args(args)
            .env("RADIUM_HOME", &self.home)
            .env("RADIUM_DAEMON_IDLE", "20")
            .current_dir(&self.project)
            .stdin(Stdio::null())
            .output()
            .unwrap()
    }
    fn socket(&self) -> PathBuf {
        self.home.join("daemon.sock")
    }
}

impl Drop for Env {
    fn drop(&mut self) {
        let _ = self.rad(&["shutdown"]);
    }
}

mod common;
use common::{err, out};

fn tag_of(o: &Output) -> String {
    out(o)
        .lines()
        .find_map(|l| {
            l.strip_prefix("[tag: ")
                .map(|t| t.trim_end_matches(']').to_owned())
        })
        .unwrap_or_else(|| panic!("no tag: {}{}", out(o), err(o)))
}

#[test]
fn the_rewind_scenario_of_seed_001_through_the_cli() {
    let e = env();
    std::fs::write(e.project.join("file.ts"), "const x = \"A\";\n").unwrap();
    let first = e.rad(&["str-replace", "file.ts", "--old", "A", "--new", "B"]);
    assert!(first.status.success(), "{}", err(&first));
    let t1 = tag_of(&first);
    let second = e.rad(&[
        "str-replace",
        "file.ts",
        "--old",
        "B",
        "--new",
        "C",
        "--tag",
        &t1,
    ]);
    let t2 = tag_of(&second);
    assert_ne!(t1, t2);
    let view = e.rad(&["view", "file.ts", "--tag", &t1]);
    assert_eq!(
        err(&view),
        "warning: conversation rewind detected. Undoing 1 operation(s).\nwarning:   undone: str-replace (file.ts) [seq:2]\n"
    );
    assert_eq!(
        out(&view),
        format!("     1\tconst x = \"B\";\n[tag: {t1}]\n")
    );
    assert_eq!(
        std::fs::read_to_string(e.project.join("file.ts")).unwrap(),
        "const x = \"B\";\n"
    );

    // Errors exit 1 with the message; the socket is the owner's only.
    let none = e.rad(&[
        "str-replace",
        "file.ts",
        "--old",
        "Z",
        "--new",
        "Y",
        "--tag",
        &t1,
    ]);
    assert_eq!(none.status.code(), Some(1));
    assert_eq!(err(&none), "rad: no match for `old` in `file.ts`\n");
    // Without a tag, a write is a conversation of its own, and `rad undo`
    // without a tag takes back the latest operation.
    let untagged = e.rad(&["insert", "file.ts", "--line", "0", "--text", "x"]);
    assert!(untagged.status.success(), "{}", err(&untagged));
    let undo = e.rad(&["undo"]);
    assert_eq!(
        out(&undo).lines().next(),
        Some(r#"{"undone":{"command":"insert","file":"file.ts","seq":3}}"#)
    );
    assert_eq!(
        std::fs::read_to_string(e.project.join("file.ts")).unwrap(),
        "const x = \"B\";\n"
    );
    let mode = std::fs::metadata(e.socket()).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    assert_eq!(out(&e.rad(&["ping"])), "pong\n");
}

fn raw(socket: &Path, header: &[u8], body: &[u8]) -> Option<serde_json::Value> {
    let mut s = UnixStream::connect(socket).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    s.write_all(header).unwrap();
    s.write_all(body).unwrap();
    let mut len = [0u8; 4];
    s.read_exact(&mut len).ok()?;
    let mut buf = vec![0u8; u32::from_be_bytes(len) as usize];
    s.read_exact(&mut buf).ok()?;
    Some(serde_json::from_slice(&buf).unwrap())
}

#[test]
fn frame_errors_get_clear_answers_and_the_daemon_keeps_serving() {
    let e = env();
    assert!(e.rad(&["ping"]).status.success());
    let socket = e.socket();
    let body = br#"{"command":"ping"}"#;
    let ok = raw(&socket, &(body.len() as u32).to_be_bytes(), body).unwrap();
    assert_eq!(ok["data"], "pong");
    let huge = raw(&socket, &u32::MAX.to_be_bytes(), b"").unwrap();
    assert_eq!(huge["code"], "invalid_request");
    assert!(
        huge["error"]
            .as_str()
            .unwrap()
            .contains("over the limit of 67108864 bytes"),
        "{huge}"
    );
    let junk = b"not json at all";
    let bad = raw(&socket, &(junk.len() as u32).to_be_bytes(), junk).unwrap();
    assert!(
        bad["error"]
            .as_str()
            .unwrap()
            .starts_with("invalid request: the frame is not JSON"),
        "{bad}"
    );
    let notreq = br#"[1,2]"#;
    let bad = raw(&socket, &(notreq.len() as u32).to_be_bytes(), notreq).unwrap();
    assert_eq!(bad["code"], "invalid_request");
    // A truncated frame: the connection is dropped, nothing is answered.
    {
        let mut s = UnixStream::connect(&socket).unwrap();
        s.write_all(&100u32.to_be_bytes()).unwrap();
        s.write_all(b"{\"comm").unwrap();
    }
    assert_eq!(out(&e.rad(&["ping"])), "pong\n", "still serving");
}

#[test]
fn an_idle_daemon_exits_and_removes_its_socket() {
    let e = env();
    let mut daemon = Command::new(env!("CARGO_BIN_EXE_rad"))
        .args(["daemon", "--idle", "1"])
        .env("RADIUM_HOME", &e.home)
        .spawn()
        .unwrap();
    let t = Instant::now();
    while !e.socket().exists() && t.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(e.socket().exists());
    let status = daemon.wait().unwrap();
    assert!(status.success());
    assert!(t.elapsed() >= Duration::from_millis(900));
    assert!(!e.socket().exists());
}

#[test]
fn a_writer_killed_with_sigkill_leaves_files_old_or_new_and_history_readable() {
    let e = env();
    let file = e.project.join("log.txt");
    std::fs::write(&file, "").unwrap();
    // A shell loop of tagged inserts through rad (and its daemon), killed mid-run.
    let script = format!(
        r#"rad={rad}; tag=""
for i in $(seq 1 90); do
  if [ -z "$tag" ]; then o=$($rad insert log.txt --line 0 --text "line $i"); else o=$($rad insert log.txt --line 0 --text "line $i" --tag "$tag"); fi
  tag=$(printf '%s\n' "$o" | sed -n 's/^\[tag: \(.*\)\]$/\1/p')
done"#,
        rad = env!("CARGO_BIN_EXE_rad")
    );
    let mut child = Command::new("/bin/sh")
        .args(["-c", &script])
        .env("RADIUM_HOME", &e.home)
        .env("RADIUM_DAEMON_IDLE", "20")
        .current_dir(&e.project)
        .process_group(0)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Fewer writes than the history depth (100), so every one can be undone.
    std::thread::sleep(Duration::from_millis(300));
    let pgid = child.id() as i32;
    // Kill the loop, the client in flight and the daemon it started, all at once.
    unsafe {
        libc_kill(-pgid, 9);
    }
    let _ = child.wait();
    let _ = std::fs::remove_file(e.socket());
    let text = std::fs::read_to_string(&file).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(!lines.is_empty(), "some writes happened");
    for (i, line) in lines.iter().enumerate() {
        assert_eq!(
            *line,
            format!("line {}", lines.len() - i),
            "the file is exactly some prefix of the writes: {text:?}"
        );
    }
    // The history is readable, and `rad undo` without a tag (the latest
    // operation, whichever conversation made it) undoes every write back
    // to the empty file.
    let view = e.rad(&["view", "log.txt"]);
    assert!(view.status.success(), "{}", err(&view));
    let mut undone = 0;
    loop {
        let u = e.rad(&["undo"]);
        if !u.status.success() {
            assert!(err(&u).contains("nothing to undo"), "{}", err(&u));
            break;
        }
        undone += 1;
    }
    assert_eq!(
        undone,
        lines.len(),
        "one changeset per write that reached the file"
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "");
}

#[test]
fn a_daemon_lock_still_held_by_a_dying_daemon_does_not_stop_the_next_start() {
    use std::os::fd::AsRawFd as _;
    let e = env();
    std::fs::create_dir_all(&e.home).unwrap();
    std::fs::write(e.project.join("a.txt"), "a\n").unwrap();
    // What a killed daemon stuck in an fsync looks like from outside: its
    // lock is held for a while after the socket is gone. The daemon rad
    // starts meanwhile finds the lock held and exits; rad starts another
    // once the lock is free.
    let lock = std::fs::File::create(e.home.join("daemon.lock")).unwrap();
    // SAFETY: flock on a descriptor this test owns.
    assert_eq!(unsafe { libc_flock(lock.as_raw_fd(), 2) }, 0);
    let holder = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(1500));
        drop(lock);
    });
    let view = e.rad(&["view", "a.txt"]);
    holder.join().unwrap();
    assert!(view.status.success(), "{}", err(&view));
    assert!(String::from_utf8_lossy(&view.stdout).contains("1\ta"));
}

extern "C" {
    #[link_name = "kill"]
    fn libc_kill(pid: i32, sig: i32) -> i32;
    #[link_name = "flock"]
    fn libc_flock(fd: i32, operation: i32) -> i32;
}

use std::os::unix::process::CommandExt as _;

#[test]
fn an_answer_lost_after_sending_is_reported_and_never_sent_again() {
    // A daemon that takes the request and dies before answering: here, a
    // listener that reads one frame and closes the connection.
    let e = env();
    std::fs::create_dir_all(&e.home).unwrap();
    let listener = std::os::unix::net::UnixListener::bind(e.socket()).unwrap();
    listener.set_nonblocking(true).unwrap();
    std::fs::write(e.project.join("a.txt"), "one\n").unwrap();
    let rad = Command::new(env!("CARGO_BIN_EXE_rad"))
        .args(["insert", "a.txt", "--line", "1", "--text", "two"])
        .env("RADIUM_HOME", &e.home)
        .env("RADIUM_DAEMON_IDLE", "20")
        .current_dir(&e.project)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut connections = 0;
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(3) {
        match listener.accept() {
            Ok((mut stream, _)) => {
                connections += 1;
                stream.set_nonblocking(false).unwrap();
                let mut len = [0u8; 4];
                stream.read_exact(&mut len).unwrap();
                let mut payload = vec![0u8; u32::from_be_bytes(len) as usize];
                stream.read_exact(&mut payload).unwrap();
                assert!(String::from_utf8_lossy(&payload).contains("\"insert\""));
                drop(stream);
            }
            Err(_) => std::thread::sleep(Duration::from_millis(10)),
        }
    }
    let output = rad.wait_with_output().unwrap();
    assert_eq!(connections, 1, "the request was sent once");
    assert_eq!(output.status.code(), Some(1));
    let message = err(&output);
    assert!(
        message.contains("closed the connection without answering"),
        "{message}"
    );
    assert!(message.contains("it was not sent again"), "{message}");
    drop(listener);
    let _ = std::fs::remove_file(e.socket());
}

/// Starts `rad daemon --idle SECS` for `e` and waits for its socket.
fn start_daemon(e: &Env, idle: &str) -> std::process::Child {
    let child = Command::new(env!("CARGO_BIN_EXE_rad"))
        .args(["daemon", "--idle", idle])
        .env("RADIUM_HOME", &e.home)
        .stdin(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while UnixStream::connect(e.socket()).is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "the daemon did not start"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    child
}

/// Waits up to `limit` for `child` to exit; kills it and fails otherwise.
fn exits_within(mut child: std::process::Child, limit: Duration, what: &str) {
    let started = Instant::now();
    while started.elapsed() < limit {
        if child.try_wait().unwrap().is_some() {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
    panic!("the daemon did not exit within {limit:?} {what}");
}

#[test]
fn the_daemon_exits_when_its_socket_is_removed() {
    let e = env();
    let daemon = start_daemon(&e, "600");
    std::fs::remove_file(e.socket()).unwrap();
    exits_within(
        daemon,
        Duration::from_secs(3),
        "after its socket was removed",
    );
}

#[test]
fn a_silent_client_does_not_keep_the_daemon_alive() {
    let e = env();
    let daemon = start_daemon(&e, "1");
    // Connects and never sends a byte.
    let silent = UnixStream::connect(e.socket()).unwrap();
    exits_within(
        daemon,
        Duration::from_secs(6),
        "with a silent client connected",
    );
    drop(silent);
}

#[test]
fn connections_past_the_cap_are_told_so_and_closed() {
    let e = env();
    let daemon = start_daemon(&e, "600");
    // Each held connection is answered once, so the daemon has surely
    // accepted and counted it (however loaded the machine is).
    let held: Vec<UnixStream> = (0..64)
        .map(|_| {
            let mut s = UnixStream::connect(e.socket()).unwrap();
            let body = br#"{"command":"ping"}"#;
            s.write_all(&(body.len() as u32).to_be_bytes()).unwrap();
            s.write_all(body).unwrap();
            let mut len = [0u8; 4];
            s.read_exact(&mut len).unwrap();
            let mut answer = vec![0u8; u32::from_be_bytes(len) as usize];
            s.read_exact(&mut answer).unwrap();
            s
        })
        .collect();
    let mut extra = UnixStream::connect(e.socket()).unwrap();
    extra
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let mut len = [0u8; 4];
    extra.read_exact(&mut len).unwrap();
    let mut payload = vec![0u8; u32::from_be_bytes(len) as usize];
    extra.read_exact(&mut payload).unwrap();
    let answer: serde_json::Value = serde_json::from_slice(&payload).unwrap();
    assert_eq!(answer["code"], "busy", "{answer}");
    assert!(
        answer["error"]
            .as_str()
            .unwrap()
            .contains("64 connections already"),
        "{answer}"
    );
    // `rad` waits for a free connection instead of failing.
    let e2 = Env {
        _dir: tempfile::tempdir().unwrap(),
        project: e.project.clone(),
        home: e.home.clone(),
    };
    let waiting = std::thread::spawn(move || {
        let o = e2.rad(&["ping"]);
        std::mem::forget(e2); // its Drop would shut the daemon down
        o
    });
    std::thread::sleep(Duration::from_millis(500));
    drop(held);
    let ping = waiting.join().unwrap();
    assert_eq!(out(&ping), "pong\n", "{}", err(&ping));
    drop(extra);
    let out = e.rad(&["shutdown"]);
    assert!(out.status.success(), "{}", err(&out));
    exits_within(daemon, Duration::from_secs(3), "after shutdown");
}

#[test]
fn a_crowd_of_clients_starts_one_daemon_and_every_request_is_answered() {
    let e = env();
    let clients: Vec<_> = (0..100)
        .map(|i| {
            Command::new(env!("CARGO_BIN_EXE_rad"))
                .args(["create", &format!("f{i}.txt"), "--content", "x"])
                .env("RADIUM_HOME", &e.home)
                .env("RADIUM_DAEMON_IDLE", "20")
                .current_dir(&e.project)
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for c in clients {
        let o = c.wait_with_output().unwrap();
        assert!(o.status.success(), "{}", err(&o));
    }
    for i in 0..100 {
        assert!(e.project.join(format!("f{i}.txt")).exists(), "f{i}.txt");
    }
    // Exactly one daemon serves this home.
    let daemons = std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|p| {
            let p = p.ok()?.path();
            let cmd = std::fs::read(p.join("cmdline")).ok()?;
            let env = std::fs::read(p.join("environ")).ok()?;
            let home = format!("RADIUM_HOME={}", e.home.display());
            let ours = env.split(|b| *b == 0).any(|v| v == home.as_bytes());
            (ours && cmd.split(|b| *b == 0).any(|a| a == b"daemon")).then_some(())
        })
        .count();
    assert_eq!(daemons, 1);
}
