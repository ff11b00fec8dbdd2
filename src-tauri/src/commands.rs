//! The commands the UI may invoke. Each one stays a thin wrapper: the work
//! belongs in `airlock-core` once it is wired in.

use serde::Serialize;
use tauri::{AppHandle, PackageInfo};

/// What the UI shows in its header; mirrored by `AppInfo` in `ui/src/lib/api.ts`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AppInfo {
    pub name: String,
    pub version: String,
}

impl From<&PackageInfo> for AppInfo {
    fn from(package: &PackageInfo) -> Self {
        Self {
            name: package.name.clone(),
            version: package.version.to_string(),
        }
    }
}

#[tauri::command]
pub fn app_info(app: AppHandle) -> AppInfo {
    AppInfo::from(app.package_info())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn app_info_serializes_to_the_shape_the_ui_expects() {
        let info = AppInfo {
            name: "Airlock".to_owned(),
            version: "0.1.0".to_owned(),
        };
        let json = serde_json::to_value(&info).expect("AppInfo always serializes");
        assert_eq!(
            json,
            serde_json::json!({ "name": "Airlock", "version": "0.1.0" })
        );
    }
}
