//! The terminal consent prompt. The default answer is decline: a bare Enter
//! never opens anything. Server text is printed with control and escape
//! characters neutralised.

use std::io::{BufRead, IsTerminal, Write};

use airlock_core::elicitation::{
    BoxFuture, Consent, ConsentDecision, ContinueDecision, UrlConsentRequest,
};

use crate::output::{describe_inspection, plain};

pub struct TerminalConsent;

/// Read one line from stdin on a blocking thread; `None` on EOF or error.
async fn read_line() -> Option<String> {
    tokio::task::spawn_blocking(|| {
        let mut line = String::new();
        match std::io::stdin().lock().read_line(&mut line) {
            Ok(0) | Err(_) => None,
            Ok(_) => Some(line.trim().to_ascii_lowercase()),
        }
    })
    .await
    .ok()
    .flatten()
}

impl Consent for TerminalConsent {
    fn ask_url<'a>(&'a self, request: &'a UrlConsentRequest) -> BoxFuture<'a, ConsentDecision> {
        Box::pin(async move {
            {
                let mut err = std::io::stderr().lock();
                let _ = writeln!(err);
                let _ = writeln!(
                    err,
                    "── Server {} asks you to open a web page ──",
                    plain(&request.server)
                );
                let _ = writeln!(err, "Why:      {}", plain(&request.message));
                for line in describe_inspection(&request.inspection) {
                    let _ = writeln!(err, "{line}");
                }
                let _ = write!(err, "Open it in your browser? [y]es / [N]o / [c]ancel: ");
                let _ = err.flush();
            }
            match read_line().await.as_deref() {
                Some("y") | Some("yes") => ConsentDecision::Accept,
                Some("c") | Some("cancel") | None => ConsentDecision::Cancel,
                _ => ConsentDecision::Decline,
            }
        })
    }

    fn continue_or_cancel<'a>(
        &'a self,
        request: &'a UrlConsentRequest,
    ) -> BoxFuture<'a, ContinueDecision> {
        Box::pin(async move {
            let domain = request
                .inspection
                .registrable_domain
                .as_deref()
                .unwrap_or("the page");
            eprint!(
                "Waiting for you to finish at {}. Press Enter when you are done, or type c to cancel: ",
                plain(domain)
            );
            match read_line().await.as_deref() {
                Some("c") | Some("cancel") | None => ContinueDecision::Cancel,
                _ => ContinueDecision::Continue,
            }
        })
    }
}

/// Ask for a VS Code input value; password inputs are read without echo on a terminal.
pub fn prompt_input(description: &str, password: bool) -> Result<String, String> {
    let prompt = format!("{}: ", plain(description));
    if password && std::io::stdin().is_terminal() {
        return rpassword::prompt_password(prompt).map_err(|e| e.to_string());
    }
    eprint!("{prompt}");
    let mut line = String::new();
    match std::io::stdin().lock().read_line(&mut line) {
        Ok(0) => Err("no input (end of file)".into()),
        Ok(_) => Ok(line.trim_end_matches(['\r', '\n']).to_owned()),
        Err(e) => Err(e.to_string()),
    }
}
