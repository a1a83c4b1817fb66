//! What a caught panic was, in words for the console: its message and where in the source it
//! was raised. `catch_unwind` hands over only the message; the place is known to the panic
//! hook, which [`install`] chains in front of the one in force (the standard one still
//! prints `thread '...' panicked at ...` on stderr, which the tests look for).

use std::any::Any;
use std::sync::{Mutex, Once};
use std::thread::ThreadId;

/// The place of the latest panic of each thread that has not been described yet, the newest
/// last (at most [`KEPT`]). A global rather than a thread-local: a thread-local with a
/// destructor would keep glibc from unloading the module at `rmmod` while a CPU thread that
/// once panicked lives on.
static LAST: Mutex<Vec<(ThreadId, String)>> = Mutex::new(Vec::new());
const KEPT: usize = 16;
static HOOK: Once = Once::new();

/// Put the hook that notes where each panic was raised in front of the one in force (once;
/// the hook belongs to this module's copy of the standard library, so it sees only the
/// plugin's own panics).
pub fn install() {
    HOOK.call_once(|| {
        let before = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if let Some(l) = info.location() {
                let at = format!("{}:{}:{}", l.file(), l.line(), l.column());
                let here = std::thread::current().id();
                let mut last = LAST.lock().unwrap_or_else(|e| e.into_inner());
                last.retain(|(id, _)| *id != here);
                if last.len() >= KEPT {
                    last.remove(0);
                }
                last.push((here, at));
            }
            before(info);
        }));
    });
}

/// A panic this thread caught, `payload` being what `catch_unwind` returned: "at FILE:LINE:COL:
/// MESSAGE" (the place when the hook saw it raised on this thread).
pub fn describe(payload: &(dyn Any + Send)) -> String {
    let message = if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "(no message)".to_string()
    };
    let here = std::thread::current().id();
    let at = {
        let mut last = LAST.lock().unwrap_or_else(|e| e.into_inner());
        let i = last.iter().position(|(id, _)| *id == here);
        i.map(|i| last.remove(i).1)
    };
    match at {
        Some(at) => format!("at {at}: {message}"),
        None => format!("at an unknown place: {message}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::panic::catch_unwind;

    #[test]
    fn a_caught_panic_is_described_with_its_place_and_message() {
        install();
        let line = line!() + 1;
        let p = catch_unwind(|| panic!("boom {}", 42)).expect_err("it panicked");
        let d = describe(&*p);
        assert!(
            d.starts_with(&format!("at {}:{line}:", file!())),
            "{d} (line {line})"
        );
        assert!(d.ends_with(": boom 42"), "{d}");
        let p = catch_unwind(|| std::panic::panic_any(7u32)).expect_err("it panicked");
        assert!(describe(&*p).ends_with(": (no message)"));
        // The place is taken once: a payload described again has none.
        assert!(describe(&*p).starts_with("at an unknown place: "));
    }
}
