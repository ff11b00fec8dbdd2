//! The desktop API, generated from its one declaration (`api_declaration.rs`):
//! a Tauri command per declared command (so each keeps its own `allow-*`
//! permission) that calls the function of the same name in `commands.rs`,
//! the invoke handler, the typed events, and the TypeScript map of commands
//! and events for the UI. `build.rs` reads the same declaration for the app
//! manifest, the capability and the isolation hook.

use std::collections::BTreeMap;
use std::marker::PhantomData;

use airlock_core::events::CoreEvent;
use airlock_core::servers::{ImportPlan, ServerDef, ServerInput};
use airlock_core::store::{
    AuditPage, AuditQuery, ElicitationPage, ElicitationQuery, ElicitationRecord, HistoryPage,
    HistoryQuery, LogLine,
};
use airlock_core::url_safety::Inspection;
use airlock_core::{CallOutcome, ConnectionReport};
use serde::Serialize;
use serde_json::Value as JsonValue;
#[cfg(test)]
use std::{collections::BTreeSet, path::PathBuf};
use tauri::{AppHandle, State};
#[cfg(test)]
use ts_rs::{Config, Dependency, ExportError, TypeVisitor, TS};

use crate::app_config::{AppChangeDone, AppChangeView};
use crate::apps_page::AppView;
use crate::catalog_page::{StagedUpdateView, StagedView};
use crate::commands::{AppInfo, Capabilities, ExportDone, PolicyException, ServerView};
use crate::ctx::{ApiResult, AppState, Ctx};
use crate::inbox::PendingView;
use crate::pin_review::{PinCount, PinReview};
use crate::settings::Settings;
use airlock_core::activity::{ActivityOverview, ActivityQuery};
use airlock_core::apps::AppProfile;
use airlock_core::audit_export::ExportFormat;
use airlock_core::catalog::{CatalogItem, CatalogRefresh, CatalogSize};
use airlock_core::install::InstallRequest;
use airlock_core::owners::UriConflict;
use airlock_core::pins::PinChange;
use airlock_core::rooms::{RoomChange, RoomReport};
use airlock_core::update::UpdateInfo;

/// A declared event: its name, and in its type the payload it carries.
pub struct Event<T> {
    pub name: &'static str,
    payload: PhantomData<fn(&T)>,
}

impl<T> Event<T> {
    const fn new(name: &'static str) -> Self {
        Event {
            name,
            payload: PhantomData,
        }
    }
}

// Not derived: a derive would ask the payload type to be Clone/Copy too.
impl<T> Clone for Event<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Event<T> {}

/// Emit only declared events, each with its declared payload type. Import
/// this instead of `tauri::Emitter`, so `app.emit(CORE_EVENT, &event)`
/// does not compile with an undeclared name or a wrong payload.
pub trait EmitDeclared {
    fn emit<T: Serialize + Clone>(&self, event: Event<T>, payload: &T) -> tauri::Result<()>;
}

impl EmitDeclared for AppHandle {
    fn emit<T: Serialize + Clone>(&self, event: Event<T>, payload: &T) -> tauri::Result<()> {
        tauri::Emitter::emit(self, event.name, payload)
    }
}

/// The app side of the declaration: see `api_declaration.rs` for its shape.
/// (`build.rs` defines a macro of the same name that keeps only the names.)
macro_rules! desktop_api {
    (
        commands {
            $(
                $(#[doc = $doc:literal])*
                $mode:ident fn $name:ident ( $($arg:ident : $ty:ty),* $(,)? ) -> $ret:ty ;
            )*
        }
        core_plugins {
            $( $plugin:ident : [ $($call:ident),* $(,)? ] ),* $(,)?
        }
        events {
            $(
                $(#[doc = $edoc:literal])*
                $event:ident = $event_name:literal => $payload:ty ;
            )*
        }
    ) => {
        $( desktop_api!(@command $mode [$($doc)*] $name ($($arg : $ty),*) -> $ret); )*

        /// Every command's name, in declaration order.
        #[cfg(test)]
        pub const COMMANDS: &[&str] = &[$(stringify!($name)),*];

        /// The core plugin calls the UI may make: (plugin, commands).
        #[cfg(test)]
        pub const CORE_PLUGIN_CALLS: &[(&str, &[&str])] =
            &[$( (stringify!($plugin), &[$(stringify!($call)),*]) ),*];

        /// The invoke handler: exactly the declared commands.
        pub fn invoke_handler() -> impl Fn(tauri::ipc::Invoke) -> bool + Send + Sync + 'static {
            tauri::generate_handler![$($name),*]
        }

        $(
            $(#[doc = $edoc])*
            pub const $event: Event<$payload> = Event::new($event_name);
        )*

        /// The TypeScript map of commands and events (`desktopApi.ts`), and
        /// every named type it uses, to export next to it.
        #[cfg(test)]
        pub fn typescript(cfg: &Config) -> TsModule {
            let mut ts = TsModule::default();
            $(
                ts.command(
                    stringify!($name),
                    &[$($doc),*],
                    vec![$( (stringify!($arg), TsType::of::<$ty>(cfg)) ),*],
                    TsType::of::<$ret>(cfg),
                );
            )*
            $(
                ts.event(stringify!($event), $event_name, &[$($edoc),*], TsType::of::<$payload>(cfg));
            )*
            ts
        }
    };

    (@command sync [$($doc:literal)*] $name:ident ($($arg:ident : $ty:ty),*) -> $ret:ty) => {
        $(#[doc = $doc])*
        #[tauri::command]
        fn $name(app: AppHandle, state: State<'_, AppState>, $($arg: $ty),*) -> ApiResult<$ret> {
            crate::commands::$name(Ctx { app: &app, state: state.inner() }, $($arg),*)
        }
    };

    (@command async [$($doc:literal)*] $name:ident ($($arg:ident : $ty:ty),*) -> $ret:ty) => {
        $(#[doc = $doc])*
        #[tauri::command]
        async fn $name(
            app: AppHandle,
            state: State<'_, AppState>,
            $($arg: $ty),*
        ) -> ApiResult<$ret> {
            crate::commands::$name(Ctx { app: &app, state: state.inner() }, $($arg),*).await
        }
    };
}

include!("api_declaration.rs");

/// A Rust type as TypeScript sees it: its name there, and the named types
/// (with their exporters) it refers to.
#[cfg(test)]
pub struct TsType {
    name: String,
    named: Vec<NamedType>,
}

/// Writes a named type's binding (and those of the types it uses).
#[cfg(test)]
type Exporter = fn(&Config) -> Result<(), ExportError>;

#[cfg(test)]
struct NamedType {
    dependency: Dependency,
    export: Exporter,
}

#[cfg(test)]
impl TsType {
    fn of<T: TS + 'static>(cfg: &Config) -> Self {
        /// Collects the named types in `Vec<A>`, `Option<B>`, maps and the
        /// like; a named type is imported as a whole, so its own fields are
        /// its binding's business.
        struct Named<'a>(&'a Config, Vec<NamedType>);
        impl TypeVisitor for Named<'_> {
            fn visit<U: TS + 'static + ?Sized>(&mut self) {
                match Dependency::from_ty::<U>(self.0) {
                    Some(dependency) => self.1.push(NamedType {
                        dependency,
                        export: <U as TS>::export_all,
                    }),
                    None => U::visit_generics(self),
                }
            }
        }
        let mut named = Named(cfg, Vec::new());
        named.visit::<T>();
        TsType {
            name: T::name(cfg),
            named: named.1,
        }
    }
}

