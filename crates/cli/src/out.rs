//! Standard output for every command. A reader that goes away (`damas perft ... | head -2`)
//! ends the program quietly with success, as `head` expects, instead of the panic of
//! `println!`; any other write error ends it with a message and status 2.

use std::fmt;
use std::io::{self, Write};

/// Prints a line to standard output (`println!` that ends quietly on a closed pipe).
macro_rules! outln {
    () => {
        $crate::out::write(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::out::write(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// Prints to standard output and flushes (`print!` for prompts; ends quietly on a closed pipe).
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::out::write(format_args!($($arg)*))
    };
}

pub(crate) use {out, outln};

/// Writes `text` to standard output and flushes it.
pub fn write(text: fmt::Arguments) {
    let mut stdout = io::stdout().lock();
    if let Err(error) = stdout.write_fmt(text).and_then(|()| stdout.flush()) {
        stop(&error);
    }
}

/// Ends the program after a failed write to standard output: quietly with success when the
/// reader has gone, else with the error and status 2.
pub fn stop(error: &io::Error) -> ! {
    if error.kind() != io::ErrorKind::BrokenPipe {
        eprintln!("error: cannot write to standard output: {error}");
        std::process::exit(2);
    }
    std::process::exit(0)
}
