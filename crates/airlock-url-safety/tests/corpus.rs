//! The look-alike corpus: pages that imitate a well-known site by carrying
//! its name in their host, or whose message names another site than the
//! page's own, against real sign-in and payment pages, local callbacks and
//! ordinary hosts whose path or query mentions a domain. Each case is a URL
//! and the message a server sent with it.

use airlock_url_safety::{inspect_with_text, Policy, Verdict, Warning};

/// (URL, message, the well-known domain the host carries)
const EMBEDDED: &[(&str, &str, &str)] = &[
    (
        "https://accounts.google.com.secure-login.verify-account.example.co.uk/signin",
        "Your session expired.",
        "google.com",
    ),
    (
        "https://accounts-google-com.example.app/",
        "Sign in",
        "google.com",
    ),
    (
        "https://apple.com-verify.example.com/",
        "Verify your Apple ID",
        "apple.com",
    ),
    (
        "https://secure-paypal.com/login",
        "Confirm the payment",
        "paypal.com",
    ),
    (
        "https://www.paypal.com.account-review.net/",
        "Review your account",
        "paypal.com",
    ),
    (
        "https://login.microsoftonline.com.auth-check.xyz/",
        "Sign in",
        "microsoftonline.com",
    ),
    (
        "https://github.com-login.example.dev/",
        "Authorize",
        "github.com",
    ),
    (
        "https://signin.aws.amazon.com.console-aws.example.net/",
        "Sign in to AWS",
        "amazon.com",
    ),
    (
        "https://appleid.apple.com.id-verify.example.org/",
        "Verify",
        "apple.com",
    ),
    (
        "https://www.amazon.com.order-check.example.shop/",
        "Check your order",
        "amazon.com",
    ),
    (
        "https://chase.com.alerts.example.info/",
        "Security alert",
        "chase.com",
    ),
    (
        "https://wellsfargo-com.example.online/",
        "Verify",
        "wellsfargo.com",
    ),
    (
        "https://netflix.com-billing.example.site/",
        "Update billing",
        "netflix.com",
    ),
    (
        "https://dropbox.com.share-file.example.co/",
        "A file was shared",
        "dropbox.com",
    ),
    (
        "https://docs.google.com.file-share.example.io/",
        "Open the document",
        "google.com",
    ),
    (
        "https://facebook.com.security-check.example.me/",
        "Check",
        "facebook.com",
    ),
    (
        "https://instagram-com.verify.example.app/",
        "Verify",
        "instagram.com",
    ),
    (
        "https://www.linkedin.com.jobs-apply.example.net/",
        "Apply",
        "linkedin.com",
    ),
    (
        "https://slack.com.workspace-invite.example.com/",
        "Join",
        "slack.com",
    ),
    (
        "https://zoom.us.meeting-join.example.com/",
        "Join the meeting",
        "zoom.us",
    ),
    (
        "https://stripe.com.checkout-session.example.com/",
        "Pay",
        "stripe.com",
    ),
    (
        "https://outlook.live.com.mail-login.example.com/",
        "Sign in",
        "live.com",
    ),
    (
        "https://paypal.com.s3.amazonaws.com/index.html",
        "Log in",
        "paypal.com",
    ),
    ("https://google.com.blogspot.com/", "Sign in", "google.com"),
    (
        "https://microsoft-com.github.io/login",
        "Sign in",
        "microsoft.com",
    ),
    ("https://apple.com.herokuapp.com/", "Sign in", "apple.com"),
    ("https://g00gle.com.evil.example/", "Sign in", "google.com"),
    ("https://xn--pple-43d.com/", "Sign in", "apple.com"),
    ("https://secure-chase.com/", "Sign in", "chase.com"),
    ("https://my-netflix.com/", "Renew", "netflix.com"),
    (
        "https://bankofamerica.com.secure.example.net/",
        "Verify",
        "bankofamerica.com",
    ),
    (
        "https://coinbase.com.wallet-connect.example.xyz/",
        "Connect your wallet",
        "coinbase.com",
    ),
    (
        "https://binance-com.example.top/",
        "Withdraw",
        "binance.com",
    ),
    (
        "https://accounts.spotify.com.example.ru/",
        "Sign in",
        "spotify.com",
    ),
    ("https://ebay.co.uk.sell.example.com/", "Sell", "ebay.co.uk"),
    (
        "https://www.bbc.co.uk.news.example.org/",
        "Read",
        "bbc.co.uk",
    ),
    (
        "https://id.atlassian.com.example.net/",
        "Sign in",
        "atlassian.com",
    ),
    (
        "https://gitlab.com.ci-token.example.net/",
        "New token",
        "gitlab.com",
    ),
    (
        "https://npmjs.com.package-verify.example.org/",
        "Verify the package",
        "npmjs.com",
    ),
    (
        "https://openai.com.api-keys.example.net/",
        "Paste your key",
        "openai.com",
    ),
    (
        "https://irs.gov.refund.example.com/",
        "Claim your refund",
        "irs.gov",
    ),
    (
        "https://office.com-login.example.net/",
        "Sign in",
        "office.com",
    ),
    (
        "https://ACCOUNTS.GOOGLE.COM.evil.example/",
        "Sign in",
        "google.com",
    ),
    (
        "https://accounts.google.com.evil.example./",
        "Sign in",
        "google.com",
    ),
    (
        "https://paypal.com-secure-login.example.com/",
        "Pay",
        "paypal.com",
    ),
];

