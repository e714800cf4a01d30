//! The object-store backend: object_store's client driven by a small tokio runtime, so the rest
//! of the program stays synchronous.

use crate::StoreError;
use crate::retry::RetrySettings;
use crate::versioned::{Inner, Version};
use futures::TryStreamExt;
use object_store::path::Path as ObjectPath;
use object_store::{
    ObjectStore, ObjectStoreExt, ObjectStoreScheme, PutMode, PutPayload, UpdateVersion,
};
use std::sync::Arc;

/// An object store and the prefix of the run inside it.
pub(crate) struct Remote {
    url: String,
    /// The builder keys it was opened with, to open it again with other retry settings.
    options: Vec<(String, String)>,
    /// How failed requests are retried (object_store's own retries, and [`Remote::retried`]).
    retry: RetrySettings,
    store: Arc<dyn ObjectStore>,
    prefix: ObjectPath,
    runtime: tokio::runtime::Runtime,
}

fn boxed(
    e: impl std::error::Error + Send + Sync + 'static,
) -> Box<dyn std::error::Error + Send + Sync> {
    Box::new(e)
}

/// A number in [0, 1) from the clock's nanoseconds: jitter needs no better randomness.
fn rand_unit() -> f64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    f64::from(nanos % 1_000_000) / 1_000_000.0
}

/// The small runtime that drives one store's requests.
fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
}

impl Remote {
    /// The store at `url`, configured by `options` (object_store's builder keys) and `retry`.
    pub(crate) fn open(
        url: &str,
        options: &[(String, String)],
        retry: &RetrySettings,
    ) -> Result<Remote, StoreError> {
        let open_error = |source| StoreError::Open {
            url: url.to_string(),
            source,
        };
        let parsed = url::Url::parse(url).map_err(|e| open_error(boxed(e)))?;
        let given: Vec<(String, String)> = options
            .iter()
            .map(|(key, value)| (key.to_ascii_lowercase(), value.clone()))
            .collect();
        let mut options = given.clone();
        // The run's lease needs conditional writes, which object_store enables on S3 only when
        // asked (AWS S3, MinIO and recent moto honour If-Match and If-None-Match).
        let asked = |key: &str| key == "aws_conditional_put" || key == "conditional_put";
        if parsed.scheme().starts_with("s3") && !options.iter().any(|(key, _)| asked(key)) {
            options.push(("aws_conditional_put".into(), "etag".into()));
        }
        if !options.iter().any(|(key, _)| key == "timeout") {
            let millis = retry.request_timeout.as_millis();
            options.push(("timeout".into(), format!("{millis}ms")));
        }
        let (scheme, path) = ObjectStoreScheme::parse(&parsed).map_err(|e| open_error(boxed(e)))?;
        let prefix = ObjectPath::parse(path).map_err(|e| open_error(boxed(e)))?;
        // object_store's `parse_url_opts`, with the retry settings it cannot take as keys.
        macro_rules! build {
            ($builder:ty) => {{
                let builder = options.iter().fold(
                    <$builder>::new()
                        .with_url(url)
                        .with_retry(retry.retry_config()),
                    |builder, (key, value)| match key.parse() {
                        Ok(key) => builder.with_config(key, value),
                        Err(_) => builder,
                    },
                );
                Arc::new(builder.build().map_err(|e| open_error(boxed(e)))?) as Arc<dyn ObjectStore>
            }};
        }
        let store = match scheme {
            ObjectStoreScheme::AmazonS3 => build!(object_store::aws::AmazonS3Builder),
            ObjectStoreScheme::GoogleCloudStorage => {
                build!(object_store::gcp::GoogleCloudStorageBuilder)
            }
            ObjectStoreScheme::MicrosoftAzure => {
                build!(object_store::azure::MicrosoftAzureBuilder)
            }
            ObjectStoreScheme::Memory => Arc::new(object_store::memory::InMemory::new()),
            other => {
                return Err(open_error(
                    format!("{other:?} is not a store a run can live in").into(),
                ));
            }
        };
        Ok(Remote {
            url: url.to_string(),
            options: given,
            retry: *retry,
            store,
            prefix,
            runtime: runtime().map_err(|e| open_error(boxed(e)))?,
        })
    }

    /// The same store with other retry settings (an in-memory store, which makes no requests,
    /// is shared as it is).
    pub(crate) fn with_retry(&self, retry: &RetrySettings) -> Result<Remote, StoreError> {
        if self.url.starts_with("memory:") {
            return Ok(Remote {
                url: self.url.clone(),
                options: self.options.clone(),
                retry: *retry,
                store: Arc::clone(&self.store),
                prefix: self.prefix.clone(),
                runtime: runtime().map_err(|e| StoreError::Open {
                    url: self.url.clone(),
                    source: boxed(e),
                })?,
            });
        }
        Remote::open(&self.url, &self.options, retry)
    }

