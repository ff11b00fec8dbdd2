//! Prints how long the well-known list takes to load and how long one host
//! takes to check against it (median of many). Run in release:
//!
//! ```sh
//! cargo run --release -p airlock-url-safety --example well_known_timing
//! ```

use airlock_url_safety::{embedded_well_known, well_known_domains};
use std::hint::black_box;
use std::time::Instant;

fn main() {
    let start = Instant::now();
    // The first check loads the table.
    black_box(embedded_well_known("warm-up.example.com"));
    let load = start.elapsed();
    let hosts = [
        "accounts.google.com.secure-login.verify-account.example.co.uk",
        "accounts-google-com.example.app",
        "login.microsoftonline.com",
        "acme.us.auth0.com",
        "a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.example.com",
        "xn--pple-43d.com",
    ];
    println!(
        "well-known list: {} domains, loaded in {:.1} ms",
        well_known_domains().count(),
        load.as_secs_f64() * 1e3
    );
    for host in hosts {
        let mut times: Vec<f64> = (0..2_001)
            .map(|_| {
                let t = Instant::now();
                black_box(embedded_well_known(black_box(host)));
                t.elapsed().as_secs_f64() * 1e6
            })
            .collect();
        times.sort_by(f64::total_cmp);
        println!(
            "{host}: median {:.2} µs, p99 {:.2} µs -> {:?}",
            times[times.len() / 2],
            times[times.len() * 99 / 100],
            embedded_well_known(host)
        );
    }
}
