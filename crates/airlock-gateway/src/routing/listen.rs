//! An app's 2026-07-28 `subscriptions/listen` stream: list changes (see
//! crate::routing::changes) and the updates of the resources its filter names. Each
//! URI is routed like a `resources/subscribe` (crate::routing::subscribe): to the
//! server that serves it, if the app's profile shows that server; its
//! updates come on this stream under the URI the app named, and only
//! those. The stream closing ends its subscriptions (a new filter is a new
//! stream).
//!
//! Like `resources/subscribe`, a named URI that no server serves (or one
//! the app's profile hides, which looks the same) is acknowledged and never
//! updated; so is one whose server will not subscribe (the host's log says
//! why). A filter naming more than
//! [`limits::MAX_RESOURCE_SUBSCRIPTIONS_PER_APP`] URIs, or a URI longer
//! than [`limits::MAX_RESOURCE_URI_BYTES`], ends the stream with an error
//! right after its acknowledgment (rmcp acknowledges before the handler
//! runs), before anything is subscribed; so does a paused app naming URIs.
//!
//! Here: what is acknowledged of a filter ([`accepted`]) and its bounds;
//! the stream is served by the app's session
//! (crate::session::subscriptions).

use rmcp::model::{ErrorData, SubscriptionFilter};

use crate::limits;

/// The URIs of a filter, if within the bounds (else why not).
pub(crate) fn checked(filter: &SubscriptionFilter) -> Result<&[String], ErrorData> {
    let uris = filter.resource_subscriptions.as_deref().unwrap_or_default();
    if uris.len() > limits::MAX_RESOURCE_SUBSCRIPTIONS_PER_APP {
        return Err(ErrorData::invalid_params(
            format!(
                "this listen stream names {} resources; an app may subscribe to at most {}",
                uris.len(),
                limits::MAX_RESOURCE_SUBSCRIPTIONS_PER_APP
            ),
            None,
        ));
    }
    if uris
        .iter()
        .any(|u| u.len() > limits::MAX_RESOURCE_URI_BYTES)
    {
        return Err(ErrorData::invalid_params(
            format!(
                "resource URI longer than {} bytes",
                limits::MAX_RESOURCE_URI_BYTES
            ),
            None,
        ));
    }
    Ok(uris)
}

/// What Airlock acknowledges of an app's filter: the list changes it asked
/// for, and its URIs once each when within the bounds (else none: the
/// stream then ends with the error, see `AppSession::serve_listen`). Cheap
/// whatever the app sends: rmcp intersects this with the request, URI by
/// URI.
pub(crate) fn accepted(requested: &SubscriptionFilter) -> SubscriptionFilter {
    let mut accepted = SubscriptionFilter::new();
    accepted.tools_list_changed = requested.tools_list_changed;
    accepted.prompts_list_changed = requested.prompts_list_changed;
    accepted.resources_list_changed = requested.resources_list_changed;
    accepted.resource_subscriptions =
        checked(requested)
            .ok()
            .filter(|uris| !uris.is_empty())
            .map(|uris| {
                let mut uris = uris.to_vec();
                uris.sort();
                uris.dedup();
                uris
            });
    accepted
}

#[cfg(test)]
mod tests {
    use super::*;

    fn asking(uris: Vec<String>) -> SubscriptionFilter {
        SubscriptionFilter::builder()
            .tools_list_changed()
            .resource_subscriptions(uris)
            .build()
    }

    #[test]
    fn the_acknowledged_uris_are_bounded_and_unique() {
        let uri = |i: usize| format!("peer://note/{i}");
        let a = accepted(&asking(vec![uri(2), uri(1), uri(2)]));
        assert_eq!(a.resource_subscriptions, Some(vec![uri(1), uri(2)]));
        assert_eq!(a.tools_list_changed, Some(true));
        // Too many, or one too long: none acknowledged (the stream then
        // ends with the error); list changes still are.
        let many = asking((0..100_000).map(uri).collect());
        assert!(accepted(&many).resource_subscriptions.is_none());
        let message = checked(&many).unwrap_err().message;
        assert!(message.contains("names 100000 resources"), "{message}");
        let long = asking(vec!["x".repeat(limits::MAX_RESOURCE_URI_BYTES + 1)]);
        assert!(accepted(&long).resource_subscriptions.is_none());
        assert_eq!(accepted(&long).tools_list_changed, Some(true));
        let bound = asking(
            (0..limits::MAX_RESOURCE_SUBSCRIPTIONS_PER_APP)
                .map(uri)
                .collect(),
        );
        assert!(checked(&bound).is_ok());
    }
}
