//! The terminal consent prompt. The default answer is decline: a bare Enter
//! never opens anything. What it says is the core's [`ConsentView`] (server
//! text neutralised, every sentence from the core's table), laid out as
//! lines by `output::consent_lines`. Every question goes through
//! [`terminal::Prompt`]: one question on screen at a time, one stdin reader
//! for the process.

mod terminal;

use std::io::{BufRead, IsTerminal, Write};

use airlock_core::elicitation::form::{Choice, FieldKind, FormField};
use airlock_core::elicitation::view::{sentences as s, ConsentWarning, WarningCode};
use airlock_core::elicitation::{
    BoxFuture, Consent, ConsentDecision, ConsentView, ContinueDecision, FormAnswer,
    FormConsentRequest, HostConsentRequest, HostDecision, UrlConsentRequest,
};
use serde_json::{Map, Value};

use crate::output::{consent_lines, plain, view_line};
use terminal::Prompt;

pub struct TerminalConsent;

/// Get the terminal ready for a question before a server asks one.
pub fn prepare_terminal() {
    terminal::prepare();
}

impl Consent for TerminalConsent {
    fn ask_url<'a>(&'a self, request: &'a UrlConsentRequest) -> BoxFuture<'a, ConsentDecision> {
        Box::pin(async move {
            let view = ConsentView::url(request);
            let mut prompt = Prompt::open().await;
            prompt.say("");
            // The domain is the last line before the question: a long URL
            // that wraps never pushes it off screen.
            for line in consent_lines(&view) {
                prompt.say(&line);
            }
            let answer = prompt
                .ask(&format!("{} {}: ", view.question, view.keys))
                .await;
            match answer.as_deref() {
                Some("y") | Some("yes") => ConsentDecision::Accept,
                Some("c") | Some("cancel") | None => ConsentDecision::Cancel,
                _ => ConsentDecision::Decline,
            }
        })
    }

    fn continue_or_cancel<'a>(
        &'a self,
        request: &'a UrlConsentRequest,
    ) -> BoxFuture<'a, ContinueDecision> {
        Box::pin(async move {
            let view = ConsentView::late(request);
            let mut prompt = Prompt::open().await;
            prompt.say(&view.note_text());
            let answer = prompt
                .ask(&format!("{} {}: ", view.question, view.keys))
                .await;
            match answer.as_deref() {
                Some("c") | Some("cancel") | None => ContinueDecision::Cancel,
                _ => ContinueDecision::Continue,
            }
        })
    }

    fn ask_form<'a>(&'a self, request: &'a FormConsentRequest) -> BoxFuture<'a, FormAnswer> {
        Box::pin(terminal_form(request))
    }

    /// A confined server's connection to a host its room does not list.
    /// The default answer is Deny: a bare Enter never lets it through.
    fn ask_host<'a>(&'a self, request: &'a HostConsentRequest) -> BoxFuture<'a, HostDecision> {
        Box::pin(async move {
            let view = ConsentView::host(request);
            let mut prompt = Prompt::open().await;
            prompt.say("");
            for line in consent_lines(&view) {
                prompt.say(&line);
            }
            prompt.say(&view.note_text());
            let answer = prompt
                .ask(&format!("{} {}: ", view.question, view.keys))
                .await;
            match answer.as_deref() {
                Some("o") | Some("once") => HostDecision::AllowOnce,
                Some("a") | Some("always") => HostDecision::Always,
                _ => HostDecision::Deny,
            }
        })
    }
}

/// Ask for a VS Code input value; password inputs are read without echo on a terminal.
/// Synchronous and outside the prompt lock: only `servers import` asks it,
/// before Airlock connects to anything (so no consent question, and no
/// stdin reader thread, exists yet in that process).
pub fn prompt_input(description: &str, password: bool) -> Result<String, String> {
    let prompt = format!("{}: ", plain(description));
    if password && std::io::stdin().is_terminal() {
        return rpassword::prompt_password(prompt).map_err(|e| e.to_string());
    }
    eprint!("{prompt}");
    let mut line = String::new();
    match std::io::stdin().lock().read_line(&mut line) {
        Ok(0) => Err("no input (end of file)".into()),
        Ok(_) => Ok(line.trim_end_matches(['\r', '\n']).to_owned()),
        Err(e) => Err(e.to_string()),
    }
}

// ----- form-mode elicitation -----

fn say_err(text: &str) {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "{text}");
}

