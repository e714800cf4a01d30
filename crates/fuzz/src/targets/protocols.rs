//! Targets over the protocols: Hub lines (the client's parser, our server over a scripted
//! session) and DXP messages (parsed and matched against legal moves, and sent to our server by
//! a loopback peer).

use super::{SeedMaker, Target, random_games, seeds_per_variant, split_variant, variant_input};
use damas_arena::dxp::server::{DxpOptions, serve_stream};
use damas_arena::dxp::{find_move, game_request, move_message, parse_move_message};
use damas_arena::hub::Message;
use damas_arena::hub::server::{Lines, ServerOptions, serve};
use damas_arena::{PlayerSettings, PlayerSpec};
use damas_engine::Limits;
use damas_rules::notation::hub;
use damas_rules::{
    Color, Game, Geometry, Position, Rules, Variant, VariantVisitor, parse_fen, parse_move, to_fen,
    try_to_hub,
};
use rand::rngs::SmallRng;
use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::time::Duration;

/// Hub lines as the arena's client reads an engine's answers: the line parser, then the move of
/// a `done` line read against the start position.
pub struct HubLine {
    seeds: Vec<Vec<Vec<u8>>>,
}

struct HubLineSeeds;
impl SeedMaker for HubLineSeeds {
    fn make<V: Rules>(&self) -> Vec<Vec<u8>> {
        let start = Game::<V>::new();
        let legal = start.legal_moves();
        let first = legal.first().map(hub::<V>).unwrap_or_default();
        let last = legal.last().map(hub::<V>).unwrap_or_default();
        [
            "id name=scan version=3.1 author=\"Fabien Letouzey\" country=France".to_string(),
            "param name=variant value=normal type=enum values=\"normal killer bt frisian losing\""
                .to_string(),
            "wait".into(),
            "ready".into(),
            "pong".into(),
            format!("done move={first} ponder={last}"),
            format!("done move={last}"),
            format!("info depth=5 mean-depth=5.2 score=0.12 nodes=1000 time=0.25 nps=4000 pv=\"{first} {last}\""),
            "error message=\"bad move\"".into(),
        ]
        .into_iter()
        .map(String::into_bytes)
        .collect()
    }
}

impl HubLine {
    /// Seeds: an engine's lines (Scan's) with legal moves of every variant.
    pub fn new() -> Self {
        HubLine {
            seeds: seeds_per_variant(&HubLineSeeds),
        }
    }
}

impl Default for HubLine {
    fn default() -> Self {
        Self::new()
    }
}

struct ReadDone<'a>(&'a Message);
impl VariantVisitor for ReadDone<'_> {
    type Output = bool;
    fn visit<V: Rules>(self) -> bool {
        let start = Position::initial::<V>();
        ["move", "ponder"]
            .iter()
            .filter_map(|key| self.0.value(key))
            .all(|text| parse_move::<V>(&start, text).is_ok())
    }
}

impl Target for HubLine {
    fn name(&self) -> &'static str {
        "hub-line"
    }
    fn weight(&self) -> u64 {
        20
    }
    fn generate(&self, rng: &mut SmallRng) -> Vec<u8> {
        variant_input(rng, &self.seeds, true)
    }
    fn run(&self, input: &[u8]) -> bool {
        let (variant, rest) = split_variant(input);
        let line = String::from_utf8_lossy(rest);
        match Message::parse(&line) {
            Ok(message) => {
                let _ = message.to_string();
                message.command != "done" || variant.visit(ReadDone(&message))
            }
            Err(_) => false,
        }
    }
}

/// Our Hub server (`damas hub`, alpha-beta) over a scripted session: the input's lines, then
/// the end of the input, which must end the session whatever it left running.
pub struct HubServer {
    seeds: Vec<Vec<Vec<u8>>>,
}

