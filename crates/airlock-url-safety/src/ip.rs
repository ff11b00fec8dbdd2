//! Classification of IP literals and special host names. Pure functions on
//! already-parsed addresses; nothing here touches the network.

use std::net::{Ipv4Addr, Ipv6Addr};

/// 127.0.0.0/8.
pub(crate) fn v4_is_loopback(ip: Ipv4Addr) -> bool {
    ip.octets()[0] == 127
}

/// Addresses that do not lead to the public Internet: loopback, RFC 1918
/// private, link-local (including the 169.254.169.254 cloud metadata
/// endpoint), CGNAT shared space, "this network" 0.0.0.0/8 (which includes
/// the unspecified address) and the limited broadcast address.
pub(crate) fn v4_is_local(ip: Ipv4Addr) -> bool {
    let [a, b, _, _] = ip.octets();
    v4_is_loopback(ip)
        || a == 0 // 0.0.0.0/8, "this host on this network"
        || a == 10 // 10.0.0.0/8
        || (a == 172 && (16..=31).contains(&b)) // 172.16.0.0/12
        || (a == 192 && b == 168) // 192.168.0.0/16
        || (a == 169 && b == 254) // 169.254.0.0/16 link-local
        || (a == 100 && (64..=127).contains(&b)) // 100.64.0.0/10 CGNAT
        || ip == Ipv4Addr::BROADCAST
}

/// The IPv4 address embedded in an IPv4-mapped IPv6 address
/// (`::ffff:a.b.c.d`), which the operating system connects to as that IPv4
/// address.
fn v6_mapped_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let s = ip.segments();
    if s[..5] == [0, 0, 0, 0, 0] && s[5] == 0xffff {
        Some(Ipv4Addr::new(
            (s[6] >> 8) as u8,
            (s[6] & 0xff) as u8,
            (s[7] >> 8) as u8,
            (s[7] & 0xff) as u8,
        ))
    } else {
        None
    }
}

/// IPv4 addresses embedded by translation schemes that can lead to them:
/// IPv4-compatible `::a.b.c.d` (deprecated) and NAT64 `64:ff9b::/96`.
fn v6_embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let s = ip.segments();
    let compat = s[..6] == [0, 0, 0, 0, 0, 0];
    let nat64 = s[..6] == [0x64, 0xff9b, 0, 0, 0, 0];
    if compat || nat64 {
        Some(Ipv4Addr::new(
            (s[6] >> 8) as u8,
            (s[6] & 0xff) as u8,
            (s[7] >> 8) as u8,
            (s[7] & 0xff) as u8,
        ))
    } else {
        None
    }
}

/// `::1`, or an IPv4-mapped loopback address.
pub(crate) fn v6_is_loopback(ip: Ipv6Addr) -> bool {
    ip == Ipv6Addr::LOCALHOST || v6_mapped_v4(ip).is_some_and(v4_is_loopback)
}

/// Loopback, unspecified, link-local fe80::/10, deprecated site-local
/// fec0::/10, unique-local fc00::/7, and IPv4-mapped / IPv4-compatible /
/// NAT64 addresses whose IPv4 part is local.
pub(crate) fn v6_is_local(ip: Ipv6Addr) -> bool {
    let first = ip.segments()[0];
    ip == Ipv6Addr::LOCALHOST
        || ip == Ipv6Addr::UNSPECIFIED
        || (first & 0xffc0) == 0xfe80 // link-local
        || (first & 0xffc0) == 0xfec0 // site-local (deprecated)
        || (first & 0xfe00) == 0xfc00 // unique local
        || v6_mapped_v4(ip).is_some_and(v4_is_local)
        || v6_embedded_v4(ip).is_some_and(v4_is_local)
}

/// `localhost` and any name under `.localhost` (RFC 6761), with or
/// without one trailing dot. Expects the lower-case ASCII host.
pub(crate) fn is_localhost_name(host: &str) -> bool {
    let h = host.strip_suffix('.').unwrap_or(host);
    h == "localhost" || (h.ends_with(".localhost") && h.len() > ".localhost".len())
}

/// Suffixes of names that only resolve on a local network: `.local`
/// (multicast DNS, RFC 6762), `.internal` (reserved by ICANN for private
/// use, 2024), `.home.arpa` (home networks, RFC 8375), `.lan` (never
/// delegated; the de-facto home router suffix) and `.localhost` (RFC 6761,
/// loopback; see [`is_localhost_name`]).
const LOCAL_SUFFIXES: [&str; 5] = ["local", "internal", "home.arpa", "lan", "localhost"];