/// A value as plain text for the terminal (strings without JSON quotes).
pub fn show_value(field: &FormField, v: &Value) -> String {
    let label_of = |s: &str| {
        field
            .options()
            .iter()
            .find(|o| o.value == s)
            .map(|o| match &o.title {
                Some(t) => format!("{} [{}]", plain(t), plain(&o.value)),
                None => plain(&o.value),
            })
            .unwrap_or_else(|| plain(s))
    };
    match v {
        Value::String(s) => label_of(s),
        Value::Bool(true) => "yes".into(),
        Value::Bool(false) => "no".into(),
        Value::Array(items) => items
            .iter()
            .map(|i| {
                i.as_str()
                    .map(label_of)
                    .unwrap_or_else(|| plain(&i.to_string()))
            })
            .collect::<Vec<_>>()
            .join(", "),
        other => plain(&other.to_string()),
    }
}

fn describe_field(index: usize, total: usize, f: &FormField, secret_warning: &str) {
    let name = plain(&f.name);
    let label = f.label();
    let head = if label == name {
        format!("[{index}/{total}] {label}")
    } else {
        format!("[{index}/{total}] {label} ({name})")
    };
    say_err("");
    say_err(&format!(
        "{head}{}",
        if f.required { "  *required" } else { "" }
    ));
    if let Some(d) = &f.description {
        say_err(&format!("      {d}"));
    }
    say_err(&format!("      {}", f.constraints().join("; ")));
    for (i, o) in f.options().iter().enumerate() {
        match &o.title {
            Some(t) => say_err(&format!("        {}) {} [{}]", i + 1, t, plain(&o.value))),
            None => say_err(&format!("        {}) {}", i + 1, plain(&o.value))),
        }
    }
    if let Some(d) = &f.default {
        say_err(&format!(
            "      default: {} (press Enter to take it)",
            show_value(f, d)
        ));
    }
    if f.looks_secret() {
        say_err(&format!("      {}:  {secret_warning}", s::LABEL_WARNING));
    }
}

fn input_hint(f: &FormField) -> &'static str {
    match &f.kind {
        FieldKind::Boolean => "y/n",
        FieldKind::SingleSelect { .. } => "number or value",
        FieldKind::MultiSelect { .. } => "numbers or values, comma-separated",
        FieldKind::Number { integer: true, .. } => "whole number",
        FieldKind::Number { .. } => "number",
        FieldKind::String { .. } => "text",
    }
}

fn pick(options: &[Choice], typed: &str) -> Result<String, String> {
    let t = typed.trim();
    if let Ok(n) = t.parse::<usize>() {
        if (1..=options.len()).contains(&n) {
            return Ok(options[n - 1].value.clone());
        }
    }
    if let Some(o) = options.iter().find(|o| o.value == t) {
        return Ok(o.value.clone());
    }
    let lower = t.to_lowercase();
    if let Some(o) = options.iter().find(|o| {
        o.title
            .as_deref()
            .is_some_and(|x| x.to_lowercase() == lower)
    }) {
        return Ok(o.value.clone());
    }
    Err(format!(
        "{:?} is not one of the options: type its number (1 to {}) or its value",
        plain(t),
        options.len()
    ))
}

/// Turn what was typed into a JSON value for `f`. `Ok(None)` leaves the
/// field out. Never guesses: text that is not the field's type is an error.
pub fn parse_typed(f: &FormField, typed: &str) -> Result<Option<Value>, String> {
    let trimmed = typed.trim();
    if typed.is_empty() {
        return match (&f.default, f.required) {
            (Some(d), _) => Ok(Some(d.clone())),
            (None, false) => Ok(None),
            (None, true) => Err("is required: type a value".into()),
        };
    }
    if trimmed == "-" && !f.required {
        return Ok(None);
    }
    let value = match &f.kind {
        FieldKind::String { .. } => Value::String(typed.to_owned()),
        FieldKind::Number { integer, .. } => {
            if let Ok(i) = trimmed.parse::<i64>() {
                Value::from(i)
            } else if *integer {
                return Err(if trimmed.parse::<f64>().is_ok() {
                    "must be a whole number (no decimals)".into()
                } else {
                    "must be a whole number, like 42".into()
                });
            } else {
                match trimmed.parse::<f64>() {
                    Ok(x) if x.is_finite() => serde_json::Number::from_f64(x)
                        .map(Value::Number)
                        .ok_or("must be a number, like 3.5")?,
                    _ => return Err("must be a number, like 3.5".into()),
                }
            }
        }
        FieldKind::Boolean => match trimmed.to_lowercase().as_str() {
            "y" | "yes" | "true" => Value::Bool(true),
            "n" | "no" | "false" => Value::Bool(false),
            _ => return Err("must be y (yes) or n (no)".into()),
        },
        FieldKind::SingleSelect { options } => Value::String(pick(options, trimmed)?),
        FieldKind::MultiSelect { options, .. } => Value::Array(
            trimmed
                .split(',')
                .map(str::trim)
                .filter(|p| !p.is_empty())
                .map(|p| pick(options, p).map(Value::String))
                .collect::<Result<_, _>>()?,
        ),
    };
    f.check(&value)?;
    Ok(Some(value))
}

