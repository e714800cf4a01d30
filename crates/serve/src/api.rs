//! The routes: the page's static files and the JSON API the page and the tests call.
//!
//! | route | answer |
//! |---|---|
//! | `GET /api/variants` | every variant's board and start ([`VariantInfo`](crate::board::VariantInfo)) |
//! | `GET /api/players` | the players the page may choose ([`PlayerInfo`](crate::players::PlayerInfo)) |
//! | `POST /api/state` | a game's pieces, legal moves and result ([`GameRequest`] in) |
//! | `POST /api/think` | a player's move ([`ThinkRequest`] in) |
//! | `POST /api/analyse` | a network's policy and win/draw/loss ([`AnalyseRequest`] in) |
//! | `GET /api/runs` | the runs under `--runs` |
//! | `GET /api/run?name=N` | one run's generations, curve and game files |
//! | `GET /api/run/game?name=N&file=F` | one of its game files, replayed |
//! | `POST /api/replay` | PDN text replayed ([`ReplayRequest`] in) |
//!
//! Errors are `{"error": "..."}` with a 4xx or 5xx status.

use crate::board::{self, GameRequest};
use crate::error::ApiError;
use crate::players::{AnalyseRequest, ThinkRequest};
use crate::replay::{ReplayRequest, replay_pdn};
use crate::{Server, assets};
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, Query, State};
use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use std::sync::Arc;

/// The largest request body accepted (a pasted or uploaded PDN file).
pub const MAX_BODY: usize = 4 << 20;

type Reply<T> = Result<Json<T>, ApiError>;

/// The server's routes over `server`.
pub fn router(server: Arc<Server>) -> Router {
    Router::new()
        .route(
            "/",
            get(|| async { page(assets::INDEX, "text/html; charset=utf-8") }),
        )
        .route(
            "/app.js",
            get(|| async { page(assets::SCRIPT, "text/javascript; charset=utf-8") }),
        )
        .route(
            "/style.css",
            get(|| async { page(assets::STYLE, "text/css; charset=utf-8") }),
        )
        .route("/api/variants", get(variants))
        .route("/api/players", get(players))
        .route("/api/state", post(state))
        .route("/api/think", post(think))
        .route("/api/analyse", post(analyse))
        .route("/api/runs", get(runs))
        .route("/api/run", get(run))
        .route("/api/run/game", get(run_game))
        .route("/api/replay", post(replay))
        .fallback(|| async { ApiError::not_found("no such page") })
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .with_state(server)
}

fn page(body: &'static str, kind: &'static str) -> impl IntoResponse {
    ([(header::CONTENT_TYPE, kind)], body)
}

/// A JSON body of type `T`, or an error naming what is wrong with it.
fn parse<T: DeserializeOwned>(body: &[u8]) -> Result<T, ApiError> {
    serde_json::from_slice(body).map_err(|error| ApiError::bad_request(format!("request: {error}")))
}

/// Runs `work` on a blocking thread (replays and file reads can take milliseconds).
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|error| ApiError::internal(format!("the request failed: {error}")))?
}

async fn variants(State(server): State<Arc<Server>>) -> impl IntoResponse {
    Json(server.variants.clone())
}

async fn players(State(server): State<Arc<Server>>) -> Reply<Vec<crate::players::PlayerInfo>> {
    blocking(move || Ok(server.roster.list(server.runs.as_ref())))
        .await
        .map(Json)
}

async fn state(body: Bytes) -> Reply<board::GameState> {
    let request: GameRequest = parse(&body)?;
    blocking(move || board::state(&request)).await.map(Json)
}

async fn think(
    State(server): State<Arc<Server>>,
    body: Bytes,
) -> Reply<crate::players::ThinkReply> {
    let request: ThinkRequest = parse(&body)?;
    let (spec, bound) = server
        .roster
        .resolve(&request.player, server.runs.as_ref())?;
    server.searches.think(request, spec, bound).await.map(Json)
}

async fn analyse(
    State(server): State<Arc<Server>>,
    body: Bytes,
) -> Reply<crate::players::Analysis> {
    let request: AnalyseRequest = parse(&body)?;
    let (spec, bound) = server
        .roster
        .resolve(&request.player, server.runs.as_ref())?;
    server
        .searches
        .analyse(request, spec, bound)
        .await
        .map(Json)
}

fn runs_of(server: &Server) -> Result<crate::runs::Runs, ApiError> {
    server
        .runs
        .clone()
        .ok_or_else(|| ApiError::not_found("the server was started without --runs"))
}

async fn runs(State(server): State<Arc<Server>>) -> Reply<Vec<crate::runs::RunSummary>> {
    let runs = server.runs.clone();
    blocking(move || Ok(runs.map(|r| r.list()).unwrap_or_default()))
        .await
        .map(Json)
}

/// The query of the run routes.
#[derive(Deserialize)]
struct RunQuery {
    name: String,
    #[serde(default)]
    file: Option<String>,
}

async fn run(
    State(server): State<Arc<Server>>,
    Query(query): Query<RunQuery>,
) -> Reply<crate::runs::RunData> {
    let runs = runs_of(&server)?;
    blocking(move || runs.data(&query.name)).await.map(Json)
}

async fn run_game(
    State(server): State<Arc<Server>>,
    Query(query): Query<RunQuery>,
) -> Reply<Vec<crate::replay::ReplayGame>> {
    let runs = runs_of(&server)?;
    blocking(move || {
        let file = query
            .file
            .ok_or_else(|| ApiError::bad_request("file: missing"))?;
        let (summary, pdn) = runs.game(&query.name, &file)?;
        let variant = summary.variant.ok_or_else(|| {
            ApiError::not_found(format!(
                "run `{}`: no checkpoint names its variant yet",
                query.name
            ))
        })?;
        replay_pdn(&ReplayRequest {
            variant: variant.to_string(),
            pdn,
        })
    })
    .await
    .map(Json)
}

async fn replay(body: Bytes) -> Reply<Vec<crate::replay::ReplayGame>> {
    let request: ReplayRequest = parse(&body)?;
    blocking(move || replay_pdn(&request)).await.map(Json)
}
