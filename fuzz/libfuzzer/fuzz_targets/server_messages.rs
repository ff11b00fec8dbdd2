//! libFuzzer driver for `airlock_fuzz::server_messages` (see ../../README.md).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| airlock_fuzz::server_messages::run(data));
