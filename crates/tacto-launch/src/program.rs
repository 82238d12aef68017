//! The launch as a program of one's own: a binary that links its components' crates and hands
//! `main` to [`main`] is a launcher of launch files that place those components (and the ones
//! `tacto` ships), as `tacto launch` is for `tacto`'s.
//!
//! ```no_run
//! // src/bin/my_system.rs
//! use my_robot_nodes as _; // links the crate, so its `component!` lines register
//! # mod my_robot_nodes {}
//!
//! fn main() -> std::process::ExitCode {
//!     tacto_launch::program::main()
//! }
//! ```
//!
//! `my_system robot.toml robot:=r2` then runs the file as `tacto launch robot.toml robot:=r2`
//! does; its processes of components are this binary again (`my_system launch-process FILE
//! NAME ...`), so they host the same components.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::ExitCode;

use crate::args::from_command_line;
use crate::file::LaunchFile;
use crate::interrupt::{self, Interrupt};
use crate::process::{ProcessError, run_process};
use crate::supervise::{LaunchError, launch};

/// How a launch ended other than well.
enum Failure {
    Interrupted,
    Error(String),
}

/// Runs the command line: `FILE [NAME:=VALUE ...]` launches the file, `launch-process FILE NAME
/// [NAME:=VALUE ...]` is one of its processes (as the launch starts them). Exits with 0, 1 on
/// an error (said on stderr with the program's name), or 130 after Ctrl-C.
pub fn main() -> ExitCode {
    let mut args = std::env::args_os();
    let program = (args.next())
        .and_then(|p| {
            Path::new(&p)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
        })
        .unwrap_or_else(|| "launch".into());
    let args: Result<Vec<String>, _> = args.map(|a| a.into_string()).collect();
    let Ok(args) = args else {
        eprintln!("{program}: an argument is not UTF-8");
        return ExitCode::FAILURE;
    };
    let interrupt = match Interrupt::install() {
        Ok(interrupt) => interrupt,
        Err(e) => {
            eprintln!("{program}: cannot install the Ctrl-C handler: {e}");
            return ExitCode::FAILURE;
        }
    };
    match run(&args, &interrupt) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Interrupted) => {
            ExitCode::from(u8::try_from(interrupt::EXIT_CODE).unwrap_or(1))
        }
        Err(Failure::Error(message)) => {
            eprintln!("{program}: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &[String], interrupt: &Interrupt) -> Result<(), Failure> {
    let error = |e: &dyn std::fmt::Display| Failure::Error(e.to_string());
    let given = |args: &[String]| -> Result<BTreeMap<String, String>, Failure> {
        from_command_line(args).map_err(|e| error(&e))
    };
    match args {
        [command, file, name, rest @ ..] if command == "launch-process" => {
            let path = Path::new(file);
            let file = LaunchFile::load_with(path, &given(rest)?).map_err(|e| error(&e))?;
            run_process(&file, name, interrupt).map_err(|e: ProcessError| error(&e))
        }
        [file, rest @ ..] if !file.starts_with('-') => {
            let path = Path::new(file);
            let launch_file = LaunchFile::load_with(path, &given(rest)?).map_err(|e| error(&e))?;
            match launch(path, &launch_file, rest, interrupt) {
                Ok(()) => Ok(()),
                Err(LaunchError::Interrupted) => Err(Failure::Interrupted),
                Err(e) => Err(error(&e)),
            }
        }
        _ => Err(Failure::Error(
            "usage: FILE.toml [NAME:=VALUE ...] (a launch file and its arguments)".into(),
        )),
    }
}
