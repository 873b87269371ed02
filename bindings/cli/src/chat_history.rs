//! The conversation history in `rad chat`: `--list` prints the project's
//! conversations, `--resume [ID]` (without ID: picked from a numbered list)
//! and `--continue` (the project's latest with the agent) open a session
//! that continues one, after printing its earlier turns once.

use std::io::Write as _;

use radium_core::{Engine, Request};
use serde_json::{json, Value};
use tokio::sync::mpsc;

/// Which conversation `rad chat` continues.
pub enum Continue {
    /// This one.
    Id(String),
    /// One picked from a numbered list.
    Pick,
    /// The project's latest with the agent.
    Latest,
}

fn say(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}

/// When `ms` (since the Unix epoch) was, as `YYYY-MM-DD HH:MM` UTC.
fn when(ms: u64) -> String {
    let secs = ms / 1000;
    let days = i64::try_from(secs / 86_400).unwrap_or(0);
    let (h, m) = ((secs % 86_400) / 3600, (secs % 3600) / 60);
    // Days to a civil date (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{d:02} {h:02}:{m:02}")
}

/// The project's conversations (newest first); warnings go to stderr.
async fn conversations(engine: &Engine) -> Result<Vec<Value>, String> {
    listed(engine, None).await.map(|(all, _)| all)
}

/// The project's conversations and, with `agent`, the agent's own sessions
/// radium's history does not hold; warnings go to stderr.
async fn listed(engine: &Engine, agent: Option<&str>) -> Result<(Vec<Value>, Vec<Value>), String> {
    let args = agent.map_or_else(|| json!({}), |a| json!({"agent": a}));
    let response = engine
        .handle_async(&Request::new("history-list", args))
        .await
        .to_json();
    if response["ok"] != true {
        return Err(response["error"].as_str().unwrap_or("").to_owned());
    }
    for w in response["data"]["warnings"]
        .as_array()
        .into_iter()
        .flatten()
    {
        let _ = writeln!(
            std::io::stderr(),
            "rad chat: warning: {}",
            w.as_str().unwrap_or("")
        );
    }
    let list = |key: &str| {
        response["data"][key]
            .as_array()
            .cloned()
            .unwrap_or_default()
    };
    Ok((list("conversations"), list("agent_sessions")))
}

/// One line of the agent's own sessions: number, id (`agent:...`), agent,
/// when, title, marked as the agent's.
fn agent_line(n: usize, s: &Value) -> String {
    format!(
        "{n:>3}. {}  {}  (the agent's own)  {}  {}\n",
        s["id"].as_str().unwrap_or(""),
        s["agent"].as_str().unwrap_or(""),
        s["updated_at"].as_str().unwrap_or(""),
        s["title"].as_str().unwrap_or("")
    )
}

/// One line of a list: number, id, agent, turns, time, title.
fn line(n: usize, c: &Value) -> String {
    format!(
        "{n:>3}. {}  {}  {} turn(s)  {}  {}\n",
        c["id"].as_str().unwrap_or(""),
        c["agent"].as_str().unwrap_or(""),
        c["turns"],
        when(c["updated"].as_u64().unwrap_or(0)),
        c["title"].as_str().unwrap_or("")
    )
}

/// `rad chat [AGENT] --list`: answers the exit code. With an agent that
/// lists its sessions (`session/list`), its own sessions of the project that
/// radium does not hold follow, marked (`--resume agent:ID` takes one up);
/// `--json` then adds them to the list with `"source": "agent"`.
pub async fn list(engine: &Engine, agent: Option<&str>, as_json: bool) -> Result<u8, String> {
    let (all, theirs) = listed(engine, agent).await?;
    if as_json {
        let mut out = all;
        out.extend(theirs.into_iter().map(|mut s| {
            s["source"] = json!("agent");
            s
        }));
        say(&format!("{}\n", Value::Array(out)));
    } else if all.is_empty() && theirs.is_empty() {
        say("no conversations kept in this project yet\n");
    } else {
        for (i, c) in all.iter().enumerate() {
            say(&line(i + 1, c));
        }
        for (i, s) in theirs.iter().enumerate() {
            say(&agent_line(all.len() + i + 1, s));
        }
    }
    Ok(0)
}