/// The terminal form: every field with its title, description, constraints
/// and default; invalid input is asked again with the reason; then a review
/// and Accept / Decline / Cancel (a bare Enter declines, end of input cancels).
async fn terminal_form(request: &FormConsentRequest) -> FormAnswer {
    // The whole form is one turn at the terminal: nothing else is asked
    // between its fields.
    let mut prompt = Prompt::open().await;
    let schema = &request.schema;
    let view = ConsentView::form(request);
    say_err("");
    say_err(&format!("── {} ──", view.heading_text()));
    for line in &view.lines {
        say_err(&view_line(line));
    }
    let secret_warning = view
        .warnings
        .iter()
        .find(|w| w.code == WarningCode::Consent(ConsentWarning::SecretField))
        .map(|w| w.sentence.as_str())
        .unwrap_or(s::SECRET_FIELD);
    say_err(&view.note_text());
    say_err(s::KEYS_FORM_FIELDS);
    let total = schema.fields.len();
    let mut answer = Map::new();
    for (i, f) in schema.fields.iter().enumerate() {
        describe_field(i + 1, total, f, secret_warning);
        loop {
            let question = format!("  {} ({})> ", f.label(), input_hint(f));
            let Some(typed) = prompt.ask_raw(&question).await else {
                say_err("");
                say_err(s::FORM_END_OF_INPUT);
                return FormAnswer::Cancel;
            };
            match parse_typed(f, &typed) {
                Ok(Some(v)) => {
                    answer.insert(f.name.clone(), v);
                    break;
                }
                Ok(None) => break,
                Err(msg) => say_err(&format!("  ✗ {}: {msg}; try again.", f.label())),
            }
        }
    }
    let answer = match schema.validate(&answer) {
        Ok(a) => a,
        Err(errors) => {
            // Each field was checked as it was typed; this is a last guard.
            for e in errors {
                say_err(&format!("  ✗ {e}"));
            }
            say_err(s::FORM_DOES_NOT_FIT);
            return FormAnswer::Decline;
        }
    };
    say_err("");
    say_err(&format!("{} {}:", s::FORM_ABOUT_TO_SEND, view.server));
    if answer.is_empty() {
        say_err(&format!("  {}", s::FORM_NO_VALUES));
    }
    for f in &schema.fields {
        if let Some(v) = answer.get(&f.name) {
            say_err(&format!("  {}: {}", f.label(), show_value(f, v)));
        }
    }
    let answer_given = prompt
        .ask(&format!("{} {}: ", view.question, view.keys))
        .await;
    match answer_given.as_deref() {
        Some("a") | Some("accept") | Some("y") | Some("yes") => FormAnswer::Accept(answer),
        Some("c") | Some("cancel") | None => FormAnswer::Cancel,
        _ => FormAnswer::Decline,
    }
}

/// In `--json` mode, print each form request and the answer given to it as
/// JSON lines on stdout, around any other consent port.
pub struct JsonFormEcho(pub std::sync::Arc<dyn Consent>);

impl Consent for JsonFormEcho {
    fn ask_url<'a>(&'a self, request: &'a UrlConsentRequest) -> BoxFuture<'a, ConsentDecision> {
        self.0.ask_url(request)
    }

    fn ask_host<'a>(&'a self, request: &'a HostConsentRequest) -> BoxFuture<'a, HostDecision> {
        self.0.ask_host(request)
    }

    fn continue_or_cancel<'a>(
        &'a self,
        request: &'a UrlConsentRequest,
    ) -> BoxFuture<'a, ContinueDecision> {
        self.0.continue_or_cancel(request)
    }

    fn ask_form<'a>(&'a self, request: &'a FormConsentRequest) -> BoxFuture<'a, FormAnswer> {
        Box::pin(async move {
            crate::output::print_json(
                &serde_json::json!({"event": "form_request", "request": request}),
            );
            let answer = self.0.ask_form(request).await;
            crate::output::print_json(&serde_json::json!({
                "event": "form_answer",
                "record_id": request.record_id,
                "answer": answer,
            }));
            answer
        })
    }
}
