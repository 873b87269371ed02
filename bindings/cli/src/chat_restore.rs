//! `/restore [n]` in `rad chat`: the files put back to how they were
//! before prompt `n` (a rewind to that prompt's `tag_before`), after a list
//! of the files it will change and a y/N question.

use std::io::Write as _;

use radium_core::{Engine, Request};
use serde_json::{json, Value};
use tokio::sync::mpsc;

/// A prompt of the chat and the tag of the files before it.
pub(crate) struct Prompt {
    /// The prompt's first line.
    pub text: String,
    /// Its turn's `tag_before` (None: the history could not be written).
    pub tag_before: Option<String>,
}

fn say(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}

fn warn(text: &str) {
    let _ = writeln!(std::io::stderr(), "rad chat: {text}");
}

/// A line of the chat's first 60 characters.
fn first_line(text: &str) -> String {
    let line = text.lines().next().unwrap_or_default();
    match line.char_indices().nth(60) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line.to_owned(),
    }
}

async fn rewind(engine: &Engine, tag: &str, dry_run: bool) -> Result<(Value, Vec<String>), String> {
    let request = Request::new("rewind", json!({"tag": tag, "dry_run": dry_run}));
    let response = engine.handle_async(&request).await;
    if response.ok {
        Ok((response.data.unwrap_or(Value::Null), response.warnings))
    } else {
        Err(response.error.unwrap_or_default())
    }
}

fn files_of(data: &Value) -> Vec<String> {
    data["files"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_owned)
        .collect()
}

/// Runs `/restore` with its argument (`arg`: empty lists the prompts).
pub(crate) async fn restore(
    engine: &Engine,
    prompts: &[Prompt],
    arg: &str,
    lines: &mut mpsc::UnboundedReceiver<String>,
) {
    if arg.is_empty() {
        if prompts.is_empty() {
            say("[restore] no prompt yet\n");
            return;
        }
        say("[restore] the prompts of this chat:\n");
        for (i, p) in prompts.iter().enumerate() {
            say(&format!("  {}. {}\n", i + 1, first_line(&p.text)));
        }
        say("[restore] /restore N puts the files back to before prompt N\n");
        return;
    }
    let Some(prompt) = arg
        .parse::<usize>()
        .ok()
        .and_then(|n| n.checked_sub(1))
        .and_then(|i| prompts.get(i))
    else {
        warn(&format!(
            "/restore: `{arg}` is not a prompt's number (1 to {}; /restore lists them)",
            prompts.len()
        ));
        return;
    };
    let Some(tag) = prompt.tag_before.as_deref() else {
        warn("/restore: radium kept no history for that prompt; nothing to restore");
        return;
    };
    let (plan, warnings) = match rewind(engine, tag, true).await {
        Ok(answer) => answer,
        Err(e) => return warn(&format!("/restore: {e}")),
    };
    let files = files_of(&plan);
    if files.is_empty() {
        say(&format!(
            "[restore] the files are as they were before prompt {arg}: nothing to restore\n"
        ));
        return;
    }
    say(&format!(
        "[restore] to before prompt {arg} ({}): {} operation(s) in {}\n",
        first_line(&prompt.text),
        plan["operations"].as_array().map_or(0, Vec::len),
        files.len()
    ));
    for file in &files {
        say(&format!("  {file}\n"));
    }
    for w in &warnings {
        warn(w);
    }
    let _ = write!(std::io::stderr(), "Restore these files? [y/N] ");
    let _ = std::io::stderr().flush();
    if !matches!(
        lines.recv().await.as_deref().map(str::trim),
        Some("y" | "Y" | "yes")
    ) {
        say("[restore] nothing changed\n");
        return;
    }
    match rewind(engine, tag, false).await {
        Ok((done, warnings)) => {
            for w in &warnings {
                warn(w);
            }
            say(&format!("[restored {}]\n", files_of(&done).join(", ")));
        }
        Err(e) => warn(&format!("/restore: {e}; nothing changed")),
    }
}