struct SessionSeeds;
impl SeedMaker for SessionSeeds {
    fn make<V: Rules>(&self) -> Vec<Vec<u8>> {
        let mut seeds = Vec::new();
        for game in random_games::<V>(4, 30, 5) {
            let moves: Vec<String> = game.moves().iter().map(hub::<V>).collect();
            let position = try_to_hub::<V>(game.position()).unwrap_or_default();
            let later = game.legal_moves().first().map(hub::<V>).unwrap_or_default();
            let text = format!(
                "hub\nset-param name=variant value={}\ninit\nnew-game\npos moves=\"{}\"\n\
                 level depth=2\ngo think\nping\nstop\npos pos={position} moves=\"{later}\"\n\
                 level nodes=200\ngo\nstop\nlevel move-time=0.01\ngo analyze\nponder-hit\nstop\n\
                 new-game\nlevel depth=1 infinite\ngo ponder\nquit\n",
                V::NAME,
                moves.join(" ")
            );
            seeds.push(text.into_bytes());
        }
        seeds
    }
}

impl HubServer {
    /// Seeds: a GUI's session for every variant (parameters, positions, searches, stops).
    pub fn new() -> Self {
        HubServer {
            seeds: seeds_per_variant(&SessionSeeds),
        }
    }
}

impl Default for HubServer {
    fn default() -> Self {
        Self::new()
    }
}

impl Target for HubServer {
    fn name(&self) -> &'static str {
        "hub-server"
    }
    fn weight(&self) -> u64 {
        1
    }
    fn generate(&self, rng: &mut SmallRng) -> Vec<u8> {
        let mut input = variant_input(rng, &self.seeds, false);
        input.truncate(4096);
        input
    }
    fn run(&self, input: &[u8]) -> bool {
        // A GUI may ask for a table of up to 4 GiB (`tt-size`): a legitimate request that the
        // allocation cap would refuse, so those lines are left out; the table here is 1 MiB.
        let script: Vec<u8> = input[1.min(input.len())..]
            .split(|&b| b == b'\n')
            .filter(|line| !line.windows(7).any(|w| w == b"tt-size"))
            .flat_map(|line| line.iter().copied().chain([b'\n']))
            .collect();
        let options = ServerOptions {
            tt_megabytes: 1,
            model: None,
            device: damas_nn::cpu(),
            egdb: None,
        };
        serve(script.as_slice(), &Lines::new(std::io::sink()), &options).is_ok()
    }
}

/// DXP MOVE messages: parsed, and matched against the legal moves of a position given as FEN
/// on the input's first line (the start if it does not read).
pub struct DxpMessage {
    seeds: Vec<Vec<Vec<u8>>>,
}

struct MoveMessageSeeds;
impl SeedMaker for MoveMessageSeeds {
    fn make<V: Rules>(&self) -> Vec<Vec<u8>> {
        let mut seeds = Vec::new();
        for game in random_games::<V>(10, 80, 6) {
            let fen = to_fen::<V>(game.position());
            for mv in game.legal_moves().iter().take(3) {
                seeds.push(format!("{fen}\n{}", move_message::<V>(mv, 12)).into_bytes());
            }
        }
        seeds
    }
}

impl DxpMessage {
    /// Seeds: MOVE messages of legal moves along random games of every variant.
    pub fn new() -> Self {
        DxpMessage {
            seeds: seeds_per_variant(&MoveMessageSeeds),
        }
    }
}

impl Default for DxpMessage {
    fn default() -> Self {
        Self::new()
    }
}

struct FindMove<'a>(&'a str);
impl VariantVisitor for FindMove<'_> {
    type Output = bool;
    fn visit<V: Rules>(self) -> bool {
        let (fen, message) = self.0.split_once('\n').unwrap_or(("", self.0));
        let position = parse_fen::<V>(fen).unwrap_or_else(|_| Position::initial::<V>());
        let _ = parse_move_message(message);
        find_move(&Game::<V>::from_position(position), message).is_some()
    }
}

impl Target for DxpMessage {
    fn name(&self) -> &'static str {
        "dxp-message"
    }
    fn weight(&self) -> u64 {
        20
    }
    fn generate(&self, rng: &mut SmallRng) -> Vec<u8> {
        variant_input(rng, &self.seeds, true)
    }
    fn run(&self, input: &[u8]) -> bool {
        let (variant, rest) = split_variant(input);
        variant.visit(FindMove(&String::from_utf8_lossy(rest)))
    }
}

/// Our DXP server (`damas dxp --listen`) on one loopback connection: a peer sends the input's
/// bytes (NUL-terminated messages), then closes its side; the server must refuse or play what
/// it gets and return when the connection ends.
pub struct DxpServer {
    variant: Variant,
    seeds: Vec<Vec<u8>>,
}

