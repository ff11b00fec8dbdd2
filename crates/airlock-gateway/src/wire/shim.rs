//! `airlock gateway --stdio`: the line an app puts in its config. It owns
//! nothing: it attaches to the running host over the socket (starting
//! `airlock daemon` when nothing listens), says its hello, and then copies
//! messages between its stdin/stdout and the socket (crate::wire::relay: across a
//! host change it attaches again and replays the app's handshake). Attaching
//! is crate::wire::attach's.

use std::time::{Duration, Instant};

use crate::wire::attach::{attach, greet};
pub use crate::wire::attach::{ShimError, ShimOptions};
use crate::wire::hello;

/// Attach, then copy bytes until either side closes.
pub fn run(options: ShimOptions) -> Result<(), ShimError> {
    if let Some(c) = &options.app {
        hello::check_app_name(c).map_err(ShimError::Usage)?;
    }
    // A host handing over answers "moving": the next one comes within
    // moments.
    let deadline = Instant::now() + crate::wire::handover::TAKE_OVER_WITHIN;
    let reader = loop {
        match greet(attach(&options)?, &options) {
            Ok((reader, _)) => break reader,
            Err(ShimError::Moving) if Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(100))
            }
            Err(e) => return Err(e),
        }
    };
    crate::wire::relay::run(options, reader)
}
