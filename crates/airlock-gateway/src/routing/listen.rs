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

use std::sync::atomic::{AtomicU64, Ordering};

use rmcp::model::{ErrorData, SubscriptionFilter};
use rmcp::service::SubscriptionContext;

use crate::limits;
use crate::routing::subscribe::{Subscriber, Target};
use crate::session::app::AppSession;

/// Numbers listen streams (0 is an app's `resources/subscribe`).
static NEXT_STREAM: AtomicU64 = AtomicU64::new(1);

/// The URIs of a filter, if within the bounds (else why not).
fn checked(filter: &SubscriptionFilter) -> Result<&[String], ErrorData> {
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
/// stream then ends with the error, see [`serve`]). Cheap whatever the
/// app sends: rmcp intersects this with the request, URI by URI.
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

/// Serve one of `app`'s listen streams until it closes: subscribe to the
/// resources it names, then unsubscribe.
pub(crate) async fn serve(
    app: &AppSession,
    context: &SubscriptionContext,
) -> Result<(), ErrorData> {
    let named = checked(context.requested())?;
    let uris = context
        .accepted()
        .resource_subscriptions
        .as_deref()
        .unwrap_or_default();
    if uris.is_empty() {
        context.cancelled().await;
        return Ok(());
    }
    let gateway = &app.gateway;
    let routes = &gateway.router;
    let (client, profile, paused) = app.standing(context.request_context())?;
    if paused {
        return Err(ErrorData::invalid_request(
            format!("Airlock: {}", airlock_core::clients::PAUSED_ERROR),
            None,
        ));
    }
    let mut keys = Vec::with_capacity(named.len());
    for uri in uris {
        if let Some(route) = crate::routing::subscribe::route(gateway, uri, &profile).await {
            keys.push((route.server, route.name));
        }
    }
    let who = Subscriber {
        app: app.id,
        stream: NEXT_STREAM.fetch_add(1, Ordering::Relaxed),
    };
    let target = Target::Stream(context.sink().clone());
    let refused = routes
        .resources
        .subscribe_many(&gateway.core, who, &client, keys, &target)
        .await?;
    for ((server, uri), why) in refused {
        let shown: String = uri.chars().take(200).collect();
        crate::catalog::log(&format!(
            "{client}: no updates of {shown:?} at {server} on its listen stream: {why}"
        ));
    }
    context.cancelled().await;
    routes.resources.end_stream(&gateway.core, who).await;
    Ok(())
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
