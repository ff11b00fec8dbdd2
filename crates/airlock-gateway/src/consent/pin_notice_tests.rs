//! The daemon's notification about tool and prompt changes held for review.

use airlock_core::pins::notice::PinNotice;

use super::pin_change_notice;

fn notice(count: usize) -> PinNotice {
    PinNotice {
        server: "weather.example".into(),
        change_id: 9,
        count,
        summary: "weather[.]example changed tool get_weather since you approved it".into(),
        lines: vec!["Held: Hidden text in Unicode tag characters: 'A'".into()],
    }
}

#[test]
fn it_says_how_to_review_and_offers_only_review() {
    let n = pin_change_notice(&notice(1), true);
    assert_eq!(
        n.summary,
        "weather[.]example changed tool get_weather since you approved it"
    );
    assert_eq!(
        n.body,
        "Held: Hidden text in Unicode tag characters: 'A'\nYour apps do not see it until you review it: Review opens Airlock on it, or run `airlock tools review weather[.]example`."
    );
    let actions: Vec<_> = n.actions.iter().map(|a| (a.id, a.label.as_str())).collect();
    assert_eq!(actions, vec![("review", "Review")]);
}

#[test]
fn without_the_app_it_names_the_command_and_has_no_button() {
    let n = pin_change_notice(&notice(2), false);
    assert!(n.actions.is_empty(), "{n:?}");
    assert!(
        n.body.ends_with("Your apps do not see them until you review them: run `airlock tools review weather[.]example`, or open Airlock."),
        "{}",
        n.body
    );
    assert!(!n.body.contains("://"));
}
