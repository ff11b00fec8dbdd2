//! Windows only: who the current user is (the user SID of this process's
//! token), the user of another process, and security descriptors that
//! admit the current user alone (written in SDDL, the system's own
//! notation, so what is granted can be read in one line).
//!
//! Used by [`crate::private_files`] (files and folders) and by the
//! gateway's named pipe (its access list, and the SID of each process that
//! attaches or serves it).

use std::ffi::c_void;
use std::io;
use std::os::windows::ffi::OsStrExt;
use std::os::windows::io::{AsRawHandle, FromRawHandle, OwnedHandle};
use std::path::Path;

use windows_sys::Win32::Foundation::{LocalFree, HANDLE};
use windows_sys::Win32::Security::Authorization::{
    ConvertSecurityDescriptorToStringSecurityDescriptorW, ConvertSidToStringSidW,
    ConvertStringSecurityDescriptorToSecurityDescriptorW, GetNamedSecurityInfoW, GetSecurityInfo,
    SDDL_REVISION_1, SE_FILE_OBJECT, SE_KERNEL_OBJECT, SE_OBJECT_TYPE,
};
use windows_sys::Win32::Security::{
    GetLengthSid, GetSecurityDescriptorDacl, GetTokenInformation, IsValidSid, TokenUser, ACL,
    DACL_SECURITY_INFORMATION, PSECURITY_DESCRIPTOR, SECURITY_ATTRIBUTES, TOKEN_QUERY, TOKEN_USER,
};
use windows_sys::Win32::System::Threading::{
    GetCurrentProcess, OpenProcess, OpenProcessToken, PROCESS_QUERY_LIMITED_INFORMATION,
};

/// Largest `TOKEN_USER` read: the structure (a pointer and flags) and a SID
/// (at most 68 bytes, `SECURITY_MAX_SID_SIZE`), with room to spare.
const MAX_TOKEN_USER_BYTES: usize = 256;
/// `SECURITY_MAX_SID_SIZE`.
const MAX_SID_BYTES: usize = 68;
/// Longest SDDL text read back (an owner-only list is about 70 characters;
/// a default one a few hundred).
const MAX_SDDL_CHARS: usize = 16 * 1024;

/// A user's security identifier, copied out of a token.
#[derive(Clone, PartialEq, Eq)]
pub struct Sid(Vec<u8>);

impl std::fmt::Debug for Sid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.to_sddl() {
            Ok(s) => f.write_str(&s),
            Err(_) => f.write_str("Sid(?)"),
        }
    }
}

impl Sid {
    /// A pointer to the SID, valid while `self` lives (for calls that take
    /// a PSID and only read it).
    pub fn as_psid(&self) -> windows_sys::Win32::Security::PSID {
        self.0.as_ptr() as *mut c_void
    }

    /// The SID in SDDL (`S-1-5-21-...`).
    pub fn to_sddl(&self) -> io::Result<String> {
        let mut text: *mut u16 = std::ptr::null_mut();
        // SAFETY: `self.0` holds a whole SID (checked by `IsValidSid` when
        // it was copied); the call allocates `text` with LocalAlloc, freed
        // below.
        let ok = unsafe { ConvertSidToStringSidW(self.0.as_ptr() as *mut c_void, &mut text) };
        if ok == 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: on success `text` is a NUL-terminated wide string that
        // this function owns.
        Ok(unsafe { take_local_wide(text) })
    }
}

/// Read a NUL-terminated wide string allocated with LocalAlloc (at most
/// [`MAX_SDDL_CHARS`]) and free it.
///
/// # Safety
/// `text` is null or a NUL-terminated wide string from LocalAlloc that the
/// caller owns and does not use afterwards.
unsafe fn take_local_wide(text: *mut u16) -> String {
    if text.is_null() {
        return String::new();
    }
    let mut len = 0;
    // SAFETY: the string is NUL-terminated (caller's contract); the walk
    // stops at the NUL or at the bound.
    while len < MAX_SDDL_CHARS && unsafe { *text.add(len) } != 0 {
        len += 1;
    }
    // SAFETY: `len` characters were just read from `text`.
    let s = String::from_utf16_lossy(unsafe { std::slice::from_raw_parts(text, len) });
    // SAFETY: allocated with LocalAlloc, owned here, not used after.
    unsafe { LocalFree(text as *mut c_void) };
    s
}

