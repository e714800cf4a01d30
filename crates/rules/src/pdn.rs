//! PDN game records (shared/reference/protocols.md): tag pairs, then numbered moves, then the
//! result. Writing for people and other programs to replay; reading with every move checked
//! against the rules, and errors that name the line.

use crate::fen::{parse_fen, to_fen};
use crate::game::{Game, Outcome};
use crate::notation::{parse_move, pdn};
use crate::position::Position;
use crate::variant::Rules;
use std::fmt::Write;

/// A game read from PDN: its tags, the moves replayed from its start, and the result written.
#[derive(Clone, Debug)]
pub struct PdnGame<V: Rules> {
    /// Tag pairs in file order.
    pub tags: Vec<(String, String)>,
    /// The start position (from the `FEN` tag, or the variant's start) with every move played.
    pub game: Game<V>,
    /// The result token (`2-0`, `1-0`, `1/2-1/2`, `*`, ...), if the movetext had one.
    pub result: Option<String>,
}

impl<V: Rules> PdnGame<V> {
    /// The value of tag `name`, if present.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }
}

/// Why a PDN text was not accepted: what is wrong and on which line (1-based).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("PDN line {line}: {message}")]
pub struct ParsePdnError {
    /// The line of the offending text.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

/// Writes `game` as one PDN record: the given tags, `GameType`, `SetUp`/`FEN` when the game did
/// not start from the variant's start, the moves (short PDN, full path where ambiguous) and the
/// result (`*` while the game is not over).
pub fn write_game<V: Rules>(game: &Game<V>, tags: &[(&str, &str)]) -> String {
    write_game_with_outcome(game, tags, game.outcome())
}

/// Writes `game` as [`write_game`] does, with the result of `outcome` (a resignation or an
/// adjudication the rules do not know about), `*` for none.
pub fn write_game_with_outcome<V: Rules>(
    game: &Game<V>,
    tags: &[(&str, &str)],
    outcome: Option<Outcome>,
) -> String {
    let result = outcome.map_or("*", |outcome: Outcome| outcome.pdn_result::<V::Geometry>());
    let mut text = String::new();
    for (name, value) in tags {
        let _ = writeln!(text, "[{name} \"{}\"]", value.replace('"', "'"));
    }
    let _ = writeln!(text, "[Result \"{result}\"]");
    let _ = writeln!(text, "[GameType \"{}\"]", V::GAME_TYPE);
    let start = *game.start();
    if start != Position::initial::<V>() {
        let _ = writeln!(text, "[SetUp \"1\"]");
        let _ = writeln!(text, "[FEN \"{}\"]", to_fen::<V>(&start));
    }
    text.push('\n');
    let mut tokens = Vec::new();
    let mut position = start;
    let second_to_start = start.turn() != V::FIRST_MOVER;
    for (ply, mv) in game.moves().iter().enumerate() {
        let index = ply + second_to_start as usize;
        let number = index / 2 + 1;
        if index.is_multiple_of(2) {
            tokens.push(format!("{number}."));
        } else if ply == 0 {
            tokens.push(format!("{number}..."));
        }
        let mut legal = crate::MoveList::new();
        crate::legal_moves::<V>(&position, &mut legal);
        tokens.push(pdn::<V>(&position, mv, &legal));
        position.play(mv);
    }
    tokens.push(result.to_string());
    let mut line = String::new();
    for token in tokens {
        if !line.is_empty() && line.len() + 1 + token.len() > 79 {
            text.push_str(&line);
            text.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&token);
    }
    text.push_str(&line);
    text.push('\n');
    text
}

/// Whether `token` is a game result.
fn is_result(token: &str) -> bool {
    matches!(
        token,
        "2-0" | "0-2" | "1-1" | "1-0" | "0-1" | "1/2-1/2" | "0-0" | "*"
    )
}

/// Reads every game of a PDN text, replaying and checking each move.
pub fn read_games<V: Rules>(text: &str) -> Result<Vec<PdnGame<V>>, ParsePdnError> {
    let mut games = Vec::new();
    let mut tags: Vec<(String, String)> = Vec::new();
    let mut current: Option<Game<V>> = None;
    let mut result: Option<String> = None;
    let mut in_comment = false;
    let finish = |tags: &mut Vec<(String, String)>,
                  current: &mut Option<Game<V>>,
                  result: &mut Option<String>,
                  games: &mut Vec<PdnGame<V>>| {
        if let Some(game) = current.take() {
            games.push(PdnGame {
                tags: std::mem::take(tags),
                game,
                result: result.take(),
            });
        }
    };
    for (index, raw) in text.lines().enumerate() {
        let line_number = index + 1;
        let fail = |message: String| ParsePdnError {
            line: line_number,
            message,
        };
        let line = raw.trim();
        if !in_comment && line.starts_with('[') {
            if current.is_some() {
                finish(&mut tags, &mut current, &mut result, &mut games);
            }
            let inner = line
                .strip_prefix('[')
                .and_then(|l| l.strip_suffix(']'))
                .ok_or_else(|| fail(format!("tag `{line}` does not end with `]`")))?;
            let (name, value) = inner
                .split_once(char::is_whitespace)
                .ok_or_else(|| fail(format!("tag `{line}` has no value")))?;
            let value = value
                .trim()
                .strip_prefix('"')
                .and_then(|v| v.strip_suffix('"'))
                .ok_or_else(|| {
                    fail(format!("the value of tag `{name}` is not in double quotes"))
                })?;
            tags.push((name.to_string(), value.to_string()));
            continue;
        }
        for token in line.split_whitespace() {
            if in_comment {
                in_comment = !token.contains('}');
                continue;
            }
            if token.starts_with('{') {
                in_comment = !token.contains('}');
                continue;
            }
            if token.starts_with('$') {
                continue;
            }
            if token.starts_with('(') {
                return Err(fail("variations in parentheses are not supported".into()));
            }
            let game = match current.as_mut() {
                Some(game) => game,
                None => {
                    let start = match tags.iter().find(|(k, _)| k.eq_ignore_ascii_case("FEN")) {
                        Some((_, fen)) => {
                            parse_fen::<V>(fen).map_err(|e| fail(format!("bad FEN tag: {e}")))?
                        }
                        None => Position::initial::<V>(),
                    };
                    current.insert(Game::from_position(start))
                }
            };
            if is_result(token) {
                result = Some(token.to_string());
                finish(&mut tags, &mut current, &mut result, &mut games);
                continue;
            }
            // Move numbers: `12.` or `12...`, possibly glued to the move (`12.32-28`).
            let token = match token.find('.') {
                Some(dot) if token[..dot].chars().all(|c| c.is_ascii_digit()) => {
                    token[dot..].trim_start_matches('.')
                }
                _ => token,
            };
            if token.is_empty() {
                continue;
            }
            let mv = parse_move::<V>(game.position(), token.trim_end_matches(['!', '?']))
                .map_err(|e| fail(format!("move {}: {e}", game.ply() / 2 + 1)))?;
            game.play(&mv);
        }
    }
    if in_comment {
        return Err(ParsePdnError {
            line: text.lines().count(),
            message: "a comment `{` is never closed".into(),
        });
    }
    finish(&mut tags, &mut current, &mut result, &mut games);
    Ok(games)
}