struct Is10x10;
impl VariantVisitor for Is10x10 {
    type Output = bool;
    fn visit<V: Rules>(self) -> bool {
        V::Geometry::WIDTH == 10 && V::Geometry::DARK_ONLY
    }
}

struct ServerSeeds;
impl SeedMaker for ServerSeeds {
    fn make<V: Rules>(&self) -> Vec<Vec<u8>> {
        let start = Position::initial::<V>();
        let join = |messages: &[String]| {
            let mut bytes = Vec::new();
            for m in messages {
                bytes.extend_from_slice(m.as_bytes());
                bytes.push(0);
            }
            bytes
        };
        let mut seeds = Vec::new();
        for game in random_games::<V>(4, 12, 7) {
            let moves: Vec<String> = game
                .moves()
                .iter()
                .map(|m| move_message::<V>(m, 3))
                .collect();
            // The server plays Black: our moves are White's, some of them answers it did not
            // expect.
            let mut as_white = vec![game_request::<V>("peer", Color::Black, 5, 50, &start)];
            as_white.extend(moves.iter().step_by(2).cloned());
            as_white.push("Chello".into());
            as_white.push("B005W".into());
            as_white.push("E00".into());
            seeds.push(join(&as_white));
            // The server plays White from a later position, we chat and end the game.
            let request = game_request::<V>("peer", Color::White, 1, 0, game.position());
            seeds.push(join(&[request, "Chi".into(), "E10".into(), "E00".into()]));
        }
        seeds.push(join(&[
            "Cno request".into(),
            "X".into(),
            "R".into(),
            "E00".into(),
        ]));
        seeds
    }
}

impl DxpServer {
    /// A server for the first 10x10 variant, playing alpha-beta at depth 1; seeds: requests,
    /// moves, chats, take-back requests and game ends.
    pub fn new() -> Self {
        let variant = *Variant::ALL
            .iter()
            .find(|v| v.visit(Is10x10))
            .expect("a 10x10 variant");
        struct One;
        impl VariantVisitor for One {
            type Output = Vec<Vec<u8>>;
            fn visit<V: Rules>(self) -> Vec<Vec<u8>> {
                ServerSeeds.make::<V>()
            }
        }
        DxpServer {
            variant,
            seeds: variant.visit(One),
        }
    }
}

impl Default for DxpServer {
    fn default() -> Self {
        Self::new()
    }
}

thread_local! {
    static LISTENER: TcpListener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
}

/// How long either side of the loopback connection waits on a read or a write.
const PEER_WAIT: Duration = Duration::from_millis(500);

impl Target for DxpServer {
    fn name(&self) -> &'static str {
        "dxp-server"
    }
    fn weight(&self) -> u64 {
        1
    }
    fn generate(&self, rng: &mut SmallRng) -> Vec<u8> {
        let seeds: Vec<&[u8]> = self.seeds.iter().map(Vec::as_slice).collect();
        let mut input = crate::mutate::from_seeds(rng, &seeds);
        input.truncate(4096);
        input
    }
    fn run(&self, input: &[u8]) -> bool {
        let options = DxpOptions {
            engine: PlayerSpec::AlphaBeta {
                limits: Limits::depth(1),
                egdb: false,
            },
            settings: PlayerSettings::default(),
            variant: self.variant,
            name: "fuzz".into(),
            max_plies: 200,
            games: 0,
        };
        let Ok((ours, peer)) = LISTENER.with(|listener| {
            let peer = TcpStream::connect(listener.local_addr()?)?;
            let (ours, _) = listener.accept()?;
            Ok::<_, std::io::Error>((ours, peer))
        }) else {
            return false;
        };
        for stream in [&ours, &peer] {
            let _ = stream.set_read_timeout(Some(PEER_WAIT));
            let _ = stream.set_write_timeout(Some(PEER_WAIT));
        }
        let bytes = input.to_vec();
        let sender = std::thread::spawn(move || {
            let mut peer = peer;
            let _ = peer.write_all(&bytes);
            let _ = peer.shutdown(Shutdown::Write);
            let mut sink = [0u8; 4096];
            while matches!(peer.read(&mut sink), Ok(n) if n > 0) {}
        });
        let result = serve_stream(ours, &options, false, &mut |_| {});
        let _ = sender.join();
        result.is_ok()
    }
}
