//! A desktop notification server for the tests that watch Airlock's
//! notifications (gateway_notify, daemon_pin_notice): the session's own, or
//! Xvfb and dunst started here (Debian packages xvfb, dunst; installed by
//! scripts/setup.sh), stopped when dropped.

use std::io::Read;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use super::wait_until;

/// Does a notification server own its name on the session bus?
pub fn notifications_owned() -> bool {
    Command::new("dbus-send")
        .args([
            "--session",
            "--print-reply",
            "--dest=org.freedesktop.DBus",
            "/org/freedesktop/DBus",
            "org.freedesktop.DBus.NameHasOwner",
            "string:org.freedesktop.Notifications",
        ])
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("boolean true"))
}

/// Xvfb and dunst started here when the session has no notification
/// server; stopped when dropped.
pub struct Notifier(Vec<Child>);

impl Notifier {
    pub fn ensure(dir: &Path) -> Notifier {
        assert!(
            std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some(),
            "this test shows desktop notifications on a private session bus: run it as \
             `scripts/with-session.sh cargo test -p airlock-cli --test NAME`"
        );
        let mut children = Vec::new();
        if !notifications_owned() {
            let mut xvfb = Command::new("Xvfb")
                .args([
                    "-displayfd",
                    "1",
                    "-screen",
                    "0",
                    "800x600x24",
                    "-nolisten",
                    "tcp",
                ])
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()
                .expect("start Xvfb (Debian package xvfb)");
            let mut display = String::new();
            let mut out = xvfb.stdout.take().expect("Xvfb stdout");
            let mut byte = [0u8; 1];
            while out.read(&mut byte).is_ok_and(|n| n == 1) && byte[0] != b'\n' {
                display.push(byte[0] as char);
            }
            children.push(xvfb);
            let dunst = Command::new("dunst")
                .env("DISPLAY", format!(":{}", display.trim()))
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(std::fs::File::create(dir.join("dunst.log")).expect("dunst log"))
                .spawn()
                .expect("start dunst (Debian package dunst)");
            children.push(dunst);
            wait_until("dunst on the session bus", Duration::from_secs(10), || {
                notifications_owned().then_some(())
            });
        }
        Notifier(children)
    }
}

impl Drop for Notifier {
    fn drop(&mut self) {
        for c in self.0.iter_mut().rev() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}
