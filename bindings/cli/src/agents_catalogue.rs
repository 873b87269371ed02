//! `rad agents list` (the engine's `agents-list`: every agent of radium's
//! catalogue and of agents.toml, its status, where it is, how to sign in),
//! `rad agents install ID` (`agents-install`: the pinned npm package into
//! radium's cache), and the agent `rad chat` takes when none is named: the
//! only ready one, or one picked from a numbered list.

use std::fmt::Write as _;
use std::io::{BufRead as _, IsTerminal as _, Write as _};
use std::path::Path;

use radium_core::{Engine, EngineConfig, Request};
use serde_json::{json, Value};

/// The engine's `agents-list` answer's agents.
fn list_agents(engine: &Engine) -> Result<Vec<Value>, String> {
    let response = engine.handle(&Request::new("agents-list", Value::Null));
    if !response.ok {
        return Err(response.error.unwrap_or_else(|| "unknown error".into()));
    }
    for warning in &response.warnings {
        eprintln!("warning: {warning}");
    }
    let data = response.data.unwrap_or(Value::Null);
    Ok(data["agents"].as_array().cloned().unwrap_or_default())
}

/// `rad agents list`: two or three lines an agent.
pub fn list(engine: &Engine, as_json: bool) -> Result<String, String> {
    let agents = list_agents(engine)?;
    if as_json {
        return Ok(json!({ "agents": agents }).to_string());
    }
    let mut out = String::new();
    for a in &agents {
        let id = a["id"].as_str().unwrap_or("?");
        let status = a["status"].as_str().unwrap_or("?").replace('_', " ");
        let place = match a["status"].as_str() {
            Some("not_installed") => format!(
                "`rad agents install {id}` ({}@{})",
                a["package"].as_str().unwrap_or("?"),
                a["version"].as_str().unwrap_or("?")
            ),
            Some("configured") => a["source"].as_str().unwrap_or("").to_owned(),
            _ => {
                let program = a["command"][0].as_str().unwrap_or("");
                match a["found"].as_str() {
                    Some("builtin") => "built into radium".to_owned(),
                    Some("cache") => format!("radium's cache: {program}"),
                    _ => format!("PATH: {program}"),
                }
            }
        };
        let _ = writeln!(out, "{id:<10} {status:<14} {place}");
        let _ = writeln!(out, "{:<10} {}", "", a["name"].as_str().unwrap_or(""));
        if let Some(sign_in) = a["sign_in"].as_str() {
            let set = match a["signed_in_by_env"].as_bool() {
                Some(true) => " [a sign-in variable is set]",
                _ => "",
            };
            let _ = writeln!(out, "{:<10} sign in: {sign_in}{set}", "");
        }
        for pitfall in a["pitfalls"].as_array().into_iter().flatten() {
            let _ = writeln!(out, "{:<10} note: {}", "", pitfall.as_str().unwrap_or(""));
        }
    }
    out.truncate(out.trim_end().len());
    Ok(out)
}

/// `rad agents install ID`: says where it installs, waits for npm, says
/// where it went.
pub fn install(engine: &Engine, id: &str) -> Result<String, String> {
    let listed = list_agents(engine)?;
    if let Some(a) = listed.iter().find(|a| a["id"] == id) {
        if let (Some(p), Some(v)) = (a["package"].as_str(), a["version"].as_str()) {
            eprintln!("installing {p}@{v} with npm into radium's cache (this can take a minute)");
        }
    }
    let response = engine.handle(&Request::new("agents-install", json!({ "agent": id })));
    if !response.ok {
        return Err(response.error.unwrap_or_else(|| "unknown error".into()));
    }
    let data = response.data.unwrap_or(Value::Null);
    let path = data["path"].as_str().unwrap_or("?");
    let package = data["package"].as_str().unwrap_or("?");
    Ok(if data["fetched"] == true {
        format!("installed {package} as agent `{id}` in {path}; `rad agents check {id}` starts it")
    } else {
        format!("{package} is installed already (agent `{id}`, {path})")
    })
}

/// The agent `rad chat` talks with when none is named: the only ready one;
/// with several, the one picked from a numbered list when stdin is a
/// terminal; else an error naming them.
pub fn pick(workspace: &Path) -> Result<String, String> {
    let engine = Engine::new(EngineConfig {
        workspace: Some(workspace.to_owned()),
        ..EngineConfig::default()
    })
    .map_err(|e| e.to_string())?;
    let ready: Vec<String> = list_agents(&engine)?
        .iter()
        .filter(|a| a["ready"] == true)
        .filter_map(|a| a["id"].as_str().map(str::to_owned))
        .collect();
    match ready.as_slice() {
        [] => Err("no agent is ready: `rad agents list` shows radium's catalogue, `rad agents install ID` installs one (e.g. `rad agents install gemini`), or configure one in agents.toml".into()),
        [only] => Ok(only.clone()),
        _ if !std::io::stdin().is_terminal() => Err(format!(
            "name the agent: `rad chat AGENT`, one of: {}",
            ready.join(", ")
        )),
        _ => {
            let mut err = std::io::stderr().lock();
            for (i, id) in ready.iter().enumerate() {
                let _ = writeln!(err, "{:>3}. {id}", i + 1);
            }
            let _ = write!(err, "chat with which agent (1-{})? ", ready.len());
            let _ = err.flush();
            drop(err);
            let mut answer = String::new();
            let _ = std::io::stdin().lock().read_line(&mut answer);
            let n: usize = answer
                .trim()
                .parse()
                .map_err(|_| format!("`{}` is not a number of the list", answer.trim()))?;
            ready
                .get(n.wrapping_sub(1))
                .cloned()
                .ok_or_else(|| format!("there is no agent {n} in the list (1-{})", ready.len()))
        }
    }
}
