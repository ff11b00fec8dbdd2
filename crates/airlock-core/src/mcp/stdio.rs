//! A stdio server's transport: the child process, its stdin, and its
//! stdout read through [`super::oversize::CappedLines`], so that no message
//! larger than the server's limit is ever held whole. Closing follows the
//! MCP stdio shutdown sequence (stdin closed, a grace period, SIGTERM where
//! the platform has it, then kill); dropping it kills the child.

use std::future::Future;
use std::time::Duration;

use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::transport::Transport;
use rmcp::RoleClient;
use tokio::process::{Child, ChildStdin, ChildStdout};

use super::oversize::CappedLines;

/// How long a server may take to exit after its stdin closed, and again
/// after SIGTERM.
pub const EXIT_GRACE: Duration = Duration::from_secs(3);

/// See the module docs.
pub struct StdioTransport {
    transport: AsyncRwTransport<RoleClient, CappedLines<ChildStdout>, ChildStdin>,
    child: Option<Child>,
}

impl StdioTransport {
    /// `child` was spawned with piped stdin and stdout; `limit`: the largest
    /// message read from it; `on_drop`: told of each message dropped.
    pub fn new(
        mut child: Child,
        limit: usize,
        server: &str,
        on_drop: Box<dyn Fn(String) + Send>,
    ) -> std::io::Result<Self> {
        let stdin = child
            .stdin
            .take()
            .ok_or_else(|| std::io::Error::other("the server's stdin was not piped"))?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| std::io::Error::other("the server's stdout was not piped"))?;
        let capped = CappedLines::new(stdout, limit, server, on_drop);
        // rmcp's own bound never trips first: the stand-in error lines are short.
        let transport = AsyncRwTransport::new_client(capped, stdin)
            .with_max_line_length(limit.saturating_add(4096));
        Ok(Self {
            transport,
            child: Some(child),
        })
    }
}

async fn exited(child: &mut Child) -> bool {
    matches!(
        tokio::time::timeout(EXIT_GRACE, child.wait()).await,
        Ok(Ok(_))
    )
}

impl Transport<RoleClient> for StdioTransport {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.transport.send(item)
    }

    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<RoleClient>>> + Send {
        self.transport.receive()
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        {
            self.transport.close().await?;
            let Some(mut child) = self.child.take() else {
                return Ok(());
            };
            if exited(&mut child).await {
                return Ok(());
            }
            // SIGTERM where there is one (super::server_process).
            if super::server_process::ask_to_stop(&child) && exited(&mut child).await {
                return Ok(());
            }
            child.kill().await
        }
    }
}
