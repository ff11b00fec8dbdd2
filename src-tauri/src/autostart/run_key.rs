//! Windows: the `Airlock` value of the current user's Run key (see
//! crate::autostart).

use std::os::windows::ffi::OsStrExt;

use windows_sys::Win32::Foundation::{ERROR_FILE_NOT_FOUND, ERROR_SUCCESS};
use windows_sys::Win32::System::Registry::{
    RegDeleteKeyValueW, RegGetValueW, RegSetKeyValueW, HKEY_CURRENT_USER, REG_SZ,
    RRF_RT_REG_BINARY, RRF_RT_REG_SZ,
};

const RUN_KEY: &str = r"Software\Microsoft\Windows\CurrentVersion\Run";
/// Where Task Manager's Startup apps switch lives (a binary value per entry:
/// its first byte odd means turned off).
const APPROVED_KEY: &str =
    r"Software\Microsoft\Windows\CurrentVersion\Explorer\StartupApproved\Run";
const VALUE_NAME: &str = "Airlock";
/// The StartupApproved value is 12 bytes; read a little more.
const MAX_APPROVED_BYTES: usize = 64;

fn wide(s: &str) -> Vec<u16> {
    std::ffi::OsStr::new(s)
        .encode_wide()
        .chain(std::iter::once(0))
        .collect()
}

/// Whether `key\VALUE_NAME` exists; its bytes when `data` has room.
fn read(key: &str, kind: u32, data: &mut [u8]) -> Result<Option<usize>, String> {
    let (key_w, name_w) = (wide(key), wide(VALUE_NAME));
    let mut len = u32::try_from(data.len()).unwrap_or(u32::MAX);
    // SAFETY: NUL-terminated names; `data` holds `len` bytes and the call
    // writes at most that many, saying how many in `len`.
    let status = unsafe {
        RegGetValueW(
            HKEY_CURRENT_USER,
            key_w.as_ptr(),
            name_w.as_ptr(),
            kind,
            std::ptr::null_mut(),
            data.as_mut_ptr().cast(),
            &mut len,
        )
    };
    match status {
        ERROR_SUCCESS => Ok(Some(len as usize)),
        ERROR_FILE_NOT_FOUND => Ok(None),
        // ERROR_MORE_DATA and others: it exists, but is not what we wrote.
        other => Err(format!(
            "cannot read HKCU\\{key}\\{VALUE_NAME}: {}",
            std::io::Error::from_raw_os_error(other as i32)
        )),
    }
}

fn delete(key: &str) -> Result<(), String> {
    let (key_w, name_w) = (wide(key), wide(VALUE_NAME));
    // SAFETY: NUL-terminated names.
    let status = unsafe { RegDeleteKeyValueW(HKEY_CURRENT_USER, key_w.as_ptr(), name_w.as_ptr()) };
    match status {
        ERROR_SUCCESS | ERROR_FILE_NOT_FOUND => Ok(()),
        other => Err(format!(
            "cannot remove HKCU\\{key}\\{VALUE_NAME}: {}",
            std::io::Error::from_raw_os_error(other as i32)
        )),
    }
}

pub fn is_enabled() -> Result<bool, String> {
    // A Run value is a path and its arguments: a few hundred characters.
    let mut value = vec![0u8; 2 * super::MAX_PROGRAM_CHARS];
    if read(RUN_KEY, RRF_RT_REG_SZ, &mut value)?.is_none() {
        return Ok(false);
    }
    let mut approved = [0u8; MAX_APPROVED_BYTES];
    Ok(match read(APPROVED_KEY, RRF_RT_REG_BINARY, &mut approved) {
        Ok(Some(n)) if n > 0 => approved[0] & 1 == 0,
        _ => true,
    })
}

pub fn enable() -> Result<(), String> {
    let program =
        std::env::current_exe().map_err(|e| format!("cannot find Airlock's program: {e}"))?;
    let value = wide(&super::run_value(&program)?);
    let (key_w, name_w) = (wide(RUN_KEY), wide(VALUE_NAME));
    let bytes = u32::try_from(value.len() * 2).map_err(|_| "the Run value is too long")?;
    // SAFETY: NUL-terminated names; `value` is a NUL-terminated wide string
    // of `bytes` bytes.
    let status = unsafe {
        RegSetKeyValueW(
            HKEY_CURRENT_USER,
            key_w.as_ptr(),
            name_w.as_ptr(),
            REG_SZ,
            value.as_ptr().cast(),
            bytes,
        )
    };
    if status != ERROR_SUCCESS {
        return Err(format!(
            "cannot write HKCU\\{RUN_KEY}\\{VALUE_NAME}: {}",
            std::io::Error::from_raw_os_error(status as i32)
        ));
    }
    // Turned off in Task Manager before: the user turns it on again here.
    delete(APPROVED_KEY)
}

pub fn disable() -> Result<(), String> {
    delete(RUN_KEY)
}
