//! `login` and `logout`: OAuth sign-in and sign-out of HTTP servers.

use std::sync::Arc;

use airlock_core::auth::store::RegisteredClient;
use airlock_core::auth::LoopbackBrowser;
use airlock_core::elicitation::Opener;
use airlock_core::Airlock;

use crate::failure::{usage, Failure};
use crate::output::{plain, print_json};

/// The arguments of `login`.
pub(crate) struct Login {
    pub(crate) server: String,
    pub(crate) client_id: Option<String>,
    pub(crate) client_secret_stdin: bool,
    pub(crate) redirect_port: Option<u16>,
}

pub(crate) async fn login(
    core: &Arc<Airlock>,
    opener: Arc<dyn Opener>,
    args: Login,
    json: bool,
) -> Result<u8, Failure> {
    let Login {
        server,
        client_id,
        client_secret_stdin,
        redirect_port,
    } = args;
    if let Some(id) = client_id {
        let secret = if client_secret_stdin {
            let mut line = String::new();
            std::io::stdin()
                .read_line(&mut line)
                .map_err(|e| usage(format!("cannot read the client secret from stdin: {e}")))?;
            Some(line)
        } else {
            None
        };
        let client = RegisteredClient::new(&id, secret.as_deref(), redirect_port)
            .map_err(|e| usage(format!("--client-id: {e}")))?;
        core.set_oauth_client(&server, Some(&client))?;
    }
    let browser = LoopbackBrowser::new(opener);
    if !json {
        eprintln!(
            "airlock: opening the browser to sign in to {}; waiting up to {} s",
            plain(&server),
            browser.wait.as_secs()
        );
    }
    core.login(&server, &browser).await?;
    if json {
        print_json(&serde_json::json!({"server": server, "logged_in": true}));
    } else {
        say!(
            "signed in to {}; tokens are in the OS keychain",
            plain(&server)
        );
    }
    Ok(0)
}

pub(crate) fn logout(
    core: &Arc<Airlock>,
    server: String,
    forget_client: bool,
    json: bool,
) -> Result<u8, Failure> {
    let had = core.logout(&server)?;
    if forget_client {
        core.set_oauth_client(&server, None)?;
    }
    if json {
        print_json(&serde_json::json!({"server": server, "had_tokens": had}));
    } else if had {
        say!(
            "signed out of {}; its tokens were removed from the OS keychain",
            plain(&server)
        );
    } else {
        say!("{} had no stored tokens", plain(&server));
    }
    Ok(0)
}