/// The user of the token `token` (opened with TOKEN_QUERY).
fn token_user(token: &OwnedHandle) -> io::Result<Sid> {
    // u64 cells: TOKEN_USER holds a pointer and wants its alignment.
    let mut buf = [0u64; MAX_TOKEN_USER_BYTES / 8];
    let mut len = 0u32;
    // SAFETY: `buf` is MAX_TOKEN_USER_BYTES long and 8-aligned; the call
    // writes at most that much and says how much in `len`.
    let ok = unsafe {
        GetTokenInformation(
            token.as_raw_handle() as HANDLE,
            TokenUser,
            buf.as_mut_ptr().cast(),
            MAX_TOKEN_USER_BYTES as u32,
            &mut len,
        )
    };
    if ok == 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: on success the buffer starts with a TOKEN_USER whose SID
    // points inside the buffer.
    let sid = unsafe { (*(buf.as_ptr() as *const TOKEN_USER)).User.Sid };
    // SAFETY: `sid` points at the SID the call wrote into `buf`.
    if sid.is_null() || unsafe { IsValidSid(sid) } == 0 {
        return Err(io::Error::other("the token has no valid user SID"));
    }
    // SAFETY: a valid SID (checked above).
    let n = unsafe { GetLengthSid(sid) } as usize;
    let start = sid as usize;
    let inside =
        start >= buf.as_ptr() as usize && start + n <= buf.as_ptr() as usize + MAX_TOKEN_USER_BYTES;
    if n > MAX_SID_BYTES || !inside {
        return Err(io::Error::other("the token's user SID is malformed"));
    }
    // SAFETY: the `n` bytes at `sid` lie inside `buf` (checked above).
    let bytes = unsafe { std::slice::from_raw_parts(sid as *const u8, n) };
    Ok(Sid(bytes.to_vec()))
}

fn open_token(process: HANDLE) -> io::Result<OwnedHandle> {
    let mut token: HANDLE = std::ptr::null_mut();
    // SAFETY: `process` is a process handle with query access; the token
    // handle written to `token` is owned by the OwnedHandle below.
    if unsafe { OpenProcessToken(process, TOKEN_QUERY, &mut token) } == 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: a handle the call just opened for us alone.
    Ok(unsafe { OwnedHandle::from_raw_handle(token) })
}

/// The user this process runs as.
pub fn current() -> io::Result<Sid> {
    // SAFETY: the pseudo handle of this process; nothing to close.
    let me = unsafe { GetCurrentProcess() };
    token_user(&open_token(me)?)
}

/// The user process `pid` runs as. Fails (access denied) for a process
/// this user may not query: callers treat that as "not this user".
pub fn of_process(pid: u32) -> io::Result<Sid> {
    // SAFETY: plain call; a non-null result is a handle owned below.
    let process = unsafe { OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, 0, pid) };
    if process.is_null() {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: a handle the call just opened for us alone.
    let process = unsafe { OwnedHandle::from_raw_handle(process) };
    token_user(&open_token(process.as_raw_handle() as HANDLE)?)
}

/// A security descriptor built from SDDL, freed on drop.
pub struct SecurityDescriptor(PSECURITY_DESCRIPTOR);

// SAFETY: the descriptor is allocated once, never written after, and freed
// only on drop: reading it from several threads is sound.
unsafe impl Send for SecurityDescriptor {}
// SAFETY: as above; every use passes it to the system read-only.
unsafe impl Sync for SecurityDescriptor {}

impl Drop for SecurityDescriptor {
    fn drop(&mut self) {
        // SAFETY: allocated by ConvertStringSecurityDescriptorToSecurityDescriptorW
        // with LocalAlloc, owned here.
        unsafe { LocalFree(self.0) };
    }
}

