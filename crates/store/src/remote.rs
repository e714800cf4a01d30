//! The object-store backend: object_store's client driven by a small tokio runtime, so the rest
//! of the program stays synchronous.

use crate::StoreError;
use crate::versioned::{Inner, Version};
use futures::TryStreamExt;
use object_store::path::Path as ObjectPath;
use object_store::{ObjectStore, ObjectStoreExt, PutMode, PutPayload, UpdateVersion};

/// An object store and the prefix of the run inside it.
pub(crate) struct Remote {
    url: String,
    store: Box<dyn ObjectStore>,
    prefix: ObjectPath,
    runtime: tokio::runtime::Runtime,
}

fn boxed(
    e: impl std::error::Error + Send + Sync + 'static,
) -> Box<dyn std::error::Error + Send + Sync> {
    Box::new(e)
}

impl Remote {
    /// The store at `url`, configured by `options` (object_store's builder keys).
    pub(crate) fn open(url: &str, options: &[(String, String)]) -> Result<Remote, StoreError> {
        let open_error = |source| StoreError::Open {
            url: url.to_string(),
            source,
        };
        let parsed = url::Url::parse(url).map_err(|e| open_error(boxed(e)))?;
        let mut options = options.to_vec();
        // The run's lease needs conditional writes, which object_store enables on S3 only when
        // asked (AWS S3, MinIO and recent moto honour If-Match and If-None-Match).
        let asked = |key: &str| {
            let key = key.to_ascii_lowercase();
            key == "aws_conditional_put" || key == "conditional_put"
        };
        if parsed.scheme().starts_with("s3") && !options.iter().any(|(key, _)| asked(key)) {
            options.push(("aws_conditional_put".into(), "etag".into()));
        }
        let (store, prefix) = object_store::parse_url_opts(
            &parsed,
            options.iter().map(|(k, v)| (k.as_str(), v.clone())),
        )
        .map_err(|e| open_error(boxed(e)))?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .map_err(|e| open_error(boxed(e)))?;
        Ok(Remote {
            url: url.to_string(),
            store,
            prefix,
            runtime,
        })
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
        match self
            .runtime
            .block_on(self.store.put_opts(&path, payload, mode.into()))
        {
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

    pub(crate) fn delete(&self, key: &str) -> Result<(), StoreError> {
        let path = self.path(key);
        match self.runtime.block_on(self.store.delete(&path)) {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(e) => Err(self.error(key, e)),
        }
    }

    pub(crate) fn list(&self, prefix: &str) -> Result<Vec<String>, StoreError> {
        let folder = if prefix.is_empty() {
            self.prefix.clone()
        } else {
            self.path(prefix)
        };
        let metas: Vec<_> = self
            .runtime
            .block_on(self.store.list(Some(&folder)).try_collect())
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
