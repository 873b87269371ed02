//! `.radium/hooks.toml`: parsing, errors with file and line, applying to a registry.

#![allow(clippy::unwrap_used, clippy::pedantic)]

use std::time::Duration;

use radium_core::{
    Error, FnHook, Hook, HookConfigFile, HookContext, HookLoader, HookMeta, HookRegistry,
    HookResult, HookType,
};
use serde_json::{json, Value};

fn tracer(name: &'static str, hook_type: HookType) -> impl Hook {
    FnHook::new(name, hook_type, move |ctx| {
        let mut d = ctx.data.clone();
        d["trace"].as_array_mut().unwrap().push(json!(name));
        Ok(HookResult::with_data(d))
    })
}

fn trace(r: &HookRegistry, tool: &str) -> Value {
    r.execute(HookContext::new(
        HookType::BeforeTool,
        json!({"tool_name": tool, "trace": []}),
    ))
    .data["trace"]
        .clone()
}

/// Parses `text` and returns (line, column, message) of the error.
fn config_error(text: &str) -> (usize, usize, String, String) {
    match HookConfigFile::parse(text, "/ws/.radium/hooks.toml").unwrap_err() {
        e @ Error::Config { .. } => {
            let shown = e.to_string();
            let Error::Config {
                line,
                column,
                message,
                ..
            } = e
            else {
                unreachable!()
            };
            (line, column, message, shown)
        }
        other => panic!("expected a config error, got {other:?}"),
    }
}

#[test]
fn a_full_file_parses() {
    let text = r#"
[[hooks]]
name = "audit"
type = "before_tool"
priority = 150
enabled = false
matcher = "edit|create"
timeout = "5s"

[hooks.config]
log_level = "info"
depth = 3

[[hooks]]
name = "tiny"
type = "custom_logging"
timeout = 250
"#;
    let file = HookConfigFile::parse(text, "hooks.toml").unwrap();
    assert_eq!(file.hooks.len(), 2);
    let audit = &file.hooks[0];
    assert_eq!(audit.name, "audit");
    assert_eq!(audit.hook_type, Some(HookType::BeforeTool));
    assert_eq!(audit.priority.unwrap().0, 150);
    assert_eq!(audit.enabled, Some(false));
    assert_eq!(audit.matcher.as_ref().unwrap().pattern(), "edit|create");
    assert_eq!(audit.timeout, Some(Duration::from_secs(5)));
    assert_eq!(audit.config, Some(json!({"log_level": "info", "depth": 3})));
    assert_eq!(audit.source.as_ref().unwrap().1, 2);
    assert_eq!(file.hooks[1].timeout, Some(Duration::from_millis(250)));
    assert_eq!(file.hooks[1].source.as_ref().unwrap().1, 14);
    // An empty file is valid and has no hooks.
    assert!(HookConfigFile::parse("", "x").unwrap().hooks.is_empty());
}

#[test]
fn bad_toml_names_file_and_line() {
    let (line, _, message, shown) = config_error("[[hooks]]\nname = \"a\"\ntype = \n");
    assert_eq!(line, 3);
    assert!(!message.is_empty());
    assert!(shown.starts_with("/ws/.radium/hooks.toml:3:"), "{shown}");
}

#[test]
fn an_unknown_type_lists_the_valid_ones() {
    let (line, _, message, shown) =
        config_error("[[hooks]]\nname = \"a\"\ntype = \"before_lunch\"\n");
    assert_eq!(line, 3, "{shown}");
    assert!(
        message.contains("unknown hook type `before_lunch`"),
        "{message}"
    );
    assert!(
        message.contains("before_model, after_model, before_tool"),
        "{message}"
    );
    assert!(message.contains("performance_monitoring"), "{message}");
}

#[test]
fn an_unknown_field_is_named() {
    let (line, _, message, _) =
        config_error("[[hooks]]\nname = \"a\"\ntype = \"after_tool\"\npriorty = 3\n");
    assert_eq!(line, 4);
    assert!(message.contains("unknown field `priorty`"), "{message}");
    assert!(
        message.contains("priority"),
        "lists expected fields: {message}"
    );
}

