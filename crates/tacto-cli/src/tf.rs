//! `tacto tf`: `echo` a transform as tf2_echo prints it, draw the `frames` tree as
//! view_frames does.

use std::fs;
use std::path::PathBuf;
use std::time::Duration;

use clap::Subcommand;
use tacto_launch::interrupt::Interrupt;

use crate::Failure;
use crate::bench::warmup;

#[derive(Debug, Subcommand)]
pub(crate) enum TfCommand {
    /// Prints the transform that takes data from TARGET into SOURCE, at the latest time both
    /// have data, as tf2_echo does, until Ctrl-C.
    Echo {
        /// The frame the data is taken into.
        source: String,
        /// The frame the data is in.
        target: String,
        /// Prints per second.
        #[arg(long, value_name = "HZ", default_value = "1", value_parser = tf_rate)]
        rate: f64,
        /// Stop after this many prints.
        #[arg(long, value_name = "N")]
        count: Option<u64>,
    },
    /// Listens to /tf and /tf_static, then prints the frames as tf2's allFramesAsYAML and
    /// writes the tree as view_frames does: NAME.gv (Graphviz text) and NAME.svg (a picture).
    Frames {
        /// Seconds to listen before describing the tree.
        #[arg(short = 't', long, value_name = "S", default_value = "5", value_parser = warmup)]
        wait_time: Duration,
        /// The output files' name, without extension (default: frames_DATE_TIME, as view_frames names them).
        #[arg(short = 'o', long, value_name = "NAME")]
        output: Option<PathBuf>,
    },
}

pub(crate) fn tf_rate(s: &str) -> Result<f64, String> {
    tacto_graph::tf::parse_rate(s).map_err(|e| e.to_string())
}

pub(crate) fn tf_command(command: TfCommand, interrupt: &Interrupt) -> Result<(), Failure> {
    use tacto_graph::tf;
    let (_context, listener) = tf::graph_listener(tacto_dds::Participant::from_env()?)?;
    let stop = || interrupt.requested();
    match command {
        TfCommand::Echo {
            source,
            target,
            rate,
            count,
        } => {
            let options = tf::EchoOptions { rate, count };
            // Unlocked: the listener's thread may print too (a malformed sample's line).
            let (mut out, mut log) = (std::io::stdout(), std::io::stderr());
            tf::echo(
                &listener, &source, &target, options, &mut out, &mut log, &stop,
            )?;
        }
        TfCommand::Frames { wait_time, output } => {
            eprintln!("[INFO] [view_frames]: Listening to tf data for {wait_time:?}...");
            let report = tf::frames(&listener, wait_time, &stop);
            let name = output.unwrap_or_else(|| {
                PathBuf::from(tf::default_output_name(std::time::SystemTime::now()))
            });
            // Appended, not set: the default name's time has dots.
            let with = |extension: &str| {
                let mut file = name.clone().into_os_string();
                file.push(extension);
                PathBuf::from(file)
            };
            let (gv, svg) = (with(".gv"), with(".svg"));
            fs::write(&gv, tf::frames_dot(&report.frames, report.recorded))
                .map_err(|e| format!("writing {}: {e}", gv.display()))?;
            fs::write(&svg, tf::frames_svg(&report.frames, report.recorded))
                .map_err(|e| format!("writing {}: {e}", svg.display()))?;
            println!("{}", report.yaml);
            eprintln!(
                "[INFO] [view_frames]: Exported the graph in {} and {}",
                gv.display(),
                svg.display()
            );
        }
    }
    if interrupt.requested() {
        return Err(Failure::Interrupted);
    }
    Ok(())
}
