//! The API's one error: an HTTP status and a message that names what is wrong, sent as
//! `{"error": "..."}` so that the page can show it.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

/// A refused or failed request.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ApiError {
    /// The HTTP status it is answered with.
    pub status: StatusCode,
    /// What is wrong, for people.
    pub message: String,
}

impl ApiError {
    /// Bad input: a malformed FEN, an illegal move, an unknown variant (400).
    pub fn bad_request(message: impl Into<String>) -> Self {
        ApiError {
            status: StatusCode::BAD_REQUEST,
            message: message.into(),
        }
    }

    /// Something the server does not list: a run, a game file, a player (404).
    pub fn not_found(message: impl Into<String>) -> Self {
        ApiError {
            status: StatusCode::NOT_FOUND,
            message: message.into(),
        }
    }

    /// The server failed to do what was asked (500): a network that does not open, a file
    /// that cannot be read.
    pub fn internal(message: impl Into<String>) -> Self {
        ApiError {
            status: StatusCode::INTERNAL_SERVER_ERROR,
            message: message.into(),
        }
    }

    /// A message with its whole chain of sources, `outer: inner: ...`.
    pub fn chain(error: &dyn std::error::Error) -> String {
        let mut text = error.to_string();
        let mut source = error.source();
        while let Some(inner) = source {
            text.push_str(": ");
            text.push_str(&inner.to_string());
            source = inner.source();
        }
        text
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (
            self.status,
            Json(serde_json::json!({ "error": self.message })),
        )
            .into_response()
    }
}
