//! Classification of incoming lines: what is forwarded, answered or ignored.

use pretty_assertions::assert_eq;

use super::*;

fn answer(line: &str) -> Value {
    match classify(line.as_bytes()) {
        Inbound::Answer(v) => v,
        other => panic!("{line}: expected an answer, got {other:?}"),
    }
}

#[test]
fn lone_surrogates_become_replacement_characters() {
    let cases = [
        (r#""echo \udc80""#, r#""echo \ufffd""#),
        (r#""\ud800x""#, r#""\ufffdx""#),
        (r#""\ud800\u0041""#, r#""\ufffd\u0041""#),
        (r#""\ud83d\ude00""#, r#""\ud83d\ude00""#),
        (r#""\\udc80""#, r#""\\udc80""#),
        (r#""\ud83d\ud83d\ude00""#, r#""\ufffd\ud83d\ude00""#),
        (r#""end\ud800""#, r#""end\ufffd""#),
    ];
    for (input, expected) in cases {
        let out = repair_lone_surrogates(input.as_bytes());
        assert_eq!(std::str::from_utf8(&out).ok(), Some(expected), "{input}");
        let parsed: Result<String, _> = serde_json::from_slice(&out);
        assert!(parsed.is_ok(), "{input}: {parsed:?}");
    }
    assert!(matches!(
        repair_lone_surrogates(br#"{"a":"plain \u00e9"}"#),
        Cow::Borrowed(_)
    ));
}

#[test]
fn a_tool_call_with_a_lone_surrogate_is_forwarded() {
    let line = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"terminal_send","arguments":{"sessionId":"pty-1","text":"echo \udc80"}}}"#;
    match classify(line.as_bytes()) {
        Inbound::Forward(message) => {
            let text = serde_json::to_string(&message).unwrap_or_default();
            assert!(text.contains("echo \u{fffd}"), "{text}");
        }
        other => panic!("{other:?}"),
    }
}

/// A lone surrogate in the id cannot be carried back unchanged: the request is refused with a
/// null id instead of answered under an id the client never sent. One elsewhere in a request
/// with a plain id (even one holding U+FFFD itself) is served.
#[test]
fn a_lone_surrogate_in_the_id_is_refused() {
    for id in [r#""\udc80""#, r#""a\udc80b""#, r#""\ud800x""#] {
        let v = answer(&format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#));
        assert_eq!(v["error"]["code"], -32600, "{id}: {v}");
        assert_eq!(v["id"], Value::Null, "{id}: {v}");
        assert!(
            v["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("lone UTF-16 surrogate")),
            "{id}: {v}"
        );
    }
    let line = r#"{"jsonrpc":"2.0","id":"a\ufffdb","method":"tools/call","params":{"name":"terminal_send","arguments":{"sessionId":"pty-1","text":"echo \udc80"}}}"#;
    assert!(matches!(classify(line.as_bytes()), Inbound::Forward(_)));
}

#[test]
fn requests_with_an_unusable_id_are_answered_not_dropped() {
    for (id, kind) in [
        ("null", "null"),
        ("{}", "an object"),
        ("[1]", "an array"),
        ("true", "a boolean"),
    ] {
        let v = answer(&format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"terminal_list","arguments":{{}}}}}}"#
        ));
        assert_eq!(v["error"]["code"], -32600, "{id}");
        assert_eq!(v["id"], Value::Null, "{id}");
        let message = v["error"]["message"].as_str().unwrap();
        assert!(message.contains(&format!("got {kind}")), "{message}");
    }
    // Numbers that are not signed 64-bit integers cannot be echoed back as sent.
    for id in [
        "123456789012345678901234567890",
        "-9223372036854775809",
        "18446744073709551615",
        "1.5",
    ] {
        let v = answer(&format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list"}}"#
        ));
        assert_eq!(v["error"]["code"], -32600, "{id}");
        assert_eq!(v["id"], Value::Null, "{id}");
    }
    for id in ["9223372036854775807", "-9223372036854775808"] {
        assert!(
            matches!(
                classify(
                    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list"}}"#).as_bytes()
                ),
                Inbound::Forward(_)
            ),
            "{id}"
        );
    }
    // Notifications (no id member) are still not answered.
    assert!(matches!(
        classify(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
        Inbound::Forward(_)
    ));
}

#[test]
fn a_method_mcp_does_not_define_is_named_with_what_to_call_instead() {
    let v = answer(r#"{"jsonrpc":"2.0","id":62,"method":"foo/bar"}"#);
    assert_eq!(v["id"], 62);
    assert_eq!(v["error"]["code"], -32601);
    insta::assert_snapshot!(v["error"]["message"].as_str().unwrap());
    assert!(matches!(
        classify(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#),
        Inbound::Forward(_)
    ));
}

/// Methods of capabilities the server does not declare say what it offers instead; a method
/// it serves with params that do not match says what they must hold.
#[test]
fn methods_not_offered_and_bad_params_say_what_to_do() {
    for method in ["resources/list", "prompts/list", "prompts/get"] {
        let v = answer(&format!(
            r#"{{"jsonrpc":"2.0","id":7,"method":"{method}","params":{{}}}}"#
        ));
        assert_eq!(v["error"]["code"], -32601, "{v}");
        let message = v["error"]["message"].as_str().unwrap();
        assert!(message.contains("only tools"), "{message}");
    }
    let v = answer(
        r#"{"jsonrpc":"2.0","id":8,"method":"logging/setLevel","params":{"level":"bogus"}}"#,
    );
    assert_eq!(v["id"], 8);
    assert_eq!(v["error"]["code"], -32602, "{v}");
    insta::assert_snapshot!(v["error"]["message"].as_str().unwrap());
    assert!(matches!(
        classify(
            br#"{"jsonrpc":"2.0","id":9,"method":"logging/setLevel","params":{"level":"debug"}}"#
        ),
        Inbound::Forward(_)
    ));
}

#[test]
fn unparsable_lines_get_parse_errors_with_the_id_when_readable() {
    let v = answer("this is not json");
    assert_eq!(v["error"]["code"], -32700);
    assert_eq!(v["id"], Value::Null);
    let v = answer(r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"#);
    assert_eq!(v["error"]["code"], -32700);
    assert_eq!(v["id"], 7);
    // Only the top-level id counts.
    let v = answer(r#"{"params":{"id":9},"method":"x""#);
    assert_eq!(v["id"], Value::Null);
    let v = answer(r#"{"id":"req-1","#);
    assert_eq!(v["id"], "req-1");
    assert!(
        v["error"]["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("Parse error: ")),
        "{v}"
    );
}

#[test]
fn non_object_arguments_get_a_tool_error() {
    for (arguments, kind) in [("[]", "an array"), ("\"x\"", "a string"), ("5", "a number")] {
        let line = format!(
            r#"{{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{{"name":"terminal_list","arguments":{arguments}}}}}"#
        );
        let v = answer(&line);
        assert_eq!(v["id"], 4);
        assert_eq!(v["result"]["isError"], true, "{v}");
        // Shaped like the tool results rmcp sends.
        assert!(v["result"].get("resultType").is_none(), "{v}");
        let text = v["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default();
        assert!(
            text.starts_with(&format!(
                "Error: invalid arguments: expected an object, got {kind}"
            )),
            "{text}"
        );
    }
    for ok in ["{}", "null"] {
        let line = format!(
            r#"{{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{{"name":"terminal_list","arguments":{ok}}}}}"#
        );
        assert!(
            matches!(classify(line.as_bytes()), Inbound::Forward(_)),
            "{ok}"
        );
    }
}

#[test]
fn malformed_requests_name_the_field() {
    let v = answer(r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":5}}"#);
    assert_eq!(
        (v["id"].clone(), v["error"]["code"].clone()),
        (json!(5), json!(-32602))
    );
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("`params.name`")
    );
    let v = answer(r#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":[]}"#);
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("`params`")
    );
    // A request that is not JSON-RPC 2.0 is told what to add; such a notification is
    // dropped like any other malformed one.
    let v = answer(r#"{"jsonrpc":"1.0","id":"c7","method":"ping"}"#);
    assert_eq!(v["id"], "c7");
    insta::assert_snapshot!(v["error"]["message"].as_str().unwrap_or_default());
    let v = answer(r#"{"id":"c9","method":"ping"}"#);
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("no `jsonrpc` member"),
        "{v}"
    );
    assert!(matches!(
        classify(br#"{"method":"notifications/initialized"}"#),
        Inbound::Ignore
    ));
    let v = answer(r#"{"jsonrpc":"2.0","id":8,"method":5}"#);
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("`method`")
    );
    let v = answer("[1,2]");
    assert_eq!(
        (v["id"].clone(), v["error"]["code"].clone()),
        (Value::Null, json!(-32600))
    );
}

#[test]
fn http_bodies_are_classified_like_lines_but_an_empty_body_is_a_parse_error() {
    for body in ["", "  \n", "not json"] {
        let Inbound::Answer(v) = classify_body(body.as_bytes()) else {
            panic!("{body:?}: expected an answer")
        };
        assert_eq!(v["error"]["code"], -32700, "{body:?}");
        assert_eq!(v["id"], Value::Null, "{body:?}");
        let message = v["error"]["message"].as_str().unwrap_or_default();
        assert!(
            message.starts_with("Parse error: the request body is not valid JSON (")
                && message.ends_with("send one complete JSON-RPC message per request"),
            "{message}"
        );
    }
    let Inbound::Answer(v) = classify_body(br#"{"jsonrpc":"2.0","id":1,"#) else {
        panic!("expected an answer")
    };
    assert_eq!(
        (v["id"].clone(), v["error"]["code"].clone()),
        (json!(1), json!(-32700))
    );
    // A pretty-printed body with a lone surrogate is served.
    let body = r#"{
  "jsonrpc": "2.0", "id": 2, "method": "tools/call",
  "params": {"name": "terminal_send", "arguments": {"sessionId": "pty-1", "text": "echo \udc80"}}
}
"#;
    assert!(
        matches!(classify_body(body.as_bytes()), Inbound::Forward(_)),
        "{body}"
    );
}

#[test]
fn blank_lines_and_broken_notifications_are_ignored() {
    assert!(matches!(classify(b"   "), Inbound::Ignore));
    assert!(matches!(
        classify(br#"{"jsonrpc":"2.0","method":"notifications/initialized","params":5}"#),
        Inbound::Ignore | Inbound::Forward(_)
    ));
}

#[test]
fn over_long_lines_name_the_limit() {
    let v = oversized(
        br#"{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"na"#,
        64,
    );
    assert_eq!(
        (v["id"].clone(), v["error"]["code"].clone()),
        (json!(11), json!(-32600))
    );
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("64-byte")
    );
}