    /// Runs `attempt` again after a transport or server fault, with the backoff of the retry
    /// settings. object_store retries only the requests it knows to be idempotent; a delete
    /// (S3's bulk-delete POST) and a conditional put it leaves to the caller when the
    /// connection breaks after the request was sent. Both are safe to repeat: deleting what is
    /// gone succeeds, and a conditional put refused because its first attempt went through is
    /// recognised by its caller (the lease compares what the store holds with what it wrote).
    fn retried<T, F, Fut>(&self, attempt: F) -> Result<T, object_store::Error>
    where
        F: Fn() -> Fut,
        Fut: std::future::Future<Output = Result<T, object_store::Error>>,
    {
        let started = std::time::Instant::now();
        let mut wait = self.retry.backoff_initial;
        let mut retries = 0;
        loop {
            match self.runtime.block_on(attempt()) {
                Err(object_store::Error::Generic { .. })
                    if retries < self.retry.retries
                        && started.elapsed() + wait < self.retry.retry_timeout =>
                {
                    // Jitter, so that processes hit by one fault do not retry in step.
                    std::thread::sleep(wait.mul_f64(0.5 + 0.5 * rand_unit()));
                    wait = (wait * 2).min(self.retry.backoff_max);
                    retries += 1;
                }
                other => return other,
            }
        }
    }

    fn path(&self, key: &str) -> ObjectPath {
        key.split('/')
            .fold(self.prefix.clone(), |path, part| path.join(part))
    }

    fn error(&self, key: &str, e: object_store::Error) -> StoreError {
        StoreError::Remote {
            location: self.url.clone(),
            key: key.to_string(),
            source: boxed(e),
        }
    }

    pub(crate) fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        let path = self.path(key);
        let result = self.runtime.block_on(async {
            match self.store.get(&path).await {
                Ok(object) => object.bytes().await.map(Some),
                Err(object_store::Error::NotFound { .. }) => Ok(None),
                Err(e) => Err(e),
            }
        });
        result
            .map(|bytes| bytes.map(|b| b.to_vec()))
            .map_err(|e| self.error(key, e))
    }

    pub(crate) fn put(&self, key: &str, bytes: &[u8]) -> Result<(), StoreError> {
        let path = self.path(key);
        let payload = PutPayload::from(bytes.to_vec());
        self.runtime
            .block_on(self.store.put(&path, payload))
            .map(|_| ())
            .map_err(|e| self.error(key, e))
    }

    pub(crate) fn get_versioned(
        &self,
        key: &str,
    ) -> Result<Option<(Vec<u8>, Version)>, StoreError> {
        let path = self.path(key);
        let result = self.runtime.block_on(async {
            match self.store.get(&path).await {
                Ok(object) => {
                    let version = Version(Inner::Remote {
                        e_tag: object.meta.e_tag.clone(),
                        version: object.meta.version.clone(),
                    });
                    object
                        .bytes()
                        .await
                        .map(|bytes| Some((bytes.to_vec(), version)))
                }
                Err(object_store::Error::NotFound { .. }) => Ok(None),
                Err(e) => Err(e),
            }
        });
        result.map_err(|e| self.error(key, e))
    }

    pub(crate) fn put_if(
        &self,
        key: &str,
        bytes: &[u8],
        expected: Option<&Version>,
    ) -> Result<Option<Version>, StoreError> {
        let mode = match expected {
            None => PutMode::Create,
            Some(Version(Inner::Remote { e_tag, version })) => PutMode::Update(UpdateVersion {
                e_tag: e_tag.clone(),
                version: version.clone(),
            }),
            // A local file's version never matches an object's.
            Some(Version(Inner::Contents(_))) => return Ok(None),
        };
        let path = self.path(key);
        let payload = PutPayload::from(bytes.to_vec());
        match self.retried(|| {
            self.store
                .put_opts(&path, payload.clone(), mode.clone().into())
        }) {
            Ok(written) => Ok(Some(Version(Inner::Remote {
                e_tag: written.e_tag,
                version: written.version,
            }))),
            Err(object_store::Error::AlreadyExists { .. })
            | Err(object_store::Error::Precondition { .. }) => Ok(None),
            Err(object_store::Error::NotImplemented { .. }) => {
                Err(StoreError::NoConditionalWrites {
                    location: self.url.clone(),
                    key: key.to_string(),
                })
            }
            Err(e) => Err(self.error(key, e)),
        }
    }

    /// Deletes `key`; `repeat`: again after a broken connection ([`Remote::retried`]).
    pub(crate) fn delete(&self, key: &str, repeat: bool) -> Result<(), StoreError> {
        let path = self.path(key);
        let result = if repeat {
            self.retried(|| self.store.delete(&path))
        } else {
            self.runtime.block_on(self.store.delete(&path))
        };
        match result {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(e) => Err(self.error(key, e)),
        }
    }

    /// The keys under `prefix` (empty: all), relative to the run; with `after`, only those
    /// after that key (S3 lists from it, so the listing costs what it returns).
    pub(crate) fn list(
        &self,
        prefix: &str,
        after: Option<&str>,
    ) -> Result<Vec<String>, StoreError> {
        let folder = if prefix.is_empty() {
            self.prefix.clone()
        } else {
            self.path(prefix)
        };
        let listing = match after {
            Some(key) => self.store.list_with_offset(Some(&folder), &self.path(key)),
            None => self.store.list(Some(&folder)),
        };
        let metas: Vec<_> = self
            .runtime
            .block_on(listing.try_collect())
            .map_err(|e| self.error(prefix, e))?;
        let root: Vec<_> = self.prefix.parts().collect();
        Ok(metas
            .into_iter()
            .filter_map(|meta| {
                let parts: Vec<_> = meta.location.parts().collect();
                let relative = parts.get(root.len()..)?;
                (parts[..root.len()] == root[..] && !relative.is_empty()).then(|| {
                    relative
                        .iter()
                        .map(|part| part.as_ref().to_string())
                        .collect::<Vec<_>>()
                        .join("/")
                })
            })
            .collect())
    }
}
