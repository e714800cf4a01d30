//! How an object store's failed requests are retried: object_store's retry settings, which the
//! run's config sets (`[store]`). A directory run has no requests to retry.

use std::time::Duration;

/// Retries of requests that fail with a server error (5xx), a reset connection or a timeout:
/// up to `retries` more attempts, waiting `backoff_initial`, then about twice as long each time
/// (with jitter) up to `backoff_max`, and none started once `retry_timeout` has passed since
/// the first attempt. The defaults are object_store's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RetrySettings {
    /// Attempts after the first (0: none).
    pub retries: usize,
    /// No retry starts this long after the request's first attempt.
    pub retry_timeout: Duration,
    /// The wait before the first retry.
    pub backoff_initial: Duration,
    /// The longest wait between two attempts.
    pub backoff_max: Duration,
    /// One attempt that takes longer than this fails (and is retried).
    pub request_timeout: Duration,
}

impl Default for RetrySettings {
    fn default() -> Self {
        RetrySettings {
            retries: 10,
            retry_timeout: Duration::from_secs(180),
            backoff_initial: Duration::from_millis(100),
            backoff_max: Duration::from_secs(15),
            request_timeout: Duration::from_secs(30),
        }
    }
}

#[cfg(feature = "object-store")]
impl RetrySettings {
    /// The settings as object_store's retry configuration.
    pub(crate) fn retry_config(&self) -> object_store::RetryConfig {
        object_store::RetryConfig {
            backoff: object_store::BackoffConfig {
                init_backoff: self.backoff_initial,
                max_backoff: self.backoff_max,
                base: 2.0,
            },
            max_retries: self.retries,
            retry_timeout: self.retry_timeout,
        }
    }
}
