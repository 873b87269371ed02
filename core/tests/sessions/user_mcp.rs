//! The user's own MCP servers (`mcp.toml`) passed to the agent in
//! `session/new`: the user's and a trusted project's, with the arguments and
//! environment as given; http servers only to an agent that takes them; a
//! broken file named, the other file's servers still passed.

use serde_json::{json, Value};

use super::{agent_script, env_with, of_type};

fn home(e: &super::Env) -> std::path::PathBuf {
    e.ws.parent().unwrap().join("home")
}

const USER_MCP: &str = r#"
[[servers]]
name = "notes"
command = ["/usr/bin/notes-server", "--dir", "a b"]
[servers.env]
NOTES_TOKEN = "s3cret value"

[[servers]]
name = "docs"
type = "http"
url = "http://127.0.0.1:9/mcp"
[servers.headers]
Authorization = "Bearer x"
"#;

const PROJECT_MCP: &str = r#"
[[servers]]
name = "project-tools"
command = ["./tools/serve.sh"]
"#;

/// The mcpServers the example agent got, as it says them.
fn received(e: &super::Env, s: &str) -> Value {
    let r = e.call(
        "session-prompt",
        json!({"session": s, "prompt": "mcpservers", "wait": true}),
    );
    assert_eq!(r["ok"], true, "{r}");
    serde_json::from_str(r["data"]["text"].as_str().unwrap()).unwrap()
}

fn names(servers: &Value) -> Vec<&str> {
    servers
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect()
}

#[test]
fn the_users_mcp_servers_reach_the_agent_as_given_and_an_untrusted_projects_do_not() {
    let script = agent_script();
    let e = env_with(&format!(
        "[[agents]]\nid = \"webby\"\nprotocol = \"acp\"\ncommand = [\"node\", \"{script}\", \"--mcp-http\"]\n"
    ));
    std::fs::write(home(&e).join("mcp.toml"), USER_MCP).unwrap();
    std::fs::create_dir_all(e.ws.join(".radium")).unwrap();
    std::fs::write(e.ws.join(".radium/mcp.toml"), PROJECT_MCP).unwrap();

    // Untrusted: the project's file is not read; the http server is not
    // given to an agent without mcpCapabilities.http, and that is said.
    let r = e.call("session-new", json!({"agent": "example"}));
    assert_eq!(r["ok"], true, "{r}");
    let notices = r["data"]["notices"].as_array().unwrap();
    assert_eq!(notices.len(), 1, "{r}");
    let notice = notices[0].as_str().unwrap();
    assert!(
        notice.contains("`docs`") && notice.contains("http") && notice.contains("example"),
        "{notice}"
    );
    let s = r["data"]["session"].as_str().unwrap().to_owned();
    // Said once: the first turn does not repeat it.
    let first = e.call(
        "session-prompt",
        json!({"session": s, "prompt": "hello", "wait": true}),
    );
    let events = first["data"]["events"].as_array().unwrap();
    assert!(of_type(events, "notice").is_empty(), "{events:?}");
    let got = received(&e, &s);
    assert_eq!(names(&got), ["notes"], "{got}");
    assert_eq!(
        got[0],
        json!({"name": "notes", "command": "/usr/bin/notes-server", "args": ["--dir", "a b"],
               "env": [{"name": "NOTES_TOKEN", "value": "s3cret value"}]})
    );
    let listed = e.call("mcp-servers", json!({}));
    assert_eq!(
        names(&listed["data"]["servers"]),
        ["notes", "docs"],
        "{listed}"
    );

    // An agent that takes http servers gets it, with its headers.
    let s = e.open("webby");
    let got = received(&e, &s);
    assert_eq!(names(&got), ["notes", "docs"], "{got}");
    assert_eq!(
        got[1],
        json!({"type": "http", "name": "docs", "url": "http://127.0.0.1:9/mcp",
               "headers": [{"name": "Authorization", "value": "Bearer x"}]})
    );

    // Trusted: the project's server comes first, its program resolved
    // against the folder of its mcp.toml.
    let t = e.call("trust", json!({"path": e.ws}));
    assert_eq!(t["ok"], true, "{t}");
    let s = e.open("example");
    let got = received(&e, &s);
    assert_eq!(names(&got), ["project-tools", "notes"], "{got}");
    let program = got[0]["command"].as_str().unwrap();
    assert!(program.ends_with(".radium/./tools/serve.sh"), "{program}");
}

#[test]
fn a_broken_mcp_toml_is_named_and_the_other_files_servers_are_still_passed() {
    let e = env_with("");
    std::fs::write(home(&e).join("mcp.toml"), USER_MCP).unwrap();
    std::fs::create_dir_all(e.ws.join(".radium")).unwrap();
    std::fs::write(
        e.ws.join(".radium/mcp.toml"),
        "[[servers]]\nname = \"x\"\ncommand = [",
    )
    .unwrap();
    assert_eq!(e.call("trust", json!({"path": e.ws}))["ok"], true);
    let listed = e.call("mcp-servers", json!({}));
    assert_eq!(listed["ok"], true, "{listed}");
    assert_eq!(names(&listed["data"]["servers"]), ["notes", "docs"]);
    let warning = listed["warnings"][0].as_str().unwrap();
    assert!(warning.contains(".radium/mcp.toml"), "{warning}");

    let r = e.call("session-new", json!({"agent": "example"}));
    assert_eq!(r["ok"], true, "{r}");
    let notices: Vec<&str> = r["data"]["notices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    assert!(
        notices.iter().any(|n| n.contains(".radium/mcp.toml")),
        "{notices:?}"
    );
    let s = r["data"]["session"].as_str().unwrap().to_owned();
    assert_eq!(names(&received(&e, &s)), ["notes"]);
}

#[test]
fn bad_mcp_servers_are_refused_naming_the_field() {
    use radium_core::agents::mcp::parse_mcp_servers;
    let path = std::path::Path::new("/h/mcp.toml");
    let cases = [
        ("[[servers]]\nname = \"a\"\n", "field `command` must name a program"),
        ("[[servers]]\nname = \"a\"\ncommand = []\n", "field `command` must name a program"),
        ("[[servers]]\nname = \"radium\"\ncommand = [\"x\"]\n", "radium's own"),
        ("[[servers]]\nname = \"a b\"\ncommand = [\"x\"]\n", "not a valid server name"),
        (
            "[[servers]]\nname = \"a\"\ncommand = [\"x\"]\n[[servers]]\nname = \"a\"\ncommand = [\"y\"]\n",
            "configured twice",
        ),
        ("[[servers]]\nname = \"a\"\ntype = \"http\"\nurl = \"ftp://x\"\n", "http:// or https://"),
        ("[[servers]]\nname = \"a\"\ntype = \"ws\"\nurl = \"http://x\"\n", "unknown variant"),
        (
            "[[servers]]\nname = \"a\"\ntype = \"sse\"\nurl = \"http://x\"\ncommand = [\"x\"]\n",
            "are for a stdio server",
        ),
        ("[[servers]]\nname = \"a\"\ncommand = [\"x\"]\nurl = \"http://x\"\n", "are for `type"),
        ("[[servers]]\nname = \"a\"\ncommand = [\"x\"]\nport = 3\n", "unknown field"),
    ];
    for (text, expected) in cases {
        let err = parse_mcp_servers(text, path).unwrap_err().to_string();
        assert!(err.contains(expected), "{text:?}: {err}");
        assert!(err.contains("/h/mcp.toml"), "{err}");
    }
}