/// (URL, message, the site the message names)
const NAMED: &[(&str, &str, &str)] = &[
    (
        "https://auth.example-sso.net/",
        "Your Google session expired. Sign in again at https://accounts.google.com/",
        "google.com",
    ),
    (
        "https://gh-auth.example.dev/",
        "Sign in to your GitHub account (github.com) to continue.",
        "github.com",
    ),
    (
        "https://pay.example-checkout.com/",
        "Log in at paypal.com to confirm the payment.",
        "paypal.com",
    ),
    (
        "https://verify.example-support.net/",
        "Questions? Write to security@microsoft.com",
        "microsoft.com",
    ),
    (
        "https://slack-oauth.example.org/",
        "Authorize Airlock on https://slack.com/oauth",
        "slack.com",
    ),
    (
        "https://example-deals.shop/",
        "Continue at www.amazon.com",
        "amazon.com",
    ),
    (
        "https://example-login.app/",
        "Sign in with Apple (appleid.apple.com)",
        "apple.com",
    ),
    (
        "https://stripe-approve.example.io/",
        "Open https://dashboard.stripe.com/ to approve",
        "stripe.com",
    ),
    (
        "https://confirm.example-bank.net/",
        "Your bank, chase.com, needs you to confirm.",
        "chase.com",
    ),
    (
        "https://login.example-auth.com/",
        "Sign in to “accounts.google.com” again.",
        "google.com",
    ),
    (
        "http://localhost:8080/login",
        "Sign in to github.com",
        "github.com",
    ),
    (
        "https://accounts.google.com/",
        "Pay your invoice at https://pay.example-billing.com/",
        "example-billing.com",
    ),
];

