// Generated from airlock_core::servers::{SECRET_WORDS, SECRET_SUFFIXES} by `cargo test -p airlock-desktop`. Do not edit.

export const SECRET_WORDS: readonly string[] = ["TOKEN", "SECRET", "KEY", "APIKEY", "PASSWORD", "PASSWD", "PASS", "PAT", "CREDENTIAL", "CREDENTIALS", "AUTH", "AUTHORIZATION", "COOKIE", "PRIVATE", "SESSION", "BEARER"];

export const SECRET_SUFFIXES: readonly string[] = ["TOKEN", "APIKEY", "SECRET"];
