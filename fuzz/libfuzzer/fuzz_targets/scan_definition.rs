//! libFuzzer driver for `airlock_fuzz::scan_definition` (see ../../README.md).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| airlock_fuzz::scan_definition::run(data));
