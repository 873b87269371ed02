//! Image files as prompt context: sent as ACP image blocks to an agent that
//! takes images; refused (nothing sent) past the size cap, outside the
//! workspace, of an unknown type, missing, or for an agent without images.
//! Inline images (`{data, mimeType}`, a pasted image) go the same way.

use serde_json::json;

use super::{agent_script, env_with};

#[test]
fn an_image_of_the_workspace_reaches_the_agent_with_its_type_and_size() {
    let e = env_with("");
    std::fs::create_dir_all(e.ws.join("shots")).unwrap();
    std::fs::write(e.ws.join("shots/a.png"), [0x89, b'P', b'N', b'G', 0, 1, 2]).unwrap();
    std::fs::write(e.ws.join("b.JPG"), vec![7u8; 1000]).unwrap();
    let s = e.open("example");
    let abs = e.ws.join("b.JPG");
    let r = e.call(
        "session-prompt",
        json!({"session": s, "prompt": "look", "wait": true,
               "images": ["shots/a.png", abs]}),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(
        r["data"]["text"],
        "You said: look\nImages: image/png 7 bytes, image/jpeg 1000 bytes"
    );
}

#[test]
fn bad_images_are_refused_and_nothing_is_sent() {
    let script = agent_script();
    let e = env_with(&format!(
        "[[agents]]\nid = \"blind\"\nprotocol = \"acp\"\ncommand = [\"node\", \"{script}\", \"--no-image\"]\n"
    ));
    let outside = e.ws.parent().unwrap().join("outside.png");
    std::fs::write(&outside, b"x").unwrap();
    std::fs::write(e.ws.join("notes.txt"), b"x").unwrap();
    std::fs::write(e.ws.join("ok.png"), b"x").unwrap();
    let big = std::fs::File::create(e.ws.join("big.png")).unwrap();
    big.set_len(radium_core::sessions::images::MAX_IMAGE_BYTES + 1)
        .unwrap();
    std::os::unix::fs::symlink(&outside, e.ws.join("link.png")).unwrap();
    let s = e.open("example");
    let cases = [
        (json!(["missing.png"]), "missing.png"),
        (json!(["big.png"]), "over the 10485760-byte limit"),
        (json!(["../outside.png"]), "outside the workspace"),
        (json!([outside]), "outside the workspace"),
        (json!(["link.png"]), "outside the workspace"),
        (json!(["notes.txt"]), "not an image type radium sends"),
        (
            json!("ok.png"),
            "must be a list of file paths or `{data, mimeType}` objects, got a string",
        ),
        (
            json!([3]),
            "image 1: must be a file path or `{data, mimeType}`, got a number",
        ),
        (
            json!([{"data": "iVBORw0K", "mimeType": "text/plain"}]),
            "image 1 (inline data): `text/plain` is not an image type radium sends",
        ),
        (
            json!([{"data": "iVBORw0K"}]),
            "image 1 (inline data): missing `mimeType`",
        ),
        (
            json!(["ok.png", {"mimeType": "image/png"}]),
            "image 2 (inline data): missing `data`",
        ),
        (
            json!([{"data": "", "mimeType": "image/png"}]),
            "image 1 (inline data): `data` is empty",
        ),
        (
            json!([{"data": "A".repeat(14 << 20), "mimeType": "image/png"}]),
            "over the 10485760-byte limit",
        ),
        (json!(vec!["ok.png"; 17]), "at most 16"),
    ];
    for (images, expected) in cases {
        let r = e.call(
            "session-prompt",
            json!({"session": s, "prompt": "look", "wait": true, "images": images}),
        );
        assert_eq!(r["ok"], false, "{images}: {r}");
        let error = r["error"].as_str().unwrap();
        assert!(error.contains(expected), "{images}: {error}");
    }
    // Nothing reached the agent: its next turn is its first.
    let r = e.call(
        "session-prompt",
        json!({"session": s, "prompt": "hello", "wait": true}),
    );
    assert_eq!(r["data"]["text"], "You said: hello", "{r}");

    let blind = e.open("blind");
    let r = e.call(
        "session-prompt",
        json!({"session": blind, "prompt": "look", "wait": true, "images": ["ok.png"]}),
    );
    assert_eq!(r["ok"], false, "{r}");
    let error = r["error"].as_str().unwrap();
    assert!(
        error.contains("agent `blind` does not take images") && error.contains("nothing was sent"),
        "{error}"
    );
}

#[test]
fn an_inline_image_reaches_the_agent_and_bad_base64_ends_the_turn_naming_it() {
    use base64::Engine as _;
    let e = env_with("");
    std::fs::write(e.ws.join("a.png"), [1u8; 5]).unwrap();
    let s = e.open("example");
    let png = [0x89, b'P', b'N', b'G', 13, 10, 26, 10, 0, 0];
    let data = base64::engine::general_purpose::STANDARD.encode(png);
    let r = e.call(
        "session-prompt",
        json!({"session": s, "prompt": "look", "wait": true,
               "images": ["a.png", {"data": data, "mimeType": "image/png"}]}),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(
        r["data"]["text"],
        "You said: look\nImages: image/png 5 bytes, image/png 10 bytes"
    );
    // Not base64: found when read (off the caller's thread), the turn ends
    // with the error and the agent got nothing.
    let r = e.call(
        "session-prompt",
        json!({"session": s, "prompt": "look", "wait": true,
               "images": [{"data": "not base64!", "mimeType": "image/png"}]}),
    );
    assert_eq!(r["ok"], false, "{r}");
    let error = r["error"].as_str().unwrap();
    assert!(
        error.contains("image 1 (inline data): `data` is not base64"),
        "{error}"
    );
    let r = e.call(
        "session-prompt",
        json!({"session": s, "prompt": "hello", "wait": true}),
    );
    assert_eq!(r["data"]["text"], "You said: hello", "{r}");
}
