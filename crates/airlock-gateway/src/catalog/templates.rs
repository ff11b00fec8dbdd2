//! Resource templates of every server, aggregated: a template's URI
//! pattern is kept as the server listed it (like resource URIs), the first
//! server to list one owns it (a second is logged), and a URI read through
//! the gateway that no listed resource has goes to the one server whose
//! template it fits (the longest literal start before the first `{`; two
//! servers fitting equally well: nobody is guessed).

use rmcp::model::{Reference, ResourceTemplate};

use crate::catalog::{log, View};

/// Each template's pattern and its server, in list order.
#[derive(Debug, Default)]
pub struct Owners(Vec<(String, String)>);

impl Owners {
    /// The templates to serve and their owners, from each server's list.
    pub(crate) fn build<'a>(
        lists: impl Iterator<Item = (&'a String, &'a [ResourceTemplate])>,
    ) -> (Vec<ResourceTemplate>, Self) {
        let mut served = Vec::new();
        let mut owners = Self::default();
        for (server, templates) in lists {
            for t in templates {
                if let Some(owner) = owners.of_pattern(&t.uri_template) {
                    log(&format!(
                        "resource template {:?} of {server} is not served: {owner} lists the same pattern",
                        t.uri_template
                    ));
                    continue;
                }
                owners.0.push((t.uri_template.clone(), server.clone()));
                served.push(t.clone());
            }
        }
        (served, owners)
    }

    /// The server that listed exactly this pattern.
    pub fn of_pattern(&self, pattern: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(p, _)| p == pattern)
            .map(|(_, s)| s.as_str())
    }

    /// The server whose template `uri` fits best (see the module doc).
    pub fn of_uri(&self, uri: &str) -> Option<&str> {
        let mut best: Option<(usize, &str)> = None;
        let mut tie = false;
        for (pattern, server) in &self.0 {
            let literal = pattern.split('{').next().unwrap_or_default();
            if literal.is_empty() || !uri.starts_with(literal) || uri.len() == literal.len() {
                continue;
            }
            match best {
                Some((len, s)) if literal.len() == len && s != server => tie = true,
                Some((len, _)) if literal.len() <= len => {}
                _ => {
                    best = Some((literal.len(), server));
                    tie = false;
                }
            }
        }
        if tie {
            return None;
        }
        best.map(|(_, s)| s)
    }
}

/// The server a `completion/complete` reference belongs to: an aggregated
/// prompt (renamed to the server's own name for it) or a template pattern
/// (or a listed resource's URI).
pub(crate) fn completion_server(view: &View, reference: &mut Reference) -> Option<String> {
    match reference {
        Reference::Prompt(p) => view.prompt(&p.name).map(|r| {
            p.name = r.name.clone();
            r.server.clone()
        }),
        Reference::Resource(r) => view
            .template_owners
            .of_pattern(&r.uri)
            .or_else(|| view.resource(&r.uri).map(|route| route.server.as_str()))
            .map(str::to_owned),
        _ => None,
    }
}

#[cfg(test)]
#[allow(clippy::literal_string_with_formatting_args)] // URI templates
mod tests {
    use super::*;

    fn template(pattern: &str) -> ResourceTemplate {
        serde_json::from_value(serde_json::json!({"uriTemplate": pattern, "name": pattern}))
            .unwrap()
    }

    #[test]
    fn owners_and_the_best_fit() {
        let a = vec![template("demo://text/{id}"), template("file:///{path}")];
        let b = vec![
            template("demo://text/{id}"),
            template("demo://text/special/{id}"),
        ];
        let (a_name, b_name) = ("a".to_owned(), "b".to_owned());
        let (served, owners) =
            Owners::build([(&a_name, a.as_slice()), (&b_name, b.as_slice())].into_iter());
        assert_eq!(served.len(), 3, "a pattern listed twice is served once");
        assert_eq!(owners.of_pattern("demo://text/{id}"), Some("a"));
        assert_eq!(owners.of_uri("demo://text/7"), Some("a"));
        assert_eq!(owners.of_uri("demo://text/special/7"), Some("b"));
        assert_eq!(owners.of_uri("file:///etc/hosts"), Some("a"));
        assert_eq!(owners.of_uri("other://x"), None);
        assert_eq!(owners.of_uri("demo://text/"), None);
        // Two servers fitting equally well: nobody.
        let c = vec![template("x://{a}")];
        let d = vec![template("x://{b}")];
        let (c_name, d_name) = ("c".to_owned(), "d".to_owned());
        let (_, owners) =
            Owners::build([(&c_name, c.as_slice()), (&d_name, d.as_slice())].into_iter());
        assert_eq!(owners.of_uri("x://1"), None);
    }
}