/// For a name that only resolves on a local network, the local suffix it
/// ends with, without the leading dot: `Some("")` for a dotless name
/// (`intranet`, `printer`, also `localhost`), `Some("local")` for
/// `printer.local`, `Some("home.arpa")` for `nas.home.arpa` and for
/// `home.arpa` itself. `None` for any other name.
///
/// `host` is an ASCII host name without a trailing dot; case does not
/// matter. A dotless name never reaches the public Internet through a
/// browser in practice: it is completed with the local search domains or
/// answered by the local resolver (the few top-level domains that once
/// published an address of their own are the rare exception, and a warning
/// on those costs nothing).
pub(crate) fn local_name_suffix(host: &str) -> Option<&str> {
    if host.is_empty() {
        return None;
    }
    if !host.contains('.') {
        return Some("");
    }
    LOCAL_SUFFIXES.into_iter().find_map(|suffix| {
        let start = host.len().checked_sub(suffix.len())?;
        let tail = host.get(start..)?;
        if !tail.eq_ignore_ascii_case(suffix) {
            return None;
        }
        // The whole name, or a whole label boundary before the suffix (and
        // a non-empty label in front of it).
        let whole = start == 0;
        let label = start >= 2 && host.as_bytes().get(start - 1) == Some(&b'.');
        (whole || label).then_some(tail)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v4(s: &str) -> Ipv4Addr {
        s.parse().unwrap()
    }
    fn v6(s: &str) -> Ipv6Addr {
        s.parse().unwrap()
    }

    #[test]
    fn v4_range_edges() {
        for s in [
            "0.0.0.0",
            "0.255.255.255",
            "10.0.0.0",
            "10.255.255.255",
            "100.64.0.0",
            "100.127.255.255",
            "127.0.0.0",
            "127.255.255.255",
            "169.254.0.0",
            "169.254.255.255",
            "172.16.0.0",
            "172.31.255.255",
            "192.168.0.0",
            "192.168.255.255",
            "255.255.255.255",
        ] {
            assert!(v4_is_local(v4(s)), "{s}");
        }
        for s in [
            "1.0.0.0",
            "9.255.255.255",
            "11.0.0.0",
            "100.63.255.255",
            "100.128.0.0",
            "126.255.255.255",
            "128.0.0.0",
            "169.253.255.255",
            "169.255.0.0",
            "172.15.255.255",
            "172.32.0.0",
            "192.167.255.255",
            "192.169.0.0",
            "255.255.255.254",
        ] {
            assert!(!v4_is_local(v4(s)), "{s}");
        }
        assert!(v4_is_loopback(v4("127.0.0.1")) && !v4_is_loopback(v4("128.0.0.1")));
    }

    #[test]
    fn v6_ranges() {
        for s in [
            "::1",
            "::",
            "fe80::",
            "febf:ffff::",
            "fc00::",
            "fdff::1",
            "fec0::1",
            "::ffff:127.0.0.1",
            "::ffff:10.1.2.3",
            "::ffff:0.0.0.0",
            "::127.0.0.1",
            "64:ff9b::192.168.0.1",
        ] {
            assert!(v6_is_local(v6(s)), "{s}");
        }
        for s in [
            "2001:db8::1",
            "fe7f::1",
            "fbff::1",
            "ff02::1",
            "::ffff:8.8.8.8",
            "64:ff9b::8.8.8.8",
        ] {
            assert!(!v6_is_local(v6(s)), "{s}");
        }
        assert!(v6_is_loopback(v6("::1")));
        assert!(v6_is_loopback(v6("::ffff:127.1.2.3")));
        assert!(!v6_is_loopback(v6("::127.0.0.1")));
        assert!(!v6_is_loopback(v6("::")));
    }

    #[test]
    fn local_network_names() {
        let rows: &[(&str, Option<&str>)] = &[
            ("intranet", Some("")),
            ("localhost", Some("")),
            ("printer.local", Some("local")),
            ("PRINTER.LOCAL", Some("LOCAL")),
            ("a.b.corp.internal", Some("internal")),
            ("nas.home.arpa", Some("home.arpa")),
            ("home.arpa", Some("home.arpa")),
            ("router.lan", Some("lan")),
            ("app.localhost", Some("localhost")),
            ("local", Some("")),
            ("example.com", None),
            ("notlocal", Some("")),
            ("notlocal.com", None),
            ("local.com", None),
            ("xlocal", Some("")),
            ("x.xlocal", None),
            ("myhome.arpa", None),
            ("arpa.lan.com", None),
            (".local", None),
            ("", None),
        ];
        for (host, expected) in rows {
            assert_eq!(local_name_suffix(host), *expected, "{host:?}");
        }
    }

    #[test]
    fn localhost_names() {
        for h in ["localhost", "localhost.", "a.localhost", "a.b.localhost."] {
            assert!(is_localhost_name(h), "{h}");
        }
        for h in [
            "localhost.com",
            "mylocalhost",
            ".localhost",
            "localhost..",
            "localhostx",
        ] {
            assert!(!is_localhost_name(h), "{h}");
        }
    }
}
