//! What radium tells a server it can do, and its answers to the requests
//! a server sends: every one is answered, none is left to stall a server.

use std::path::Path;

use serde_json::{json, Value};

use super::uri::path_uri;

/// What radium tells a server it can do.
pub fn client_capabilities() -> Value {
    json!({
        "general": {"positionEncodings": ["utf-8", "utf-32", "utf-16"]},
        "workspace": {
            "applyEdit": true,
            "workspaceEdit": {
                "documentChanges": true,
                "resourceOperations": ["create", "rename", "delete"],
                "failureHandling": "abort"
            },
            "configuration": true,
            "workspaceFolders": true,
            "didChangeConfiguration": {"dynamicRegistration": false},
            "fileOperations": {"willRename": true, "didRename": true}
        },
        "textDocument": {
            "synchronization": {"dynamicRegistration": false},
            "references": {},
            "definition": {"linkSupport": true},
            "rename": {"prepareSupport": false}
        },
        "window": {"workDoneProgress": true}
    })
}

/// The value at `section` (dotted) of `settings`, or null.
fn section(settings: &Value, section: Option<&str>) -> Value {
    match section {
        None | Some("") => settings.clone(),
        Some(path) => path
            .split('.')
            .try_fold(settings, |v, key| v.get(key))
            .cloned()
            .unwrap_or(Value::Null),
    }
}

/// The answer to one of the server's requests.
pub fn answer(
    settings: &Value,
    root: &Path,
    method: &str,
    params: &Value,
) -> Result<Value, (i64, String)> {
    match method {
        "workspace/configuration" => Ok(Value::Array(
            params["items"]
                .as_array()
                .map(|items| {
                    items
                        .iter()
                        .map(|item| section(settings, item["section"].as_str()))
                        .collect()
                })
                .unwrap_or_default(),
        )),
        "client/registerCapability"
        | "client/unregisterCapability"
        | "window/workDoneProgress/create"
        | "window/showMessageRequest"
        | "workspace/codeLens/refresh"
        | "workspace/semanticTokens/refresh"
        | "workspace/inlayHint/refresh"
        | "workspace/diagnostic/refresh" => Ok(Value::Null),
        "workspace/workspaceFolders" => Ok(json!([{
            "uri": path_uri(root),
            "name": root.file_name().map(|n| n.to_string_lossy().into_owned()),
        }])),
        "workspace/applyEdit" => Ok(json!({
            "applied": false,
            "failureReason": "radium applies only the edits of its own requests, as one reviewed step",
        })),
        "window/showDocument" => Ok(json!({"success": false})),
        other => Err((-32601, format!("radium does not handle `{other}`"))),
    }
}
