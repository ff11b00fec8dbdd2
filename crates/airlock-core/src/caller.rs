//! Who a request to a server is made for: Airlock itself (the window, the
//! CLI) or one call of an app attached to the gateway. The gateway numbers
//! its apps and their calls ([`AppCall`]); the core carries that number
//! with the request so that what the server asks during it (a form in a
//! 2026-07-28 input round, or on a 2025-11-25 connection where that app's
//! call is the only one in flight) goes back to exactly that app, and
//! nothing is guessed when several callers are in flight.

/// One call of one app attached to the gateway (numbers the gateway gives).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AppCall {
    pub app: u64,
    pub call: u64,
}

/// Which app a server's request during a call goes to: `call` is set when
/// the request is known to belong to that call (an input round of it), or
/// when it is that app's only call in flight on the connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AppTarget {
    pub app: u64,
    pub call: Option<u64>,
}

impl From<AppCall> for AppTarget {
    fn from(c: AppCall) -> Self {
        Self {
            app: c.app,
            call: Some(c.call),
        }
    }
}

/// Who a request is made for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Caller {
    /// The app's name, as history and consent show it; `None`:
    /// Airlock itself.
    pub app: Option<String>,
    /// The gateway's numbers for the app and its call; `None`: Airlock
    /// itself (its own questions are always Airlock's to ask).
    pub call: Option<AppCall>,
}

impl Caller {
    /// Airlock itself (the window, the CLI).
    pub fn own() -> Self {
        Self::default()
    }

    /// An app named `app` (no gateway numbers: history and labels only).
    pub fn named(app: Option<&str>) -> Self {
        Self {
            app: app.map(str::to_owned),
            call: None,
        }
    }

    /// Call `call` of the gateway's app numbered `call.app`, named `name`.
    pub fn app(name: &str, call: AppCall) -> Self {
        Self {
            app: Some(name.to_owned()),
            call: Some(call),
        }
    }

    /// The app's name (`None`: Airlock itself).
    pub fn app_name(&self) -> Option<&str> {
        self.app.as_deref()
    }
}
