// Generated from airlock_core::elicitation::view::sentences by `cargo test -p airlock-desktop`. Do not edit.

import type { Warning } from "./Warning";

/** What each URL warning means, in the core's words. */
export const WARNING_SENTENCES: Readonly<Record<Warning, string>> = {
  not_https: "The connection is not encrypted (http, not https): others on the network can read or change it.",
  punycode: "The address contains international characters that could imitate another name, so it is shown in its encoded (xn--) form.",
  ip_literal: "The address is a raw IP number, not a domain name, so you cannot tell who runs it.",
  local_address: "The address points to this computer or to a private or local network, not to the public Internet.",
  userinfo: "The address has text before an @ sign; everything before the @ is not the site you will visit.",
  non_default_port: "The address uses an unusual port number, which ordinary websites rarely do.",
  hidden_characters: "The link as sent contains invisible, text-direction or control characters that can disguise what it says.",
  link_shortener: "The address is a link shortener: it sends you on to another address, which Airlock cannot show you and which may be anywhere.",
  embeds_well_known: "The address carries the name of a well-known site, but the page belongs to a different domain.",
  names_other_site: "The server's message names a different site from the one the page is on.",
};

/** Whether a stored code is one of the warnings above. */
export function isWarning(code: string): code is Warning {
  return Object.hasOwn(WARNING_SENTENCES, code);
}