/// The id of the conversation `which` names, for `agent`.
pub async fn choose(
    engine: &Engine,
    which: &Continue,
    agent: &str,
    lines: &mut mpsc::UnboundedReceiver<String>,
) -> Result<String, String> {
    if let Continue::Id(id) = which {
        return Ok(id.clone());
    }
    let all = conversations(engine).await?;
    if let Continue::Latest = which {
        return all
            .iter()
            .find(|c| c["agent"] == agent)
            .and_then(|c| c["id"].as_str())
            .map(str::to_owned)
            .ok_or_else(|| {
                format!("no earlier conversation with agent `{agent}` in this project")
            });
    }
    if all.is_empty() {
        return Err("no conversations kept in this project yet".into());
    }
    let mut err = std::io::stderr().lock();
    for (i, c) in all.iter().enumerate() {
        let _ = write!(err, "{}", line(i + 1, c));
    }
    let _ = write!(err, "resume which conversation (1-{})? ", all.len());
    let _ = err.flush();
    drop(err);
    let answer = lines.recv().await.unwrap_or_default();
    let n: usize = answer
        .trim()
        .parse()
        .map_err(|_| format!("`{}` is not a number of the list", answer.trim()))?;
    all.get(n.wrapping_sub(1))
        .and_then(|c| c["id"].as_str())
        .map(str::to_owned)
        .ok_or_else(|| format!("there is no conversation {n} in the list (1-{})", all.len()))
}

/// Prints the earlier turns of conversation `id` once (text, or one
/// `history` JSON event), and how the agent came back; answers the turns'
/// prompts and tags for `/restore`.
pub async fn show(
    engine: &Engine,
    id: &str,
    resumed: Option<&str>,
    refused: Option<String>,
    as_json: bool,
) -> Vec<crate::chat_restore::Prompt> {
    if let Some(acp) = id.strip_prefix(radium_core::sessions::agent_list::AGENT_SESSION_PREFIX) {
        if !as_json {
            let _ = writeln!(
                std::io::stderr(),
                "rad chat: the agent took up its own session {acp} (radium holds no transcript of it)"
            );
        }
        return Vec::new();
    }
    let response = engine
        .handle_async(&Request::new("history-read", json!({"id": id})))
        .await
        .to_json();
    let turns = response["data"]["turns"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    if as_json {
        say(&format!(
            "{}\n",
            json!({"type": "history", "conversation": id, "resumed": resumed, "resume_refused": refused, "turns": turns})
        ));
    } else {
        for t in &turns {
            say(&format!(
                "> {}\n{}\n",
                t["prompt"].as_str().unwrap_or(""),
                t["text"].as_str().unwrap_or("")
            ));
            if let Some(error) = t["error"].as_str() {
                say(&format!("[error: {error}]\n"));
            }
        }
        let context = "the earlier turns go with your next prompt as context";
        let how = match (resumed, refused) {
            (Some("context"), Some(refused)) => {
                format!("the agent refused to take up its own session ({refused}): {context}")
            }
            (Some("context"), None) => {
                format!("the agent cannot resume its own session: {context}")
            }
            (Some("load"), _) => "the agent loaded its own session".to_owned(),
            _ => "the agent resumed its own session".to_owned(),
        };
        let _ = writeln!(
            std::io::stderr(),
            "rad chat: continuing conversation {id} ({} earlier turn(s)); {how}",
            turns.len()
        );
    }
    turns
        .iter()
        .map(|t| crate::chat_restore::Prompt {
            text: t["prompt"].as_str().unwrap_or("").to_owned(),
            tag_before: t["tag_before"].as_str().map(str::to_owned),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn times_read_as_utc_dates() {
        assert_eq!(super::when(0), "1970-01-01 00:00");
        assert_eq!(super::when(1_795_737_600_000), "2026-11-27 00:00");
    }
}
