//! libFuzzer driver for `airlock_fuzz::config_import` (see ../../README.md).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| airlock_fuzz::config_import::run(data));
