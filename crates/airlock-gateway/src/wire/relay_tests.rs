use super::*;

#[test]
fn messages_are_told_apart_and_ids_kept_exactly() {
    assert!(matches!(
        kind(br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{}}"#),
        Kind::Request(id, m) if id == "7" && m == "tools/call"
    ));
    assert!(matches!(
        kind(br#"{"jsonrpc":"2.0","id":"a\"b","result":{}}"#),
        Kind::Response(id) if id == r#""a\"b""#
    ));
    assert!(matches!(
        kind(br#"{"jsonrpc":"2.0","method":"notifications/airlock/reconnect"}"#),
        Kind::Notification(m) if m == RECONNECT_METHOD
    ));
    assert!(matches!(kind(b"garbage"), Kind::Other));
    let e: Value = serde_json::from_slice(&error_line(r#""a\"b""#, RESTARTED)).unwrap();
    assert_eq!(e["id"], "a\"b");
    assert_eq!(e["error"]["message"], RESTARTED);
    let replayed: Value = serde_json::from_slice(
        &with_id(br#"{"jsonrpc":"2.0","id":0,"method":"initialize"}"#, "x").unwrap(),
    )
    .unwrap();
    assert_eq!(replayed["id"], "x");
    assert_eq!(replayed["method"], "initialize");
}

#[test]
fn held_messages_and_subscriptions_are_bounded() {
    let mut st = State::default();
    for _ in 0..MAX_HELD_MESSAGES {
        assert!(st.hold(b"{}\n".to_vec()));
    }
    assert!(!st.hold(b"{}\n".to_vec()));
    let mut st = State::default();
    assert!(st.hold(vec![b' '; MAX_HELD_BYTES]));
    assert!(!st.hold(b"{}\n".to_vec()));
    let mut st = State::default();
    for i in 0..limits::MAX_RESOURCE_SUBSCRIPTIONS_PER_APP + 5 {
        let line = format!(
            r#"{{"jsonrpc":"2.0","id":{i},"method":"resources/subscribe","params":{{"uri":"a://{i}"}}}}"#
        );
        st.record(&kind(line.as_bytes()), line.as_bytes());
    }
    assert_eq!(
        st.subscribed.len(),
        limits::MAX_RESOURCE_SUBSCRIPTIONS_PER_APP
    );
    let un =
        r#"{"jsonrpc":"2.0","id":1,"method":"resources/unsubscribe","params":{"uri":"a://0"}}"#;
    st.record(&kind(un.as_bytes()), un.as_bytes());
    assert!(!st.subscribed.contains("a://0"));
}
