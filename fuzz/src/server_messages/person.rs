//! The person at the consent prompt and the browser, for
//! [`super`]: answers as the input's scene says, and checks what Airlock
//! shows and opens.

use std::sync::Mutex;

use airlock_core::elicitation::{
    BoxFuture, Consent, ConsentDecision, ContinueDecision, FormAnswer, FormConsentRequest, Opener,
    UrlConsentRequest, MAX_MESSAGE_CHARS,
};
use airlock_url_safety::{inspect, Policy};

use super::{lock, tracing, SERVER};
use crate::assert_shown_safely;

/// The person at the consent prompt and the browser, in one: answers from
/// the script, and notes every broken promise (checked at the end, so a
/// violation inside one of Airlock's tasks is not lost).
pub(super) struct Person {
    pub(super) url: ConsentDecision,
    pub(super) late: ContinueDecision,
    pub(super) accept_forms: bool,
    pub(super) accepted: Mutex<Vec<String>>,
    pub(super) violations: Mutex<Vec<String>>,
}

impl Person {
    fn violated(&self, what: String) {
        lock(&self.violations).push(what);
    }

    /// What the consent shows is the truth about the URL, in plain text.
    fn check_url_request(&self, r: &UrlConsentRequest) {
        let i = &r.inspection;
        if i.is_blocked() {
            self.violated(format!("asked to consent to a blocked URL: {i:?}"));
        }
        if r.server != SERVER {
            self.violated(format!("asked for server {:?}", r.server));
        }
        if r.message.chars().any(crate::is_hidden) || r.message.chars().count() > MAX_MESSAGE_CHARS
        {
            self.violated(format!(
                "consent message not plain or too long: {:?}",
                r.message
            ));
        }
        match i.url.as_deref() {
            None => self.violated(format!("consent without a URL: {i:?}")),
            Some(url) => {
                let again = inspect(url, &Policy::default());
                if again.registrable_domain != i.registrable_domain
                    || again.display_host != i.display_host
                    || again.is_blocked()
                {
                    self.violated(format!("{url:?} shown as {i:?}, re-inspected as {again:?}"));
                }
            }
        }
    }
}

impl Consent for Person {
    fn ask_url<'a>(&'a self, request: &'a UrlConsentRequest) -> BoxFuture<'a, ConsentDecision> {
        if tracing() {
            eprintln!("asked: {:?} {:?}", request.inspection.url, self.url);
        }
        self.check_url_request(request);
        if self.url == ConsentDecision::Accept {
            if let Some(url) = &request.inspection.url {
                lock(&self.accepted).push(url.clone());
            }
        }
        let answer = self.url;
        Box::pin(async move { answer })
    }

    fn continue_or_cancel<'a>(
        &'a self,
        _request: &'a UrlConsentRequest,
    ) -> BoxFuture<'a, ContinueDecision> {
        let answer = self.late;
        Box::pin(async move { answer })
    }

    fn ask_form<'a>(&'a self, request: &'a FormConsentRequest) -> BoxFuture<'a, FormAnswer> {
        if tracing() {
            eprintln!("form: {} fields", request.schema.fields.len());
        }
        if request.message.chars().any(crate::is_hidden) {
            self.violated(format!("form message not plain: {:?}", request.message));
        }
        let shown = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            assert_shown_safely("form message", &request.message, MAX_MESSAGE_CHARS);
            crate::form_schema::check_form(&request.schema);
        }));
        if shown.is_err() {
            self.violated(format!("form shown unsafely: {:?}", request.schema));
        }
        let answer = if self.accept_forms {
            match request.schema.validate(&request.schema.defaults()) {
                Ok(content) => FormAnswer::Accept(content),
                Err(_) => FormAnswer::Decline,
            }
        } else {
            FormAnswer::Decline
        };
        Box::pin(async move { answer })
    }
}

impl Opener for Person {
    fn open(&self, url: &str) -> Result<(), String> {
        if tracing() {
            eprintln!("opened {url}");
        }
        if !lock(&self.accepted).iter().any(|a| a == url) {
            self.violated(format!("opened {url:?}, which the person did not accept"));
        }
        Ok(())
    }
}
