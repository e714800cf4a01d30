//! The Hub protocol (Scan's; lidraughts runs engines through it): one line per message,
//! `command key=value key="quoted value" flag`, over an engine's standard input and output.
//!
//! - this module: the line format, read and written, shared by both sides;
//! - [`client`]: [`HubPlayer`](client::HubPlayer), an outside engine as an arena player;
//! - [`server`]: our own engines (alpha-beta, or a network under MCTS) behind the protocol.

pub mod client;
pub mod server;
mod session;

use std::collections::HashMap;
use std::fmt;

/// One protocol line: its command, its `key=value` pairs and its bare flags.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Message {
    /// The first word.
    pub command: String,
    /// `key=value` and `key="quoted value"` words, quotes removed.
    pub values: HashMap<String, String>,
    /// Words without `=`, in order.
    pub flags: Vec<String>,
}

/// Why a line is not a message.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MessageError {
    /// Nothing but white space.
    #[error("empty line")]
    Empty,
    /// A `"` without its closing one.
    #[error("unterminated quote")]
    UnterminatedQuote,
}

impl Message {
    /// A message with just a command.
    pub fn new(command: &str) -> Self {
        Message {
            command: command.to_string(),
            ..Message::default()
        }
    }

    /// Adds `key=value` (quoted when written if it holds spaces or is empty).
    pub fn with(mut self, key: &str, value: impl fmt::Display) -> Self {
        self.values.insert(key.to_string(), value.to_string());
        self
    }

    /// Reads one line.
    pub fn parse(line: &str) -> Result<Message, MessageError> {
        let mut words = Vec::new();
        let mut chars = line.trim().chars().peekable();
        while chars.peek().is_some() {
            while chars.next_if(|c| c.is_whitespace()).is_some() {}
            let mut word = String::new();
            let mut quoted = false;
            while let Some(&c) = chars.peek() {
                if c == '"' {
                    quoted = !quoted;
                    chars.next();
                } else if c.is_whitespace() && !quoted {
                    break;
                } else {
                    word.push(c);
                    chars.next();
                }
            }
            if quoted {
                return Err(MessageError::UnterminatedQuote);
            }
            if !word.is_empty() {
                words.push(word);
            }
        }
        let mut words = words.into_iter();
        let command = words.next().ok_or(MessageError::Empty)?;
        let mut message = Message::new(&command);
        for word in words {
            match word.split_once('=') {
                Some((key, value)) => {
                    message.values.insert(key.to_string(), value.to_string());
                }
                None => message.flags.push(word),
            }
        }
        Ok(message)
    }

    /// The value of `key`, if given.
    pub fn value(&self, key: &str) -> Option<&str> {
        self.values.get(key).map(String::as_str)
    }
}

impl fmt::Display for Message {
    /// Writes the line (keys sorted, so the same message is always the same line).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.command)?;
        let mut keys: Vec<&String> = self.values.keys().collect();
        keys.sort();
        for key in keys {
            let value = &self.values[key];
            if value.is_empty() || value.contains(char::is_whitespace) {
                write!(f, " {key}=\"{}\"", value.replace('"', "'"))?;
            } else {
                write!(f, " {key}={value}")?;
            }
        }
        for flag in &self.flags {
            write!(f, " {flag}")?;
        }
        Ok(())
    }
}

/// An `error message="..."` line.
pub fn error_line(text: impl fmt::Display) -> String {
    format!("error message=\"{}\"", text.to_string().replace('"', "'"))
}
