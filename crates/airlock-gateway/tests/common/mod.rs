//! The in-process harness (airlock_gateway::test_support), for each test binary.

pub use airlock_gateway::test_support::*;
