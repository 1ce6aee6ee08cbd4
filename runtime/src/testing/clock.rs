//! A clock that stands still until a test moves it.

/// A clock for tests of gate 6's expiries: it stands still until moved.
/// Clones share one time.
///
/// ```
/// use std::time::{Duration, SystemTime};
/// use toolgate::{Clock, Toolbox};
/// use toolgate::testing::ManualClock;
///
/// let clock = ManualClock::new(SystemTime::UNIX_EPOCH);
/// let toolbox = Toolbox::new(()).with_clock(clock.clone());
/// clock.advance(Duration::from_secs(16 * 60)); // past an approval's expiry
/// assert_eq!(clock.now(), SystemTime::UNIX_EPOCH + Duration::from_secs(960));
/// # let _ = toolbox;
/// ```
#[derive(Clone, Debug)]
pub struct ManualClock(std::sync::Arc<std::sync::Mutex<std::time::SystemTime>>);

impl ManualClock {
    /// A clock showing `start`.
    pub fn new(start: std::time::SystemTime) -> Self {
        ManualClock(std::sync::Arc::new(std::sync::Mutex::new(start)))
    }

    /// Moves the clock on by `by`.
    pub fn advance(&self, by: std::time::Duration) {
        let mut now = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        *now += by;
    }
}

impl crate::Clock for ManualClock {
    fn now(&self) -> std::time::SystemTime {
        *self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}
