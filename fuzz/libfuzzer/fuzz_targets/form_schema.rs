//! libFuzzer driver for `airlock_fuzz::form_schema` (see ../../README.md).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| airlock_fuzz::form_schema::run(data));
