//! Keeping what one thread writes often off the cache lines other threads read.

/// Cache-line aligned wrapper: fields one thread writes often are kept off the lines other
/// threads read, so that the CPU thread's tick does not pay for cache-line transfers.
#[derive(Debug, Default)]
#[repr(align(64))]
pub struct Padded<T>(pub T);

impl<T> std::ops::Deref for Padded<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}
