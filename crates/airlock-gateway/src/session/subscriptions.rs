//! An app's resource subscriptions, as it asks for them: its
//! `resources/subscribe` (2025-11-25) and its `subscriptions/listen` streams
//! (2026-07-28). Each URI is routed to the server that serves it, if the
//! app's profile shows that server; a URI no server serves (or one the
//! profile hides) is refused on `resources/subscribe`, and acknowledged and
//! never updated on a stream. What a stream's filter may name is
//! crate::routing::listen's; the subscriptions across apps, at the servers,
//! and their updates are crate::routing::subscribe's.

use std::sync::atomic::{AtomicU64, Ordering};

use rmcp::model::ErrorData;
use rmcp::service::{Peer, RoleServer, SubscriptionContext};

use crate::catalog::{Catalog, Route};
use crate::limits;
use crate::routing::subscribe::{Subscriber, Target, Wanted};
use crate::session::app::AppSession;

/// Numbers listen streams (0 is an app's `resources/subscribe`).
static NEXT_STREAM: AtomicU64 = AtomicU64::new(1);

/// Where an app's `uri` is subscribed: the server that serves it (and the
/// URI there), if the app's `profile` shows that server.
async fn route(
    catalog: &Catalog,
    uri: &str,
    profile: &airlock_core::apps::AppProfile,
) -> Option<Route> {
    let view = catalog.view();
    view.resource_route(uri)
        .filter(|r| profile.allows_server(&r.server))
}

impl AppSession {
    /// An app's `resources/subscribe` for `wanted.uri` (as it sees it): routed
    /// to the server that serves it, if the app's `profile` shows that server.
    pub(crate) async fn subscribe_resource(
        &self,
        mut wanted: Wanted,
        profile: &airlock_core::apps::AppProfile,
        peer: Peer<RoleServer>,
    ) -> Result<(), ErrorData> {
        if wanted.uri.len() > limits::MAX_RESOURCE_URI_BYTES {
            return Err(ErrorData::invalid_params(
                format!(
                    "resource URI longer than {} bytes",
                    limits::MAX_RESOURCE_URI_BYTES
                ),
                None,
            ));
        }
        let gateway = &self.gateway;
        let route = route(&gateway.catalog, &wanted.uri, profile).await;
        let Some(route) = route else {
            let shown: String = wanted.uri.chars().take(200).collect();
            return Err(ErrorData::resource_not_found(
                format!(
                    "unknown resource {shown:?}: resources/list shows the resources Airlock serves now"
                ),
                None,
            ));
        };
        (wanted.server, wanted.uri) = (route.server, route.name);
        gateway
            .router
            .resources
            .subscribe(&gateway.core, wanted, Target::Session(peer))
            .await
    }

    /// Serve one of this app's listen streams until it closes: subscribe to
    /// the resources it names, then unsubscribe.
    pub(crate) async fn serve_listen(
        &self,
        context: &SubscriptionContext,
    ) -> Result<(), ErrorData> {
        let named = crate::routing::listen::checked(context.requested())?;
        let uris = context
            .accepted()
            .resource_subscriptions
            .as_deref()
            .unwrap_or_default();
        if uris.is_empty() {
            context.cancelled().await;
            return Ok(());
        }
        let gateway = &self.gateway;
        let routes = &gateway.router;
        let (app, profile, paused) = self.standing(context.request_context())?;
        if paused {
            return Err(ErrorData::invalid_request(
                format!("Airlock: {}", airlock_core::apps::PAUSED_ERROR),
                None,
            ));
        }
        let mut keys = Vec::with_capacity(named.len());
        for uri in uris {
            if let Some(route) = route(&gateway.catalog, uri, &profile).await {
                keys.push((route.server, route.name));
            }
        }
        let who = Subscriber {
            app: self.id,
            stream: NEXT_STREAM.fetch_add(1, Ordering::Relaxed),
        };
        let target = Target::Stream(context.sink().clone());
        let refused = routes
            .resources
            .subscribe_many(&gateway.core, who, &app, keys, &target)
            .await?;
        for ((server, uri), why) in refused {
            let shown: String = uri.chars().take(200).collect();
            crate::catalog::log(&format!(
                "{app}: no updates of {shown:?} at {server} on its listen stream: {why}"
            ));
        }
        context.cancelled().await;
        routes.resources.end_stream(&gateway.core, who).await;
        Ok(())
    }
}
