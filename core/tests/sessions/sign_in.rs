//! An agent that needs a sign-in: the start error lists its methods (the
//! command for a terminal one), and `agents-login` signs in with a method
//! the agent runs itself, after which sessions open.

use serde_json::json;

use super::{agent_script, env_with};

fn auth_env() -> (super::Env, tempfile::TempDir, std::path::PathBuf) {
    let script = agent_script();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("signed-in");
    let e = env_with(&format!(
        "[[agents]]\nid = \"locked\"\nprotocol = \"acp\"\ncommand = [\"node\", \"{script}\", \"--auth-required\"]\n\
         [agents.env]\nEXAMPLE_AGENT_AUTH_FILE = \"{}\"\n",
        file.display()
    ));
    (e, dir, file)
}

#[test]
fn a_start_refused_for_sign_in_lists_the_methods_and_agents_login_signs_in() {
    let (e, _dir, file) = auth_env();
    let r = e.call("session-new", json!({"agent": "locked"}));
    assert_eq!(r["ok"], false, "{r}");
    let error = r["error"].as_str().unwrap();
    assert!(error.contains("code -32000"), "{error}");
    assert!(error.contains("needs you to sign in"), "{error}");
    assert!(
        error.contains("example-login: Log in with Example (Opens the browser): `rad agents login locked example-login`"),
        "{error}"
    );
    assert!(
        error.contains("example-terminal: Log in in a terminal: run in a terminal: node ")
            && error.contains("agent.mjs --auth-required --login"),
        "{error}"
    );

    // A terminal method is not one radium runs; an unknown one is said.
    for (method, expected) in [
        (
            "example-terminal",
            "has no sign-in method `example-terminal` radium can run (it has: example-login)",
        ),
        ("nope", "has no sign-in method `nope`"),
    ] {
        let r = e.call("agents-login", json!({"agent": "locked", "method": method}));
        assert_eq!(r["ok"], false, "{r}");
        assert!(r["error"].as_str().unwrap().contains(expected), "{r}");
    }
    assert!(!file.exists());
    // No method: the only one of type agent.
    let r = e.call("agents-login", json!({"agent": "locked"}));
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["data"]["signed_in"], true);
    assert!(file.exists());
    let r = e.call("session-new", json!({"agent": "locked"}));
    assert_eq!(r["ok"], true, "{r}");
}

#[test]
fn agents_login_refuses_bad_arguments_and_an_agent_without_methods() {
    let (e, _dir, _) = auth_env();
    let r = e.call("agents-login", json!({}));
    assert_eq!(r["ok"], false);
    assert!(r["error"].as_str().unwrap().contains("`agent`"), "{r}");
    let r = e.call("agents-login", json!({"agent": "locked", "method": 3}));
    assert_eq!(r["ok"], false);
    let r = e.call("agents-login", json!({"agent": "example"}));
    assert_eq!(r["ok"], false, "{r}");
    assert!(
        r["error"]
            .as_str()
            .unwrap()
            .contains("offers no sign-in radium can run"),
        "{r}"
    );
}
