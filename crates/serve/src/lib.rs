//! `damas serve`: a board in the browser. Play any variant against the players the server was
//! started with, watch the runs under a directory, replay games.
//!
//! The server is axum on a tokio runtime; the page is static files built into the binary
//! ([`assets`]), plain HTML, CSS and JavaScript with SVG, drawn from the geometry the rules crate
//! reports ([`board`]). The JSON API ([`api`]) is what the page and the tests call. The browser
//! chooses players, runs and game files only among those the server lists: it never sends a
//! path, a player string or a command.

pub mod api;
pub mod assets;
pub mod board;
pub mod error;
pub mod players;
pub mod replay;
pub mod runs;

pub use error::ApiError;

use damas_arena::PlayerSpec;
use damas_nn::Device;
use players::{Roster, RosterError, Searches};
use runs::{Runs, RunsError};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

/// What `damas serve` is started with.
#[derive(Clone, Debug)]
pub struct ServeOptions {
    /// The address to listen on.
    pub listen: SocketAddr,
    /// The directory of runs to show and whose newest checkpoints are players.
    pub runs: Option<PathBuf>,
    /// Players offered besides the default ones.
    pub players: Vec<PlayerSpec>,
    /// Searches running at once, over every page.
    pub max_searches: u16,
    /// The device networks run on.
    pub device: Device,
}

impl ServeOptions {
    /// The default address: this machine only.
    pub const DEFAULT_LISTEN: &str = "127.0.0.1:8080";
    /// The default cap on searches at once.
    pub const DEFAULT_MAX_SEARCHES: u16 = 2;
}

/// Why the server did not start or stopped.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The players given do not make a roster.
    #[error(transparent)]
    Roster(#[from] RosterError),
    /// The runs directory cannot be read.
    #[error(transparent)]
    Runs(#[from] RunsError),
    /// The address cannot be listened on, or serving failed.
    #[error("listening on {address}")]
    Listen {
        /// The address.
        address: SocketAddr,
        /// What failed.
        #[source]
        source: std::io::Error,
    },
}

/// What every request shares.
pub struct Server {
    variants: Vec<board::VariantInfo>,
    roster: Roster,
    runs: Option<Runs>,
    searches: Searches,
}

impl Server {
    /// The server's state from its options (players checked, runs directory opened).
    pub fn new(options: &ServeOptions) -> Result<Self, ServeError> {
        Ok(Server {
            variants: board::variants(),
            roster: Roster::new(&options.players)?,
            runs: options.runs.as_deref().map(Runs::open).transpose()?,
            searches: Searches::new(options.max_searches, options.device.clone()),
        })
    }
}

/// Whether `address` is reachable only from this machine.
pub fn is_loopback(address: &SocketAddr) -> bool {
    address.ip().is_loopback()
}

/// Serves until the process ends: binds `options.listen`, calls `ready` with the address
/// bound (port 0 picks one), then answers requests.
pub fn serve(options: &ServeOptions, ready: impl FnOnce(SocketAddr)) -> Result<(), ServeError> {
    let server = Arc::new(Server::new(options)?);
    let address = options.listen;
    let listen_error = |source| ServeError::Listen { address, source };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(listen_error)?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(address)
            .await
            .map_err(listen_error)?;
        ready(listener.local_addr().map_err(listen_error)?);
        axum::serve(listener, api::router(server))
            .await
            .map_err(listen_error)
    })
}
