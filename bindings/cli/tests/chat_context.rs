//! `rad chat --image`, `rad agents mcp` and `rad agents login` with the
//! example ACP agent (a real process speaking ACP v1).

#![allow(clippy::unwrap_used, clippy::pedantic)]

use std::process::{Command, Output, Stdio};

mod common;
use common::{agent_home, err, out, AgentHome};

fn rad(h: &AgentHome, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rad"))
        .args(args)
        .env("RADIUM_HOME", &h.home)
        .current_dir(&h.ws)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

/// Adds an example agent `id` started with `flags` (and `env` TOML lines).
fn add_agent(h: &AgentHome, id: &str, flags: &str, env: &str) {
    let script = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/acp-agent/agent.mjs")
        .canonicalize()
        .unwrap();
    let mut text = std::fs::read_to_string(h.home.join("agents.toml")).unwrap();
    text.push_str(&format!(
        "\n[[agents]]\nid = \"{id}\"\nprotocol = \"acp\"\ncommand = [\"node\", \"{}\", \"{flags}\"]\n{env}",
        script.display()
    ));
    std::fs::write(h.home.join("agents.toml"), text).unwrap();
}

#[test]
fn chat_image_sends_the_files_and_refuses_bad_ones() {
    let h = agent_home();
    add_agent(&h, "blind", "--no-image", "");
    std::fs::write(h.ws.join("shot.png"), [1u8, 2, 3, 4, 5]).unwrap();
    std::fs::write(h.ws.join("photo.jpeg"), [9u8; 300]).unwrap();
    std::fs::write(h.ws.join("notes.txt"), b"hello\n").unwrap();
    std::fs::File::create(h.ws.join("big.png"))
        .unwrap()
        .set_len((10 << 20) + 1)
        .unwrap();
    let o = rad(
        &h,
        &[
            "chat",
            "example",
            "--image",
            "shot.png",
            "--image",
            "photo.jpeg",
            "--prompt",
            "see",
        ],
    );
    assert!(o.status.success(), "{}", err(&o));
    assert_eq!(
        out(&o),
        "You said: see\nImages: image/png 5 bytes, image/jpeg 300 bytes\n"
    );

    for (agent, image, expected) in [
        ("example", "nothere.png", "nothere.png"),
        ("example", "../outside.png", "outside the workspace"),
        ("blind", "shot.png", "agent `blind` does not take images"),
        ("example", "notes.txt", "not an image type radium sends"),
        ("example", "big.png", "over the 10485760-byte limit"),
    ] {
        let o = rad(&h, &["chat", agent, "--image", image, "--prompt", "see"]);
        assert!(!o.status.success(), "{agent} {image}: {}", out(&o));
        assert!(err(&o).contains(expected), "{agent} {image}: {}", err(&o));
        assert!(
            !out(&o).contains("You said"),
            "nothing was sent: {}",
            out(&o)
        );
    }
}

#[test]
fn agents_mcp_lists_the_servers_and_names_a_broken_file() {
    let h = agent_home();
    let o = rad(&h, &["agents", "mcp"]);
    assert!(o.status.success(), "{}", err(&o));
    assert!(
        out(&o).contains("no MCP servers are configured"),
        "{}",
        out(&o)
    );
    std::fs::write(
        h.home.join("mcp.toml"),
        "[[servers]]\nname = \"notes\"\ncommand = [\"/bin/notes\", \"-v\"]\n\n\
         [[servers]]\nname = \"docs\"\ntype = \"sse\"\nurl = \"https://example.com/sse\"\n",
    )
    .unwrap();
    // An untrusted project's file is not read (nor named).
    std::fs::create_dir_all(h.ws.join(".radium")).unwrap();
    std::fs::write(h.ws.join(".radium/mcp.toml"), "not toml [").unwrap();
    let o = rad(&h, &["agents", "mcp"]);
    assert!(o.status.success(), "{}", err(&o));
    let text = out(&o);
    assert!(text.contains("notes (stdio): /bin/notes -v"), "{text}");
    assert!(
        text.contains("docs (sse): https://example.com/sse"),
        "{text}"
    );
    assert!(err(&o).is_empty(), "{}", err(&o));
    // A chat with an agent that takes no sse servers says so before its answer.
    let o = rad(&h, &["chat", "example", "--prompt", "hi"]);
    assert!(o.status.success(), "{}", err(&o));
    assert!(
        err(&o).contains("rad chat: notice: MCP server `docs`")
            && err(&o).contains("does not take sse servers"),
        "{}",
        err(&o)
    );
    // Trusted: the broken project file is a warning naming it.
    assert!(rad(&h, &["trust"]).status.success());
    let o = rad(&h, &["agents", "mcp"]);
    assert!(o.status.success(), "{}", err(&o));
    assert!(out(&o).contains("notes (stdio)"), "{}", out(&o));
    assert!(
        err(&o).contains("warning:") && err(&o).contains(".radium/mcp.toml"),
        "{}",
        err(&o)
    );
}

#[test]
fn agents_login_signs_in_and_a_refused_start_lists_the_methods() {
    let h = agent_home();
    let file = h.dir.path().join("signed-in");
    add_agent(
        &h,
        "locked",
        "--auth-required",
        &format!(
            "[agents.env]\nEXAMPLE_AGENT_AUTH_FILE = \"{}\"\n",
            file.display()
        ),
    );
    let o = rad(&h, &["chat", "locked", "--prompt", "hi"]);
    assert!(!o.status.success());
    assert!(
        err(&o).contains("`rad agents login locked example-login`"),
        "{}",
        err(&o)
    );
    let o = rad(&h, &["agents", "login", "locked", "nope"]);
    assert!(!o.status.success());
    assert!(err(&o).contains("no sign-in method `nope`"), "{}", err(&o));
    let o = rad(&h, &["agents", "login", "locked"]);
    assert!(o.status.success(), "{}", err(&o));
    assert!(out(&o).contains("signed in to `locked`"), "{}", out(&o));
    let o = rad(&h, &["chat", "locked", "--prompt", "hi"]);
    assert!(o.status.success(), "{}", err(&o));
    assert_eq!(out(&o), "You said: hi\n");
}
