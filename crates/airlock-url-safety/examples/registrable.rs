//! Reads host names, one per line, and prints each one's registrable
//! domain (eTLD+1, by the same rules as `Inspection::registrable_domain`),
//! skipping names that cannot exist and names that are a public suffix.
//! Used by `scripts/well-known-domains.py` to build the well-known list.

use std::io::{BufRead, Write};

fn main() {
    let stdin = std::io::stdin();
    let mut out = std::io::BufWriter::new(std::io::stdout());
    for line in stdin.lock().lines().map_while(Result::ok) {
        let host = line.trim();
        if host.is_empty() || host.starts_with('#') {
            continue;
        }
        if let Some(d) = airlock_url_safety::registrable_domain_of(host) {
            let _ = writeln!(out, "{d}");
        }
    }
}
