//! libFuzzer driver for `airlock_fuzz::url_inspect` (see ../../README.md).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| airlock_fuzz::url_inspect::run(data));