/// (URL, message): neither carries a well-known name nor names another site.
const QUIET: &[(&str, &str)] = &[
    (
        "https://accounts.google.com/o/oauth2/auth?client_id=x",
        "Sign in with Google",
    ),
    (
        "https://github.com/login/device",
        "Enter the code at github.com/login/device",
    ),
    (
        "https://login.microsoftonline.com/common/oauth2/v2.0/authorize",
        "Sign in to Microsoft",
    ),
    (
        "https://appleid.apple.com/auth/authorize",
        "Sign in with Apple",
    ),
    (
        "https://www.paypal.com/checkoutnow?token=X",
        "Pay with PayPal (paypal.com)",
    ),
    (
        "https://checkout.stripe.com/c/pay/cs_test",
        "Complete the payment on stripe.com.",
    ),
    ("https://dashboard.stripe.com/", "Approve the payout"),
    (
        "https://acme.okta.com/oauth2/v1/authorize",
        "Sign in to Acme",
    ),
    ("https://acme.us.auth0.com/authorize", "Sign in to Acme"),
    ("https://acme.eu.auth0.com/authorize", "Sign in to Acme"),
    ("https://auth.openai.com/authorize", "Sign in to OpenAI"),
    ("https://slack.com/oauth/v2/authorize", "Connect Slack"),
    ("https://acme.slack.com/", "Open your workspace"),
    (
        "https://api.notion.com/v1/oauth/authorize",
        "Connect Notion",
    ),
    (
        "https://linear.app/oauth/authorize",
        "Authorize Linear at linear.app",
    ),
    ("https://id.atlassian.com/login", "Sign in to Atlassian"),
    ("https://auth.atlassian.com/authorize", "Authorize Jira"),
    ("https://gitlab.com/oauth/authorize", "Authorize GitLab"),
    (
        "https://bitbucket.org/site/oauth2/authorize",
        "Authorize Bitbucket",
    ),
    (
        "https://www.dropbox.com/oauth2/authorize",
        "Connect Dropbox",
    ),
    ("https://accounts.spotify.com/authorize", "Connect Spotify"),
    ("https://www.amazon.com/ap/signin", "Sign in to Amazon"),
    ("https://www.amazon.co.uk/ap/signin", "Sign in to Amazon"),
    ("https://www.amazon.com.au/ap/signin", "Sign in to Amazon"),
    ("https://www.google.com.br/", "Pesquisar"),
    ("https://www.paypal.com.au/signin", "Log in"),
    ("https://www.bbc.co.uk/news", "Read the news"),
    ("https://user.github.io/project", "Docs at user.github.io"),
    ("https://myapp.herokuapp.com/", "Open the app"),
    ("https://myapp.vercel.app/", "Open the app"),
    ("https://console.aws.amazon.com/", "Open the console"),
    ("https://signin.aws.amazon.com/oauth", "Sign in to AWS"),
    ("https://portal.azure.com/", "Open the portal"),
    ("https://login.live.com/oauth20_authorize.srf", "Sign in"),
    (
        "https://example.com/callback?next=https://accounts.google.com/",
        "Continue",
    ),
    (
        "https://sso.example.org/login?redirect=paypal.com",
        "Continue",
    ),
    ("https://www.example.net/paypal.com/login", "Continue"),
    ("https://auth.example.com/#google.com", "Continue"),
    ("http://localhost:3000/callback", "Finish the sign-in"),
    ("http://127.0.0.1:8765/", "Finish the sign-in"),
    (
        "https://docs.python.org/3/",
        "Read the docs at docs.python.org",
    ),
    (
        "https://pypi.org/project/x",
        "See README.md and setup.py, then run build.sh",
    ),
    (
        "https://www.npmjs.com/package/x",
        "Install with npm i x; see index.js and Node.js v20.1.0",
    ),
    (
        "https://mcp.example-vendor.com/authorize",
        "Sign in to Example Vendor",
    ),
    (
        "https://auth.example-vendor.com/",
        "v1.2.3 needs a new token, e.g. for api.example-vendor.com",
    ),
    ("https://accounts.zoho.eu/signin", "Sign in to Zoho"),
    ("https://login.salesforce.com/", "Sign in to Salesforce"),
    ("https://acme.my.salesforce.com/", "Open Salesforce"),
    ("https://app.hubspot.com/oauth/authorize", "Connect HubSpot"),
    ("https://www.figma.com/oauth", "Connect Figma (figma.com)"),
    ("https://sentry.io/oauth/authorize", "Connect Sentry"),
    ("https://vercel.com/integrations", "Install the integration"),
    ("https://secure.login.gov/", "Sign in to Login.gov"),
    ("https://www.irs.gov/", "File your taxes"),
    (
        "https://github.com/settings/tokens",
        "Create a token at https://github.com/settings/tokens",
    ),
    ("https://my-company.atlassian.net/", "Open Jira"),
    ("https://münchen.de/", "Stadtportal"),
];

fn check(url: &str, message: &str) -> airlock_url_safety::Inspection {
    inspect_with_text(url, message, &Policy::default())
}

#[test]
fn hosts_that_carry_a_well_known_name_are_warned_about() {
    assert!(EMBEDDED.len() >= 40);
    for (url, message, known) in EMBEDDED {
        let i = check(url, message);
        assert!(i.has_warning(Warning::EmbedsWellKnown), "{url}: {i:?}");
        assert_eq!(i.embedded_domain.as_deref(), Some(*known), "{url}");
        assert_eq!(i.verdict, Verdict::Warn, "{url}");
    }
}

#[test]
fn messages_that_name_another_site_are_warned_about() {
    for (url, message, named) in NAMED {
        let i = check(url, message);
        assert!(
            i.has_warning(Warning::NamesOtherSite),
            "{url} / {message}: {i:?}"
        );
        assert_eq!(i.named_domain.as_deref(), Some(*named), "{url} / {message}");
    }
}

#[test]
fn real_sites_local_callbacks_and_mentions_in_paths_stay_quiet() {
    assert!(EMBEDDED.len() + NAMED.len() >= 50 && QUIET.len() >= 50);
    for (url, message) in QUIET {
        let i = check(url, message);
        assert!(
            !i.has_warning(Warning::EmbedsWellKnown) && !i.has_warning(Warning::NamesOtherSite),
            "{url} / {message}: {i:?}"
        );
        assert_eq!(i.embedded_domain, None, "{url}");
        assert_eq!(i.named_domain, None, "{url}");
        assert_eq!(i.block_reason, None, "{url}");
    }
}