/// Whether a folder's entry passes on to what is created inside it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Inherit {
    /// A file or a pipe.
    No,
    /// A folder: its files and subfolders get the same single entry.
    ToChildren,
}

impl SecurityDescriptor {
    pub fn from_sddl(sddl: &str) -> io::Result<Self> {
        let wide = wide(sddl.as_ref());
        let mut sd: PSECURITY_DESCRIPTOR = std::ptr::null_mut();
        // SAFETY: `wide` is NUL-terminated; the call allocates `sd` with
        // LocalAlloc, owned by the returned value.
        let ok = unsafe {
            ConvertStringSecurityDescriptorToSecurityDescriptorW(
                wide.as_ptr(),
                SDDL_REVISION_1,
                &mut sd,
                std::ptr::null_mut(),
            )
        };
        if ok == 0 || sd.is_null() {
            return Err(io::Error::last_os_error());
        }
        Ok(Self(sd))
    }

    /// Only the current user, full access; protected (`P`): nothing is
    /// inherited from the parent, so the folder's other entries (Users,
    /// Administrators) do not apply.
    pub fn owner_only(inherit: Inherit) -> io::Result<Self> {
        Self::from_sddl(&owner_only_sddl(&current()?, inherit)?)
    }

    /// Take over a descriptor the system allocated with LocalAlloc.
    ///
    /// # Safety
    /// `sd` is such a descriptor, owned by nobody else.
    pub(crate) unsafe fn from_local(sd: PSECURITY_DESCRIPTOR) -> Self {
        Self(sd)
    }

    pub fn as_ptr(&self) -> PSECURITY_DESCRIPTOR {
        self.0
    }

    /// The attributes that create an object with this descriptor (its
    /// handle not inherited by child processes).
    pub fn attributes(&self) -> SECURITY_ATTRIBUTES {
        SECURITY_ATTRIBUTES {
            nLength: std::mem::size_of::<SECURITY_ATTRIBUTES>() as u32,
            lpSecurityDescriptor: self.0,
            bInheritHandle: 0,
        }
    }

    /// The access list inside (borrowed from the descriptor).
    pub fn dacl(&self) -> io::Result<*mut ACL> {
        let mut present = 0;
        let mut defaulted = 0;
        let mut dacl: *mut ACL = std::ptr::null_mut();
        // SAFETY: a valid descriptor; the out pointers are ours.
        let ok =
            unsafe { GetSecurityDescriptorDacl(self.0, &mut present, &mut dacl, &mut defaulted) };
        if ok == 0 {
            return Err(io::Error::last_os_error());
        }
        if present == 0 || dacl.is_null() {
            return Err(io::Error::other("the descriptor has no access list"));
        }
        Ok(dacl)
    }
}

/// The SDDL of "only `user`, full access, nothing inherited".
pub fn owner_only_sddl(user: &Sid, inherit: Inherit) -> io::Result<String> {
    let flags = match inherit {
        Inherit::No => "",
        // Object inherit + container inherit.
        Inherit::ToChildren => "OICI",
    };
    Ok(format!("D:P(A;{flags};FA;;;{})", user.to_sddl()?))
}

/// The SDDL alias of the system account (LocalSystem), which can read every
/// file anyway.
const SYSTEM: &str = "SY";
/// Most entries read from an access list before it counts as not private.
const MAX_ACES: usize = 64;

/// Whether the access list `dacl` (SDDL, `D:...`) lets nobody in but
/// `user` and the system account: every entry that allows is for one of
/// them (entries that deny are fine). Unknown entry types count as not
/// private.
pub fn admits_only(dacl: &str, user: &Sid) -> bool {
    let Ok(me) = user.to_sddl() else {
        return false;
    };
    let Some(list) = dacl.strip_prefix("D:") else {
        return false;
    };
    let aces: Vec<&str> = list
        .split('(')
        .skip(1)
        .take(MAX_ACES + 1)
        .map(|a| a.trim_end_matches(')'))
        .collect();
    if aces.is_empty() || aces.len() > MAX_ACES {
        return false;
    }
    aces.iter().all(|ace| {
        let fields: Vec<&str> = ace.split(';').collect();
        match fields.as_slice() {
            ["A", _, _, _, _, sid] => *sid == me || *sid == SYSTEM,
            ["D", ..] => true,
            _ => false,
        }
    })
}