/// `record_id` -> `recordId`: how Tauri names a command's arguments in JS.
#[cfg(test)]
fn camel_case(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut upper = false;
    for c in name.chars() {
        if c == '_' {
            upper = !out.is_empty();
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
fn js_doc(indent: &str, doc: &[&str]) -> String {
    if doc.is_empty() {
        return String::new();
    }
    let lines: Vec<String> = doc
        .iter()
        .map(|l| format!("{indent} *{}", l.trim_end()))
        .collect();
    format!("{indent}/**\n{}\n{indent} */\n", lines.join("\n"))
}

/// `desktopApi.ts` being written.
#[cfg(test)]
#[derive(Default)]
pub struct TsModule {
    /// Named types by import path (`./ServerView`), with their exporters.
    imports: BTreeMap<PathBuf, (String, Exporter)>,
    commands: String,
    event_payloads: String,
    event_names: String,
}

#[cfg(test)]
impl TsModule {
    fn uses(&mut self, ty: TsType) -> String {
        for n in ty.named {
            self.imports
                .entry(n.dependency.output_path.with_extension(""))
                .or_insert((n.dependency.ts_name, n.export));
        }
        ty.name
    }

    fn command(&mut self, name: &str, doc: &[&str], args: Vec<(&str, TsType)>, result: TsType) {
        let args = if args.is_empty() {
            "Record<string, never>".to_owned()
        } else {
            let fields: Vec<String> = args
                .into_iter()
                .map(|(arg, ty)| format!("{}: {}", camel_case(arg), self.uses(ty)))
                .collect();
            format!("{{ {} }}", fields.join("; "))
        };
        let result = self.uses(result);
        self.commands += &js_doc("  ", doc);
        self.commands += &format!("  {name}: {{ args: {args}; result: {result} }};\n");
    }

    fn event(&mut self, rust_name: &str, name: &str, doc: &[&str], payload: TsType) {
        let payload = self.uses(payload);
        self.event_payloads += &js_doc("  ", doc);
        self.event_payloads += &format!("  {name:?}: {payload};\n");
        self.event_names += &format!("  {rust_name}: {name:?},\n");
    }

    /// Export every named type the API uses, then `desktopApi.ts` itself.
    pub fn write(&self, cfg: &Config, dir: &std::path::Path) -> Result<(), String> {
        for (_, export) in self.imports.values() {
            export(cfg).map_err(|e| e.to_string())?;
        }
        std::fs::write(dir.join("desktopApi.ts"), self.render()).map_err(|e| e.to_string())
    }

    pub fn render(&self) -> String {
        let imports: BTreeSet<String> = self
            .imports
            .iter()
            .map(|(path, (name, _))| {
                format!(
                    "import type {{ {name} }} from \"./{}\";\n",
                    path.display().to_string().replace('\\', "/")
                )
            })
            .collect();
        format!(
            "// Generated from src-tauri/src/api_declaration.rs by `cargo test -p airlock-desktop`. Do not edit.\n\
             {}\n\
             /**\n * Every desktop command by name: its arguments as `invoke` takes them\n * (camelCase, as Tauri maps them) and its result.\n */\n\
             export type Commands = {{\n{}}};\n\n\
             /** Every event the desktop shell emits, by name: its payload. */\n\
             export type Events = {{\n{}}};\n\n\
             /** Event names, by their name in Rust. */\n\
             export const EVENT_NAMES = {{\n{}}} as const;\n",
            imports.into_iter().collect::<String>(),
            self.commands,
            self.event_payloads,
            self.event_names,
        )
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn argument_names_follow_tauri() {
        assert_eq!(super::camel_case("record_id"), "recordId");
        assert_eq!(super::camel_case("redirect_port"), "redirectPort");
        assert_eq!(super::camel_case("name"), "name");
    }
}