#[test]
fn a_wrong_value_type_names_the_line() {
    let (line, _, message, _) =
        config_error("[[hooks]]\nname = \"a\"\ntype = \"after_tool\"\npriority = \"high\"\n");
    assert_eq!(line, 4);
    assert!(message.contains("invalid type"), "{message}");
    let (line, _, message, _) =
        config_error("[[hooks]]\nname = \"a\"\ntype = \"after_tool\"\nenabled = 1\n");
    assert_eq!(line, 4);
    assert!(message.contains("invalid type"), "{message}");
}

#[test]
fn missing_required_fields_are_named() {
    let (line, _, message, _) = config_error("[[hooks]]\ntype = \"after_tool\"\n");
    assert_eq!(line, 1);
    assert!(message.contains("missing field `name`"), "{message}");
    let (_, _, message, _) = config_error("[[hooks]]\nname = \"x\"\n");
    assert!(message.contains("missing field `type`"), "{message}");
}

#[test]
fn semantic_errors_name_the_field_and_line() {
    let (line, _, message, _) = config_error(
        "[[hooks]]\nname = \"a\"\ntype = \"after_tool\"\n\n[[hooks]]\nname = \"a\"\ntype = \"before_tool\"\n",
    );
    assert_eq!(line, 6);
    assert!(
        message.contains("field `name`: hook `a` is configured twice"),
        "{message}"
    );

    let (line, _, message, _) =
        config_error("[[hooks]]\nname = \"m\"\ntype = \"before_model\"\nmatcher = \"view\"\n");
    assert_eq!(line, 1);
    assert!(message.contains("field `matcher`"), "{message}");

    let (line, _, message, _) =
        config_error("[[hooks]]\nname = \"t\"\ntype = \"after_tool\"\ntimeout = \"soon\"\n");
    assert_eq!(line, 4);
    assert!(message.contains("invalid duration `soon`"), "{message}");

    let (line, _, message, _) =
        config_error("[[hooks]]\nname = \"t\"\ntype = \"after_tool\"\nmatcher = \"a||b\"\n");
    assert_eq!(line, 4);
    assert!(message.contains("invalid tool matcher"), "{message}");

    let (_, _, message, _) = config_error("[[hooks]]\nname = \"\"\ntype = \"after_tool\"\n");
    assert!(message.contains("field `name`"), "{message}");

    let (line, _, message, _) = config_error("hooks = 3\n");
    assert_eq!(line, 1);
    assert!(message.contains("invalid type"), "{message}");
}

#[test]
fn applied_config_overrides_priority_enabled_and_matcher_now_and_later() {
    let r = HookRegistry::new();
    r.register(tracer("a", HookType::BeforeTool)).unwrap();
    r.register(tracer("b", HookType::BeforeTool)).unwrap();
    r.register(tracer("c", HookType::BeforeTool)).unwrap();
    assert_eq!(trace(&r, "view"), json!(["a", "b", "c"]));

    let file = HookConfigFile::parse(
        r#"
[[hooks]]
name = "c"
type = "before_tool"
priority = 900

[[hooks]]
name = "a"
type = "before_tool"
enabled = false

[[hooks]]
name = "b"
type = "before_tool"
matcher = "create"

[[hooks]]
name = "later"
type = "before_tool"
priority = 1000
timeout = "2s"
"#,
        "hooks.toml",
    )
    .unwrap();
    r.apply_config(&file).unwrap();
    assert_eq!(trace(&r, "view"), json!(["c"]));
    assert_eq!(trace(&r, "create"), json!(["c", "b"]));
    // Enable/disable at run time still works on a configured hook.
    r.enable("a").unwrap();
    assert_eq!(trace(&r, "view"), json!(["c", "a"]));

    // A hook registered after the config was applied picks its settings up.
    r.register(tracer("later", HookType::BeforeTool)).unwrap();
    assert_eq!(trace(&r, "view"), json!(["later", "c", "a"]));
    let later = r.list_type(HookType::BeforeTool).remove(0);
    assert_eq!(later.priority.0, 1000);
    assert_eq!(later.timeout_ms, Some(2000));
}

