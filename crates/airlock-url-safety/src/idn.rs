//! IDN display policy: decides, label by label, whether the Unicode form
//! of an internationalized host name is safe to show or whether the
//! Punycode (`xn--`) form must be shown instead.
//!
//! The policy follows the spirit of the browsers' IDN display algorithms
//! (Chromium's in particular), using the data of UTS 39 from the
//! `unicode-security` crate:
//!
//! 1. every character must be allowed for identifiers by the UTS 39
//!    General Security Profile (this rejects invisible, symbol-like,
//!    obsolete and other non-displayable characters);
//! 2. the label must satisfy the *Highly Restrictive* level: a single
//!    script, or Latin + Han + Hiragana/Katakana, Latin + Han + Bopomofo,
//!    Latin + Han + Hangul (so `аpple`, Cyrillic а + Latin, is refused);
//! 3. the label must not be confusable with an all-ASCII label: if its
//!    UTS 39 skeleton is pure ASCII (`ѕсоре` all Cyrillic, `ραγ` all Greek,
//!    `gıthub` with a dotless ı) the label is shown as Punycode, unless the
//!    top-level domain is itself written in that non-Latin script (`.рф`),
//!    where a user expects such labels.
//!
//! No list of top domains is consulted (a browser additionally compares
//! skeletons against popular domains); the rules above are deliberately
//! strict instead.

use idna::uts46::{AsciiDenyList, Hyphens, Uts46};
use unicode_script::Script;
use unicode_security::mixed_script::AugmentedScriptSet;
use unicode_security::{skeleton, RestrictionLevel, RestrictionLevelDetection};

fn label_may_display_as_unicode(label: &[char], tld: &[char]) -> bool {
    let label: String = label.iter().collect();
    // Rules 1 and 2 (detect_restriction_level reports Unrestricted for any
    // character outside the General Security Profile).
    if label.as_str().detect_restriction_level() > RestrictionLevel::HighlyRestrictive {
        return false;
    }
    // Rule 3.
    let skeleton_is_ascii = skeleton(&label).all(|c| c.is_ascii());
    if skeleton_is_ascii {
        return tld_vouches_for_script(&label, tld);
    }
    true
}

/// A non-ASCII TLD in the same (non-Latin) script as the label.
fn tld_vouches_for_script(label: &str, tld: &[char]) -> bool {
    if tld.is_empty() || tld.iter().all(char::is_ascii) {
        return false;
    }
    let tld: String = tld.iter().collect();
    let tld_set = AugmentedScriptSet::for_str(&tld);
    if tld_set.is_empty() || tld_set.is_all() || tld_set.base.contains_script(Script::Latin) {
        return false;
    }
    let label_set = AugmentedScriptSet::for_str(label);
    if label_set.is_all() || label_set.base.contains_script(Script::Latin) {
        return false;
    }
    let mut both = label_set;
    both.intersect_with(tld_set);
    !both.is_empty()
}

/// The display form of an ASCII (already ToASCII-processed) host name.
/// Labels that the policy refuses stay in Punycode. On any processing
/// error the ASCII form is returned unchanged.
pub(crate) fn display_host(ascii_host: &str) -> String {
    let (out, result) = Uts46::new().to_user_interface(
        ascii_host.as_bytes(),
        AsciiDenyList::URL,
        Hyphens::Allow,
        |label, tld, _is_bidi| label_may_display_as_unicode(label, tld),
    );
    match result {
        Ok(()) => out.into_owned(),
        Err(_) => ascii_host.to_owned(),
    }
}

/// True when some label of the display form is still Punycode.
pub(crate) fn has_punycode_label(display_host: &str) -> bool {
    display_host.split('.').any(|l| {
        l.as_bytes()
            .get(..4)
            .is_some_and(|p| p.eq_ignore_ascii_case(b"xn--"))
    })
}