/// The access list of a file or folder, in SDDL (`D:...`).
pub fn dacl_of_path(path: &Path) -> io::Result<String> {
    let wide = wide(path.as_os_str());
    read_dacl(|sd| {
        // SAFETY: `wide` is NUL-terminated; the call allocates `*sd`.
        unsafe {
            GetNamedSecurityInfoW(
                wide.as_ptr(),
                SE_FILE_OBJECT,
                DACL_SECURITY_INFORMATION,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                sd,
            )
        }
    })
}

/// The access list of an open kernel object (a pipe), in SDDL.
pub fn dacl_of_handle(handle: HANDLE) -> io::Result<String> {
    dacl_of(handle, SE_KERNEL_OBJECT)
}

fn dacl_of(handle: HANDLE, kind: SE_OBJECT_TYPE) -> io::Result<String> {
    read_dacl(|sd| {
        // SAFETY: `handle` is open with READ_CONTROL (the caller's); the
        // call allocates `*sd`.
        unsafe {
            GetSecurityInfo(
                handle,
                kind,
                DACL_SECURITY_INFORMATION,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                sd,
            )
        }
    })
}

fn read_dacl(get: impl FnOnce(*mut PSECURITY_DESCRIPTOR) -> u32) -> io::Result<String> {
    let mut sd: PSECURITY_DESCRIPTOR = std::ptr::null_mut();
    let status = get(&mut sd);
    if status != 0 {
        return Err(io::Error::from_raw_os_error(status as i32));
    }
    let sd = SecurityDescriptor(sd);
    let mut text: *mut u16 = std::ptr::null_mut();
    // SAFETY: a valid descriptor; the call allocates `text` with LocalAlloc.
    let ok = unsafe {
        ConvertSecurityDescriptorToStringSecurityDescriptorW(
            sd.as_ptr(),
            SDDL_REVISION_1,
            DACL_SECURITY_INFORMATION,
            &mut text,
            std::ptr::null_mut(),
        )
    };
    if ok == 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: a NUL-terminated wide string from LocalAlloc, ours.
    Ok(unsafe { take_local_wide(text) })
}

/// `s` as a NUL-terminated wide string.
pub fn wide(s: &std::ffi::OsStr) -> Vec<u16> {
    s.encode_wide().chain(std::iter::once(0)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_current_user_has_a_sid_and_an_owner_only_descriptor_parses() {
        let me = current().unwrap();
        let text = me.to_sddl().unwrap();
        assert!(text.starts_with("S-1-"), "{text}");
        let of_me = of_process(std::process::id()).unwrap();
        assert_eq!(me, of_me);
        for inherit in [Inherit::No, Inherit::ToChildren] {
            let sd = SecurityDescriptor::owner_only(inherit).unwrap();
            assert!(!sd.dacl().unwrap().is_null());
        }
        assert_eq!(
            owner_only_sddl(&me, Inherit::ToChildren).unwrap(),
            format!("D:P(A;OICI;FA;;;{text})")
        );
        assert!(admits_only(&format!("D:P(A;OICI;FA;;;{text})"), &me));
        assert!(admits_only(&format!("D:(A;;FA;;;SY)(A;;FA;;;{text})"), &me));
        assert!(!admits_only(
            &format!("D:(A;;FA;;;{text})(A;;0x1200a9;;;WD)"),
            &me
        ));
        assert!(!admits_only(
            &format!("D:(A;;FA;;;{text})(A;;FA;;;BA)"),
            &me
        ));
        assert!(!admits_only("D:", &me));
        assert!(!admits_only("O:BA", &me));
    }
}