#[test]
fn a_type_mismatch_is_an_error_and_applies_nothing() {
    let r = HookRegistry::new();
    r.register(tracer("a", HookType::BeforeTool)).unwrap();
    r.register(tracer("b", HookType::BeforeTool)).unwrap();
    let file = HookConfigFile::parse(
        "[[hooks]]\nname = \"b\"\ntype = \"before_tool\"\nenabled = false\n\n[[hooks]]\nname = \"a\"\ntype = \"after_model\"\n",
        "/ws/.radium/hooks.toml",
    )
    .unwrap();
    let err = r.apply_config(&file).unwrap_err();
    assert_eq!(
        err.to_string(),
        "/ws/.radium/hooks.toml:6:1: field `type`: hook `a` is configured as after_model but registered as before_tool"
    );
    assert_eq!(r.is_enabled("b"), Some(true), "nothing applied");
}

#[test]
fn hooks_receive_their_config_table() {
    use std::sync::{Arc, Mutex};
    struct Configurable(HookMeta, Arc<Mutex<Value>>);
    impl Hook for Configurable {
        fn meta(&self) -> &HookMeta {
            &self.0
        }
        fn call(&self, _: &HookContext) -> radium_core::HookCall {
            HookResult::success().into()
        }
        fn configure(&self, config: &Value) -> Result<(), radium_core::HookError> {
            if config.get("level") == Some(&json!("loud")) {
                return Err("level `loud` is not supported".into());
            }
            *self.1.lock().unwrap() = config.clone();
            Ok(())
        }
    }
    let seen = Arc::new(Mutex::new(Value::Null));
    let r = HookRegistry::new();
    r.register(Configurable(
        HookMeta::new("configurable", HookType::CustomLogging),
        Arc::clone(&seen),
    ))
    .unwrap();
    let ok = HookConfigFile::parse(
        "[[hooks]]\nname = \"configurable\"\ntype = \"custom_logging\"\n[hooks.config]\nlevel = \"info\"\n",
        "h.toml",
    )
    .unwrap();
    r.apply_config(&ok).unwrap();
    assert_eq!(*seen.lock().unwrap(), json!({"level": "info"}));
    let bad = HookConfigFile::parse(
        "[[hooks]]\nname = \"configurable\"\ntype = \"custom_logging\"\n[hooks.config]\nlevel = \"loud\"\n",
        "h.toml",
    )
    .unwrap();
    let err = r.apply_config(&bad).unwrap_err().to_string();
    assert!(err.starts_with("h.toml:1:1: field `config`"), "{err}");
    assert!(err.contains("level `loud` is not supported"), "{err}");
}

#[test]
fn the_loader_reads_the_workspace_file() {
    let ws = tempfile::tempdir().unwrap();
    let loader = HookLoader::new(ws.path());
    let r = HookRegistry::new();
    r.register(tracer("a", HookType::BeforeTool)).unwrap();
    assert_eq!(loader.apply(&r).unwrap(), 0, "no file, nothing applied");

    std::fs::create_dir_all(ws.path().join(".radium")).unwrap();
    std::fs::write(
        ws.path().join(".radium/hooks.toml"),
        "[[hooks]]\nname = \"a\"\ntype = \"before_tool\"\nenabled = false\n",
    )
    .unwrap();
    assert_eq!(loader.apply(&r).unwrap(), 1);
    assert_eq!(r.is_enabled("a"), Some(false));

    std::fs::write(ws.path().join(".radium/hooks.toml"), "[[hooks]\n").unwrap();
    let err = loader.apply(&r).unwrap_err().to_string();
    let expected = format!("{}:1:", ws.path().join(".radium/hooks.toml").display());
    assert!(err.starts_with(&expected), "{err}");

    let missing = HookConfigFile::from_path(ws.path().join("nope.toml")).unwrap_err();
    assert_eq!(missing.code(), "io");
    assert!(missing.to_string().contains("nope.toml"));
}
