//! Server entries Airlock takes out of an app's config, kept without their
//! secrets: every env value, every header or field whose name carries a
//! secret, and every value that looks like one is cut out, filed in the
//! vault under a fresh reference, and put back from there on disconnect.
//! Backups get the same treatment ([`mask`]): the values become
//! placeholders naming their reference.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::vault::{new_reference, Secret, SecretDetector, SecretVault};

/// Keys whose string values are all secrets (an app's env for its server).
const ENV_KEYS: &[&str] = &["env", "envs", "environment"];

/// Values shorter than this are not masked in backups and diffs: masking
/// "1" would shred the text, and no credential is that short.
pub(crate) const MIN_MASKED_CHARS: usize = 4;

/// One secret cut out of a kept entry.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub(crate) struct KeptSecret {
    /// Where it was, as a JSON pointer into the entry (`/env/API_KEY`).
    pub(crate) pointer: String,
    /// The vault reference holding the value.
    pub(crate) reference: String,
}

impl KeptSecret {
    /// How a note names it: `env API_KEY`.
    pub(crate) fn label(&self) -> String {
        self.pointer
            .trim_start_matches('/')
            .split('/')
            .map(|p| p.replace("~1", "/").replace("~0", "~"))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// A server entry as a record keeps it: the secret values emptied.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub(crate) struct Kept {
    pub(crate) name: String,
    pub(crate) entry: Value,
    #[serde(default)]
    pub(crate) secrets: Vec<KeptSecret>,
}

/// A secret value on its way into the vault.
#[derive(Debug, Clone)]
pub(crate) struct Pending {
    pub(crate) reference: String,
    pub(crate) value: Secret,
}

fn escape_pointer(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// Visit every string leaf; `cut` gets the secret ones (in an env map, or
/// as `secret` judges by their key and value), with the pointer to them.
fn walk_with(
    value: &mut Value,
    pointer: &str,
    key: Option<&str>,
    in_env: bool,
    cut: &mut dyn FnMut(&str, &mut String),
    secret: &dyn Fn(Option<&str>, &str) -> bool,
) {
    match value {
        Value::String(s) if !s.is_empty() && (in_env || secret(key, s)) => cut(pointer, s),
        Value::Object(map) => {
            // The members of an object named env are env values.
            let env = in_env || key.is_some_and(|k| ENV_KEYS.contains(&k));
            for (k, v) in map.iter_mut() {
                let child = format!("{pointer}/{}", escape_pointer(k));
                walk_with(v, &child, Some(k), env, cut, secret);
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter_mut().enumerate() {
                walk_with(v, &format!("{pointer}/{i}"), key, in_env, cut, secret);
            }
        }
        _ => {}
    }
}

/// Cut the secrets out of `entry` (named `name`, from `app`'s config): env
/// values, and whatever the detector calls secret by its key or its look.
pub(crate) fn split(
    app: &str,
    name: &str,
    entry: &Value,
    detector: &dyn SecretDetector,
) -> (Kept, Vec<Pending>) {
    let mut out = entry.clone();
    let mut secrets = Vec::new();
    let mut pending = Vec::new();
    let looks = |key: Option<&str>, value: &str| {
        key.is_some_and(|k| detector.name_looks_secret(k)) || detector.value_looks_secret(value)
    };
    walk_with(
        &mut out,
        "",
        None,
        false,
        &mut |pointer, value| {
            let reference = new_reference(app);
            secrets.push(KeptSecret {
                pointer: pointer.to_owned(),
                reference: reference.clone(),
            });
            pending.push(Pending {
                reference,
                value: Secret(std::mem::take(value)),
            });
        },
        &looks,
    );
    (
        Kept {
            name: name.to_owned(),
            entry: out,
            secrets,
        },
        pending,
    )
}

/// An entry with its secrets back from the vault.
pub(crate) struct Joined {
    pub(crate) entry: Value,
    /// The label of each secret the vault could not give, and why (left
    /// out of the entry).
    pub(crate) missing: Vec<(String, String)>,
    /// The values put back (to mask in what is shown).
    pub(crate) values: Vec<Secret>,
}

/// The entry with its secrets back from the vault.
pub(crate) fn join(kept: &Kept, vault: &dyn SecretVault) -> Joined {
    let mut entry = kept.entry.clone();
    let mut missing = Vec::new();
    let mut values = Vec::new();
    for s in &kept.secrets {
        let value = match vault.fetch(&s.reference) {
            Ok(Some(v)) => Some(v),
            Ok(None) => {
                missing.push((s.label(), "it is not in the OS keychain".to_owned()));
                None
            }
            Err(e) => {
                missing.push((s.label(), e.to_string()));
                None
            }
        };
        match value {
            Some(v) => {
                if let Some(slot) = entry.pointer_mut(&s.pointer) {
                    *slot = Value::String(v.clone());
                }
                values.push(Secret(v));
            }
            None => drop_leaf(&mut entry, &s.pointer),
        }
    }
    Joined {
        entry,
        missing,
        values,
    }
}

/// Remove the leaf at `pointer`: an object member goes; an array item
/// stays as an empty string (removing it would shift the others).
fn drop_leaf(entry: &mut Value, pointer: &str) {
    let Some((parent, last)) = pointer.rsplit_once('/') else {
        return;
    };
    let last = last.replace("~1", "/").replace("~0", "~");
    match entry.pointer_mut(parent) {
        Some(Value::Object(map)) => {
            map.remove(&last);
        }
        Some(Value::Array(items)) => {
            if let Some(slot) = last.parse::<usize>().ok().and_then(|i| items.get_mut(i)) {
                *slot = Value::String(String::new());
            }
        }
        _ => {}
    }
}

/// How a value can be written in a config file: as is, inside a JSON (or
/// TOML, YAML double-quoted) string, inside a YAML single-quoted string.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Form {
    Raw,
    Escaped,
    SingleQuoted,
}

impl Form {
    fn write(self, value: &str) -> String {
        match self {
            Form::Raw => value.to_owned(),
            Form::Escaped => serde_json::to_string(value)
                .map(|s| s[1..s.len() - 1].to_owned())
                .unwrap_or_default(),
            Form::SingleQuoted => value.replace('\'', "''"),
        }
    }
}

/// A secret replaced in a backup: where it was (the placeholder) and how
/// it was written there.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub(crate) struct Mask {
    pub(crate) placeholder: String,
    pub(crate) reference: String,
    pub(crate) form: Form,
}

/// `text` with every written form of each secret replaced by a placeholder
/// naming its reference (longest values first, so one secret inside another
/// is masked whole).
pub(crate) fn mask(text: &str, secrets: &[Pending]) -> (String, Vec<Mask>) {
    let mut out = text.to_owned();
    let mut masks = Vec::new();
    let mut ordered: Vec<&Pending> = secrets
        .iter()
        .filter(|p| p.value.0.chars().count() >= MIN_MASKED_CHARS)
        .collect();
    ordered.sort_by_key(|p| std::cmp::Reverse(p.value.0.len()));
    for p in ordered {
        for form in [Form::Escaped, Form::SingleQuoted, Form::Raw] {
            let written = form.write(&p.value.0);
            if written.is_empty() || !out.contains(&written) {
                continue;
            }
            let placeholder = format!("«airlock-secret:{}:{form:?}»", p.reference);
            out = out.replace(&written, &placeholder);
            masks.push(Mask {
                placeholder,
                reference: p.reference.clone(),
                form,
            });
        }
    }
    (out, masks)
}

/// The masked text with its secrets back (and those secrets, to mask in
/// what is shown), or None when one cannot be had.
pub(crate) fn unmask(
    text: &str,
    masks: &[Mask],
    vault: &dyn SecretVault,
) -> Option<(String, Vec<Secret>)> {
    let mut out = text.to_owned();
    let mut values = Vec::new();
    for m in masks {
        let value = vault.fetch(&m.reference).ok()??;
        out = out.replace(&m.placeholder, &m.form.write(&value));
        values.push(Secret(value));
    }
    Some((out, values))
}

/// `text` (a diff) with the secrets' written forms shown as `[secret]`.
pub(crate) fn redact(text: &str, values: &[Secret]) -> String {
    let mut out = text.to_owned();
    let mut forms: Vec<String> = values
        .iter()
        .filter(|v| v.0.chars().count() >= MIN_MASKED_CHARS)
        .flat_map(|v| [Form::Escaped, Form::SingleQuoted, Form::Raw].map(|f| f.write(&v.0)))
        .filter(|f| !f.is_empty())
        .collect();
    forms.sort_by_key(|f| std::cmp::Reverse(f.len()));
    for f in forms {
        out = out.replace(&f, "[secret]");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vault::fakes::{FixedRulesDetectorFake, InMemoryVaultFake};
    use serde_json::json;

    #[test]
    fn env_values_and_secret_looking_fields_are_cut_out_and_come_back() {
        let entry = json!({
            "command": "npx",
            "args": ["-y", "srv", "--key=ghp_abcdefghijklmnopqrstuvwxyz0123456789"],
            "env": {"PLAIN": "not-a-secret-by-look", "N": ""},
            "headers": {"Authorization": "Bearer abc", "Accept": "json"},
            "apiKey": "k-123456"
        });
        let (kept, pending) = split("cursor", "srv", &entry, &FixedRulesDetectorFake);
        let text = serde_json::to_string(&kept).expect("json");
        for secret in ["ghp_", "not-a-secret-by-look", "Bearer abc", "k-123456"] {
            assert!(!text.contains(secret), "{secret} in {text}");
        }
        assert!(text.contains("\"json\""), "a plain header stays: {text}");
        assert_eq!(pending.len(), 4, "{:?}", kept.secrets);
        let vault = InMemoryVaultFake::default();
        for p in &pending {
            vault.store(&p.reference, &p.value.0).expect("store");
        }
        let back = join(&kept, &vault);
        assert_eq!(back.entry, entry);
        assert!(back.missing.is_empty());
        assert_eq!(back.values.len(), 4);
        vault.lose("not-a-secret-by-look");
        let back = join(&kept, &vault);
        assert_eq!(back.missing.len(), 1);
        assert_eq!(back.missing[0].0, "env PLAIN");
        assert!(back.entry["env"].get("PLAIN").is_none());
        assert_eq!(back.entry["env"]["N"], "");
    }

    #[test]
    fn masking_a_backup_hides_each_written_form_and_unmasking_gives_it_back() {
        let vault = InMemoryVaultFake::default();
        let tricky = "pa\"ss'word\\x";
        let pending = vec![
            Pending {
                reference: "r1".into(),
                value: Secret(tricky.into()),
            },
            Pending {
                reference: "r2".into(),
                value: Secret("1".into()),
            },
        ];
        for p in &pending {
            vault.store(&p.reference, &p.value.0).expect("store");
        }
        let text = format!(
            "{{\"a\": {}, \"b\": \"1\"}}\nraw: {tricky}\ny: '{}'\n",
            serde_json::to_string(tricky).expect("json"),
            tricky.replace('\'', "''")
        );
        let (masked, masks) = mask(&text, &pending);
        assert!(!masked.contains("ss'word") && !masked.contains("ss''word"));
        assert!(!masked.contains("ss\\\"word"), "{masked}");
        assert!(masked.contains("\"b\": \"1\""), "short values stay");
        assert_eq!(
            unmask(&masked, &masks, &vault).map(|(t, _)| t).as_deref(),
            Some(&*text)
        );
        vault.lose(tricky);
        assert!(unmask(&masked, &masks, &vault).is_none());
        assert_eq!(
            redact("x pa\"ss'word\\x y", &[Secret(tricky.into())]),
            "x [secret] y"
        );
    }
}
