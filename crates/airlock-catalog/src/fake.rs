//! A FAKE MCP Registry for tests: the `/v0.1` API (`/v0.1/servers` with
//! `cursor`, `limit`, `search`, `version=latest`; `/v0.1/servers/{name}/versions`
//! and `/versions/{version}`) over the items a test gives it, on loopback.
//! The real registry (Go and PostgreSQL) cannot run here. It can also
//! misbehave as a hostile registry would: a page that never ends, a cursor
//! that loops.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use http_body_util::Full;
use hyper::{Request, Response};
use serde_json::{json, Value};

/// How the fake misbehaves.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Trick {
    #[default]
    None,
    /// Every page says the same next cursor.
    LoopingCursor,
    /// A page of this many bytes of padding.
    HugePage(usize),
}

struct State {
    items: Vec<Value>,
    page_size: usize,
    trick: Trick,
    requests: usize,
}

/// The fake registry; it stops when dropped.
pub struct FakeRegistry {
    pub url: String,
    state: Arc<Mutex<State>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for FakeRegistry {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl FakeRegistry {
    /// Serve `items` (each `{"server": ..., "_meta": ...}`), `page_size` a page.
    pub async fn start(items: Vec<Value>, page_size: usize, trick: Trick) -> FakeRegistry {
        let state = Arc::new(Mutex::new(State {
            items,
            page_size: page_size.max(1),
            trick,
            requests: 0,
        }));
        let listener = tokio::net::TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0)))
            .await
            .expect("a loopback port");
        let url = format!("http://{}", listener.local_addr().expect("its address"));
        let shared = state.clone();
        let task = tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    continue;
                };
                let state = shared.clone();
                tokio::spawn(async move {
                    let service = hyper::service::service_fn(move |req| {
                        let state = state.clone();
                        async move { Ok::<_, Infallible>(answer(&state, &req)) }
                    });
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                        .await;
                });
            }
        });
        FakeRegistry { url, state, task }
    }

    /// Requests served so far.
    pub fn requests(&self) -> usize {
        self.state.lock().map(|s| s.requests).unwrap_or(0)
    }

    /// Replace what it serves.
    pub fn set_items(&self, items: Vec<Value>) {
        if let Ok(mut s) = self.state.lock() {
            s.items = items;
        }
    }
}

fn json_response(status: u16, v: &Value) -> Response<Full<Bytes>> {
    let mut r = Response::new(Full::new(Bytes::from(v.to_string())));
    *r.status_mut() = hyper::StatusCode::from_u16(status).unwrap_or(hyper::StatusCode::OK);
    r
}

fn answer(state: &Mutex<State>, req: &Request<hyper::body::Incoming>) -> Response<Full<Bytes>> {
    let Ok(mut s) = state.lock() else {
        return json_response(500, &json!({"error": "poisoned"}));
    };
    s.requests += 1;
    let path = req.uri().path().to_owned();
    let query: Vec<(String, String)> =
        url::form_urlencoded::parse(req.uri().query().unwrap_or("").as_bytes())
            .into_owned()
            .collect();
    let q = |k: &str| query.iter().find(|(a, _)| a == k).map(|(_, v)| v.clone());
    let name_of = |i: &Value| i["server"]["name"].as_str().unwrap_or_default().to_owned();
    let latest = |i: &Value| {
        i["_meta"]["io.modelcontextprotocol.registry/official"]["isLatest"]
            .as_bool()
            .unwrap_or(false)
    };
    if path == "/v0.1/servers" {
        if let Trick::HugePage(n) = s.trick {
            return json_response(200, &json!({"servers": [], "padding": "x".repeat(n)}));
        }
        let search = q("search").unwrap_or_default().to_lowercase();
        let only_latest = q("version").as_deref() == Some("latest");
        let limit = q("limit")
            .and_then(|l| l.parse::<usize>().ok())
            .unwrap_or(30)
            .min(s.page_size);
        let start = q("cursor")
            .and_then(|c| c.parse::<usize>().ok())
            .unwrap_or(0);
        let matching: Vec<&Value> = s
            .items
            .iter()
            .filter(|i| name_of(i).to_lowercase().contains(&search))
            .filter(|i| !only_latest || latest(i))
            .collect();
        let page: Vec<Value> = matching
            .iter()
            .skip(start)
            .take(limit)
            .map(|v| (*v).clone())
            .collect();
        let next = match s.trick {
            Trick::LoopingCursor => Some("0".to_owned()),
            _ => (start + limit < matching.len()).then(|| (start + limit).to_string()),
        };
        let mut metadata = json!({"count": page.len()});
        if let Some(n) = next {
            metadata["nextCursor"] = json!(n);
        }
        return json_response(200, &json!({"servers": page, "metadata": metadata}));
    }
    if let Some(rest) = path.strip_prefix("/v0.1/servers/") {
        let decoded = url::form_urlencoded::parse(rest.as_bytes())
            .map(|(k, v)| {
                if v.is_empty() {
                    k.into_owned()
                } else {
                    format!("{k}={v}")
                }
            })
            .collect::<String>();
        let (name, version) = match decoded.split_once("/versions") {
            Some((n, v)) => (n.to_owned(), v.trim_start_matches('/').to_owned()),
            None => (decoded.clone(), String::new()),
        };
        let versions: Vec<Value> = s
            .items
            .iter()
            .filter(|i| name_of(i) == name)
            .cloned()
            .collect();
        if versions.is_empty() {
            return json_response(404, &json!({"error": "Server not found"}));
        }
        if version.is_empty() {
            return json_response(
                200,
                &json!({"servers": versions, "metadata": {"count": versions.len()}}),
            );
        }
        let found = versions.iter().find(|i| {
            if version == "latest" {
                latest(i)
            } else {
                i["server"]["version"].as_str() == Some(version.as_str())
            }
        });
        return match found {
            Some(v) => json_response(200, v),
            None => json_response(404, &json!({"error": "Server not found"})),
        };
    }
    json_response(404, &json!({"error": "not found"}))
}
