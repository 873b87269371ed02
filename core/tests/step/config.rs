//! Where agents come from: agents.toml of the workspace and the user, and trust.

use super::*;

/// The agents of a list that come from agents.toml files (not radium's catalogue).
fn from_files(agents: &Value) -> Value {
    agents
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["source"] != "(radium's catalogue)")
        .cloned()
        .collect()
}

#[test]
fn agents_come_from_the_workspace_and_the_user_and_the_workspace_wins() {
    let s = setup(&format!(
        "{}\n[[agents]]\nid = \"mine\"\ncommand = [\"/bin/echo\", \"workspace\"]\n",
        example_toml()
    ));
    std::fs::write(
        s.home.join("agents.toml"),
        "[[agents]]\nid = \"mine\"\ncommand = [\"/bin/echo\", \"user\"]\n\n[[agents]]\nid = \"user-only\"\ncommand = [\"/bin/echo\", \"u\"]\n",
    )
    .unwrap();
    let list = s
        .engine
        .handle(&Request::new("agents", Value::Null))
        .to_json();
    let ids: Vec<&str> = list["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["example", "mine", "user-only"]);
    assert_eq!(
        list["data"][1]["command"],
        json!(["/bin/echo", "workspace"])
    );
    assert_eq!(list["data"][0]["timeout_ms"], 10000);
    assert_eq!(
        step(&s, "mine", "", Value::Null)["data"]["original_output"],
        "workspace\n"
    );
    assert_eq!(
        step(&s, "user-only", "", Value::Null)["data"]["original_output"],
        "u\n"
    );
}

#[test]
fn agents_toml_errors_name_the_file_and_line() {
    let cases = [
        ("[[agents]]\nid = \"a\"\n", "missing field `command`"),
        ("[[agents]]\nid = \"a\"\ncommand = []\n", "field `command`: must name a program"),
        ("[[agents]]\nid = \"a b\"\ncommand = [\"x\"]\n", "field `id`"),
        ("[[agents]]\nid = \"a\"\ncommand = [\"x\"]\ntimeout = \"soon\"\n", "field `timeout`: invalid duration"),
        ("[[agents]]\nid = \"a\"\ncommand = [\"x\"]\n[[agents]]\nid = \"a\"\ncommand = [\"y\"]\n", "configured twice"),
        ("[[agents]]\nid = \"a\"\ncommand = [\"x\"]\ncolour = 1\n", "unknown field `colour`"),
        ("[[agents]]\nid = \"a\"\ncommand = [\"x\"]\nmodel = 1\n", "invalid type: integer `1`, expected a string"),
    ];
    for (text, expected) in cases {
        let s = setup(text);
        // `agents` answers the usable agents and names the broken file.
        let r = s
            .engine
            .handle(&Request::new("agents", Value::Null))
            .to_json();
        assert_eq!(from_files(&r["data"]), json!([]), "{r}");
        let warning = r["warnings"][0].as_str().unwrap_or_default().to_owned();
        assert!(warning.contains(".radium/agents.toml:"), "{warning}");
        assert!(warning.contains(expected), "{text:?}: {warning}");
        // A step of an agent no usable file defines answers the error.
        let r = step(&s, "a", "", Value::Null);
        assert_eq!(r["code"], "config", "{r}");
        let err = r["error"].as_str().unwrap_or_default().to_owned();
        assert!(err.contains(".radium/agents.toml:"), "{err}");
        assert!(err.contains(expected), "{text:?}: {err}");
    }
}

#[test]
fn workspace_agents_need_a_trusted_workspace() {
    let s = setup(&example_toml());
    let r = s
        .engine
        .handle(&Request::new(
            "trust",
            json!({"path": s.ws, "revoke": true}),
        ))
        .to_json();
    assert_eq!(r["data"]["trusted"], false);
    let r = step(&s, "example", "x", Value::Null);
    assert_eq!(r["code"], "untrusted", "{r}");
    let err = r["error"].as_str().unwrap();
    assert!(err.starts_with("agent `example` is defined in "), "{err}");
    assert!(err.contains("is not trusted; trust it first"), "{err}");
    let list = s
        .engine
        .handle(&Request::new("agents", Value::Null))
        .to_json();
    assert_eq!(
        from_files(&list["data"]),
        json!([]),
        "untrusted workspace agents are not listed"
    );
    // User-level agents need no trust.
    std::fs::write(
        s.home.join("agents.toml"),
        "[[agents]]\nid = \"mine\"\ncommand = [\"/bin/echo\", \"hi\"]\n",
    )
    .unwrap();
    assert_eq!(
        step(&s, "mine", "", Value::Null)["data"]["original_output"],
        "hi\n"
    );
    s.engine
        .handle(&Request::new("trust", json!({"path": s.ws})));
    assert_eq!(step(&s, "example", "x", Value::Null)["ok"], true);
}
